"""`tokenprism cost --logs FILE...`: logged traffic priced under each model (part of the `cost` command).

Unlike `cli.cost` (the command's parser, its workload estimate and its quick price), this module
holds the log flags and the handler that streams log files through `cost.logs`, showing
progress on stderr, and writes the `TrafficReport` as a table, CSV, JSON, Markdown, HTML or a
report folder.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import BadInput
from ..render import terminal_text
from . import write_report_text
from .tokenizers import add_max_line, line_bounds


def add_log_arguments(p: argparse.ArgumentParser) -> None:
    """The `--logs` group of `tokenprism cost`."""
    from ..cost import SHAPES

    g = p.add_argument_group("chat logs (instead of TEXT: price logged requests under each model)")
    g.add_argument("--logs", nargs="+", metavar="FILE",
                   help="request logs: .jsonl (or .jsonl.gz), .csv or .parquet with a messages column, or text with "
                        "one request per line; each row is one request")
    g.add_argument("--log-format", choices=("auto",) + SHAPES, default="auto",
                   help="row shape; auto detects it per file from the first row")
    g.add_argument("--log-column", default="messages", metavar="NAME", help="the messages column of .csv/.parquet logs")
    add_max_line(g)


def cmd_traffic(args: argparse.Namespace, overrides: list) -> int:
    """Price the logs named by --logs; output as --format, and a report folder with --out."""
    from ..cost import LogReport, iter_log_records, plan_traffic, summarise
    from ..report import traffic as render

    if args.text is not None or args.file or args.corpus or args.builtin or args.system:
        raise BadInput("--logs prices logged requests; give either --logs or texts (TEXT, -f, --corpus, --builtin, "
                         "--system), not both")
    if args.errors == "replace":
        raise BadInput("--errors replace does not apply to logs: a bad row is either an error (strict) or left "
                         "out and counted (skip)")
    if args.requests_per_month is not None or args.messages_per_request != 1 or args.chars_per_request is not None:
        raise BadInput("--requests-per-month, --messages-per-request and --chars-per-request describe an assumed "
                         "workload; with --logs the log itself is the workload, so leave them out")
    plan = plan_traffic(args.models or _default_models(), output_tokens=args.output_tokens,
                        output_ratio=args.output_ratio, cached_share=args.cached_share, overrides=overrides,
                        on=args.on, fallback_tokenizer=args.fallback_tokenizer)
    log_report = LogReport()
    records = iter_log_records(args.logs, shape=args.log_format, column=args.log_column, errors=args.errors,
                               report=log_report, bounds=line_bounds(args))
    from tqdm.auto import tqdm

    from ..engine import open_engine, price_logs

    # the Dask dashboard for a run someone watches: a terminal, as the bar below decides
    with open_engine(args.engine, scheduler=args.scheduler, workers=args.workers, timeout=args.connect_timeout,
                     dashboard=sys.stderr.isatty()) as engine:
        if args.engine != "local":  # the default needs no line; a cluster or a forced in-process run does
            print(f"tokenprism cost: pricing logs; engine: {engine.describe()}", file=sys.stderr)
        with tqdm(unit="row", desc=f"pricing logs x{len(plan.targets)} models ({engine.name})", file=sys.stderr,
                  disable=None) as bar:
            partial = price_logs(records, plan, engine=engine, progress=bar.update)
    if not partial.rows:
        raise BadInput(f"no request read from {', '.join(args.logs)}: {log_report.summary()}")
    if log_report.n_skipped:
        print(f"note: {terminal_text(log_report.summary())}", file=sys.stderr)
    report = summarise(partial, plan, log_report)
    write_report_text(render.WRITERS, args.format, report)
    if args.out:
        sys.stdout.flush()
        for path in render.write_report(report, Path(args.out)):
            print(f"wrote {path}", file=sys.stderr)
    return 0


def _default_models() -> list[str]:
    from ..cost import DEFAULT_MODELS

    return list(DEFAULT_MODELS)
