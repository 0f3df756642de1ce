"""The log shapes: how one row of each provider's request format becomes plain fields.

Unlike `records` (files, containers, streaming and error policy), this module sees one decoded
row at a time and knows the formats: OpenAI Chat Completions bodies, OpenAI Batch input
lines, Anthropic Messages requests, and one text per line. It returns a plain dict that
`records` turns into a `LogRecord`, and raises `RowError` (a message plus a short reason for
the skip counts) for anything it does not understand: an unknown role or content type is
named, never dropped.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from typing import Any
from ...errors import BadInput

SHAPES = ("openai-chat", "openai-batch", "anthropic", "text")

_OPENAI_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}
_ANTHROPIC_ROLES = {"user", "assistant"}
# content part type -> what it is when no tokenizer counts it
_OPENAI_MEDIA = {"image_url": "image", "input_audio": "audio", "file": "file"}
_ANTHROPIC_MEDIA = {"image": "image", "document": "file"}
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


# -- messages ------------------------------------------------------------------------------------
def _openai_content(content: Any, media: Counter, at: str) -> tuple[str, str]:
    if content is None:
        return "", ""
    if isinstance(content, str):
        return content, ""
    if not isinstance(content, list):
        raise RowError(f"{at}.content must be a string or a list of parts, got {type(content).__name__}",
                       "content is not a string or a list")
    texts = []
    for j, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind == "refusal" and isinstance(part.get("refusal"), str):
            texts.append(part["refusal"])
        elif kind in _OPENAI_MEDIA:
            media[_OPENAI_MEDIA[kind]] += 1
        else:
            raise RowError(f"{at}.content[{j}] has unknown content type {kind!r} (known: text, refusal, "
                           f"{', '.join(_OPENAI_MEDIA)})", f"unknown content type {kind!r}")
    return "".join(texts), ""


def _openai_messages(request: dict[str, Any], media: Counter) -> list[tuple[str, str, str]]:
    if "system" in request:
        raise RowError("has a top-level 'system', which is the Anthropic shape", "Anthropic field in an OpenAI row")
    out = []
    for i, m in enumerate(_message_list(request)):
        at = f"messages[{i}]"
        role = m.get("role")
        if role not in _OPENAI_ROLES:
            raise RowError(f"{at} has unknown role {role!r} (known: {', '.join(sorted(_OPENAI_ROLES))})",
                           f"unknown role {role!r}")
        text, _ = _openai_content(m.get("content"), media, at)
        calls = [c.get("function", c) if isinstance(c, dict) else c for c in m.get("tool_calls") or ()]
        if m.get("function_call"):
            calls.append(m["function_call"])
        json_text = _dumps(calls) if calls else ""
        if role in ("tool", "function"):  # a tool result: its framing (ids, names) is not public
            text, json_text = "", text
        out.append((role, text, json_text))
    return out


def _anthropic_blocks(content: Any, media: Counter, at: str) -> tuple[str, str]:
    """(plain text, JSON-as-text) of an Anthropic content value."""
    if isinstance(content, str):
        return content, ""
    if not isinstance(content, list):
        raise RowError(f"{at} must be a string or a list of blocks, got {type(content).__name__}",
                       "content is not a string or a list")
    texts, approx = [], []
    for j, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind in _ANTHROPIC_MEDIA:
            media[_ANTHROPIC_MEDIA[kind]] += 1
        elif kind == "tool_use":
            approx.append(_dumps({"name": block.get("name"), "input": block.get("input")}))
        elif kind == "tool_result":
            inner_text, inner_json = _anthropic_blocks(block.get("content") or "", media, f"{at}[{j}].content")
            approx.append(inner_text + inner_json)
        elif kind == "thinking":
            approx.append(str(block.get("thinking", "")))
        elif kind == "redacted_thinking":
            approx.append(str(block.get("data", "")))
        else:
            raise RowError(f"{at}[{j}] has unknown content type {kind!r} (known: text, image, document, tool_use, "
                           "tool_result, thinking, redacted_thinking)", f"unknown content type {kind!r}")
    return "".join(texts), "".join(approx)


def _anthropic_messages(request: dict[str, Any], media: Counter) -> list[tuple[str, str, str]]:
    out = []
    system = request.get("system")
    if system:
        text, approx = _anthropic_blocks(system, media, "system")
        out.append(("system", text, approx))
    for i, m in enumerate(_message_list(request)):
        role = m.get("role")
        if role not in _ANTHROPIC_ROLES:
            hint = " (Anthropic takes the system prompt as a top-level 'system')" if role == "system" else ""
            raise RowError(f"messages[{i}] has unknown role {role!r} (known: assistant, user){hint}",
                           f"unknown role {role!r}")
        text, approx = _anthropic_blocks(m.get("content", ""), media, f"messages[{i}].content")
        out.append((role, text, approx))
    return out


def _message_list(request: dict[str, Any]) -> list[dict[str, Any]]:
    messages = request.get("messages")
    if messages is None:
        keys = ", ".join(sorted(request)) or "none"
        raise RowError(f"has no 'messages' (keys: {keys})", "no messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise RowError("'messages' must be a list of objects", "messages is not a list of objects")
    return messages


# -- response, usage, time ---------------------------------------------------------------------
def _response(value: Any, media: Counter) -> tuple[str | None, str, dict[str, Any]]:
    """(assistant text, tool calls as JSON text, the response object or {}) of a logged response."""
    if value is None:
        return None, "", {}
    if isinstance(value, str):
        return value, "", {}
    if not isinstance(value, dict):
        raise RowError(f"response must be a string or an object, got {type(value).__name__}", "bad response")
    if isinstance(value.get("body"), dict):  # a Batch output line's response
        return _response(value["body"], media)
    if isinstance(value.get("choices"), list):
        if not value["choices"]:
            return None, "", value
        message = value["choices"][0].get("message") or {}
        text, _ = _openai_content(message.get("content"), media, "response.choices[0].message")
        calls = [c.get("function", c) for c in message.get("tool_calls") or () if isinstance(c, dict)]
        return text, _dumps(calls) if calls else "", value
    if "content" in value:
        text, approx = _anthropic_blocks(value["content"], media, "response.content")
        return text, approx, value
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
    media: Counter = Counter()
    if shape == "text":
        if not isinstance(row, str):
            raise RowError("the text shape reads one text per line", "not text")
        return {"messages": [("user", row, "")]}
    if not isinstance(row, dict):
        raise RowError(f"a row must be a JSON object, got {type(row).__name__}", "not a JSON object")
    if shape == "openai-batch":
        if not isinstance(row.get("body"), dict):
            raise RowError("an OpenAI Batch line needs a 'body' object", "no body")
        url = row.get("url", "/v1/chat/completions")
        if url != "/v1/chat/completions":
            raise RowError(f"Batch url {url!r} is not /v1/chat/completions: only chat requests are priced here", "not a chat request")
    request = _request_of(row)
    messages = _anthropic_messages(request, media) if shape == "anthropic" else _openai_messages(request, media)
    tools = request.get("tools") or []
    if request.get("functions"):
        tools = list(tools) + list(request["functions"])
    text, response_json, response = _response(row.get("response"), media)
    usage = _usage(row["usage"] if row.get("usage") is not None else response.get("usage"))
    model = response.get("model") or request.get("model") or row.get("model")
    return {"messages": messages, "tools": _dumps(tools) if tools else "", "response": text,
            "response_json": response_json, "usage": usage, "timestamp": _timestamp(row, response),
            "model": str(model) if model else None, "not_counted": dict(media)}
