"""`python -m dashboards.serve run APP [OPTIONS]`: streamlit's own command, warmed up as soon as it
listens.

Streamlit runs the page scripts in threads of this same process, so what the warm-up thread
(`dashboards.warm`) imports, loads and compiles is what the pages use: the tokenizers, the
pages' imports (pandas, altair...) and the special-token regexes are ready by the time the
first page shows, and the first paste on a fresh server answers at once. `tokenprism dashboard`
starts the server through this module.
"""

from __future__ import annotations

import sys


def main() -> None:
    from dashboards import warm

    warm.start()  # a daemon thread: it waits until streamlit listens (health first), then warms up
    from streamlit.web import cli as streamlit_cli

    sys.argv = ["streamlit", *sys.argv[1:]]
    sys.exit(streamlit_cli.main())


if __name__ == "__main__":
    main()
