"""`python -m dashboards.serve run APP [OPTIONS]`: streamlit's own command, with the tokenizers
loading in a background thread from the moment the server process starts.

Streamlit runs the page scripts in threads of this same process, so the adapters that the
warm-up thread puts into the registry's cache are the ones the pages get: the first paste on a
fresh server answers without waiting for vocabularies to load. `tokenprism dashboard` starts
the server through this module.
"""

from __future__ import annotations

import sys


def main() -> None:
    from analysis.tokenizers import warm_up

    warm_up()  # daemon thread; errors surface on the page that needs the broken tokenizer
    from streamlit.web import cli as streamlit_cli

    sys.argv = ["streamlit", *sys.argv[1:]]
    sys.exit(streamlit_cli.main())


if __name__ == "__main__":
    main()
