"""What every request shape shares: typed field reads that name where a value is wrong.

Unlike the one module per provider beside it, this module knows no provider's spelling: it reads
an object, an array, a string, an optional string, tool-call arguments, `messages` with their
roles, and content parts by a table per shape, each refusal naming the field (`messages[2].content`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ...errors import BadInput, UnknownName
from ..request import Part, TextPart, ToolChoice, ToolDef

def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _obj(value: Any, at: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadInput(f"{at} must be a JSON object, got {type(value).__name__}")
    return value


def _list(value: Any, at: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadInput(f"{at} must be a JSON array, got {type(value).__name__}")
    return value


def _text(value: Any, at: str) -> str:
    if not isinstance(value, str):
        raise BadInput(f"{at} must be a string, got {type(value).__name__}")
    return value


def _str(value: Any, at: str) -> str | None:
    """An optional string field: None when absent, else it must be a string."""
    return None if value is None else _text(value, at)


def _kind(kind: str, name: Any, valid: tuple[str, ...], at: str) -> UnknownName:
    return UnknownName(kind, str(name), valid, hint=f"(at {at})")


def _arguments(value: Any, at: str) -> str:
    """Tool-call arguments as the JSON text the model sees: a string as sent, an object dumped."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return _dumps(_obj(value, at))


def _each_message(body: Mapping[str, Any], roles: tuple[str, ...],
                  hints: Mapping[str, str] | None = None) -> Iterator[tuple[str, Mapping[str, Any], str]]:
    """(where, message, role) of each of `messages`, refusing a role not in `roles`."""
    for i, raw in enumerate(_list(body.get("messages"), "messages")):
        at = f"messages[{i}]"
        m = _obj(raw, at)
        role = m.get("role")
        if not isinstance(role, str) or role not in roles:
            hint = (hints or {}).get(role, "") if isinstance(role, str) else ""
            raise UnknownName("role", str(role), roles, hint=f"(at {at}{hint})")
        yield at, m, role


def _only_text(parts: tuple[Part, ...], what: str) -> str:
    if not all(isinstance(p, TextPart) for p in parts):
        raise BadInput(f"{what} must hold text only (a string or text parts)")
    return "".join(p.text for p in parts if isinstance(p, TextPart))


def _choice(mode: str, name: str | None = None) -> ToolChoice:
    return ToolChoice(mode, name)


# -- content parts, read by a table per shape --------------------------------------------------------
PartReader = Callable[[Mapping[str, Any], str], Part]


def _typed_parts(content: Any, at: str, readers: Mapping[str, PartReader]) -> tuple[Part, ...]:
    """A string (one text part), null (none) or a list of {"type": ...} parts read by `readers`."""
    if content is None:
        return ()
    if isinstance(content, str):
        return (TextPart(content),)
    parts: list[Part] = []
    for j, raw in enumerate(_list(content, f"{at}.content")):
        where = f"{at}.content[{j}]"
        part = _obj(raw, where)
        kind = part.get("type")
        reader = readers.get(kind) if isinstance(kind, str) else None
        if reader is None:
            raise _kind("content type", kind, tuple(readers), where)
        parts.append(reader(part, where))
    return tuple(parts)


def _text_in(key: str) -> PartReader:
    return lambda part, where: TextPart(_text(part.get(key), f"{where}.{key}"))


def _mode(raw: str, at: str) -> ToolChoice:
    if raw not in ("auto", "none", "required"):
        raise _kind("tool choice", raw, ("auto", "none", "required"), at)
    return _choice(raw)


def _function_def(raw: Any, at: str) -> ToolDef:
    f = _obj(raw, at)
    params = f.get("parameters")
    return ToolDef(_text(f.get("name"), f"{at}.name"), _str(f.get("description"), f"{at}.description"),
                   dict(_obj(params, f"{at}.parameters")) if params is not None else {})


def _function_tools(body: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(where, tool) of each of OpenAI's `tools`, refusing types other than function (hosted tools)."""
    for i, raw in enumerate(body.get("tools") or ()):
        at = f"tools[{i}]"
        tool = _obj(raw, at)
        if tool.get("type") != "function":
            raise _kind("tool type", tool.get("type"), ("function",), at)
        yield at, tool
