"""The `tokenprism` command: argparse subcommands, one module per command group in this package.

This file only builds the parser and runs the chosen handler. Handlers return an exit code and
raise ValueError/KeyError/OSError for bad input; `main` turns those into one line on stderr and
exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys

# Each module defines `register(subparsers)`; the order is the order in `--help`.
_COMMAND_MODULES = (
    "analysis.cli.tokenizers",  # tokenizers, compare, vocab
    "analysis.cli.count",  # count
    "analysis.cli.bpe",  # explain, train
    "analysis.cli.corpus",  # corpus list/show/stats
    "analysis.cli.dashboard",  # dashboard
    "analysis.cli.cost",  # cost, models
    "analysis.cli.measure",  # measure, report, plot, probe
    "analysis.cli.serve",  # serve
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tokenprism",
        description="See how LLM tokenizers treat your text: counts, boundaries, cost, and why.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in _COMMAND_MODULES:
        importlib.import_module(mod).register(sub)
    return parser


# The library names the Python argument that fixes a problem ("pass column=NAME"); on the command
# line the same fix is a flag. One table here, so no library message has to know about flags.
_FLAGS = (
    (re.compile(r"\berrors='(\w+)' or errors='(\w+)'"), r"--errors \1 or --errors \2"),
    (re.compile(r"\berrors='(\w+)'"), r"--errors \1"),
    (re.compile(r"\bcolumn=NAME\b"), "--column NAME"),
)


def _message(e: BaseException) -> str:
    # KeyError's str() adds quotes around the message; show the text itself.
    text = e.args[0] if isinstance(e, KeyError) and e.args and isinstance(e.args[0], str) else str(e)
    for pattern, flag in _FLAGS:
        text = pattern.sub(flag, text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("tokenprism: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `tokenprism ... | head`
        return 0
    except (ValueError, KeyError, OSError) as e:  # bad input; a TypeError is a bug and surfaces
        print(f"tokenprism {args.command}: error: {_message(e)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
