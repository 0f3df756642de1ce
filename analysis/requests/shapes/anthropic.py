"""Anthropic Messages: `system` (a string or text blocks), `messages` of content blocks, `tools`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import BadInput, shown
from ..mediaread import IMAGE_SIZE, declared, file_part, image_part
from ..request import Message, Part, Request, TextPart, ToolCall, ToolDef, ToolResult
from ._read import _choice, _dumps, _each_message, _kind, _list, _obj, _only_text, _str, _text

_ANTHROPIC_ROLES = ("user", "assistant")
_ANTHROPIC_BLOCKS = ("text", "image", "document", "tool_use", "tool_result", "thinking")
_SYSTEM_HINT = {"system": "; Anthropic takes the system prompt as a top-level 'system'"}
_ANTHROPIC_CHOICES = {"auto": "auto", "none": "none", "any": "required", "tool": "tool"}


CACHE_TTLS = ("5m", "1h")  # Anthropic's prompt-caching page: the two lifetimes a cache_control may ask for


def cache_control_problem(control: Any) -> str | None:
    """Why a `cache_control` value is not Anthropic's (`{"type": "ephemeral"}`, with an optional
    `ttl` of "5m" or "1h"), or None. The API refuses such a body; the logs skip such a row.

    >>> cache_control_problem({"type": "ephemeral", "ttl": "1h"}) is None
    True
    >>> cache_control_problem({"type": "ephemeral", "ttl": "forever"})
    'cache_control.ttl must be "5m" or "1h", got \\'forever\\''
    """
    if not isinstance(control, Mapping):
        return f"cache_control must be an object such as {{\"type\": \"ephemeral\"}}, got {shown(control)}"
    if control.get("type") != "ephemeral":
        return f"cache_control.type must be \"ephemeral\", got {shown(control.get('type'))}"
    ttl = control.get("ttl")
    if ttl is not None and (not isinstance(ttl, str) or ttl not in CACHE_TTLS):
        return f"cache_control.ttl must be \"5m\" or \"1h\", got {shown(ttl)}"
    return None


def _check_cache_control(item: Mapping[str, Any], where: str) -> None:
    if item.get("cache_control") is not None:
        problem = cache_control_problem(item["cache_control"])
        if problem:
            raise BadInput(f"{where}.{problem}")


def _source_media(block: Mapping[str, Any], at: str) -> str | None:
    source = block.get("source")
    return _str(_obj(source, f"{at}.source").get("media_type"), f"{at}.source.media_type") if source else None


def _anthropic_blocks(content: Any, at: str) -> tuple[Part, ...]:
    if isinstance(content, str):
        return (TextPart(content),)
    parts: list[Part] = []
    for j, raw in enumerate(_list(content, at)):
        where = f"{at}[{j}]"
        block = _obj(raw, where)
        _check_cache_control(block, where)
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(_text(block.get("text"), f"{where}.text")))
        elif kind == "thinking":  # an earlier turn's reasoning, sent back as text
            parts.append(TextPart(_text(block.get("thinking"), f"{where}.thinking")))
        elif kind == "image":
            source = _obj(block.get("source"), f"{where}.source")
            parts.append(image_part(_str(source.get("url"), f"{where}.source.url"),
                                    data=_str(source.get("data"), f"{where}.source.data"),
                                    media_type=_source_media(block, where), **declared(block, where, IMAGE_SIZE)))
        elif kind == "document":
            source = _obj(block.get("source") or {}, f"{where}.source")
            data = source.get("data") if source.get("type") == "base64" else None
            parts.append(file_part(_str(block.get("title"), f"{where}.title"),
                                   data=_str(data, f"{where}.source.data"), media_type=_source_media(block, where)))
        elif kind == "tool_use":
            parts.append(ToolCall(_text(block.get("name"), f"{where}.name"), _dumps(block.get("input", {})),
                                  _str(block.get("id"), f"{where}.id")))
        elif kind == "tool_result":
            inner = block.get("content", "")
            parts.append(ToolResult(_anthropic_blocks(inner, f"{where}.content"),
                                    _str(block.get("tool_use_id"), f"{where}.tool_use_id")))
        else:
            raise _kind("content type", kind, _ANTHROPIC_BLOCKS, where)
    return tuple(parts)


def parse_anthropic(body: Mapping[str, Any]) -> Request:
    """An Anthropic Messages body: `system` (a string or text blocks), `messages`, `tools`, `tool_choice`.

    >>> r = parse_anthropic({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]})
    >>> (r.system, r.messages[0].text)
    ('Be brief.', 'Hi')
    """
    body = _obj(body, "the request")
    system = body.get("system")
    system_text = None if system is None else _only_text(_anthropic_blocks(system, "system"), "system")
    messages: list[Message] = []
    for at, m, role in _each_message(body, _ANTHROPIC_ROLES, _SYSTEM_HINT):
        messages.append(Message(role, _anthropic_blocks(m.get("content", ""), f"{at}.content")))
    tools: list[ToolDef] = []
    for i, raw in enumerate(body.get("tools") or ()):
        at = f"tools[{i}]"
        tool = _obj(raw, at)
        _check_cache_control(tool, at)
        if tool.get("type", "custom") != "custom":  # server tools (web search, bash, ...) are not definitions
            raise _kind("tool type", tool.get("type"), ("custom",), at)
        schema = tool.get("input_schema")
        tools.append(ToolDef(_text(tool.get("name"), f"{at}.name"),
                             _str(tool.get("description"), f"{at}.description"),
                             dict(_obj(schema, f"{at}.input_schema")) if schema is not None else {}))
    choice = None
    if body.get("tool_choice") is not None:
        raw_choice = _obj(body["tool_choice"], "tool_choice")
        kind = raw_choice.get("type")
        if kind not in _ANTHROPIC_CHOICES:
            raise _kind("tool choice", kind, tuple(_ANTHROPIC_CHOICES), "tool_choice")
        choice = _choice(_ANTHROPIC_CHOICES[kind], _str(raw_choice.get("name"), "tool_choice.name"))
    return Request(tuple(messages), system_text, tuple(tools), choice)
