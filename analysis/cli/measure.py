"""`tokenprism measure`, `report`, `plot` and `probe`: corpora x tokenizers, and why.

Unlike `cli_tokenizers` (`compare`: one text), these commands work on whole corpora (the
built-in ones by default, your files and folders, or a parallel folder such as FLORES-200)
and on the probes. Tables go to stdout (aligned, CSV or JSON); files are written only where
--out says; progress bars and the resolved configuration go to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import help_line
from ..atomic import writable_problem
from ..errors import BadInput
from ..render import terminal_text
from ..textio.numbers import TIMEOUT, WORKERS
from .table import emit, emit_rows
from .tokenizers import add_format, add_max_line, line_bounds, table_width
from ..textio import ERRORS

_FMT = argparse.ArgumentDefaultsHelpFormatter
# The keys of report.FIGURES, spelled for the command line; listed here so that building the
# parser does not import matplotlib (tests check the two lists agree).
FIGURE_NAMES = ("chars-per-token-by-category", "code-languages", "code-variants", "language-premium",
                "tokenizer-reduction", "tokens-vs-digits", "single-token-years", "whitespace-deltas",
                "boundary-agreement")
# The keys of probes.PROBE_TABLES and engine.base.ENGINES, for the same reason (no pandas while
# building the parser); tests/analysis/test_imports.py checks they agree.
PROBE_NAMES = ("code-languages", "code-variants", "whitespace-tokens", "language-premium", "bytes-per-char",
               "tokenizer-reduction", "digit-lengths", "digit-grouping", "single-token-numbers", "single-token-years",
               "thousands-separators", "trailing-whitespace", "whitespace-summary", "leading-space",
               "boundary-agreement", "agreement-matrix")
ENGINES = ("local", "dask", "inprocess")


def _add_tokenizers(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tokenizers", "-t", metavar="A,B", help="comma-separated names (default: all available offline)")


def _add_parallel(p: argparse.ArgumentParser, *, default: str | None) -> None:
    p.add_argument("--parallel", metavar="DIR", default=default,
                   help="parallel corpus folder (one file per language, e.g. ../shared/corpora/flores200)"
                        + ("" if default is None else "; 'builtin' for the built-in one"))
    p.add_argument("--pivot", default="en", help="pivot language for the premium: a tag (en) or a FLORES name (eng_Latn)")


def add_engine_options(p: argparse.ArgumentParser) -> None:
    """--engine, --scheduler, --workers: where the counting runs (see analysis.engine)."""
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="local: a process pool on all cores (small inputs stay in this process); dask: a Dask "
                        "cluster (--scheduler) or a LocalCluster; inprocess: this process only")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://10.0.0.5:8786 (with --engine dask)")
    p.add_argument("--workers", type=WORKERS, metavar="N", help="worker processes for local / LocalCluster (default: os.cpu_count())")
    p.add_argument("--connect-timeout", type=TIMEOUT, default=10.0, metavar="SECONDS",
                   help="how long to wait for the --scheduler to answer")


def progress_wanted(args: argparse.Namespace) -> bool:
    return bool(args.progress) or (args.progress is None and sys.stderr.isatty())


# -- measure -------------------------------------------------------------------------------------
def _dataset_out(out: str | None) -> bool:
    """--out DIR/ (or a path without a table suffix): a partitioned Parquet dataset, streamed."""
    if not out:
        return False
    from ..pipeline import TABLE_SUFFIXES

    return (out.endswith(("/", "\\")) or Path(out).is_dir() or not Path(out).suffix
            or Path(out).suffix.lower() not in (*TABLE_SUFFIXES, *_OTHER_SUFFIXES))


# suffixes that name a file, so `write_table` can say which ones it supports
_OTHER_SUFFIXES = (".xlsx", ".xls", ".tsv", ".txt", ".feather", ".arrow")


def cmd_measure(args: argparse.Namespace) -> int:
    from ..engine import open_engine
    from ..engine.sources import Sources, measure_sources
    from ..pipeline import SAMPLE_META, as_tokenizers, check_metrics

    line_bounds(args)  # before any file is read, here or in a worker
    toks = as_tokenizers(args.tokenizers)
    names = [t.name for t in toks]
    progress = progress_wanted(args)
    sources = Sources(builtin=args.builtin or not (args.corpus or args.parallel), categories=args.category or None,
                      parallel=args.parallel, files=tuple(args.corpus), category=args.category_name,
                      language=args.language, column=args.column, errors=args.errors)
    # the tokenizer is always a grouping column; naming it in --by too must not group by it twice
    by = list(dict.fromkeys(c.strip() for c in args.by.split(",") if c.strip() and c.strip() != "tokenizer"))
    unknown = [c for c in by if c not in SAMPLE_META]
    if unknown:  # before any work starts
        raise BadInput(f"--by {','.join(unknown)}: not a column to group by; choose from {', '.join(SAMPLE_META)} "
                       "(the tokenizer is always one)")
    keys = [*by, "tokenizer"]
    metrics = check_metrics(args.metrics)  # counts only unless asked (a grouping by script asks for scripts)
    dataset = _dataset_out(args.out)
    table_rows = bool(args.out) and not dataset
    if table_rows:  # fail on a bad suffix before measuring anything
        from ..pipeline import check_table_path

        try:
            check_table_path(args.out)
        except ValueError as e:
            raise BadInput(f"{e}, or a folder (DIR/) for a partitioned Parquet dataset") from None
    if args.out:  # and on a place that cannot be written (read-only, no permission), before the work too
        target = Path(args.out)
        problem = writable_problem(target / "part-0.parquet" if dataset and target.is_dir() else target)
        if problem:
            raise BadInput(problem)
    from ..engine.plan import is_url

    if (dataset or table_rows) and any(is_url(p) for p in args.corpus):
        raise BadInput("--out reads the files in this process, from local paths; for fsspec URLs leave out --out "
                       "(aggregates: each worker reads its own part), or copy the files here first")
    print(terminal_text(f"tokenprism measure: {', '.join(sources.describe())} x {len(toks)} tokenizer(s): "
                        f"{', '.join(names)}"), file=sys.stderr)
    writer = None
    if dataset:
        from ..engine.output import PartitionedParquet

        writer = PartitionedParquet(args.out)
    try:
        if args.engine == "dask" and not args.scheduler:  # its workers fork from here: one build for all
            from ..engine.choose import build_before_fork

            build_before_fork(toks)
        # the Dask dashboard for a run someone watches (a progress bar), not for a script's
        with open_engine(args.engine, scheduler=args.scheduler, workers=args.workers,
                         timeout=args.connect_timeout, dashboard=progress) as engine:
            print(f"tokenprism measure: engine: {engine.describe()}", file=sys.stderr)
            found = measure_sources(sources, toks, engine=engine, keys=keys, metrics=metrics, out=writer,
                                    rows=table_rows, scheduler=args.scheduler, progress=progress)
            if found.report is not None:
                print(f"tokenprism measure: {found.report.summary()}", file=sys.stderr)
                if not found.file_samples:
                    raise BadInput(f"no text loaded from {args.corpus}: {found.report.summary()}")
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    tally, rows, parallel, parallel_measured = found.tally, found.rows, found.parallel, found.parallel_rows
    summary = tally.summary_rows(names)
    if args.format == "table":
        grouping = f"{', '.join(by)} x tokenizer" if by else "tokenizer"
        print(f"characters per token (sum of chars / sum of tokens) by {grouping}")
        if by:
            emit_rows(_wide(summary, by, names), [*by, *names], "table", float_digits=2, width=table_width(args))
        else:  # --by tokenizer: one row per tokenizer
            emit_rows(summary, ["tokenizer", "n_samples", "n_chars", "n_tokens", "chars_per_token_of_sums"], "table",
                      float_digits=2, width=table_width(args))
        if parallel is not None:
            from ..probes.languages import language_premium  # (only here: it loads the generated corpora)

            premium = language_premium(parallel, toks, pivot=args.pivot, measured=parallel_measured)
            wide = (premium.astype({"tokenizer": "str"})
                    .pivot_table(index="language", columns="tokenizer", values="premium")
                    .reindex(columns=names).sort_values(names[0]))
            print(f"\npremium: tokens / tokens of {premium['pivot'].iloc[0]} for the same text")
            emit(wide.reset_index(), "table", float_digits=2, width=table_width(args))
    else:
        emit_rows(summary, tally.summary_columns(), args.format)
    if writer is not None:
        path = writer.commit()
        print(f"tokenprism measure: wrote {writer.rows} rows in {writer.parts} part(s) to {path}/", file=sys.stderr)
    elif args.out:
        import pandas as pd

        from ..pipeline import write_table

        measured = pd.concat(rows, ignore_index=True) if len(rows) > 1 else rows[0]
        path = write_table(measured, args.out)
        print(f"tokenprism measure: wrote {len(measured)} rows to {path}", file=sys.stderr)
    return 0


def _wide(summary: list[dict], by: list[str], names: list[str]) -> list[dict]:
    """Characters per token, one row per group of `by` and a column per tokenizer (groups in summary order)."""
    wide: dict[tuple, dict] = {}
    for row in summary:
        group = tuple(row[k] for k in by)
        wide.setdefault(group, dict(zip(by, group)))[row["tokenizer"]] = row["chars_per_token_of_sums"]
    return list(wide.values())


# -- report / plot / probe -----------------------------------------------------------------------
def cmd_report(args: argparse.Namespace) -> int:
    from ..report import build_report

    print(f"tokenprism report: writing {args.out} (tokenizers: {args.tokenizers or 'all available offline'}; "
          f"parallel: {args.parallel}, pivot {args.pivot})", file=sys.stderr)
    report = build_report(args.out, tokenizers=args.tokenizers, corpus=args.corpus or None, parallel=args.parallel,
                          pivot=args.pivot, progress=progress_wanted(args))
    print(f"{report.out_dir / 'report.md'}\n{report.out_dir / 'report.html'}\n"
          f"{len(report.figures)} figures in {report.out_dir / 'figures'}, {len(report.tables)} tables in "
          f"{report.out_dir / 'tables'}")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    from ..plots import save_figure
    from ..probes import ProbeRun
    from ..report import make_figure

    name = args.figure.replace("-", "_")
    if Path(args.out).suffix.lower() not in (".png", ".svg", ".pdf"):  # before the probes run
        raise BadInput(f"cannot save a figure as {args.out!r}: use one of .png, .svg, .pdf")
    run = ProbeRun(tokenizers=args.tokenizers, parallel=args.parallel, pivot=args.pivot, progress=progress_wanted(args))
    path = save_figure(make_figure(name, run), args.out)
    print(path)
    return 0


def cmd_probe(args: argparse.Namespace) -> int:
    import pandas as pd

    from ..probes import PROBE_TABLES, ProbeRun, run_probe

    if not args.name:
        emit(pd.DataFrame([(n, k, d) for n, (k, d, _) in PROBE_TABLES.items()],
                          columns=["table", "probe", "what it shows"]), args.format, width=table_width(args))
        return 0
    from ..probes.run import TEXT_TABLES

    if args.text and args.name not in TEXT_TABLES:  # a text is never silently left unused
        raise BadInput(f"probe {args.name} does not take your text (it measures its own controlled inputs); "
                       f"--text applies to: {', '.join(TEXT_TABLES)}")
    texts = {f"text-{i + 1}": t for i, t in enumerate(args.text)} if args.text else None
    run = ProbeRun(tokenizers=args.tokenizers, parallel=args.parallel, pivot=args.pivot, texts=texts,
                   numbers=list(args.text) if args.text else None, progress=progress_wanted(args))
    frame = run_probe(args.name, run)
    if frame.attrs.get("note"):
        print(f"tokenprism probe: note: {frame.attrs['note']}", file=sys.stderr)
    if args.format != "table":
        emit(frame, args.format, width=table_width(args))
        return 0
    from ..probes.headlines import headline
    from .audit import compact, headline_text

    shown, note = compact(frame, args)  # the headline first, then at most 25 rows (--all: every row)
    sys.stdout.write(headline_text(headline(args.name, frame), args))
    emit(shown, args.format, width=table_width(args))
    if note:
        print(note)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add `measure`, `report`, `plot` and `probe` to the `tokenprism` parser."""
    progress = argparse.ArgumentParser(add_help=False)
    progress.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                          help="progress bars on stderr (default: when stderr is a terminal)")

    p = sub.add_parser("measure", parents=[progress], formatter_class=_FMT,
                       help=help_line("measure"),
                       description="One row per sample x tokenizer (written with --out); prints chars/token "
                                   "(sum of chars / sum of tokens) by category x tokenizer.")
    p.add_argument("corpus", nargs="*", metavar="CORPUS", help="your files, folders or glob patterns")
    p.add_argument("--builtin", action="store_true", help="measure the built-in corpora (the default without CORPUS)")
    p.add_argument("--category", action="append", metavar="NAME",
                   help="only these built-in categories (repeatable: prose, code, multilingual, numbers, whitespace)")
    _add_parallel(p, default=None)
    _add_tokenizers(p)
    p.add_argument("--out", "-o", metavar="FILE|DIR/",
                   help="write the tidy per-row table: a file (.csv, .parquet, .json, .jsonl, held in memory), or a "
                        "folder DIR/ for a partitioned Parquet dataset streamed part by part (bounded memory)")
    p.add_argument("--by", default="category", help="summary grouping columns, comma-separated (e.g. category,kind)")
    p.add_argument("--metrics", default="", metavar="LIST",
                   help="also compute these, comma-separated: words (n_words, tokens_per_word), graphemes "
                        "(n_graphemes), scripts (detect the script of files; otherwise Zzzz). Default: characters, "
                        "bytes and tokens only, the fastest; --by script detects scripts")
    add_engine_options(p)
    p.add_argument("--category-name", metavar="NAME", help="category for your files (default: code by extension, else prose)")
    p.add_argument("--language", default="und", help="BCP-47 language tag for your files")
    p.add_argument("--column", help="text column of .jsonl/.csv/.parquet files")
    p.add_argument("--errors", choices=ERRORS, default="strict", help="bytes that are not UTF-8: fail, replace, skip")
    add_max_line(p)
    add_format(p)
    p.set_defaults(func=cmd_measure)

    p = sub.add_parser("report", parents=[progress], formatter_class=_FMT,
                       help=help_line("report"),
                       description="Measure, run every probe, draw every figure; same inputs give identical files.")
    p.add_argument("--out", "-o", required=True, metavar="DIR", help="the report folder")
    _add_tokenizers(p)
    p.add_argument("--corpus", nargs="+", metavar="PATH", help="measure your files instead of the built-in corpora")
    _add_parallel(p, default="builtin")
    p.set_defaults(func=cmd_report)

    figure_names = list(FIGURE_NAMES)
    p = sub.add_parser("plot", parents=[progress], formatter_class=_FMT, help=help_line("plot"),
                       description="Figures: " + ", ".join(figure_names))
    p.add_argument("figure", metavar="FIGURE", choices=figure_names, help="one of: " + ", ".join(figure_names))
    p.add_argument("--out", "-o", required=True, metavar="FILE", help="output file (.png, .svg, .pdf)")
    _add_tokenizers(p)
    _add_parallel(p, default="builtin")
    p.set_defaults(func=cmd_plot)

    p = sub.add_parser("probe", parents=[progress], formatter_class=_FMT, help=help_line("probe"),
                       description="Without NAME: list the tables. Tables: " + ", ".join(PROBE_NAMES))
    p.add_argument("name", nargs="?", metavar="NAME", choices=[*PROBE_NAMES, None], help="table name; omit to list them")
    _add_tokenizers(p)
    _add_parallel(p, default="builtin")
    p.add_argument("--text", action="append", metavar="TEXT",
                   help="your own text for the whitespace and boundary probes, or your numbers for digit-grouping and "
                        "thousands-separators (repeatable); refused by the probes that take no text")
    add_format(p)
    p.add_argument("--all", action="store_true", help="the full table (without it, the headline and at most 25 rows)")
    p.set_defaults(func=cmd_probe)
