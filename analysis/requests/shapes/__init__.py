"""One parser per wire shape, each turning a request body into the one `Request` value.

Unlike `request` (the value itself, and the checks every shape shares), this package knows how
each provider spells things: OpenAI Chat Completions (`messages`, `tools`/`functions`), OpenAI
Responses (`input`, `instructions`), Anthropic Messages (`system`, content blocks), Gemini
(`contents`, `systemInstruction`, `functionDeclarations`) and a plain text, one module each (as
`formats` has one per chat format), on the field readers of `_read`. `parse` detects the shape or
takes it forced. Nothing is dropped: an unknown role, content type, item or tool type is
`UnknownName` naming it and where it is, and a value of the wrong type is `BadInput`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...errors import BadInput, UnknownName
from ..request import Request
from ._read import _obj
from .anthropic import parse_anthropic
from .gemini import _get, parse_gemini
from .openai_chat import parse_openai_chat
from .openai_responses import _RESPONSES_ITEMS, parse_openai_responses
from .text import parse_text

__all__ = ["ANTHROPIC_ONLY", "MESSAGES_KEY", "PARSERS", "SHAPES", "detect_shape", "parse", "parse_anthropic",
           "looks_anthropic", "parse_gemini", "parse_openai_chat", "parse_openai_responses", "parse_text"]

SHAPES = ("openai-chat", "openai-responses", "anthropic", "gemini", "text")

# Where each shape keeps its messages: a bare list is read under this key, and the API puts
# `tools` beside it in one body.
MESSAGES_KEY = {"openai-chat": "messages", "anthropic": "messages", "openai-responses": "input", "gemini": "contents"}


# -- detection -------------------------------------------------------------------------------------
# Content block types only Anthropic's Messages API has (an "image" block with a "source" is one too).
ANTHROPIC_ONLY = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "document"})


def _listed(value: Any) -> list:
    # A field that should be a list, as one to look through; anything else is the parser's to refuse.
    return value if isinstance(value, list) else []


def looks_anthropic(body: Mapping[str, Any]) -> bool:
    """Whether a body with `messages` is Anthropic's: a top-level `system`, `input_schema` tools or its blocks."""
    if "system" in body or any(isinstance(t, Mapping) and "input_schema" in t for t in _listed(body.get("tools"))):
        return True
    for m in _listed(body.get("messages")):
        content = m.get("content") if isinstance(m, Mapping) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, Mapping) and (block.get("type") in ANTHROPIC_ONLY
                                               or (block.get("type") == "image" and "source" in block)):
                return True
    return False


def detect_shape(body: Any) -> str:
    """The wire shape of a body: a string is text; a bare list is messages (or Gemini contents).

    >>> detect_shape({"contents": []}), detect_shape({"input": "hi"}), detect_shape("hi")
    ('gemini', 'openai-responses', 'text')
    >>> detect_shape({"system": "Be brief.", "messages": []}), detect_shape([{"role": "user", "content": "hi"}])
    ('anthropic', 'openai-chat')
    """
    if isinstance(body, str):
        return "text"
    if isinstance(body, list):
        if any(isinstance(m, Mapping) and "parts" in m for m in body):
            return "gemini"
        if any(isinstance(m, Mapping) and m.get("type") in _RESPONSES_ITEMS[1:] for m in body):
            return "openai-responses"
        return detect_shape({"messages": body})
    body = _obj(body, "the request")
    if "contents" in body or _get(body, "generateContentRequest") is not None:
        return "gemini"
    if "messages" in body:
        return "anthropic" if looks_anthropic(body) else "openai-chat"
    if "input" in body or "instructions" in body:
        return "openai-responses"
    if isinstance(body.get("prompt"), str):
        return "text"
    raise BadInput(f"cannot tell the shape of a request with keys {sorted(body) or 'none'}: expected messages "
                   f"(OpenAI chat, Anthropic), input (OpenAI Responses), contents (Gemini) or prompt (text); "
                   f"force one with shape= ({', '.join(SHAPES)})")


def _as_body(body: Any, shape: str) -> Any:
    """A bare list given for a shape that wraps it in an object."""
    if isinstance(body, list):
        key = MESSAGES_KEY.get(shape)
        if key is None:
            raise BadInput(f"a bare list cannot be read as the {shape} shape")
        return {key: body}
    return body


PARSERS: dict[str, Callable[[Any], Request]] = {
    "openai-chat": parse_openai_chat, "openai-responses": parse_openai_responses, "anthropic": parse_anthropic,
    "gemini": parse_gemini, "text": parse_text,
}


def parse(body: Any, *, shape: str | None = None) -> Request:
    """A request body of any shape (detected, or forced with `shape`) as a `Request`.

    Raises:
        UnknownName: an unknown shape, role, content type, item or tool type (named, with where).
        BadInput: a value of the wrong type, or a body whose shape cannot be told.

    >>> parse([{"role": "user", "content": "Hi"}]).messages[0].text
    'Hi'
    """
    if shape is None:
        shape = detect_shape(body)
    elif shape not in PARSERS:
        raise UnknownName("request shape", shape, SHAPES)
    return PARSERS[shape](_as_body(body, shape))
