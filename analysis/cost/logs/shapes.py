"""The log wrapper: what a log row adds around a request body, and nothing of the body itself.

Unlike `read` (files, containers, streaming and error policy) and `analysis.requests` (the one
parser and detector of request bodies, which this module calls for all five request shapes:
OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini contents and text), this
module sees one decoded row at a time and knows only the wrapper: where the request sits (the row,
a logger's `request`, an OpenAI Batch line's `body`), the logged response, the provider's usage,
the model that served it and the time. The request becomes a `Request` through
`analysis.requests.parse`, so a log row and `tokenprism count --messages` read the same body the
same way (the commonest row, a plain-text OpenAI chat, through the one function of that parser
that reads such a body, `plain_chat`, without the dispatch around it). It raises `RowError` (a message plus a short reason for the skip counts) for anything it
does not understand: an unknown role or content type is named, never dropped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ...errors import BadInput, UnknownName, shown
from ...memo import run_caches
from ...requests import Request, TextPart, ToolCall, detect_shape as request_shape, parse
from ...requests.formats.parts import media_counts
from ...requests.shapes.anthropic import cache_control_problem
from ...requests.shapes.openai_chat import plain_chat
from ..usage import MAX_ROW_TOKENS, LoggedBill, read_usage

# the request shapes, plus "openai-batch": an OpenAI Batch input line wrapping a chat or Responses body
SHAPES = ("openai-chat", "openai-batch", "openai-responses", "anthropic", "gemini", "text")
_BATCH_URLS = {"/v1/chat/completions": "openai-chat", "/v1/responses": "openai-responses"}
_TIME_KEYS = ("timestamp", "created_at", "time", "created")


class RowError(BadInput):
    """A row this shape cannot read: `str(e)` says what is wrong, `reason` groups skips."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


@dataclass(frozen=True, slots=True)
class Usage:
    """Provider-reported tokens of a row, for the model that served it (cached included in input)."""

    input_tokens: int
    output_tokens: int | None = None
    cached_tokens: int = 0


@dataclass(frozen=True, slots=True)
class LogRecord:
    """One logged request, whatever shape it came in.

    Attributes:
        where: "FILE:LINE" (or "FILE:row N"), for messages.
        request: the request, as `analysis.requests.parse` reads its body (system, messages with
            roles, names and parts, tools): what every model's chat format counts.
        response: the logged assistant text, or None when the row has no response.
        response_json: tool calls in the response, as JSON text.
        usage: provider usage, or None.
        timestamp: when the request was made (UTC), or None.
        model: the model that served it, or None.
        logged_bill: what the log billed, the usage as genai-prices reads it with each billed part
            apart (`cost.usage.LoggedBill`), or None.
        batch: True for an OpenAI Batch line (billed at batch prices).
        service_tier: the service tier the response (or else the request) names, or None.
        cache_control: the request's own prompt-cache breakpoints (Anthropic's ``cache_control``),
            as (block, 1-hour TTL): block 0 ends after the system prompt and tools, block j after
            the j-th message (a breakpoint inside a message is taken at the message's end).
    """

    where: str
    request: Request
    response: str | None = None
    response_json: str = ""
    usage: Usage | None = None
    timestamp: datetime | None = None
    model: str | None = None
    logged_bill: LoggedBill | None = None
    batch: bool = False
    service_tier: str | None = None
    cache_control: tuple[tuple[int, bool], ...] = ()

    @property
    def not_counted(self) -> tuple[tuple[str, int], ...]:
        """(kind, number) of the request's parts no tokenizer counts here: image, audio, file."""
        return tuple(sorted(media_counts(self.request).items()))



def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _request_of(row: dict[str, Any]) -> dict[str, Any]:
    """The request body: the row itself, or its "request" (a logging wrapper) or "body" (Batch)."""
    for key in ("request", "body"):
        if isinstance(row.get(key), dict):
            return row[key]
    return row


def detect_shape(row: Any) -> str:
    """The shape of a file, from one row: a Batch line, else the shape `analysis.requests` detects.

    >>> detect_shape({"custom_id": "r1", "body": {"messages": []}})
    'openai-batch'
    >>> detect_shape({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]})
    'anthropic'
    >>> detect_shape({"messages": [{"role": "user", "content": "Hi"}]}), detect_shape({"request": {"contents": []}})
    ('openai-chat', 'gemini')
    """
    if isinstance(row, str):
        return "text"
    if not isinstance(row, dict):
        raise RowError(f"a row must be a JSON object, got {type(row).__name__}", "not a JSON object")
    if "custom_id" in row and isinstance(row.get("body"), dict):
        return "openai-batch"
    request = _request_of(row)
    try:
        return request_shape(request)
    except BadInput:  # no request keys at all: read as chat, so the row's error names what is missing
        return "anthropic" if "system" in request else "openai-chat"


