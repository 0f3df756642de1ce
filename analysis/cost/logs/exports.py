"""The logs users already have, row by row: each item of an export (OpenTelemetry GenAI spans,
Langfuse, Helicone and LiteLLM exports, the providers' usage and cost reports) read into an `ExportRow`.

Unlike `read` (request logs: a request body per row, recounted by every tokenizer), these files
hold what a tool or a provider *recorded*: the model, the time, the token counts of each billed
part, often the tool's own cost, and sometimes the request and the response. Unlike
`export_files` (which finds a file's shape and its items, and never reads what they mean), this
module reads each item: what each count means is the shape's rule (`export_rules.toml`, applied by
`export_rules.parts_of`); the model, the time and the own cost are read here, and the request and
the response, where the row holds them, become a request log's `LogRecord`. Pricing the rows is
`export_bill`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import orjson

from ...errors import BadInput
from ...textio.lines import LineBounds
from .export_files import EXPORT_SHAPES, buckets, detect_export, export_items
from .export_rules import Parts, parts_of, rules
from .files import LogUpload, Source
from .read import LogReport
from .shapes import LogRecord, RowError, detect_shape, parse_row, parse_time

__all__ = ["ExportRow", "iter_export_rows", "read_export_rows"]


@dataclass(frozen=True, slots=True)
class ExportRow:
    """One row of an export: a request (``aggregate`` False) or a report's bucket of many.

    Attributes:
        where: "FILE:LINE" or "FILE:item N", for messages.
        shape: one of `EXPORT_SHAPES`.
        model: the model named by the row (a report without grouping by model names none).
        parts: the billed parts by the shape's rule, or None for a cost-only row (a cost report).
        requests: how many requests the row stands for (a usage report's request count, else 1).
        own_cost: what the tool or the provider says the row cost (USD), where the row says.
        line_item: what a cost report's amount is for (its token type or line item).
        record: the request and response, where the row holds them (as a request log's record).
        notes: what reading the row decided, in words.
    """

    where: str
    shape: str
    model: str | None
    parts: Parts | None
    timestamp: datetime | None = None
    provider: str | None = None
    requests: int = 1
    aggregate: bool = False
    own_cost: Decimal | None = None
    line_item: str | None = None
    batch: bool = False
    service_tier: str | None = None
    context_window: str | None = None
    record: LogRecord | None = None
    notes: tuple[str, ...] = ()


# -- values -------------------------------------------------------------------------------------
def _otel_value(value: Any) -> Any:
    """An OTLP/JSON AnyValue as a plain value (intValue is a string in OTLP/JSON)."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_otel_value(v) for v in (value["arrayValue"] or {}).get("values") or ()]
    if "kvlistValue" in value:
        return {kv.get("key"): _otel_value(kv.get("value")) for kv in (value["kvlistValue"] or {}).get("values") or ()}
    return None


def _otel_row(span: dict[str, Any]) -> dict[str, Any]:
    row = {str(a.get("key")): _otel_value(a.get("value")) for a in span.get("attributes") or () if isinstance(a, dict)}
    nanos = span.get("startTimeUnixNano")
    if nanos not in (None, "", "0", 0):
        row["__time"] = int(nanos) / 1e9
    return row


def _decimal(value: Any, where: str, what: str) -> Decimal | None:
    if value is None or value == "":
        return None
    if isinstance(value, float):
        value = repr(value)  # the shortest text that reads back as the same float
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise RowError(f"{what} {value!r} is not a number", f"bad {what}") from None
    if not number.is_finite():
        raise RowError(f"{what} {value!r} is not a finite number", f"bad {what}")
    return number


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _flag(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "1", "yes"))


# -- content: the request and the response, where the row holds them ----------------------------
def _semconv_messages(value: Any) -> list[dict[str, Any]] | None:
    """OpenTelemetry's gen_ai.input/output.messages (role + parts) as OpenAI chat messages (text and
    images by URI); None when the value is absent or holds parts this does not read."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return None
    if not isinstance(value, list):
        return None
    out = []
    for message in value:
        if not isinstance(message, dict):
            return None
        content: list[dict[str, Any]] = []
        for part in message.get("parts") or ():
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text":
                content.append({"type": "text", "text": str(part.get("content", ""))})
            elif kind == "uri" and part.get("modality") == "image":
                content.append({"type": "image_url", "image_url": {"url": str(part.get("uri", ""))}})
            else:
                return None
        out.append({"role": message.get("role", "user"), "content": content})
    return out


def _record(where: str, request: Any, response: Any) -> tuple[LogRecord | None, str | None]:
    """The row's request and response as a request log reads them, or (None, why not)."""
    if isinstance(request, list):
        request = {"messages": request}
    if not isinstance(request, dict) or not (request.get("messages") or request.get("input") or request.get("contents")):
        return None, None
    row: dict[str, Any] = {"request": request}
    if isinstance(response, (str, dict)) and response:
        if isinstance(response, dict) and response.get("role") == "assistant" and "content" in response \
                and "choices" not in response:
            response = response.get("content") if isinstance(response.get("content"), str) else response
        row["response"] = response
    try:
        return parse_row(row, detect_shape(row), where=where), None
    except (RowError, BadInput) as e:
        return None, f"its content was not read ({e}): it is priced from its usage alone"


def _indexed_content(where: str, row: dict[str, Any]) -> tuple[LogRecord | None, str | None]:
    """The earlier conventions' content, one attribute a field (``gen_ai.prompt.0.role``,
    ``gen_ai.prompt.0.content``, ``gen_ai.completion.0.content``), as OpenLLMetry writes it."""
    messages = []
    for i in range(10_000):
        content = row.get(f"gen_ai.prompt.{i}.content")
        if content is None:
            break
        messages.append({"role": str(row.get(f"gen_ai.prompt.{i}.role") or "user"), "content": str(content)})
    if not messages:
        return None, None
    answer = row.get("gen_ai.completion.0.content")
    return _record(where, {"messages": messages}, str(answer) if answer is not None else None)


def _content(shape: str, where: str, row: dict[str, Any]) -> tuple[LogRecord | None, str | None]:
    rule = rules()[shape]
    if shape == "otel":
        messages = _semconv_messages(row.get("gen_ai.input.messages"))
        if messages is None:
            return _indexed_content(where, row)
        system = row.get("gen_ai.system_instructions")
        if isinstance(system, str) and system:
            sys_parts = _semconv_messages(f'[{{"role":"system","parts":{system}}}]') if system.startswith("[") else None
            messages = (sys_parts or [{"role": "system", "content": system}]) + messages
        answer = _semconv_messages(row.get("gen_ai.output.messages"))
        text = "".join(p["text"] for m in answer or () for p in m["content"] if p.get("type") == "text") or None
        return _record(where, {"messages": messages}, text)
    request = rule.value(row, "request")
    response = rule.value(row, "response")
    if shape == "litellm" and isinstance(request, dict) and not request.get("messages") and isinstance(row.get("messages"), list):
        request = row["messages"]
    return _record(where, request, response)


# -- rows ---------------------------------------------------------------------------------------
def _model(shape: str, row: dict[str, Any]) -> str | None:
    model = _text(rules()[shape].value(row, "model"))
    if model and shape == "litellm" and "/" in model:  # LiteLLM's "provider/model" route names
        model = model.split("/", 1)[1]
    return model


def _time(shape: str, row: dict[str, Any]) -> datetime | None:
    value = row.get("__time") if shape == "otel" else rules()[shape].value(row, "time")
    if value in (None, ""):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return parse_time(value)


def _row(shape: str, where: str, item: Any) -> ExportRow | None:
    """One item as an `ExportRow`; None for an item that is no model call (a tool span, an event)."""
    if not isinstance(item, dict):
        raise RowError(f"a row must be a JSON object, got {type(item).__name__}", "not a JSON object")
    row = _otel_row(item) if shape == "otel" else item
    rule = rules()[shape]
    if shape == "langfuse" and str(row.get("type") or "GENERATION").upper() not in ("GENERATION", "EMBEDDING") \
            and not (row.get("usage_details") or row.get("usageDetails")):
        return None
    try:
        parts = parts_of(row, rule) if shape not in ("openai-costs", "anthropic-cost") else None
    except BadInput as e:
        raise RowError(str(e), "contradicting usage") from None
    cost = _decimal(rule.value(row, "own_cost"), where, "cost")
    cents = _decimal(rule.value(row, "own_cost_cents"), where, "amount")
    if cents is not None:
        cost = cents / 100
    currency = _text(rule.value(row, "currency"))
    if cost is not None and currency and currency.upper() != "USD":
        raise RowError(f"an amount in {currency}: only USD amounts are compared", "not USD")
    model, line_item = _model(shape, row), None
    if shape == "openai-costs":
        line_item = _text(row.get("line_item"))
        if line_item:
            model = line_item.split(",", 1)[0].strip() or None
    elif shape == "anthropic-cost":
        line_item = _text(row.get("token_type")) or _text(row.get("cost_type"))
    if parts is None and cost is None:
        return None  # a span without usage (a tool call, an agent step): nothing was billed on it
    requests = rule.value(row, "requests")
    record, why = (None, None) if rule.aggregate else _content(shape, where, row)
    notes = (parts.notes if parts else ()) + ((why,) if why else ())
    provider = _text(rule.value(row, "provider"))
    return ExportRow(where, shape, model, parts, _time(shape, row), provider.lower() if provider else None,
                     int(requests) if requests not in (None, "") else 1, rule.aggregate, cost, line_item,
                     _flag(rule.value(row, "batch")) or _text(rule.value(row, "service_tier")) == "batch",
                     _text(rule.value(row, "service_tier")),
                     _text(rule.value(row, "context_window")), record, notes)


def iter_export_rows(paths: str | Source | Iterable[str | Source], *, shape: str = "auto", errors: str = "strict",
                     report: LogReport | None = None, bounds: LineBounds | None = None) -> Iterator[ExportRow]:
    """Stream `ExportRow`s from export files, one file after another, one row at a time.

    Args:
        paths: export files (.json, .jsonl, .csv, each plain or gzip), or `LogUpload`s.
        shape: "auto" (detected per file from its first bytes) or one of `EXPORT_SHAPES`.
        errors: "strict" (the first bad row raises) or "skip" (bad rows are counted in `report`).
        report: receives the rows read and skipped and each file's shape.

    Raises:
        BadInput: a file of no export shape (with "auto"), a bad row (strict), an unknown shape.
    """
    if shape != "auto" and shape not in EXPORT_SHAPES:
        raise BadInput(f"unknown export shape {shape!r}; valid: auto, {', '.join(EXPORT_SHAPES)}")
    report = report if report is not None else LogReport()
    bounds = bounds or LineBounds.from_env()
    sources = [paths] if isinstance(paths, (str, Path, LogUpload)) else list(paths)
    for src in sources:
        path: Source = src if isinstance(src, LogUpload) else Path(src)
        if isinstance(path, Path) and not path.is_file():
            raise BadInput(f"cannot read {path}: not a file")
        file_shape = shape if shape != "auto" else detect_export(path, bounds)
        if file_shape is None:
            raise BadInput(f"{path}: not an export this reads ({', '.join(EXPORT_SHAPES)}); force one with shape=SHAPE")
        report.shapes[str(path)] = file_shape
        for where, item in export_items(path, file_shape, bounds):
            for at, value in buckets(where, item) if rules()[file_shape].aggregate else ((where, item),):
                try:
                    row = _row(file_shape, at, value)
                except RowError as e:
                    if errors == "strict":
                        raise BadInput(f"{at}: {e} (read as {file_shape}; force another with shape=SHAPE). Fix the row, "
                                       "or pass errors='skip' to load the rest") from None
                    report.skip(e.reason, at)
                    continue
                if row is None:
                    report.skip("no tokens or cost (not a model call)", at)
                    continue
                report.rows += 1
                yield row


def read_export_rows(paths: str | Source | Iterable[str | Source], **options: Any) -> tuple[list[ExportRow], LogReport]:
    """All rows of small exports at once (tests, the dashboard)."""
    report = LogReport()
    return list(iter_export_rows(paths, report=report, **options)), report

