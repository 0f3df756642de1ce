"""The `tokenprism` command: argparse subcommands, one module per command group in this package.

This file only builds the parser and runs the chosen handler. Handlers return an exit code and
refuse bad input by raising `BadInput` or `UnknownName` (analysis.errors) or an OSError (a file
that cannot be read); `main` turns those into one line on stderr and exit status 2. Anything
else is a bug in tokenprism: one line saying so and how to report it, exit status 1, and the
traceback only with TOKENPRISM_DEBUG=1.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import REFUSALS as _REFUSALS

# Each command: the module whose `register(subparsers)` adds it, and its line in `tokenprism
# --help` (the modules take their help from here, so the line exists once). The order is the
# order in `--help`. A module may register several commands.
COMMANDS: dict[str, tuple[str, str]] = {
    "tokenizers": ("tokenizers", "list every tokenizer, its vocabulary source and licence"),
    "compare": ("tokenizers", "count one text under several tokenizers or models"),
    "vocab": ("tokenizers", "vocabularies: list, fetch (Llama, Mistral, Gemma 3, Phi-4, GLM-4, legacy Claude) or audit"),
    "count": ("count", "input tokens of a text or a request under each model, chat format included"),
    "encode": ("tokens", "the token ids of a text, space-separated"),
    "decode": ("tokens", "the text of token ids (arguments or stdin)"),
    "truncate": ("tokens", "keep the first N tokens of a text"),
    "diff": ("drift", "how files' token counts change from one tokenizer to another (for CI)"),
    "explain": ("bpe", "show the BPE merges behind a split (ownbpe on real vocabularies)"),
    "train": ("bpe", "train an ownbpe model on your corpus"),
    "corpus": ("corpus", "list, show and summarise corpora (built-in or your own)"),
    "dashboard": ("dashboard", "serve the Streamlit dashboard (options go to `streamlit run`)"),
    "cost": ("cost", "what a workload costs under each model (prices from genai-prices)"),
    "models": ("cost", "models with their prices, tokenizer and exactness"),
    "measure": ("measure", "measure corpora under every tokenizer: chars/token by category"),
    "report": ("measure", "write a report folder: report.md, report.html, figures, tidy tables"),
    "plot": ("measure", "draw one report figure to a file"),
    "probe": ("measure", "print one probe table (why counts differ)"),
    "why": ("why", "the questions people ask (spelling, digits, YAML, <|endoftext|>, ...), each answered in one sentence"),
    "serve": ("serve", "run the HTTP JSON API (counts, tokenize, cost; vLLM and Anthropic shapes)"),
}


def help_line(command: str) -> str:
    """`command`'s line in `tokenprism --help` (for its module's `add_parser(..., help=...)`)."""
    return COMMANDS[command][1]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Help that shows a flag's default where there is one to show: never "(default: None)",
    "(default: False)" for a switch, or a second default where the help text names its own."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text or action.nargs == 0:
            return text
        return super()._get_help_string(action) or text


class Parser(argparse.ArgumentParser):
    """Every parser and sub-parser of `tokenprism`: no prefix matching (`--messages` is never read
    as `--messages-per-request`), `HelpFormatter` wherever a command asked for argparse's, and an
    argument a command does not take refused with that command's usage, not the top level's."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs["allow_abbrev"] = False
        if kwargs.get("formatter_class") in (None, argparse.HelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
            kwargs["formatter_class"] = HelpFormatter
        super().__init__(*args, **kwargs)

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = self.command_parser(list(sys.argv[1:] if args is None else args))
            command.error(unrecognized(command, extras))
        return parsed

    def command_parser(self, argv: list[str]) -> argparse.ArgumentParser:
        """The (sub)command parser `argv` names: `tokenprism vocab list ...` -> the `vocab list` parser."""
        parser: argparse.ArgumentParser = self
        for word in argv:
            sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
            if sub is None:
                break
            if word in sub.choices:
                parser = sub.choices[word]
        return parser


def unrecognized(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """The error for arguments `parser` does not take: each one, with the closest option it has.

    >>> p = Parser(prog="tokenprism count")
    >>> _ = p.add_argument("--format")
    >>> print(unrecognized(p, ["--frmat", "json"]))
    unrecognized arguments: --frmat json (did you mean --format? `tokenprism count -h` lists the options)
    """
    import difflib

    options = [o for a in parser._actions for o in a.option_strings]
    flags = [e.split("=", 1)[0] for e in extras if e.startswith("-")]
    close = [m for f in flags for m in difflib.get_close_matches(f, options, n=1, cutoff=0.75)]
    hint = f"did you mean {', '.join(dict.fromkeys(close))}? " if close else ""
    if {"-t", "--tokenizers"} & set(flags) and "-m" in options:
        hint += "this command counts per model (-m MODEL); a tokenizer is `tokenprism compare -t NAME`'s; "
    return f"unrecognized arguments: {' '.join(extras)} ({hint}`{parser.prog} -h` lists the options)"


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given the `argv` it will parse, only as much of it as that needs.

    With `argv`, only the module of the command named in it is imported and registered; the
    other commands are one line each (enough for `--help` and for "invalid choice" errors), so
    `tokenprism --help` and every command start without importing the others. Without `argv`,
    every command is registered in full (tests walk the whole parser).
    """
    parser = Parser(
        prog="tokenprism",
        description="See how LLM tokenizers treat your text: counts, boundaries, cost, and why.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = None if argv is None else next((a for a in argv if not a.startswith("-")), None)
    if wanted in COMMANDS:
        modules = [COMMANDS[wanted][0]]
    elif argv is None:
        modules = list(dict.fromkeys(module for module, _ in COMMANDS.values()))
    else:  # no command, or not one of ours: the list is all argparse needs to say so
        for name, (_, line) in COMMANDS.items():
            sub.add_parser(name, help=line)
        return parser
    for module in modules:
        importlib.import_module(f"analysis.cli.{module}").register(sub)
    return parser


# The library names the Python argument that fixes a problem ("pass column=NAME"); on the command
# line the same fix is a flag. One table here, so no library message has to know about flags.
_FLAGS = (
    (re.compile(r"\berrors='(\w+)' or errors='(\w+)'"), r"--errors \1 or --errors \2"),
    (re.compile(r"\berrors='(\w+)'"), r"--errors \1"),
    (re.compile(r"\bcolumn=NAME\b"), "--column NAME"),
    (re.compile(r"\bshape=SHAPE\b"), "--log-format SHAPE"),
)


def _message(e: BaseException) -> str:
    # KeyError's str() adds quotes around the message; show the text itself.
    text = e.args[0] if isinstance(e, KeyError) and e.args and isinstance(e.args[0], str) else str(e)
    for pattern, flag in _FLAGS:
        text = pattern.sub(flag, text)
    from ..render import terminal_text  # (imported when there is something to print: `--help` stays quick)

    # A message may quote the input: no escape sequence reaches the terminal, and a line break
    # in it (a file name may hold one) is shown as \n, so the error stays one line that no input
    # can follow with a forged one.
    return terminal_text(text.replace("\r\n", "\\r\\n").replace("\n", "\\n"))


def write_safe(text: str) -> None:
    """Write output that holds strings from the user's files (model names, notes) to stdout, with
    nothing a terminal would obey (`render.terminal_text`)."""
    from ..render import terminal_text

    sys.stdout.write(terminal_text(text))


def write_report_text(writers: Mapping[str, Callable[[Any, int | None], str]], fmt: str, report: Any, *,
                      width: int | None = None) -> None:
    """Write `report` to stdout in `fmt` by its report's table of writers (`width`: a terminal
    table's, for a report whose table is its own): JSON as it is (json escapes at its sink), the
    rest through `write_safe`. The cost and traffic reports' terminal tables are `cli.answer`'s."""
    text = writers[fmt](report, width)
    if fmt == "json":
        sys.stdout.write(text)
    else:
        write_safe(text)


DEBUG_ENV = "TOKENPRISM_DEBUG"  # 1: print the traceback of a bug
REFUSALS = _REFUSALS  # the refusals of every face (errors.REFUSALS)


def _is_refusal(e: BaseException) -> bool:
    return isinstance(e, REFUSALS)


def main(argv: list[str] | None = None) -> int:
    # Ctrl-C at any moment, even while the command modules are still being imported (the first
    # second), is one line and exit status 130, never a traceback. A C extension being imported
    # can turn the KeyboardInterrupt into an ImportError of its own ("PyCapsule_Import could not
    # import module"), with no trace of the interrupt, so the handler also notes that one came.
    came: list[int] = []

    def on_sigint(signum, frame):
        came.append(signum)
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, on_sigint)
    except ValueError:  # not the main thread (a test calling main): Python's own handler stays
        previous = None
    try:
        if previous is not None and hasattr(signal, "pthread_sigmask"):
            # A Ctrl-C held back by a caller reaches the handler here, inside the try that reports it.
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        return _run(argv, came)
    except BaseException as e:
        if not (came or interrupted(e)) or isinstance(e, SystemExit):
            raise
        print("tokenprism: interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def interrupted(e: BaseException) -> bool:
    """True when `e` is a Ctrl-C, or was raised while handling one (numpy turns a Ctrl-C during
    its import into "ImportError: Unable to import required dependency numpy")."""
    seen: set[int] = set()
    cause: BaseException | None = e
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


# numpy's OpenBLAS starts a thread per core when numpy is imported, and the threads spin for a
# while: 0.06-0.1 s of CPU per command that imports numpy (docs/measuring.md), for linear algebra
# that no command does. A command runs BLAS on one thread unless the user says otherwise.
BLAS_THREADS_ENV = ("OPENBLAS_NUM_THREADS", "1")


def _run(argv: list[str] | None, came: list[int]) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "numpy" not in sys.modules:  # read once, when OpenBLAS loads
        os.environ.setdefault(*BLAS_THREADS_ENV)
    parser = build_parser(argv)
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
    except Exception as e:
        if came or interrupted(e):  # a Ctrl-C inside an import of the command's own
            print("tokenprism: interrupted", file=sys.stderr)
            return 130
        if _is_refusal(e):
            print(f"tokenprism {args.command}: error: {_message(e)}", file=sys.stderr)
            return 2
        print(f"tokenprism {args.command}: internal error ({type(e).__name__}: {_message(e)}). This is a bug in "
              f"tokenprism, not in your input; please report it with the command you ran and the traceback "
              f"({DEBUG_ENV}=1 prints it).", file=sys.stderr)
        if os.environ.get(DEBUG_ENV, "") not in ("", "0"):
            import traceback

            traceback.print_exc()
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
