"""The `Request` value: a system prompt, messages made of typed parts, and tool definitions.

Unlike the wire shapes it is parsed from (each provider spells roles, parts and tools its own
way), this module only defines the one frozen value they all become. It validates what every
shape shares (a known role, a part of a known kind); what a shape allows is its parser's job.
A parser that has checked a text message's role already builds it with `Message.of_text`,
which does not check again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import BadInput, UnknownName

ROLES = ("system", "developer", "user", "assistant", "tool")


@dataclass(frozen=True, slots=True)
class TextPart:
    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image, by reference; its tokens are priced by its size (read from an inline image's
    header by `mediaread`, never from a URL), OpenAI's `detail` and Gemini's `resolution`."""
    url: str | None = None
    media_type: str | None = None
    detail: str | None = None  # OpenAI's "low" / "high" / "auto"
    width: int | None = None
    height: int | None = None
    resolution: str | None = None  # Gemini's media_resolution: "low" / "medium" / "high" / "ultra_high"
    unsized: str | None = None  # why a size its header gives was not used (out of the caps), or None


@dataclass(frozen=True, slots=True)
class AudioPart:
    media_type: str | None = None
    seconds: float | None = None  # read from an inline WAV's header; None: not known
    unsized: str | None = None  # why a size its header gives was not used (out of the caps), or None


@dataclass(frozen=True, slots=True)
class VideoPart:
    """A video clip: priced by its length (`seconds`: an inline MP4/MOV header's, a Gemini clip's
    `videoMetadata` offsets, or a length the caller states) and Gemini's media_resolution."""
    url: str | None = None
    media_type: str | None = None
    seconds: float | None = None
    fps: float | None = None  # frames sampled per second, where the request sets it (Gemini's videoMetadata.fps)
    resolution: str | None = None  # Gemini's media_resolution "low" / "medium" / "high"
    unsized: str | None = None  # why a size its header gives was not used (out of the caps), or None


@dataclass(frozen=True, slots=True)
class FilePart:
    name: str | None = None
    media_type: str | None = None
    pages: int | None = None  # an inline PDF's page count; None: not known
    resolution: str | None = None  # Gemini's media_resolution for the part
    unsized: str | None = None  # why a size its header gives was not used (out of the caps), or None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The assistant calling a tool; `arguments` is the JSON text as sent."""
    name: str
    arguments: str = ""
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returned, as the parts sent back to the model."""
    parts: tuple[Part, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None


Part = TextPart | ImagePart | AudioPart | VideoPart | FilePart | ToolCall | ToolResult
_PART_TYPES = (TextPart, ImagePart, AudioPart, VideoPart, FilePart, ToolCall, ToolResult)
MEDIA_PARTS = (ImagePart, AudioPart, VideoPart, FilePart)
# What a frozen dataclass's own __init__ does, field by field: a value built this way is equal to one
# built by the constructor (and hashes the same), only without its checks.
_new, _set = object.__new__, object.__setattr__


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    parts: tuple[Part, ...] = ()
    name: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise UnknownName("role", self.role, ROLES)
        for part in self.parts:
            if not isinstance(part, _PART_TYPES):
                raise TypeError(f"a message part must be one of {[t.__name__ for t in _PART_TYPES]}, "
                                f"not {type(part).__name__}")

    @classmethod
    def of_text(cls, role: str, text: str, name: str | None = None) -> Message:
        """`Message(role, (TextPart(text),), name)` for a `role` of `ROLES` the caller has checked:
        the same value, built without `__post_init__`'s checks (which it passes), for the parsers'
        per-row paths.

        >>> Message.of_text("user", "hi") == Message("user", (TextPart("hi"),))
        True
        """
        part = _new(TextPart)
        _set(part, "text", text)
        message = _new(cls)
        _set(message, "role", role)
        _set(message, "parts", (part,))
        _set(message, "name", name)
        return message

    @property
    def text(self) -> str:
        """The message's text parts, joined (media and tool parts are left out)."""
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))


@dataclass(frozen=True, slots=True)
class ToolDef:
    """A function the model may call: its JSON-schema `parameters` as the client sent them."""
    name: str
    description: str | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict, hash=False)


TOOL_CHOICES = ("auto", "none", "required", "tool")


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """How the model may use the tools: `auto`, `none`, `required` (any tool; Anthropic's "any",
    Gemini's ANY) or `tool` (the one named, OpenAI's forced function, Anthropic's "tool")."""
    mode: str = "auto"
    name: str | None = None

    def __post_init__(self) -> None:
        if self.mode not in TOOL_CHOICES:
            raise UnknownName("tool choice", self.mode, TOOL_CHOICES)
        if (self.mode == "tool") != bool(self.name):
            raise BadInput(f"tool choice {self.mode!r} {'needs' if self.mode == 'tool' else 'takes no'} tool name"
                           f"{'' if self.name is None else f' (got {self.name!r})'}")


@dataclass(frozen=True, slots=True)
class Request:
    """One request to a model.

    `system` is a system prompt given apart from the messages (Anthropic's `system`, Gemini's
    `systemInstruction`, Responses' `instructions`); system or developer messages that a shape
    puts among the messages stay there, in order.

    >>> Request.from_text("hi").messages[0].text
    'hi'
    """
    messages: tuple[Message, ...] = ()
    system: str | None = None
    tools: tuple[ToolDef, ...] = ()
    tool_choice: ToolChoice | None = None
    # The provider API the request is for, where its server frames the request its own way:
    # "responses" (OpenAI's Responses API, whose framing is undocumented), None for a chat API.
    api: str | None = None

    @classmethod
    def from_text(cls, text: str) -> Request:
        """A plain text as one user message."""
        return cls(messages=(Message.of_text("user", text),))

    def texts(self) -> list[str]:
        """Every text the request carries, each apart and none empty: the system prompt, each text
        part, each tool call's name and arguments, each tool result's texts, and each tool's name,
        description and JSON schema. The measure of a request's size a server holds to its limits
        (a face checks each against its per-text limit, and sums them as the work).

        Unlike `requests.batch.counted_texts` (the texts a chat format counts on their own: a
        message's text parts joined, no tool definitions, which sit in the request's structure),
        nothing here is joined or left out, so no text escapes a limit.

        >>> Request((Message("user", (TextPart("hi"), ToolCall("f", "{}"))),), tools=(ToolDef("f"),)).texts()
        ['hi', 'f', '{}', 'f', '{}']
        """
        import json

        texts = [self.system] if self.system else []
        for m in self.messages:
            texts += _part_texts(m.parts)
        for t in self.tools:
            texts += [t.name, t.description or "", json.dumps(t.parameters, ensure_ascii=False, default=str)]
        return [t for t in texts if t]


def _part_texts(parts: tuple[Part, ...]) -> list[str]:
    out: list[str] = []
    for p in parts:
        if isinstance(p, TextPart):
            out.append(p.text)
        elif isinstance(p, ToolCall):
            out += [p.name, p.arguments]
        elif isinstance(p, ToolResult):
            out += _part_texts(p.parts)
    return out
