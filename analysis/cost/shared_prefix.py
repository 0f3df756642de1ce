"""A workload whose requests share a prefix (a system prompt and tools), priced request by request
with each model's own prompt-cache rule, as a log is.

Unlike `workloads` (texts under an assumed workload, with one flat `cached_share` for every
model), this module turns the texts into requests that carry the shared prefix, and prices them
through the traffic pipeline (`logs`): each model's cache is simulated by its documented rule
(`caching`), the requests coming `requests_per_lifetime` per cache lifetime of that model as a
stream already running. `cached_share` stays as a manual override. The CLI (`cost TEXT --system
S`), the API (`POST /v1/cost` with `system`) and the dashboard's Cost page all call
`price_shared_prefix`, so they give one answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..errors import BadInput
from ..requests import Request, parse
from .workloads import workload_value
from .logs import LogRecord, LogReport, TrafficPartial, TrafficPlan, TrafficReport, plan_traffic, price_records, \
    summarise, with_system

__all__ = ["INPUT_ONLY", "price_shared_prefix", "prefix_tools", "text_records", "traffic_of"]

INPUT_ONLY = "input only: add --output-tokens N (or --output-ratio R) for the output cost"

Pricer = Callable[[Iterable[LogRecord], TrafficPlan], TrafficPartial]


def prefix_tools(tools: Any) -> tuple:
    """The tools of the shared prefix, from an OpenAI `tools` list (JSON value), as `Request.tools`.

    Raises:
        BadInput: `tools` is not a list of tool definitions (the parser's message, naming the field).

    >>> [t.name for t in prefix_tools([{"type": "function", "function": {"name": "track", "parameters": {}}}])]
    ['track']
    """
    if tools is None or tools == []:
        return ()
    if not isinstance(tools, list):
        raise BadInput(f"tools must be a list of tool definitions (OpenAI's \"tools\"), got {type(tools).__name__}")
    return parse({"messages": [{"role": "user", "content": "."}], "tools": tools}).tools


def text_records(texts: Iterable[tuple[str, str]], *, tools: Any = None) -> list[LogRecord]:
    """Each (id, text) as one request: the text as one user message after the shared `tools`."""
    shared = prefix_tools(tools)
    return [LogRecord(str(where), dataclasses.replace(Request.from_text(text), tools=shared))
            for where, text in texts]


def traffic_of(partial: TrafficPartial, plan: TrafficPlan, log_report: LogReport, *, what: str, source: str = "requests",
               input_only: bool = False, requests_per_month: Any = None, kept: int = 0) -> TrafficReport:
    """The `TrafficReport` of priced requests (`partial`): summarised, described by `what`, with the
    input-only note, the requests that kept their own system prompt, and the month's projection."""
    from .logs.report import project

    if not partial.rows:
        raise BadInput(f"no request read from {what}: {log_report.summary()}")
    report = summarise(partial, plan, log_report, source=source)
    notes = ((INPUT_ONLY,) if input_only else ()) + \
        ((f"--system: {kept:,} request(s) have their own system prompt and keep it",) if kept else ())
    report = dataclasses.replace(report, notes=notes + report.notes,
                                 log_summary=what if source == "requests" else report.log_summary)
    if requests_per_month is not None:
        report = project(report, requests_per_month)
    return report


def price_shared_prefix(texts: Sequence[str] | str | Iterable[tuple[str, str]], models: Sequence[str] | str, *,
                        system: str | None = None, tools: Any = None, requests_per_lifetime: Any = None,
                        rate: Any = None,
                        cache_breakpoints: str = "request", requests_per_month: Any = None,
                        output_tokens: Any = None, output_ratio: Any = None, cached_share: Any = None,
                        reasoning_tokens: Any = None, reasoning_ratio: Any = None,
                        reasoning_for: Iterable[tuple[str, str, Any]] = (), batch: bool = False,
                        service_tier: str | None = None, on: Any = None, overrides: Iterable[Any] = (),
                        fallback_tokenizer: str | None = None, image_size: Any = None,
                        bodies: Sequence[LogRecord] = (), what: str = "",
                        price: Pricer | None = None) -> TrafficReport:
    """What requests sharing a prefix cost per model, each model's prompt cache by its own rule.

    Args:
        texts: one request per text (a str is one text), or (id, text) pairs: each is one user
            message after `system` and `tools`.
        system, tools: the shared prefix: a system prompt, and tools as OpenAI's `tools` list.
        requests_per_lifetime: requests per cache lifetime of each model (its rule's TTL), as a
            stream already running (the prefix is cached when the first request comes); None:
            the requests are one burst.
        rate: the traffic's rate ("10000/day"), once for every model: each model takes its own
            requests per lifetime from it (`plan_traffic`'s `rate`), in place of `requests_per_lifetime`.
        cache_breakpoints: "request" (an Anthropic-style cache writes only at a request's own
            cache_control, which a text has none of) or "auto" (after the system prompt and tools,
            and after the last message).
        requests_per_month: projects the mean $ per request to a month.
        output_tokens, output_ratio: output per request (neither: the input alone is priced, said so).
        cached_share: a manual share of input read from the cache, in place of every model's rule
            (0: no cache); None simulates each model's own rule.
        reasoning_tokens, reasoning_ratio, reasoning_for, batch, service_tier, on, overrides,
            fallback_tokenizer, image_size: as `plan_traffic`.
        bodies: request bodies priced first (the CLI's --messages), each keeping its own system prompt.
        what: the requests described for the report (default: counted here).
        price: how the requests are priced (default `price_records`, in this process; the CLI passes
            its engine's).

    Raises:
        BadInput, UnknownName: a bad value or an unknown model, named.

    >>> r = price_shared_prefix("Where is my parcel?", ["gpt-4.1"], system="Be brief. " * 400,
    ...                         requests_per_lifetime=10, output_tokens=50)
    >>> row = r.models.iloc[0]
    >>> int(row["cache_read_tokens"]) > 1024, int(row["cache_write_tokens"])
    (True, 0)
    """
    if requests_per_lifetime is not None:  # the bounds every face reads the field with
        requests_per_lifetime = workload_value("requests_per_lifetime", requests_per_lifetime)
    if requests_per_month is not None:
        requests_per_month = workload_value("requests_per_month", requests_per_month)
    if isinstance(texts, str):
        texts = [texts]
    pairs = [t if isinstance(t, tuple) else (f"text {i + 1}", t) for i, t in enumerate(texts)]
    if system is not None and not system.strip():
        system = None
    input_only = output_tokens is None and output_ratio is None
    plan = plan_traffic(models, output_tokens=0 if input_only else output_tokens, output_ratio=output_ratio,
                        cached_share=cached_share, overrides=overrides, on=on, fallback_tokenizer=fallback_tokenizer,
                        reasoning_tokens=reasoning_tokens, reasoning_ratio=reasoning_ratio,
                        reasoning_for=reasoning_for, cache_breakpoints=cache_breakpoints, batch=batch,
                        service_tier=service_tier, requests_per_lifetime=requests_per_lifetime,
                        image_size=image_size, rate=rate)
    records = [*bodies, *text_records(pairs, tools=tools)]
    kept = [0]
    log_report = LogReport()
    log_report.rows = len(records)
    if not what:
        what = (f"{len(pairs):,} text(s), each one user message"
                + (" after the shared system prompt" if system else "") + (" and tools" if tools else ""))
    partial = (price or price_records)(list(with_system(records, system, kept)), plan)
    return traffic_of(partial, plan, log_report, what=what, input_only=input_only,
                      requests_per_month=requests_per_month, kept=kept[0])
