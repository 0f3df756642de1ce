"""The exports users already have, found item by item: which export a file is, and its items
(each a span, an observation, a row or a report's bucket) streamed out of its container.

Unlike `exports` (which turns an item into an `ExportRow`: its model, time, billed parts by the
shape's rule, own cost and content) and `files` (the containers of request logs), this module only
finds the items and never reads what they mean. Shapes, detected from a file's first bytes
(`detect_export`) or forced:

* ``otel``: OTLP/JSON traces (``resourceSpans[].scopeSpans[].spans[]``, one document or one per line);
* ``langfuse``: Langfuse observations (UI or blob-storage export; CSV, JSON or JSONL);
* ``helicone``: ``@helicone/export`` rows (JSON, JSONL or CSV; bodies with ``--include-body``);
* ``litellm``: ``LiteLLM_SpendLogs`` rows (CSV or JSON; prompts only with ``store_prompts_in_spend_logs``);
* ``openai-usage`` / ``openai-costs``: the organization Usage API (completions) and Costs API pages;
* ``anthropic-usage`` / ``anthropic-cost``: the Admin API's ``usage_report/messages`` and ``cost_report``.

Every container is read as a stream (a JSON document item by item with ijson, JSON Lines and CSV
line by line, gzip inflated as it is read), so memory stays flat in the number of rows.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ...errors import BadInput
from ...textio.lines import LineBounds
from .files import LogUpload, Source, _lines, _open_binary

__all__ = ["EXPORT_SHAPES", "buckets", "detect_export", "export_items"]

EXPORT_SHAPES = ("otel", "langfuse", "helicone", "litellm", "openai-usage", "openai-costs", "anthropic-usage",
                 "anthropic-cost")
_HEAD = 1 << 16
# (shape, every key that must appear among the first bytes); the first match wins
_MARKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("otel", ("resourceSpans",)),
    ("openai-usage", ("organization.usage.completions.result",)),
    ("openai-usage", ("num_model_requests", "input_tokens")),
    ("openai-costs", ("organization.costs.result",)),
    ("openai-costs", ("line_item", "amount")),
    ("anthropic-cost", ("cost_type", "amount")),  # before usage: a cost row names "uncached_input_tokens" as its token type
    ("anthropic-cost", ("token_type", "amount")),
    ("anthropic-usage", ("uncached_input_tokens",)),
    ("langfuse", ("usage_details",)),
    ("langfuse", ("usageDetails",)),
    ("langfuse", ("cost_details",)),
    ("langfuse", ("costDetails",)),
    ("langfuse", ("provided_model_name",)),
    ("helicone", ("response_id", "request_created_at")),
    ("helicone", ("response_id", "signed_body_url")),
    ("litellm", ("spend", "startTime")),
    ("litellm", ("spend", "call_type")),
)


def _head(src: Source, bounds: LineBounds) -> str:
    """The first 64 kB of the file's text (inflated, for gzip): only that much is read, so a look at
    a large request log costs nothing (the bounded reader would first measure a whole gzip file)."""
    from isal import igzip

    raw = io.BytesIO(src.data) if isinstance(src, LogUpload) else open(src, "rb")
    with raw:
        magic = raw.read(2)
        raw.seek(0)
        try:
            data = igzip.IGzipFile(fileobj=raw).read(_HEAD) if magic == b"\x1f\x8b" else raw.read(_HEAD)
        except (OSError, EOFError) as e:
            raise BadInput(f"{src}: a damaged gzip file ({e}); export it again") from None
    return data.decode("utf-8", errors="replace").lstrip("\ufeff")


def detect_export(src: Source, bounds: LineBounds | None = None) -> str | None:
    """The export shape of a file from its first bytes, or None when it is none of `EXPORT_SHAPES`
    (a request log, read by `read`)."""
    head = _head(src, bounds or LineBounds.from_env())
    for shape, keys in _MARKERS:
        if all(key in head for key in keys):
            return shape
    return None


def _container(src: Source, head: str) -> str:
    """"csv", "jsonl" (one JSON value per line) or "json" (one document, read item by item)."""
    name = (src.name if isinstance(src, LogUpload) else Path(src).name).lower().removesuffix(".gz")
    if name.endswith(".csv"):
        return "csv"
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    text = head.lstrip()
    if not text.startswith(("{", "[")):
        raise BadInput(f"{src}: neither JSON nor CSV (it starts {text[:20]!r}); name a CSV file .csv")
    first = text.split("\n", 1)[0]
    if text.startswith("{"):
        try:
            orjson.loads(first)
            return "jsonl"  # a whole object on its first line: one value per line
        except orjson.JSONDecodeError:
            return "json"
    return "json"


def _document_items(src: Source, prefix: str, bounds: LineBounds) -> Iterator[tuple[str, Any]]:
    """(where, item) of the array at `prefix` of one JSON document, item by item."""
    import ijson

    with _open_binary(src, bounds) as fh:
        try:
            for n, item in enumerate(ijson.items(fh, prefix), 1):
                yield f"{src}:item {n}", item
        except ijson.JSONError as e:
            raise BadInput(f"{src}: not valid JSON ({e}); export the file again, or give it as JSON Lines") from None


def _json_lines(src: Source, bounds: LineBounds) -> Iterator[tuple[str, Any]]:
    for n, line in _lines(src, bounds):
        if not line.strip():
            continue
        try:
            yield f"{src}:{n}", orjson.loads(line)
        except orjson.JSONDecodeError as e:
            raise BadInput(f"{src}:{n}: not valid JSON ({e}); fix the line, or export the file again") from None


_JSON_CELLS = ("usage_details", "usageDetails", "cost_details", "costDetails", "metadata", "input", "output",
               "request_body", "response_body", "messages", "response", "proxy_server_request", "amount",
               "cache_creation", "usage", "request_properties")


def _csv_rows(src: Source, bounds: LineBounds) -> Iterator[tuple[str, Any]]:
    numbered = _lines(src, bounds, universal=True)
    reader = csv.DictReader(line for _, line in numbered)
    for row in reader:
        out: dict[str, Any] = {}
        for key, value in row.items():
            if key is None:
                raise BadInput(f"{src}: line {reader.line_num} has more cells than the header")
            if isinstance(value, str) and key in _JSON_CELLS and value.strip()[:1] in ("{", "["):
                try:
                    value = orjson.loads(value)
                except orjson.JSONDecodeError:
                    pass  # text that looks like JSON stays text (an input that is a string)
            out[key] = None if value == "" else value
        yield f"{src}:line {reader.line_num}", out


def export_items(src: Source, shape: str, bounds: LineBounds) -> Iterator[tuple[str, Any]]:
    """(where, item) of a file: each item a span, an observation, a row or a report bucket."""
    head = _head(src, bounds)
    container = _container(src, head)
    if container == "csv":
        yield from _csv_rows(src, bounds)
        return
    if shape == "otel":
        prefix = "resourceSpans.item.scopeSpans.item.spans.item"
        if container == "jsonl":
            for where, doc in _json_lines(src, bounds):
                yield from ((where, span) for span in _otel_spans(doc))
        else:
            yield from _document_items(src, prefix, bounds)
        return
    if container == "jsonl":
        for where, value in _json_lines(src, bounds):
            items = value.get("data") if isinstance(value, dict) and isinstance(value.get("data"), list) else None
            if items is None:
                yield where, value
            else:  # a page of an API, one per line
                yield from ((f"{where} item {i}", v) for i, v in enumerate(items, 1))
        return
    prefix = "item" if head.lstrip().startswith("[") else "data.item"
    yield from _document_items(src, prefix, bounds)


def _otel_spans(doc: Any) -> Iterator[Any]:
    for resource in (doc or {}).get("resourceSpans") or ():
        for scope in resource.get("scopeSpans") or ():
            yield from scope.get("spans") or ()


def buckets(where: str, item: Any) -> Iterator[tuple[str, Any]]:
    """A report's results: a bucket's `results` (each with the bucket's start), or the item itself."""
    if isinstance(item, dict) and isinstance(item.get("results"), list):
        start = {k: item[k] for k in ("start_time", "starting_at") if k in item}
        for i, result in enumerate(item["results"], 1):
            yield f"{where} result {i}", {**start, **result} if isinstance(result, dict) else result
    else:
        yield where, item

