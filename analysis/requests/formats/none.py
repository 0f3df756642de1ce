"""The "none" family: no chat format, the text alone.

Unlike every other family, this one adds nothing around the text: embedding and completion models
take raw text, and Google's own local count for Gemini (the SDK's LocalTokenizer) counts the text
parts alone. The ids are each text encoded on its own, in request order (system first), so the
count is exact for the tokenizer wherever the request holds text only.

Tool definitions, calls and results are counted as google-genai's `LocalTokenizer.count_tokens`
counts them (google-genai 3.6, `_TextsAccumulator`): not their JSON but their texts, each encoded
on its own: a declaration's name and description, and of its parameter schema (recursively) each
property name, description, format, enum value, required name and example string; a call's name
and its arguments' keys and string values; a result's name and its response's keys and string
values. That is labelled "documented (google-genai local count)". Media are counted apart (see
`analysis.requests.media`); any left here are named as not counted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ...textio import json_text
from ...tokenizers import Tokenizer
from ..request import Request, TextPart, ToolCall, ToolDef, ToolResult
from .base import Rendered, Span
from .parts import join_reasons, media_counts, media_note, result_text

LOCAL_COUNT = "google-genai's LocalTokenizer"


def _value_texts(value: Any) -> Iterator[str]:
    """The texts LocalTokenizer takes from a JSON value: strings, and a dict's keys then values."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        yield from (str(k) for k in value)
        for v in value.values():
            yield from _value_texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _value_texts(v)


def _schema_texts(schema: Any) -> Iterator[str]:
    """The texts LocalTokenizer takes from a parameter schema (its `add_schema`)."""
    if not isinstance(schema, Mapping):
        return
    for key in ("format", "description"):
        if isinstance(schema.get(key), str) and schema[key]:
            yield schema[key]
    for key in ("enum", "required"):
        if isinstance(schema.get(key), list):
            yield from (str(v) for v in schema[key])
    if isinstance(schema.get("items"), Mapping):
        yield from _schema_texts(schema["items"])
    if isinstance(schema.get("properties"), Mapping):
        for name, sub in schema["properties"].items():
            yield str(name)
            yield from _schema_texts(sub)
    if schema.get("example"):
        yield from _value_texts(schema["example"])


def tool_texts(tool: ToolDef) -> list[str]:
    """A declaration's texts as LocalTokenizer counts them."""
    out = [tool.name] if tool.name else []
    if tool.description:
        out.append(tool.description)
    if tool.parameters:
        out += _schema_texts(tool.parameters)
    return [t for t in out if t]


def _json_texts(text: str) -> list[str]:
    """A call's arguments or a result's response: the JSON object's texts, else the text itself."""
    if json_text.too_deep(text.encode("utf-8", "surrogatepass")):
        return [text]  # counted as the text it is: parsing it would recurse past Python's limit
    try:
        value = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return [text]
    return list(_value_texts(value)) if isinstance(value, Mapping) else [text]


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """The text of a request, token by token; there is no generation prompt to add.

    >>> from analysis.tokenizers import load_tokenizer
    >>> r = render(Request.from_text("hello world"), load_tokenizer("o200k_base"))
    >>> (r.content_tokens, r.format_tokens, r.exactness, r.ids)
    (2, 0, 'exact', (24912, 2375))
    """
    ids: list[int] = []
    spans: list[Span] = []
    format_tokens = 0
    tooled: list[str] = []

    def add(text: str) -> None:
        if text:
            start = len(ids)
            ids.extend(tokenizer.encode(text))
            spans.append(Span(start, len(ids), "content"))

    if request.system:
        add(request.system)
    for message in request.messages:
        for part in message.parts:
            if isinstance(part, TextPart):
                add(part.text)
            elif isinstance(part, ToolCall):
                for text in [part.name, *_json_texts(part.arguments)]:
                    add(text)
                tooled.append("tool calls")
            elif isinstance(part, ToolResult):
                for text in [part.name or "", *_json_texts(result_text(part))]:
                    add(text)
                tooled.append("tool results")
    if request.tools:
        format_tokens += sum(tokenizer.count(t) for tool in request.tools for t in tool_texts(tool))
        tooled.append("tool definitions")
    media = media_note(media_counts(request))
    if media:
        return Rendered(len(ids), format_tokens, "estimate", join_reasons("no chat format: the text alone", media))
    if tooled:
        return Rendered(len(ids), format_tokens, "documented", join_reasons(
            "no chat format: the text alone", f"documented (google-genai local count): {', '.join(dict.fromkeys(tooled))} "
            f"counted as {LOCAL_COUNT} counts them (their texts, each on its own, not their JSON)"))
    return Rendered(len(ids), 0, "exact", "no chat format: the text alone, exact for the tokenizer",
                    tuple(ids), tuple(spans))
