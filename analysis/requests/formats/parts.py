"""What a request's parts are as text, and the helpers every family shares, written once.

Unlike the family modules (each one provider's framing), this module only sorts and spells parts:
the text a caller wrote, tool calls and results (`split_message`, `turns_of`), the media (images,
audio, files) that no tokenizer here can count, a tool definition as JSON (`tool_json`, each
family choosing only what differs), the "tools counted as their JSON text" estimate
(`with_tools_as_json`), so that every family says the same thing the same way.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from ...errors import BadInput
from ..request import (AudioPart, FilePart, ImagePart, Message, Part, Request, TextPart, ToolCall, ToolDef, ToolResult,
                       VideoPart)
from .base import Rendered

_MEDIA = {ImagePart: "image", AudioPart: "audio", VideoPart: "video", FilePart: "file"}


def media_counts(request: Request) -> Counter[str]:
    """{"image": n, "audio": n, "video": n, "file": n} of the media parts, tool results' included."""
    counts: Counter[str] = Counter()

    def walk(parts: tuple[Part, ...]) -> None:
        for part in parts:
            if isinstance(part, ToolResult):
                walk(part.parts)
            elif type(part) in _MEDIA:
                counts[_MEDIA[type(part)]] += 1

    for message in request.messages:
        walk(message.parts)
    return counts


def media_note(counts: Counter[str]) -> str:
    """ "2 images and 1 file not counted (...)", or "" when there are none."""
    if not counts:
        return ""
    listed = " and ".join(f"{n} {kind}{'s' if n > 1 and kind != 'audio' else ''}" for kind, n in sorted(counts.items()))
    return f"{listed} not counted (media tokens depend on size and detail, which are not read here)"


def result_text(result: ToolResult) -> str:
    """The text parts of a tool result, joined."""
    return "".join(p.text for p in result.parts if isinstance(p, TextPart))


def text_parts(message: Message) -> list[str]:
    return [p.text for p in message.parts if isinstance(p, TextPart)]


def join_reasons(*reasons: str) -> str:
    return "; ".join(r for r in reasons if r)


def split_message(m: Message, family: str, role: str | None = None) -> tuple[str, list[ToolCall]]:
    """(text, tool calls) of a message as a template reads it: its text parts joined (a tool
    message's result texts too), and an assistant's calls. `role` is the role the family gives it.

    Raises:
        BadInput: a part the family has no place for (media, or a call outside an assistant turn).
    """
    role = m.role if role is None else role
    texts: list[str] = []
    calls: list[ToolCall] = []
    for part in m.parts:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ToolCall) and role == "assistant":
            calls.append(part)
        elif isinstance(part, ToolResult) and role == "tool":
            texts.extend(q.text for q in part.parts if isinstance(q, TextPart))
        else:
            raise BadInput(f"a {m.role} message holds a {type(part).__name__}, which the {family} chat format is "
                           "not counted for here: send text (and tool calls or results) only")
    return "".join(texts), calls


@dataclass
class Turn:
    """One message as a chat template loops over it: role, content, tool calls."""

    role: str
    content: str
    calls: list[ToolCall] = field(default_factory=list)


def turns_of(request: Request, family: str) -> list[Turn]:
    """The request as the role/content/tool_calls list a chat template loops over (developer is system)."""
    out = [Turn("system", request.system)] if request.system is not None else []
    for m in request.messages:
        role = "system" if m.role == "developer" else m.role
        out.append(Turn(role, *split_message(m, family, role)))
    return out


def tool_json(tool: ToolDef, *, wrap: bool = True, description: Literal["omit", "empty", "null"] = "omit",
              schema_key: str = "parameters") -> dict[str, Any]:
    """A tool definition as JSON, each family choosing only what differs.

    Args:
        wrap: as OpenAI's `{"type": "function", "function": {...}}` (what chat templates are given),
            else the bare `{"name", "description", schema_key}`.
        description: a missing description left out ("omit"), written "" ("empty") or null ("null").
        schema_key: the key of the parameters' schema ("input_schema" for Anthropic).

    >>> t = ToolDef("f", None, {"type": "object"})
    >>> tool_json(t), tool_json(t, wrap=False, description="empty")
    ({'type': 'function', 'function': {'name': 'f', 'parameters': {'type': 'object'}}}, {'name': 'f', 'description': '', 'parameters': {'type': 'object'}})
    """
    function: dict[str, Any] = {"name": tool.name}
    if tool.description is not None or description == "null":
        function["description"] = tool.description
    elif description == "empty":
        function["description"] = ""
    function[schema_key] = dict(tool.parameters)
    return {"type": "function", "function": function} if wrap else function


def tools_json_text(tools: tuple[ToolDef, ...], **options: Any) -> str:
    """The definitions as one JSON list (`options` of `tool_json`; `indent`, `ensure_ascii` of json.dumps)."""
    dumps = {k: options.pop(k) for k in ("indent", "ensure_ascii") if k in options}
    return json.dumps([tool_json(t, **options) for t in tools], **dumps)


def with_tools_as_json(built: Rendered, tool_tokens: int, why: str) -> Rendered:
    """`built` (the messages, as the format renders them) plus the tool definitions counted as
    their JSON text, `tool_tokens`: an estimate, whose reason is `why` and the one tail that says so."""
    return Rendered(built.content_tokens, built.format_tokens + tool_tokens, "estimate",
                    f"{why}, so they are counted as their JSON text: an estimate")

