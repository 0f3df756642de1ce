"""`tokenprism cost --logs FILE...`: logged traffic priced under each model (part of the `cost` command).

Unlike `cli.cost` (the command's parser, its workload estimate and its quick price), this module
holds the log flags and the handler that streams log files through `cost.logs`, showing
progress on stderr, and writes the `TrafficReport` as a table, CSV, JSON, Markdown, HTML or a
report folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from ..errors import BadInput
from ..render import terminal_text
from . import write_report_text
from ..report.sorting import sort_models
from .table import quiet_table
from .tokenizers import add_max_line, image_size, line_bounds, table_width
from decimal import Decimal


def add_log_arguments(p: argparse.ArgumentParser) -> None:
    """The `--logs` group of `tokenprism cost`."""
    from ..cost import SHAPES

    g = p.add_argument_group("chat logs (instead of TEXT: price logged requests under each model)")
    g.add_argument("--logs", nargs="+", metavar="FILE",
                   help="request logs: .jsonl (or .jsonl.gz), .csv or .parquet with a messages column, or text with "
                        "one request per line; each row is one request. Or the exports tools and providers write "
                        "(OpenTelemetry GenAI spans, Langfuse, Helicone, LiteLLM spend logs, OpenAI and Anthropic "
                        "usage and cost reports), priced from their logged usage, never recounted")
    from ..cost.logs.export_files import EXPORT_SHAPES

    g.add_argument("--log-format", "--shape", dest="log_format", choices=("auto",) + SHAPES + EXPORT_SHAPES,
                   default="auto", help="row shape; auto detects it per file (a request log from its first row, a "
                                        "tool's or provider's export from its first bytes)")
    g.add_argument("--log-column", default="messages", metavar="NAME", help="the messages column of .csv/.parquet logs")
    add_max_line(g)


def per_model_reasoning(args: argparse.Namespace) -> tuple[Any, Any, tuple[tuple[str, str, Decimal], ...]]:
    """(--reasoning-tokens for every model, --reasoning-ratio for every model, per-model figures)."""
    out: list[tuple[str, str, Decimal]] = []
    every: dict[str, Any] = {}
    for kind, value in (("tokens", args.reasoning_tokens), ("ratio", args.reasoning_ratio)):
        if isinstance(value, tuple):
            out += [(model, kind, v) for model, v in value]
            every[kind] = None
        else:
            every[kind] = value
    return every["tokens"], every["ratio"], tuple(out)


def _check_requests(args: argparse.Namespace) -> None:
    if args.errors == "replace":
        raise BadInput("--errors replace does not apply to logs: a bad row is either an error (strict) or left "
                         "out and counted (skip)")
    if args.messages_per_request != 1 or args.chars_per_request is not None:
        raise BadInput("--messages-per-request and --chars-per-request describe an assumed workload of texts; a "
                       "request body or log row is counted as it is, so leave them out")


def _engine(args: argparse.Namespace) -> Any:
    from ..engine import open_engine

    # the Dask dashboard for a run someone watches: a terminal, as the progress bar decides
    return open_engine(args.engine, scheduler=args.scheduler, workers=args.workers, timeout=args.connect_timeout,
                       dashboard=sys.stderr.isatty())


def cmd_traffic(args: argparse.Namespace, overrides: list, system: str | None = None) -> int:
    """Price the logs named by --logs; output as --format, and a report folder with --out. `system`:
    --system, for requests without one."""
    from ..cost import LogReport, iter_log_chunks, plan_traffic, traffic_of, warm_counters
    from ..cost.logs.fold import NotInTimeOrder, order_note
    from ..engine import price_log_chunks
    from ..engine.heap import quiet_collector

    if args.text is not None or args.file or args.corpus or args.builtin or args.machine_corpus or args.messages:
        raise BadInput("--logs prices logged requests; give either --logs or requests (TEXT, -f, --messages, --corpus, "
                         "--builtin, --machine-corpus), not both")
    _check_requests(args)
    if _exports(args):
        return cmd_exports(args)
    every_tokens, every_ratio, per_model = per_model_reasoning(args)
    plan = plan_traffic(args.models or _default_models(), output_tokens=args.output_tokens,
                        output_ratio=args.output_ratio, cached_share=args.cached_share, overrides=overrides,
                        on=args.on, fallback_tokenizer=args.fallback_tokenizer,
                        reasoning_tokens=every_tokens, reasoning_ratio=every_ratio, reasoning_for=per_model,
                        cache_breakpoints=args.cache_breakpoints, batch=args.batch, service_tier=args.service_tier,
                        requests_per_lifetime=args.requests_per_lifetime, image_size=image_size(args),
                        rate=args.rate)
    log_report = LogReport()
    unordered = ""
    from tqdm.auto import tqdm

    # the targets' counters (tokenizers, formats) built before an engine starts: a LocalCluster's
    # workers, forked when it opens, inherit them instead of each loading the vocabularies again
    warm_counters([], plan)
    # what is loaded now (vocabularies, prices) frozen, young collections rarer: a log run makes a
    # few containers per row, and each full collection otherwise walks the whole loaded heap again;
    # set before the engine opens, so that the workers it forks (a pool's, a LocalCluster's) inherit it
    with quiet_collector(), _engine(args) as engine:
        if args.engine != "local":  # the default needs no line; a cluster or a forced in-process run does
            print(f"tokenprism cost: pricing logs; engine: {engine.describe()}", file=sys.stderr)
        fold = True
        while True:
            with tqdm(unit="row", file=sys.stderr, disable=None,
                      desc=f"pricing logs x{len(plan.targets)} models ({engine.name})") as bar:
                try:
                    # each pass reads the files afresh (a second one when the first finds the log out of order)
                    chunks = iter_log_chunks(args.logs, shape=args.log_format, column=args.log_column,
                                             errors=args.errors, report=log_report, bounds=line_bounds(args),
                                             chunk_rows=engine.rows_per_task)
                    partial, rows_report, kept = price_log_chunks(chunks, plan, system=system, engine=engine,
                                                                  progress=bar.update, fold=fold)
                    log_report.merge(rows_report)
                    break
                except NotInTimeOrder as e:  # found late, with rows folded already: again, every row kept
                    fold, log_report = False, LogReport()
                    unordered = order_note(str(e), second_pass=True)
    if partial.rows and log_report.n_skipped:
        print(f"note: {terminal_text(log_report.summary())}", file=sys.stderr)
    if kept:
        print(f"note: --system: {kept:,} request(s) have their own system prompt and keep it", file=sys.stderr)
    partial.order_note = partial.order_note or unordered
    report = traffic_of(partial, plan, log_report, what=", ".join(args.logs), source="log",
                        requests_per_month=args.requests_per_month)
    return write_traffic(args, report)


def _exports(args: argparse.Namespace) -> bool:
    """Whether --logs names tools' or providers' exports (OTel, Langfuse, Helicone, LiteLLM, usage and
    cost reports) rather than request logs; a mix is refused."""
    from ..cost.logs.export_files import EXPORT_SHAPES, detect_export

    if args.log_format != "auto":
        return args.log_format in EXPORT_SHAPES
    kinds = {str(path): detect_export(Path(path), line_bounds(args)) if Path(path).is_file() else None
             for path in args.logs}
    exports = [p for p, shape in kinds.items() if shape is not None]
    if exports and len(exports) != len(kinds):
        raise BadInput(f"{', '.join(exports)} are tools' or providers' exports and {', '.join(p for p in kinds if p not in exports)} "
                       "are request logs: price them in separate runs")
    return bool(exports)


def cmd_exports(args: argparse.Namespace) -> int:
    """Price exports (`cost.logs.exports`): as billed, the tools' own cost beside it, the rows that
    differ, unknown models named; re-priced per part under -m models, never recounted."""
    from ..cost.logs.export_bill import bill_of_rows
    from ..cost.logs.exports import iter_export_rows
    from ..cost.logs.read import LogReport
    from ..report import exports as render

    for flag, value in (("--cache-breakpoints", args.cache_breakpoints != "request"),
                        ("--requests-per-lifetime", args.requests_per_lifetime is not None),
                        ("--rate", args.rate is not None),
                        ("--output-tokens/--output-ratio", args.output_tokens is not None or args.output_ratio is not None)):
        if value:
            raise BadInput(f"{flag} shapes a recount or a cache simulation, and exports are re-priced from the "
                           "usage they logged, not recounted: leave it out")
    report = LogReport()
    rows = iter_export_rows(args.logs, shape=args.log_format, errors=args.errors, report=report,
                            bounds=line_bounds(args))
    targets = [m.strip() for m in (args.models or "").split(",") if m.strip()]
    bill = bill_of_rows(rows, targets=targets)
    if report.n_skipped:
        print(f"note: {terminal_text(report.summary())}", file=sys.stderr)
    for warning in bill.warnings():
        print(f"warning: {terminal_text(warning)}", file=sys.stderr)
    if args.format == "table":  # the terminal text, cut to the width unless --explain
        sys.stdout.write(render.render_text(bill, table_width(args), explain=getattr(args, "explain", False)))
    else:
        write_report_text(render.WRITERS, args.format, bill, width=table_width(args))
    if args.out:
        sys.stdout.flush()
        for path in render.write_report(bill, Path(args.out)):
            print(f"wrote {path}", file=sys.stderr)
    return 0


def cmd_requests(args: argparse.Namespace, overrides: list, texts: list[tuple[str, str]], bodies: list,
                 system: str | None, what: str) -> int:
    """Price requests from the command line (`bodies`, LogRecords of --messages, then `texts`, each
    one user message after `system`) with each model's cache by its own rule: the library's
    `price_shared_prefix`, on --engine."""
    from ..cost import TrafficPlan, price_shared_prefix, warm_counters
    from ..cost.logs.fold import NotInTimeOrder
    from ..engine import price_logs

    _check_requests(args)
    every_tokens, every_ratio, per_model = per_model_reasoning(args)
    from tqdm.auto import tqdm

    def price(records: Any, plan: TrafficPlan) -> Any:
        warm_counters([], plan)  # built here, before a pool forks, as for logs
        records = list(records)
        try:
            return price_logs(records, plan, engine=engine, progress=bar.update)
        except NotInTimeOrder:  # requests with timestamps out of order: every row's marks kept to the end
            return price_logs(records, plan, engine=engine, progress=bar.update, fold=False)

    with _engine(args) as engine:
        if args.engine != "local":
            print(f"tokenprism cost: pricing requests; engine: {engine.describe()}", file=sys.stderr)
        models = args.models or _default_models()
        n_models = len([m for m in (models.split(",") if isinstance(models, str) else models) if m.strip()])
        with tqdm(unit="request", file=sys.stderr, disable=None,
                  desc=f"pricing requests x{n_models} models ({engine.name})") as bar:
            report = price_shared_prefix(
                texts, models, system=system, requests_per_lifetime=args.requests_per_lifetime, rate=args.rate,
                cache_breakpoints=args.cache_breakpoints, requests_per_month=args.requests_per_month,
                output_tokens=args.output_tokens, output_ratio=args.output_ratio, cached_share=args.cached_share,
                reasoning_tokens=every_tokens, reasoning_ratio=every_ratio, reasoning_for=per_model,
                batch=args.batch, service_tier=args.service_tier, on=args.on, overrides=overrides,
                fallback_tokenizer=args.fallback_tokenizer, image_size=image_size(args), bodies=bodies, what=what,
                price=price)
    return write_traffic(args, report)


def write_traffic(args: argparse.Namespace, report: Any) -> int:
    """`report` as --format (sorted by --sort) on stdout, and a report folder with --out."""
    from ..report import traffic as render

    report = dataclasses.replace(report, models=sort_models(report.models, args.sort))
    if args.format == "table" and args.quiet:
        sys.stdout.write(quiet_table(render.display_models(report), table_width(args)))
    elif args.format == "table":
        from .answer import traffic_text

        sys.stdout.write(traffic_text(report, width=table_width(args), explain=args.explain))
    else:
        write_report_text(render.WRITERS, args.format, report)
    if args.out:
        sys.stdout.flush()
        from ..report.bundle import own_files, read_manifest

        previous = read_manifest(Path(args.out))  # the files a run before this one wrote: only those may go
        written = render.write_report(report, Path(args.out))
        for path in [*written, own_files(Path(args.out), written, previous)]:
            print(f"wrote {path}", file=sys.stderr)
    return 0


def _default_models() -> list[str]:
    from ..cost import DEFAULT_MODELS

    return list(DEFAULT_MODELS)