# -- the request and the response, through the one parser -------------------------------------------
def _parsed(body: Any, shape: str, at: str = "") -> Request:
    """`analysis.requests.parse`, its refusals turned into row errors that keep the name and where."""
    try:
        return parse(body, shape=shape)
    except UnknownName as e:
        raise RowError(f"{at}{e}", f"unknown {e.kind} {e.name!r}") from None
    except BadInput as e:
        raise RowError(f"{at}{e}", "malformed request") from None


def _request(request: dict[str, Any], shape: str) -> Request:
    if shape not in ("openai-chat", "anthropic"):
        return _parsed(request, shape)
    if shape != "anthropic" and "system" in request:
        raise RowError("has a top-level 'system', which is the Anthropic shape", "Anthropic field in an OpenAI row")
    messages = request.get("messages")
    if messages is None:
        keys = ", ".join(sorted(request)) or "none"
        raise RowError(f"has no 'messages' (keys: {keys})", "no messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise RowError("'messages' must be a list of objects", "messages is not a list of objects")
    return _parsed(request, shape)


def _reply(body: Any, shape: str, at: str) -> tuple[str, str]:
    """(text, tool calls as JSON text) of a logged reply, given as a request body the parser reads."""
    parsed = _parsed(body, shape, f"{at}: ")
    parts = [p for m in parsed.messages for p in m.parts]
    text = "".join(p.text for p in parts if isinstance(p, TextPart))
    calls = [{"name": p.name, "arguments": p.arguments} for p in parts if isinstance(p, ToolCall)]
    return text, _dumps(calls) if calls else ""


def _response(value: Any) -> tuple[str | None, str, dict[str, Any]]:
    """(assistant text, tool calls as JSON text, the response object or {}) of a logged response."""
    if value is None:
        return None, "", {}
    if isinstance(value, str):
        return value, "", {}
    if not isinstance(value, dict):
        raise RowError(f"response must be a string or an object, got {type(value).__name__}", "bad response")
    if isinstance(value.get("body"), dict):  # a Batch output line's response
        return _response(value["body"])
    if isinstance(value.get("choices"), list):  # OpenAI Chat Completions
        if not value["choices"]:
            return None, "", value
        message = value["choices"][0].get("message") or {}
        kept = {k: v for k, v in message.items() if k not in ("role", "refusal", "annotations", "audio")}
        text, calls = _reply({"messages": [{**kept, "role": "assistant"}]}, "openai-chat", "response.choices[0].message")
        return text, calls, value
    if isinstance(value.get("output"), list):  # OpenAI Responses: message and function_call items
        items = [item for item in value["output"]
                 if isinstance(item, dict) and item.get("type") in ("message", "function_call")]
        text, calls = _reply({"input": items}, "openai-responses", "response.output")
        return text, calls, value
    if isinstance(value.get("candidates"), list):  # Gemini: the first candidate, without its thoughts
        if not value["candidates"]:
            return None, "", value
        content = value["candidates"][0].get("content") if isinstance(value["candidates"][0], dict) else None
        content = content if isinstance(content, dict) else {}
        parts = [p for p in content.get("parts") or () if not (isinstance(p, dict) and p.get("thought") is True)]
        text, calls = _reply({"contents": [{"role": "model", "parts": parts}]}, "gemini", "response.candidates[0]")
        return text, calls, value
    if "content" in value:  # Anthropic
        content = value["content"]
        content = [b for b in content if not (isinstance(b, dict) and b.get("type") == "redacted_thinking")] \
            if isinstance(content, list) else content
        text, calls = _reply({"messages": [{"content": content, "role": "assistant"}]}, "anthropic", "response")
        return text, calls, value
    raise RowError(f"response has none of text, choices, output, candidates or content "
                   f"(keys: {', '.join(sorted(value))})", "bad response")


def _count(usage: dict[str, Any], key: str, *, nested: tuple[str, str] | None = None) -> int:
    value = usage.get(key, 0) if nested is None else (usage.get(nested[0]) or {}).get(nested[1], 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ROW_TOKENS:
        name = key if nested is None else ".".join(nested)
        # an int of thousands of digits has no repr (Python's 4,300-digit limit): its size is said instead
        got = (f"an integer of {value.bit_length():,} bits" if isinstance(value, int) and value.bit_length() > 128
               else shown(repr(value)).strip("'"))
        raise RowError(f"usage.{name} must be a non-negative integer of at most {MAX_ROW_TOKENS:,} tokens, got {got}",
                       "bad usage")
    return value


def _usage(value: Any) -> Usage | None:
    """Input (cached included), output and cached tokens of OpenAI, Anthropic or Gemini usage; None when absent."""
    counts = _usage_counts(value)
    return None if counts is None else Usage(*counts)


def _usage_counts(value: Any) -> tuple[int, int | None, int] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RowError(f"usage must be an object, got {type(value).__name__}", "bad usage")
    if "prompt_tokens" in value:  # OpenAI Chat Completions
        out = _count(value, "completion_tokens") if "completion_tokens" in value else None
        return _count(value, "prompt_tokens"), out, _count(value, "", nested=("prompt_tokens_details", "cached_tokens"))
    if "input_tokens" in value:  # Anthropic (input excludes cache reads and writes) or OpenAI Responses
        read = _count(value, "cache_read_input_tokens") + _count(value, "", nested=("input_tokens_details", "cached_tokens"))
        total = _count(value, "input_tokens") + _count(value, "cache_read_input_tokens") + _count(value, "cache_creation_input_tokens")
        out = _count(value, "output_tokens") if "output_tokens" in value else None
        return total, out, read
    if "promptTokenCount" in value:  # Gemini's usageMetadata (the prompt includes cached content)
        out = _count(value, "candidatesTokenCount") + _count(value, "thoughtsTokenCount") \
            if "candidatesTokenCount" in value else None
        return _count(value, "promptTokenCount"), out, _count(value, "cachedContentTokenCount")
    raise RowError(f"usage has neither prompt_tokens nor input_tokens (keys: {', '.join(sorted(value))})", "bad usage")


def parse_time(value: Any) -> datetime:
    """A timestamp: ISO 8601 text, or Unix seconds (values above 1e11 are taken as milliseconds).

    >>> parse_time("2026-03-01T10:00:00Z"), parse_time(1772359200)
    (datetime.datetime(2026, 3, 1, 10, 0, tzinfo=datetime.timezone.utc), datetime.datetime(2026, 3, 1, 10, 0, tzinfo=datetime.timezone.utc))
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            raise RowError(f"timestamp {value!r} is out of range", "bad timestamp") from None
    if isinstance(value, datetime):
        try:  # 0001-01-01T00:00+14:00 and 9999-12-31T23:59-14:00 have no UTC time a datetime holds
            return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        except (OverflowError, ValueError):
            raise RowError(f"timestamp {shown(value.isoformat())} cannot move to UTC (out of the years 1 to 9999)",
                           "bad timestamp") from None
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            pass
        else:
            return parse_time(moment)
    raise RowError(f"timestamp {value!r} is neither ISO 8601 nor Unix seconds", "bad timestamp")


def _timestamp(row: dict[str, Any], response: dict[str, Any]) -> datetime | None:
    for where in (row, response):
        for key in _TIME_KEYS:
            if where.get(key) is not None:
                return parse_time(where[key])
    return None


def _logged_usage(row: dict[str, Any], response: dict[str, Any]) -> Any:
    for where in (row, response):
        for key in ("usage", "usageMetadata"):
            if where.get(key) is not None:
                return where[key]
    return None


def _usage_shape(usage: dict[str, Any], request_shape: str, response: dict[str, Any]) -> str:
    """Which provider's usage object this is (`cost.usage.SHAPE_PROVIDERS`), from its own keys."""
    if "promptTokenCount" in usage:
        return "gemini"
    if "prompt_tokens" in usage:
        return "openai-chat"
    if "cache_creation_input_tokens" in usage or "cache_read_input_tokens" in usage or "cache_creation" in usage \
            or request_shape == "anthropic" or response.get("type") == "message":
        return "anthropic"
    return "openai-responses"


def _logged_bill(usage: Any, request_shape: str, response: dict[str, Any], model: str | None) -> LoggedBill | None:
    if not isinstance(usage, dict):
        return None
    try:
        return read_usage(usage, _usage_shape(usage, request_shape, response), model=model)
    except BadInput as e:
        raise RowError(str(e), "bad usage") from None


def _tier(row: dict[str, Any], body: dict[str, Any], response: dict[str, Any]) -> str | None:
    for where in (response, body, row):
        if isinstance(where.get("service_tier"), str) and where["service_tier"]:
            return where["service_tier"]
    return None


def _cache_control(body: dict[str, Any], shape: str) -> tuple[tuple[int, bool], ...]:
    """The `cache_control` breakpoints of an Anthropic body, as `LogRecord.cache_control`."""
    if shape != "anthropic":
        return ()
    marks: dict[int, bool] = {}

    def mark(block: int, item: Any) -> None:
        control = item.get("cache_control") if isinstance(item, dict) else None
        if control is not None:
            problem = cache_control_problem(control)
            if problem:
                raise RowError(f"{problem} (a row's Anthropic request)", "bad cache_control")
            marks[block] = marks.get(block, False) or control.get("ttl") == "1h"

    def items(value: Any) -> list[Any]:
        return value if isinstance(value, list) else []

    for key in ("system", "tools"):
        for item in items(body.get(key)):
            mark(0, item)
    for i, message in enumerate(items(body.get("messages"))):
        mark(i + 1, message)
        for item in items(message.get("content") if isinstance(message, dict) else None):
            mark(i + 1, item)
    return tuple(sorted(marks.items()))


def chat_row(row: dict[str, Any], where: str) -> LogRecord | None:
    """`parse_row` of the commonest row, an OpenAI chat request at the top of the row whose messages
    are plain text (`plain_chat`) and whose response is a string or absent: the same record, read
    without the general path's dispatch on shapes and wrappers. None for any other row, which the
    general path reads (and words its errors)."""
    if "request" in row or "body" in row or "system" in row:  # a wrapper, or Anthropic's field: read below
        return None
    text = row.get("response")
    if text is not None and type(text) is not str:
        return None
    request = plain_chat(row)
    if request is None:
        return None
    model = row.get("model")
    model = str(model) if model else None
    logged = row.get("usage")
    if logged is None:
        logged = row.get("usageMetadata")
    read = _flat_usage(logged, model)
    usage = _usage(logged) if read is None else read[0]  # before the timestamp, as below: a row wrong in both is refused for its usage
    timestamp = None
    for key in _TIME_KEYS:
        value = row.get(key)
        if value is not None:
            timestamp = parse_time(value)
            break
    tier = row.get("service_tier")
    bill = _logged_bill(logged, "openai-chat", {}, model) if read is None else read[1]
    return LogRecord(where, request, text, "", usage, timestamp, model, bill, False,
                     tier if isinstance(tier, str) and tier else None)


# (model, a flat usage object's items) -> its (Usage, LoggedBill), for `chat_row` (the run's
# "shapes.flat_usage"): a month of logs repeats its usage objects, and one of integers only is read
# once per model (bounded as the read memo)
_FLAT_USAGE_LIMIT = 1 << 16


def _flat_usage(logged: Any, model: str | None) -> tuple[Usage | None, LoggedBill | None] | None:
    """`(_usage(logged), _logged_bill(logged, "openai-chat", {}, model))` of a usage object whose values
    are all integers (not bools: the items are then its value exactly), read once per (model, items);
    None for any other value (read as before, by the caller). A usage that does not read is not kept: the caller
    reads it again and words its error in the usual order."""
    if type(logged) is not dict or not all(type(v) is int for v in logged.values()):
        return None
    key = (model, tuple(logged.items()))
    memo = run_caches().memo("shapes.flat_usage", _FLAT_USAGE_LIMIT)
    found = memo.peek(key)
    if found is None:
        try:
            found = (_usage(logged), _logged_bill(logged, "openai-chat", {}, model))
        except RowError:
            return None
        memo.put(key, found)
    return found


def parse_row(row: Any, shape: str, *, where: str = "") -> LogRecord:
    """One row of `shape`, found at `where`, as a `LogRecord`; raises RowError when unreadable."""
    if shape == "openai-chat" and type(row) is dict:
        record = chat_row(row, where)
        if record is not None:
            return record
    if shape == "text" and isinstance(row, str):
        return LogRecord(where, Request.from_text(row))
    if shape == "text" and not (isinstance(row, dict) and isinstance(_request_of(row).get("prompt"), str)):
        raise RowError("the text shape reads one text per line", "not text")
    if not isinstance(row, dict):
        raise RowError(f"a row must be a JSON object, got {type(row).__name__}", "not a JSON object")
    request_shape = shape
    if shape == "openai-batch":
        if not isinstance(row.get("body"), dict):
            raise RowError("an OpenAI Batch line needs a 'body' object", "no body")
        url = row.get("url", "/v1/chat/completions")
        if url not in _BATCH_URLS:
            raise RowError(f"Batch url {url!r} is neither /v1/chat/completions nor /v1/responses: only chat "
                           "and Responses requests are priced here", "not a chat request")
        request_shape = _BATCH_URLS[url]
    body = _request_of(row)
    request = _request(body, request_shape)
    text, response_json, response = _response(row.get("response"))
    model = response.get("model") or response.get("modelVersion") or body.get("model") or row.get("model")
    logged = _logged_usage(row, response)
    model = str(model) if model else None
    return LogRecord(where, request, text, response_json, _usage(logged), _timestamp(row, response), model,
                     _logged_bill(logged, request_shape, response, model), shape == "openai-batch",
                     _tier(row, body, response), _cache_control(body, request_shape))
