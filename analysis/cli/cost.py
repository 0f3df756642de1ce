"""`tokenprism cost` (what a workload costs per model) and `tokenprism models` (prices and tokenizers).

Unlike `cost.workloads` and `cost.prices` (the computations) and `report.cost` (a report as text, Markdown or
HTML), this module reads the command line, gathers the input text (TEXT, files, a corpus, or
stdin), and writes a `CostReport` as a table, CSV, JSON, Markdown or HTML, or as a report folder
(`--out DIR`: report.md, report.html, CSV and figures). Every rendering names the price source
and its date, and marks estimates.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the library loads in the handler that needs it: `--help` stays quick
    import pandas as pd

    from ..cost import CostReport, Workload


from ..textio import read_stdin, read_text_file
from .table import quiet_table
from .tokenizers import add_detail, add_image_size, add_wide, add_max_input, image_size, max_input_bytes, table_width, terse
from ..report.sorting import SORTS, sort_models
from .traffic import add_log_arguments, cmd_requests, cmd_traffic
from ..atomic import writable_problem
from ..errors import BadInput
from . import help_line, write_report_text

FORMATS = ("table", "csv", "json", "md", "html")
# -- argument types: errors name the flag (argparse prefixes "argument --flag:") ---------------
def _number(name: str, *, maximum: Decimal | None = None, integer: bool = False):
    from ..cost import WORKLOAD_LIMITS, to_decimal, workload_value

    field = name.lstrip("-").replace("-", "_")
    def parse(text: str) -> Decimal:
        try:
            if field in WORKLOAD_LIMITS:  # the bounds the dashboard uses too
                return workload_value(field, text, label="value")
            return to_decimal("value", text, maximum=maximum, integer=integer)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    parse.__name__ = name  # argparse shows it in "invalid <name> value"
    return parse


def _renamed_category(text: str) -> str:
    # measure's --category filters the built-in corpora; the label of your files is --category-name everywhere
    raise argparse.ArgumentTypeError(f"the category of --corpus files is --category-name {text} (as in measure, where "
                                     "--category chooses built-in corpora; here --builtin CATS does)")


def _reasoning(name: str) -> Callable[[str], Decimal | tuple[tuple[str, Decimal], ...]]:
    """A reasoning figure: N for every model, or MODEL=N,... (each model its own)."""
    number = _number(name)

    def parse(text: str) -> Decimal | tuple[tuple[str, Decimal], ...]:
        if "=" not in text:
            return number(text)
        pairs = []
        for item in (x.strip() for x in text.split(",") if x.strip()):
            model, eq, value = item.partition("=")
            if not eq or not model.strip():
                raise argparse.ArgumentTypeError(f"{item!r} is not MODEL=VALUE; write e.g. {name} o3=2000,gpt-5.1=800")
            pairs.append((model.strip(), number(value.strip())))
        return tuple(pairs)
    parse.__name__ = name
    return parse


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date; write YYYY-MM-DD") from None


def register(sub: argparse._SubParsersAction) -> None:
    """Add `cost` and `models` to the `tokenprism` parser."""
    from ..cost import DEFAULT_MODELS

    fmt = argparse.ArgumentDefaultsHelpFormatter
    p = sub.add_parser("cost", help=help_line("cost"), formatter_class=fmt,
                       description="Tokens per request, $ per request, $ per month and $ per million input characters, "
                                   "per model. Each text, file or corpus sample is one request. Reads stdin when no "
                                   "input is given.")
    src = p.add_argument_group("input (one request per text, file or sample)")
    src.add_argument("text", nargs="?", metavar="TEXT", help="the prompt of one request (quote it)")
    src.add_argument("-f", "--file", action="append", metavar="FILE",
                     help="a file holding one request (repeatable): a text, or a .json request body as --messages reads")
    src.add_argument("--messages", action="append", metavar="FILE",
                     help="a JSON request body (OpenAI chat or Responses, Anthropic, Gemini; tools and media included) "
                          "or a list of messages, as `tokenprism count --messages` reads it; - for stdin (repeatable)")
    add_image_size(src)
    src.add_argument("--system", metavar="TEXT|@FILE",
                     help="a system prompt added to every text request (TEXT, -f, stdin, --logs text rows); @FILE reads it from a file")
    src.add_argument("--corpus", action="append", metavar="PATH",
                     help="files, folders or globs read as a corpus, one sample per file/row (repeatable)")
    src.add_argument("--builtin", nargs="?", const="all", metavar="CATS",
                     help="the built-in corpora, or some categories (comma-separated: prose,code,multilingual,numbers,whitespace)")
    src.add_argument("--machine-corpus", action="append", metavar="NAME",
                     help="a corpus on this machine: stdlib, pydoc, gettext[:DOMAIN] (repeatable)")
    src.add_argument("--column", help="text column of .jsonl/.csv/.parquet corpus files")
    src.add_argument("--category-name", dest="category", metavar="NAME",
                     help="category for --corpus files, as in measure (default: code by extension, else prose)")
    src.add_argument("--category", type=_renamed_category, help=argparse.SUPPRESS)
    src.add_argument("--errors", choices=("strict", "replace", "skip"), default="strict", help="invalid UTF-8 in input: fail, replace with U+FFFD, or drop; with --logs, a malformed "
                     "row: fail (strict) or leave it out and count it (skip)")
    add_max_input(src)
    mod = p.add_argument_group("models and prices")
    mod.add_argument("--models", "-m", metavar="A,B",
                     help=f"model ids or PROVIDER:MODEL, comma-separated (default: {', '.join(DEFAULT_MODELS)}, plus --prices models)")
    mod.add_argument("--prices", metavar="FILE", help="your own prices (CSV or TOML; columns usd_per_mtok_input, "
                     "usd_per_mtok_output, [usd_per_mtok_cached_input], source, as_of, model, [provider, tokenizer])")
    mod.add_argument("--on", type=_day, metavar="YYYY-MM-DD", help="use the prices in force on this day (default: today, UTC)")
    mod.add_argument("--fallback-tokenizer", metavar="NAME",
                     help="count models that no rule maps with this tokenizer, labelled an estimate (default: no count)")
    wl = p.add_argument_group("workload (without --requests-per-month and an output size: the price of one request)")
    wl.add_argument("--requests-per-month", type=_number("--requests-per-month"), metavar="N",
                    help="requests per month; with an output size, the full workload estimate")
    out = wl.add_mutually_exclusive_group()
    out.add_argument("--output-tokens", type=_number("--output-tokens"), metavar="N",
                     help="output tokens per request (in each model's tokens)")
    out.add_argument("--output-ratio", type=_number("--output-ratio"), metavar="R", help="output tokens = R x content tokens (the request's text, not the chat format's tokens)")
    add_log_arguments(p)
    why = wl.add_mutually_exclusive_group()
    why.add_argument("--reasoning-tokens", type=_reasoning("--reasoning-tokens"), metavar="N|MODEL=N,...",
                     help="reasoning tokens per request on models that reason (billed as output; without this or "
                          "--reasoning-ratio such a model says 'reasoning not included'; --logs carries the log's own); "
                          "MODEL=N,... gives each model its own figure (with --logs or request bodies)")
    why.add_argument("--reasoning-ratio", type=_reasoning("--reasoning-ratio"), metavar="R|MODEL=R,...",
                     help="reasoning tokens = R x visible output tokens, on models that reason (MODEL=R,... per model)")
    bill = p.add_argument_group("the bill")
    bill.add_argument("--cache-breakpoints", choices=("request", "auto"), default="request",
                      help="(--logs, request bodies) where an Anthropic-style cache may write: the request's own "
                           "cache_control marks, or auto: "
                           "also after the system prompt and tools and after the last message, as a careful user "
                           "places them (each model's own prompt-cache rule is simulated unless --cached-share is given)")
    bill.add_argument("--requests-per-lifetime", type=_number("--requests-per-lifetime"), metavar="R",
                      help="(--logs, request bodies) requests without a timestamp come R per cache lifetime of each "
                           "model (its rule's TTL), in place of one burst: how a shared prefix (the --system prompt "
                           "and tools) is read and written by each model's own cache rule")
    bill.add_argument("--rate", metavar="N/day", help="(--logs, request bodies) the traffic's rate, once for every "
                      "model (N/day, N/hour, N/min or N/s): requests without a timestamp are spaced at it, so each "
                      "model's cache simulation takes its own requests per lifetime (5 minutes on OpenAI and "
                      "Anthropic, an hour on DeepSeek); --requests-per-lifetime gives that count directly")
    bill.add_argument("--batch", action="store_true",
                      help="price every model at its batch price (genai-prices'); a model without one is refused")
    bill.add_argument("--service-tier", choices=("default", "flex", "priority"),
                      help="price every model at this service tier (genai-prices'); a model without it is refused")
    wl.add_argument("--cached-share", type=_number("--cached-share", maximum=Decimal(1)), default=None, metavar="S",
                    help="share (0..1) of input tokens served from the prompt cache; for request bodies, --system "
                         "and --logs it replaces each model's simulated cache (0: no cache) (default: 0 for texts, "
                         "the simulation for requests)")
    wl.add_argument("--messages-per-request", type=_number("--messages-per-request", integer=True), default=Decimal(1),
                    metavar="N", help="chat messages per request: 1 is the text as one user message, counted as `tokenprism count` "
                         "counts it; N > 1 counts the format of N turns (an estimate); 0 is the raw text, no chat format")
    wl.add_argument("--chars-per-request", type=_number("--chars-per-request"), metavar="N",
                    help="scale every text to N characters per request, keeping its characters per token")
    p.add_argument("--format", choices=FORMATS, default="table", help="output format")
    p.add_argument("--sort", choices=SORTS, default=None,
                   help="order the models: cost (cheapest first: $/month, else $/request), tokens (fewest input tokens "
                        "first) or model (by name); default: the order given")
    add_detail(p)
    p.add_argument("--out", metavar="DIR", help="also write report.md, report.html, CSV files and figures to DIR")
    from .measure import add_engine_options  # --engine/--scheduler/--workers for --corpus and --logs (streamed)

    add_engine_options(p)
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar for --corpus on stderr (default: when stderr is a terminal)")
    p.set_defaults(func=cmd_cost)

    q = sub.add_parser("models", help=help_line("models"), formatter_class=fmt,
                       description="By default the model makers' own APIs; --all-providers adds hosts and resellers.")
    q.add_argument("contains", nargs="?", metavar="SUBSTRING", help="only models whose provider:id or name contains this")
    q.add_argument("--provider", help="only this provider id (e.g. openai, anthropic, groq, together)")
    q.add_argument("--all-providers", action="store_true", help="include hosts and resellers (OpenRouter, Together, Groq, ...)")
    q.add_argument("--exactness", choices=("exact", "estimate", "approximate", "none"),
                   help="only rows whose text count is this (approximate: the same as estimate)")
    q.add_argument("--include-deprecated", action="store_true", help="include models the price data marks deprecated")
    q.add_argument("--prices", metavar="FILE", help="your own prices (CSV or TOML), listed first")
    q.add_argument("--on", type=_day, metavar="YYYY-MM-DD", help="prices in force on this day (default: today, UTC)")
    q.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output format")
    add_wide(q)
    q.set_defaults(func=cmd_models)


# -- input -------------------------------------------------------------------------------------
def gather_inputs(args: argparse.Namespace) -> pd.DataFrame:
    """The requests named on the command line, as a frame with id, category, text."""
    import pandas as pd

    from .. import corpora as corpus

    frames: list[pd.DataFrame] = []
    rows: list[dict] = []
    if args.text is not None:
        rows.append({"id": "text", "category": "text", "text": args.text})
    for f in args.file or ():
        text, bad = read_text_file(f, errors=args.errors, max_bytes=max_input_bytes(args))
        if bad:
            print(f"note: {f}: {bad} invalid UTF-8 sequence(s) {'replaced by U+FFFD' if args.errors == 'replace' else 'dropped'}", file=sys.stderr)
        rows.append({"id": f, "category": "text", "text": text})
    if rows:
        frames.append(pd.DataFrame(rows))
    if args.corpus:
        report = corpus.LoadReport()
        samples = list(corpus.iter_samples(args.corpus, category=args.category, column=args.column,
                                           errors=args.errors, report=report))
        if not samples:
            raise BadInput(f"no text loaded from {args.corpus}: {report.summary()}")
        frames.append(corpus.samples_to_frame(samples))
    if args.builtin:
        cats = None if args.builtin == "all" else [c.strip() for c in args.builtin.split(",") if c.strip()]
        frames.append(corpus.load_builtin(cats))
    for name in args.machine_corpus or ():
        frames.append(corpus.samples_to_frame(corpus.iter_system(name)))
    if not frames:
        text, bad = read_stdin(errors=args.errors, max_bytes=max_input_bytes(args))
        if bad:
            print(f"note: stdin: {bad} invalid UTF-8 sequence(s) {'replaced by U+FFFD' if args.errors == 'replace' else 'dropped'}", file=sys.stderr)
        frames.append(pd.DataFrame([{"id": "stdin", "category": "text", "text": text}]))
    return pd.concat([f[["id", "category", "text"]] for f in frames], ignore_index=True)


MACHINE_CORPORA = ("stdlib", "pydoc", "gettext")


def system_prompt(args: argparse.Namespace) -> str | None:
    """--system TEXT, or the text of --system @FILE."""
    value = args.system
    if value is None:
        return None
    if value.startswith("@"):
        text, _ = read_text_file(value[1:], max_bytes=max_input_bytes(args))
        return text
    if value.split(":", 1)[0] in MACHINE_CORPORA:
        print(f"note: --system {value} is taken as the system prompt {value!r}; the machine corpus is "
              f"--machine-corpus {value}", file=sys.stderr)
    return value


def request_bodies(args: argparse.Namespace) -> tuple[list, argparse.Namespace]:
    """The request bodies of --messages and of -f FILE.json, as (where, Request, the model the body
    names or None); and `args` with -f left holding only the text files."""
    from ..requests import parse
    from .budget import body_model, file_body, read_json

    limit = max_input_bytes(args)
    bodies = []
    for name in args.messages or ():
        data = read_json(name, limit, what="--messages takes a request body (OpenAI, Anthropic, Gemini) or a list of "
                                           "messages")
        bodies.append((name, parse(data), body_model(data)))
    texts = []
    for name in args.file or ():
        if not name.lower().endswith(".json"):
            texts.append(name)
            continue
        request, note, model = file_body(name, limit, as_text="to price the JSON as a text, pipe it on stdin")
        if note and note.startswith(f"{name} read as a request body"):
            bodies.append((name, request, model))
        else:
            texts.append(name)
        if note:
            print(f"note: {note}", file=sys.stderr)
    return bodies, argparse.Namespace(**{**vars(args), "file": texts or None})


def _requests_of(args: argparse.Namespace, bodies: list, system: str | None) -> tuple[list, list, str]:
    """The requests of the command line: the bodies as log records (each with the model it names as
    the one that "served" it), the texts as (id, text), each one user message, and a line saying
    what they are."""
    from ..cost import LogRecord

    if args.corpus or args.builtin or args.machine_corpus:
        raise BadInput("a request body or --system prices requests one by one; leave out --corpus, --builtin and "
                       "--machine-corpus, or put many requests in a log (--logs FILE, one request per row)")
    records = [LogRecord(where, request, model=model) for where, request, model in bodies]
    what = [f"{len(bodies):,} request bod{'y' if len(bodies) == 1 else 'ies'} ({', '.join(b[0] for b in bodies)})"] \
        if bodies else []
    texts: list[tuple[str, str]] = []
    if args.text is not None or args.file or not bodies:  # stdin only when nothing else is given
        frame = gather_inputs(args)
        texts = [(str(i), t) for i, t in zip(frame["id"], frame["text"])]
        what.append(f"{len(frame):,} text(s), each one user message" + (" after the --system prompt" if system else ""))
    return records, texts, "; ".join(what)


def _overrides(path: str | None) -> list:
    if not path:
        return []
    from ..cost import load_overrides

    return load_overrides(path)


def _corpus_line(args: argparse.Namespace) -> str:
    return f"pricing corpus {', '.join(args.corpus)} chunk by chunk"


def _cost_corpus(args: argparse.Namespace, workload: Workload) -> CostReport:
    """--corpus priced on --engine: files streamed in chunks, memory bounded (no per-request rows)."""
    from itertools import chain

    from .. import corpora as corpus
    from ..cost import CorpusCost
    from ..engine import price_corpus
    from ..engine.read import iter_corpus_chunks
    from .measure import progress_wanted

    from ..engine.plan import is_url

    if any(is_url(p) for p in args.corpus):
        raise BadInput("cost --corpus reads the files in this process, from local paths; copy the files here "
                         "first (fsspec URLs are read by the workers of `tokenprism measure --by ...`)")
    cost = CorpusCost(args.models, workload=workload, overrides=_overrides(args.prices), on=args.on,
                      fallback_tokenizer=args.fallback_tokenizer)
    others = args.text is not None or args.file or args.builtin or args.machine_corpus
    first = [gather_inputs(argparse.Namespace(**{**vars(args), "corpus": None}))] if others else []
    report = corpus.LoadReport()
    read = iter_corpus_chunks(args.corpus, category=args.category, column=args.column, errors=args.errors,
                              report=report)  # tables through Arrow; scripts are never detected (not used)
    read_all: list[bool] = []  # set once the reader has finished without an error

    def requests() -> Iterator[pd.DataFrame]:
        yield from chain(first, (c.rename(columns={"sample_id": "id"})[["id", "category", "text"]] for c in read))
        read_all.append(True)

    total = sum(p.stat().st_size for p, _ in corpus.files.expand_paths(args.corpus))
    from ..engine import open_engine

    try:
        # the Dask dashboard for a run someone watches, as `measure` does (0.4 s of CPU otherwise)
        with open_engine(args.engine, scheduler=args.scheduler, workers=args.workers,
                         timeout=args.connect_timeout, dashboard=progress_wanted(args)) as engine:
            print(f"tokenprism cost: {_corpus_line(args)}; engine: {engine.describe()}", file=sys.stderr)
            return price_corpus(requests(), cost, engine=engine, progress=progress_wanted(args), total_bytes=total)
    except ValueError as e:
        if read_all and not cost.n_samples:  # read to the end and found nothing (a reading error says itself)
            raise BadInput(f"no text loaded from {args.corpus}: {report.summary()}") from e
        raise


def cmd_cost(args: argparse.Namespace) -> int:
    from ..cost import Workload, estimate
    from ..report.cost import WRITERS, write_report

    if args.out and Path(args.out).exists() and not Path(args.out).is_dir():  # before the counting
        raise BadInput(f"--out {args.out} is a file: give a folder for the report files")
    if args.out and (problem := writable_problem(Path(args.out) / "report.md")):  # read-only, no permission
        raise BadInput(problem)
    system = system_prompt(args)
    if args.logs:
        return cmd_traffic(args, _overrides(args.prices), system=system)
    bodies, args = request_bodies(args)
    if bodies or system is not None:  # requests, not texts: counted and priced one by one, as `count` counts them
        records, texts, what = _requests_of(args, bodies, system)
        return cmd_requests(args, _overrides(args.prices), texts, records, system, what)
    if args.image_size is not None:
        image_size(args)  # a bad size is named first
        raise BadInput("--image-size sizes the images a request body gives by URL, and a text request has none: "
                       "give the requests as bodies (--messages FILE, -f FILE.json) or a log (--logs FILE)")
    if isinstance(args.reasoning_tokens, tuple) or isinstance(args.reasoning_ratio, tuple):
        raise BadInput("MODEL=VALUE reasoning figures apply to --logs and request bodies (--messages); for texts, "
                       "give one figure for every model: --reasoning-tokens N or --reasoning-ratio R")
    if args.requests_per_lifetime is not None or args.rate is not None or args.cache_breakpoints != "request":
        raise BadInput("--rate, --requests-per-lifetime and --cache-breakpoints simulate each model's cache over requests: "
                       "give request bodies (--messages), a --system prompt for the texts, or --logs")
    if args.requests_per_month is None or (args.output_tokens is None and args.output_ratio is None):
        return cmd_quick(args)
    workload = Workload(requests_per_month=args.requests_per_month, output_tokens=args.output_tokens,
                        output_ratio=args.output_ratio, cached_share=_share(args),
                        messages_per_request=args.messages_per_request, chars_per_request=args.chars_per_request,
                        reasoning_tokens=args.reasoning_tokens, reasoning_ratio=args.reasoning_ratio,
                        batch=args.batch, service_tier=args.service_tier)
    if args.corpus:  # streamed: counted on the engine, reduced to sums chunk by chunk
        report = _cost_corpus(args, workload)
    else:
        report = estimate(gather_inputs(args), args.models, workload=workload, overrides=_overrides(args.prices),
                          on=args.on, fallback_tokenizer=args.fallback_tokenizer)

    report = dataclasses.replace(report, models=sort_models(report.models, args.sort))
    if args.format == "table" and args.quiet:
        from ..report.tables import display_models

        sys.stdout.write(quiet_table(display_models(report), table_width(args)))
    elif args.format == "table":
        from .answer import cost_text

        sys.stdout.write(cost_text(report, width=table_width(args), explain=args.explain))
    else:
        write_report_text(WRITERS, args.format, report)
    if args.out:
        sys.stdout.flush()  # the table first, then the list of files on stderr
        from ..report.bundle import own_files, read_manifest

        previous = read_manifest(Path(args.out))  # the files a run before this one wrote: only those may go
        written = write_report(report, Path(args.out))
        for path in [*written, own_files(Path(args.out), written, previous)]:
            print(f"wrote {path}", file=sys.stderr)
    return 0


def _share(args: argparse.Namespace) -> Decimal:
    """--cached-share for a text workload, which simulates no cache: not given is no cache."""
    return Decimal(0) if args.cached_share is None else args.cached_share


def cmd_quick(args: argparse.Namespace) -> int:
    """The price of one request: input always; output with an output size; monthly with a request rate."""
    from ..cost import Workload, estimate, quick_frame
    from ..report.tables import display_quick, quick_reasons
    from ..report.cost import QUICK_BODIES, QUICK_WRITERS, QuickReport

    if args.out:
        raise BadInput("--out writes a workload report: add --requests-per-month N and --output-tokens N "
                         "(or --output-ratio R)")
    output = args.output_tokens is not None or args.output_ratio is not None
    workload = Workload(requests_per_month=args.requests_per_month or 1,
                        output_tokens=args.output_tokens if output else 0, output_ratio=args.output_ratio,
                        cached_share=_share(args), messages_per_request=args.messages_per_request,
                        chars_per_request=args.chars_per_request, reasoning_tokens=args.reasoning_tokens,
                        reasoning_ratio=args.reasoning_ratio, batch=args.batch, service_tier=args.service_tier)
    report = estimate(gather_inputs(args), args.models, workload=workload, overrides=_overrides(args.prices),
                      on=args.on, fallback_tokenizer=args.fallback_tokenizer)

    frame = sort_models(quick_frame(report, output=output, monthly=args.requests_per_month is not None), args.sort)
    if args.quiet and args.format in ("table", *QUICK_BODIES):
        sys.stdout.write(quiet_table(display_quick(frame), table_width(args) if args.format == "table" else None))
        return 0
    hints = [] if output else ["add --output-tokens N for the output cost"]
    hints += [] if args.requests_per_month is not None else ["--requests-per-month N for monthly figures"]
    if args.format == "table":
        from .answer import quick_text

        sys.stdout.write(quick_text(report, frame, hints, width=table_width(args), explain=args.explain))
        return 0
    why = [terse(w, args.explain) for w in quick_reasons(frame)]
    write_report_text(QUICK_WRITERS, args.format, QuickReport(report, frame, tuple(why), tuple(hints)))
    return 0


# -- models ------------------------------------------------------------------------------------
def models_frame(args: argparse.Namespace) -> tuple[pd.DataFrame, str]:
    """The rows of `tokenprism models` and the price-source line."""
    from ..cost import model_table

    return model_table(contains=args.contains, provider=args.provider, all_providers=args.all_providers,
                       exactness=args.exactness, include_deprecated=args.include_deprecated,
                       overrides=_overrides(args.prices), on=args.on)


def cmd_models(args: argparse.Namespace) -> int:
    from ..report.cost import MODELS_WRITERS, ModelListing

    frame, source = models_frame(args)
    listing = ModelListing(frame, source, args.on or datetime.now(UTC).date())
    if args.format == "table":
        from .answer import models_text

        sys.stdout.write(models_text(listing, width=table_width(args)))
    else:
        write_report_text(MODELS_WRITERS, args.format, listing)
    return 0
