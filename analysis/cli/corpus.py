"""`tokenprism corpus list|show|stats`: look at the corpora before measuring them.

Unlike `cli.tokenizers` (which tokenizes), these commands only load text: the built-in
corpora, the user's files and folders, parallel folders, and the corpora already on the
machine. Handlers return an exit code and raise BadInput/UnknownName for bad input.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the library loads in the handler that needs it: `--help` stays quick
    import pandas as pd

from . import help_line
from .table import emit
from .tokenizers import add_wide, table_width
from ..textio import ERRORS
from ..errors import BadInput

FORMATS = ("table", "csv", "json")
_STATS_BY = ("category", "language", "script", "kind")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `corpus` with its sub-commands to the `tokenprism` parser."""
    from ..corpora.names import CATEGORIES

    fmt = argparse.ArgumentParser(add_help=False)
    fmt.add_argument("--format", choices=FORMATS, default="table", help="output format")
    add_wide(fmt)

    p = subparsers.add_parser("corpus", help=help_line("corpus"),
                              description=__doc__.split("\n", 1)[0],
                              formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    sub = p.add_subparsers(dest="corpus_command", metavar="SUBCOMMAND", required=True)

    ls = sub.add_parser("list", parents=[fmt], formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                        help="built-in categories (or samples) with counts and sizes")
    ls.add_argument("categories", nargs="*", metavar="CATEGORY", help=f"only these ({', '.join(CATEGORIES)})")
    ls.add_argument("--samples", action="store_true", help="one row per sample instead of per category")
    ls.add_argument("--system", action="store_true", help="list the corpora found on this machine instead")
    ls.set_defaults(func=cmd_list)

    show = sub.add_parser("show", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                          help="print one built-in sample's text exactly")
    show.add_argument("id", metavar="ID", help="sample id, e.g. prose/email-01 or numbers/year")
    show.add_argument("--visible", action="store_true", help="draw spaces, tabs, CR and LF visibly (· → ␍ ↵)")
    show.set_defaults(func=cmd_show)

    st = sub.add_parser("stats", parents=[fmt], formatter_class=argparse.ArgumentDefaultsHelpFormatter,
                        help="samples, characters, bytes and lines per category and language")
    st.add_argument("paths", nargs="*", metavar="PATH", help="files, folders or glob patterns (default: --builtin)")
    st.add_argument("--builtin", action="store_true", help="include the built-in corpora")
    st.add_argument("--system", action="append", default=[], metavar="NAME",
                    help="include a machine corpus: stdlib, pydoc, gettext or gettext:DOMAIN (repeatable)")
    st.add_argument("--parallel", action="store_true", help="read each PATH as a parallel folder (one file per language)")
    st.add_argument("--category", help="category for your files (default: code by file extension, else prose)")
    st.add_argument("--language", default="und", help="BCP-47 language tag for your files")
    st.add_argument("--column", help="text column of .jsonl/.csv/.parquet files")
    st.add_argument("--errors", choices=ERRORS, default="strict", help="what to do with bytes that are not UTF-8")
    st.add_argument("--by", default="category,language",
                    help=f"comma-separated grouping columns, from {', '.join(_STATS_BY)}")
    st.set_defaults(func=cmd_stats)


def _emit(frame: pd.DataFrame, fmt: str, args: argparse.Namespace) -> None:
    """The corpus listings as they have always been written: indented JSON, pandas' own decimals."""
    emit(frame, fmt, float_digits=None, json_indent=1, json_digits=10, empty="(no rows)", width=table_width(args))


def _sizes(frame: pd.DataFrame) -> pd.DataFrame:
    text = frame["text"].astype(str)
    return frame.assign(
        n_chars=text.str.len(),
        n_bytes=text.map(lambda t: len(t.encode("utf-8"))),
        # lines as an editor counts them: a final line without a newline still counts
        n_lines=text.str.count("\n") + (~text.str.endswith("\n") & (text != "")).astype(int),
    )


def cmd_list(args: argparse.Namespace) -> int:
    from .. import corpora as corpus

    if args.system:
        _emit(corpus.system_corpora(), args.format, args)
        return 0
    frame = _sizes(corpus.load_builtin(args.categories or None))
    if args.samples:
        _emit(frame[["id", "category", "language", "script", "kind", "group", "variant", "n_chars", "n_bytes"]],
              args.format, args)
        return 0
    summary = (frame.groupby("category", sort=False)
               .agg(n_samples=("id", "size"), n_languages=("language", "nunique"),
                    n_chars=("n_chars", "sum"), n_bytes=("n_bytes", "sum"))
               .reset_index()
               .assign(stored=lambda d: ~d["category"].isin(corpus.GENERATED_CATEGORIES)))
    _emit(summary, args.format, args)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from .. import corpora as corpus

    text = corpus.get_sample(args.id).text
    if args.visible:
        from ..render import visible  # the terminal renderer's whitespace alphabet

        text = visible(text)
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    import pandas as pd
    from .. import corpora as corpus

    by = [c.strip() for c in args.by.split(",") if c.strip()]
    bad = [c for c in by if c not in _STATS_BY]
    if bad or not by:
        raise BadInput(f"--by {args.by!r}: valid columns are {', '.join(_STATS_BY)}")
    frames = []
    report = corpus.LoadReport()
    if args.builtin or not (args.paths or args.system):
        frames.append(corpus.load_builtin())
    if args.parallel:
        frames.extend(corpus.load_parallel(p, joined=True, join="\n", errors=args.errors) for p in args.paths)
    elif args.paths:
        samples = list(corpus.iter_samples(args.paths, category=args.category, language=args.language,
                                           column=args.column, errors=args.errors, report=report))
        if not samples:
            raise BadInput(f"no text loaded from {args.paths}: {report.summary()}")
        frames.append(corpus.samples_to_frame(samples))
    for name in args.system:
        frames.append(corpus.samples_to_frame(corpus.iter_system(name)))
    frame = _sizes(pd.concat(frames, ignore_index=True))
    stats = (frame.groupby(by, sort=True)
             .agg(n_samples=("id", "size"), n_chars=("n_chars", "sum"), n_bytes=("n_bytes", "sum"),
                  n_lines=("n_lines", "sum"))
             .reset_index()
             .assign(bytes_per_char=lambda d: (d["n_bytes"] / d["n_chars"].where(d["n_chars"] > 0)).round(3)))
    _emit(stats, args.format, args)
    if report.files_read or report.files_skipped_binary:
        print(f"tokenprism corpus stats: {report.summary()}", file=sys.stderr)
    return 0
