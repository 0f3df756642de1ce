"""The log shapes: how one row of each provider's request format becomes plain fields.

Unlike `records` (files, containers, streaming and error policy) and `analysis.requests` (the one
parser of request bodies, which this module calls), this module sees one decoded row at a time
and knows what a *log row* adds around the request: the wrapper (an OpenAI Batch line's `body`,
a logger's `request`), the logged response, the provider's usage, the model that served it and
the time. The request itself becomes a `Request` through `analysis.requests.parse`, so a log row
and `tokenprism count --messages` read the same body the same way. It raises `RowError` (a
message plus a short reason for the skip counts) for anything it does not understand: an unknown
role or content type is named, never dropped.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from ...errors import BadInput, UnknownName
from ...requests import Request, TextPart, ToolCall, parse

SHAPES = ("openai-chat", "openai-batch", "anthropic", "text")
# log shape -> the request shape `analysis.requests.parse` reads
_REQUEST_SHAPE = {"openai-chat": "openai-chat", "openai-batch": "openai-chat", "anthropic": "anthropic", "text": "text"}
_ANTHROPIC_ONLY = {"tool_use", "tool_result", "image", "document", "thinking", "redacted_thinking"}
_TIME_KEYS = ("timestamp", "created_at", "time", "created")
class RowError(BadInput):
    """A row this shape cannot read: `str(e)` says what is wrong, `reason` groups skips."""

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _request_of(row: dict[str, Any]) -> dict[str, Any]:
    """The request body: the row itself, or its "request" (a logging wrapper) or "body" (Batch)."""
    for key in ("request", "body"):
        if isinstance(row.get(key), dict):
            return row[key]
    return row


def detect_shape(row: Any) -> str:
    """The shape of a file, from one row.

    >>> detect_shape({"custom_id": "r1", "body": {"messages": []}})
    'openai-batch'
    >>> detect_shape({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]})
    'anthropic'
    >>> detect_shape({"messages": [{"role": "user", "content": "Hi"}]})
    'openai-chat'
    """
    if isinstance(row, str):
        return "text"
    if not isinstance(row, dict):
        raise RowError(f"a row must be a JSON object, got {type(row).__name__}", "not a JSON object")
    if "custom_id" in row and isinstance(row.get("body"), dict):
        return "openai-batch"
    request = _request_of(row)
    if "system" in request:
        return "anthropic"
    for m in request.get("messages") or ():
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in _ANTHROPIC_ONLY for b in content):
            return "anthropic"
    return "openai-chat"


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
    if shape != "anthropic" and "system" in request:
        raise RowError("has a top-level 'system', which is the Anthropic shape", "Anthropic field in an OpenAI row")
    messages = request.get("messages")
    if messages is None:
        keys = ", ".join(sorted(request)) or "none"
        raise RowError(f"has no 'messages' (keys: {keys})", "no messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise RowError("'messages' must be a list of objects", "messages is not a list of objects")
    return _parsed(request, _REQUEST_SHAPE[shape])


def _reply(message: Any, shape: str, at: str) -> tuple[str, str]:
    """(text, tool calls as JSON text) of a logged assistant message, read by the request parser."""
    parsed = _parsed({"messages": [{**message, "role": "assistant"}]}, shape, f"{at}: ")
    parts = parsed.messages[0].parts if parsed.messages else ()
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
    if isinstance(value.get("choices"), list):
        if not value["choices"]:
            return None, "", value
        message = value["choices"][0].get("message") or {}
        text, calls = _reply({k: v for k, v in message.items() if k not in ("role", "refusal", "annotations", "audio")},
                             "openai-chat", "response.choices[0].message")
        return text, calls, value
    if "content" in value:
        content = value["content"]
        content = [b for b in content if not (isinstance(b, dict) and b.get("type") == "redacted_thinking")] \
            if isinstance(content, list) else content
        text, calls = _reply({"content": content}, "anthropic", "response")
        return text, calls, value
    raise RowError(f"response has none of text, choices or content (keys: {', '.join(sorted(value))})", "bad response")


def _count(usage: dict[str, Any], key: str, *, nested: tuple[str, str] | None = None) -> int:
    value = usage.get(key, 0) if nested is None else (usage.get(nested[0]) or {}).get(nested[1], 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        name = key if nested is None else ".".join(nested)
        raise RowError(f"usage.{name} must be a non-negative integer, got {value!r}", "bad usage")
    return value


def _usage(value: Any) -> tuple[int, int | None, int] | None:
    """(input incl. cached, output, cached) from OpenAI or Anthropic usage; None when absent."""
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
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, str):
        try:
            return parse_time(datetime.fromisoformat(value.strip()))
        except ValueError:
            pass
    raise RowError(f"timestamp {value!r} is neither ISO 8601 nor Unix seconds", "bad timestamp")


def _timestamp(row: dict[str, Any], response: dict[str, Any]) -> datetime | None:
    for where in (row, response):
        for key in _TIME_KEYS:
            if where.get(key) is not None:
                return parse_time(where[key])
    return None


def parse_row(row: Any, shape: str, *, where: str = "") -> dict[str, Any]:
    """One row of `shape` as plain fields (see `records.LogRecord`); raises RowError when unreadable."""
    if shape == "text":
        if not isinstance(row, str):
            raise RowError("the text shape reads one text per line", "not text")
        return {"request": Request.from_text(row)}
    if not isinstance(row, dict):
        raise RowError(f"a row must be a JSON object, got {type(row).__name__}", "not a JSON object")
    if shape == "openai-batch":
        if not isinstance(row.get("body"), dict):
            raise RowError("an OpenAI Batch line needs a 'body' object", "no body")
        url = row.get("url", "/v1/chat/completions")
        if url != "/v1/chat/completions":
            raise RowError(f"Batch url {url!r} is not /v1/chat/completions: only chat requests are priced here", "not a chat request")
    body = _request_of(row)
    request = _request(body, shape)
    text, response_json, response = _response(row.get("response"))
    usage = _usage(row["usage"] if row.get("usage") is not None else response.get("usage"))
    model = response.get("model") or body.get("model") or row.get("model")
    return {"request": request, "response": text, "response_json": response_json, "usage": usage,
            "timestamp": _timestamp(row, response), "model": str(model) if model else None}
