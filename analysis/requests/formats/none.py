"""The "none" family: no chat format, the text alone.

Unlike every other family, this one adds nothing around the text: embedding and completion models
take raw text, and Google's own local count for Gemini (the SDK's LocalTokenizer) counts the text
parts alone. The ids are each text encoded on its own, in request order (system first), so the
count is exact for the tokenizer wherever the request holds text only. Tool definitions, tool
calls and tool results are counted as their JSON or text, and media not at all: both are labelled
an estimate that says so.
"""

from __future__ import annotations


from ...tokenizers import Tokenizer
from ..request import Request, TextPart, ToolCall, ToolResult
from .base import Rendered, Span
from .parts import join_reasons, media_counts, media_note, result_text, tools_json_text


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
    rough: list[str] = []

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
                add(part.arguments)
                format_tokens += tokenizer.count(part.name)
                rough.append("tool calls")
            elif isinstance(part, ToolResult):
                add(result_text(part))
                rough.append("tool results")
    if request.tools:
        format_tokens += tokenizer.count(tools_json_text(request.tools, wrap=False, description="null",
                                                         ensure_ascii=False))
        rough.append("tool definitions")
    media = media_note(media_counts(request))
    if rough or media:
        how = f"{', '.join(dict.fromkeys(rough))} counted as their text or JSON" if rough else ""
        return Rendered(len(ids), format_tokens, "estimate",
                        join_reasons("no chat format: the text alone", how, media))
    return Rendered(len(ids), 0, "exact", "no chat format: the text alone, exact for the tokenizer",
                    tuple(ids), tuple(spans))
