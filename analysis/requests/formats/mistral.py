"""Mistral's instruct formats (v1, v2, v3), id for id as mistral-common's `encode_chat_completion`.

Unlike the header formats (Llama, harmony), Mistral has no role headers: each user turn is
wrapped in `[INST] ... [/INST]`, an assistant turn is its text and `</s>`, and the system prompt
is not a message but text put before a user turn. Which turn, and whether `[INST]` is a control
id or plain text, depends on the tokenizer's instruct version; each tokenizer name maps to one.
Reference: `mistral_common` 1.13.1, `MistralTokenizer.from_file(...).encode_chat_completion`
(its request normalizer, validator and `InstructTokenizerV1/V2/V3`), tested id for id with the
tokenizer files mistral-common bundles.

What the reference does to a request first, and this module does too:
- system messages (and `request.system`, and developer messages) leave the conversation; their
  non-empty texts, joined by a blank line, are the system prompt: v1 puts it before the first
  user turn, v2 and v3 before the last one, followed by a blank line;
- consecutive user (or assistant) messages merge into one, their non-empty texts joined by a
  blank line; a system message between them keeps them apart;
- a conversation that does not start with a user turn gets an empty one first;
- the validator's rules are kept: roles follow user -> assistant -> user (system anywhere, tool
  after assistant), the last message is not the assistant's, and an assistant message has
  text. A request that breaks one is refused (BadInput), as mistral-common refuses it.

Message names have no place in the format and are left out. There is no generation prompt: the
prompt ends with `[/INST]`, so `add_generation_prompt` changes nothing. Tool calls, tool results
and tool definitions are not built here yet: a request with them is an estimate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from ...errors import BadInput
from ...tokenizers import Tokenizer
from ..request import Message, Request, TextPart, ToolCall, ToolResult
from .base import Rendered
from .build import Prompt, for_tokenizer
from .parts import tools_json_text

Version = Literal["v1", "v2", "v3"]

REFERENCE = "mistral-common 1.13.1 MistralTokenizer.encode_chat_completion"

# Our tokenizer names -> the instruct version mistral-common loads their file as.
VERSIONS: dict[str, Version] = {"mistral-v1": "v1", "mistral-v3": "v3", "mistral-tekken": "v3"}

_AFTER = {"system": {"user", "assistant", "system"}, "user": {"assistant", "system", "user"},
          "assistant": {"assistant", "user", "tool"}, "tool": {"assistant", "tool", "user"}}


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """The Mistral prompt of `request`, in the instruct version of `tokenizer` (see `VERSIONS`)."""
    return render_version(request, tokenizer, for_tokenizer(VERSIONS, tokenizer, "mistral", "instruct version"))


@dataclass
class _Turn:
    role: str
    text: str


def render_version(request: Request, tokenizer: Tokenizer, version: Version) -> Rendered:
    """The Mistral prompt of `request` in instruct `version` (for tokenizer files not in `VERSIONS`)."""
    messages = ([Message("system", (TextPart(request.system),))] if request.system is not None else []) + list(request.messages)
    if any(isinstance(part, (ToolCall, ToolResult)) for m in messages for part in m.parts) or request.tools:
        return _estimate(request, tokenizer, version)
    _validate(messages)
    system_prompt = "\n\n".join(t for m in messages if m.role in ("system", "developer") and (t := _text(m))) or None
    turns = _merge(messages)
    if not turns or turns[0].role != "user":
        turns.insert(0, _Turn("user", ""))
    users = [i for i, t in enumerate(turns) if t.role == "user"]
    system_at = users[0] if version == "v1" else users[-1]

    p = Prompt(tokenizer, "mistral")
    p.special("<s>")
    for i, turn in enumerate(turns):
        if turn.role == "assistant":
            p.content_text(turn.text if version == "v1" else turn.text.rstrip(" "))
            p.special("</s>")
            continue
        pieces: list[tuple[str, Literal["format", "content"]]] = []
        if i == system_at and system_prompt:
            pieces += [(system_prompt, "content"), ("\n\n", "format")]
        pieces.append((turn.text, "content"))
        if version == "v1":  # [INST] is text in v1, encoded with the turn in one call
            p.run([("[INST] ", "format"), *pieces, (" [/INST]", "format")])
        else:
            p.special("[INST]")
            p.run(pieces)
            p.special("[/INST]")
    return p.rendered("exact", f"ids identical to {REFERENCE} (instruct {version}), tested id for id")


def _text(m: Message) -> str:
    for part in m.parts:
        if not isinstance(part, TextPart):
            raise BadInput(f"a {m.role} message holds a {type(part).__name__}, which the mistral chat format is not "
                           "counted for here: send text only")
    return m.text


def _merge(messages: list[Message]) -> list[_Turn]:
    """Consecutive user or assistant messages as one turn; system messages only separate."""
    turns: list[_Turn] = []
    previous = None
    for m in messages:
        role = "system" if m.role == "developer" else m.role
        text = _text(m)
        if role != "system":
            if role == previous:
                turns[-1].text = "\n\n".join(t for t in (turns[-1].text, text) if t)
            else:
                turns.append(_Turn(role, text))
        previous = role
    return turns


def _validate(messages: list[Message]) -> None:
    roles = ["system" if m.role == "developer" else m.role for m in messages]
    if not roles:
        raise BadInput("mistral-common refuses an empty conversation: send at least one message")
    if len(roles) == 1 and roles[0] not in ("user", "system"):
        raise BadInput(f"mistral-common refuses a conversation of one {roles[0]} message: start with a user message")
    if len(roles) > 1 and roles[-1] == "assistant":
        raise BadInput("mistral-common refuses a conversation that ends with an assistant message: "
                       "end with the user's turn")
    for before, after in zip(roles, roles[1:]):
        if after not in _AFTER[before]:
            raise BadInput(f"mistral-common refuses a {after} message right after a {before} message")
    for m in messages:
        if m.role == "assistant" and not _text(m):
            raise BadInput("mistral-common refuses an assistant message without text (or tool calls)")


def _estimate(request: Request, tokenizer: Tokenizer, version: Version) -> Rendered:
    """Tool calls and definitions: the text messages exactly, the tool parts as their JSON text."""
    extra = 0
    plain: list[Message] = []
    for m in request.messages:
        texts = [p for p in m.parts if isinstance(p, TextPart)]
        for part in m.parts:
            if isinstance(part, ToolCall):
                extra += 1 + tokenizer.count(json.dumps([{"name": part.name, "arguments": part.arguments}], ensure_ascii=False))
            elif isinstance(part, ToolResult):
                extra += 2 + tokenizer.count(json.dumps({"content": "".join(q.text for q in part.parts if isinstance(q, TextPart))},
                                                        ensure_ascii=False))
        if m.role != "tool" and (texts or m.role != "assistant"):
            plain.append(Message(m.role, tuple(texts)))
    if request.tools:
        extra += 2 + tokenizer.count(tools_json_text(request.tools, description="empty", ensure_ascii=False))
    while plain and plain[-1].role == "assistant":
        plain.pop()
    try:
        base = render_version(Request(messages=tuple(plain), system=request.system), tokenizer, version)
    except BadInput:
        base = Rendered(sum(tokenizer.count(m.text) for m in plain), 0, "estimate", "")
    return Rendered(base.content_tokens, base.format_tokens + extra, "estimate",
                    f"tool calls, results and definitions are not yet built as {REFERENCE} encodes them: the messages' "
                    "text as it does, the tool parts as their JSON text between their markers (an estimate)")
