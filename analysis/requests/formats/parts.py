"""What a request's parts are as text, for the families that count text rather than render ids.

Unlike the family modules (each one provider's framing), this module only sorts parts: the text a
caller wrote, tool calls and results, and the media (images, audio, files) that no tokenizer here
can count, so that every family names what it left out the same way.
"""

from __future__ import annotations

from collections import Counter

from ..request import AudioPart, FilePart, ImagePart, Message, Part, Request, TextPart, ToolCall, ToolResult

_MEDIA = {ImagePart: "image", AudioPart: "audio", FilePart: "file"}


def media_counts(request: Request) -> Counter[str]:
    """{"image": n, "audio": n, "file": n} of the media parts, tool results' included."""
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


def has_tool_parts(message: Message) -> bool:
    return any(isinstance(p, (ToolCall, ToolResult)) for p in message.parts)


def text_parts(message: Message) -> list[str]:
    return [p.text for p in message.parts if isinstance(p, TextPart)]


def join_reasons(*reasons: str) -> str:
    return "; ".join(r for r in reasons if r)
