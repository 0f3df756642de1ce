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
prompt ends with `[/INST]`, so `add_generation_prompt` changes nothing.

Tools, as the reference encodes them: the definitions' JSON list between `[AVAILABLE_TOOLS]` and
`[/AVAILABLE_TOOLS]` before the last user turn; a call turn is `[TOOL_CALLS]` and the JSON list of
{"name", "arguments", "id"} (v2: no id), then `</s>`; a result is `[TOOL_RESULTS]`, the JSON
{"content", "call_id"} (v2: a list of {"name", "content"}) and `[/TOOL_RESULTS]`. Arguments and
contents that parse as JSON are written as JSON, others as strings. v2 writes calls and results
only after the last user turn and drops earlier ones; v3 requires call ids of 9 letters or digits;
v1 drops tool definitions and refuses tool calls and results, as mistral-common does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from ...errors import BadInput
from ...textio import json_text
from ...tokenizers import Tokenizer
from ..request import Message, Request, TextPart, ToolCall, ToolDef, ToolResult
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
    calls: tuple[ToolCall, ...] = ()
    result: ToolResult | None = None


def _as_json(text: str) -> object:
    """What the reference writes for arguments and tool contents: the parsed JSON, else the string."""
    try:
        return json_text.loads(text, what="a tool call's arguments or a tool's result")
    except json.JSONDecodeError:
        return text


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _tools_json(tools: tuple[ToolDef, ...]) -> str:
    return tools_json_text(tools, description="empty", ensure_ascii=False)


_ID_OK = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _check_id(call_id: str | None) -> str:
    if call_id is None or len(call_id) != 9 or not set(call_id) <= _ID_OK:
        raise BadInput(f"mistral-common refuses the tool call id {call_id!r} on instruct v3: it must be 9 letters or "
                       "digits (a-z, A-Z, 0-9)")
    return call_id


def render_version(request: Request, tokenizer: Tokenizer, version: Version) -> Rendered:
    """The Mistral prompt of `request` in instruct `version` (for tokenizer files not in `VERSIONS`)."""
    messages = ([Message("system", (TextPart(request.system),))] if request.system is not None else []) + list(request.messages)
    tooled = any(isinstance(part, (ToolCall, ToolResult)) for m in messages for part in m.parts)
    if tooled and version == "v1":
        raise BadInput("mistral-common refuses tool calls and results on instruct v1 tokenizers ('Tools not "
                       "implemented for tokenizer V1'): send the request without them, or count it for a v3 model")
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
        if turn.role in ("assistant", "tool") and (turn.calls or turn.result is not None):
            if version == "v2" and i < users[-1]:
                continue  # v2 writes tool calls and results only after the last user turn
            if version == "v2" and turn.result is not None and turns[i - 1].result is not None:
                raise BadInput("mistral-common refuses more than one tool result for one assistant turn on instruct "
                               "v2: send one result per call turn, or count it for a v3 model")
            if turn.calls:
                calls = [{"name": c.name, "arguments": _as_json(c.arguments),
                          **({"id": _check_id(c.id)} if version == "v3" else {})} for c in turn.calls]
                p.special("[TOOL_CALLS]")
                p.run([(_dumps(calls), "content")])
                p.special("</s>")
            else:
                assert turn.result is not None
                content = _as_json("".join(q.text for q in turn.result.parts if isinstance(q, TextPart)))
                body = ({"content": content, "call_id": _check_id(turn.result.tool_call_id)} if version == "v3"
                        else [{"name": turn.result.name, "content": content}])
                p.special("[TOOL_RESULTS]")
                p.run([(_dumps(body), "content")])
                p.special("[/TOOL_RESULTS]")
            continue
        if turn.role == "assistant":
            p.content_text(turn.text if version == "v1" else turn.text.rstrip(" "))
            p.special("</s>")
            continue
        if request.tools and i == users[-1] and version != "v1":  # v1 drops the definitions, as the reference does
            p.special("[AVAILABLE_TOOLS]")
            p.run([(_tools_json(request.tools), "format")])
            p.special("[/AVAILABLE_TOOLS]")
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
        if not isinstance(part, (TextPart, ToolCall, ToolResult)):
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
        calls = tuple(q for q in m.parts if isinstance(q, ToolCall))
        results = [q for q in m.parts if isinstance(q, ToolResult)]
        if calls and text:
            raise BadInput("mistral-common refuses an assistant message with both text and tool calls: send them as "
                           "two messages")
        if calls or results:
            turns.extend([_Turn(role, "", calls)] if calls else [_Turn("tool", "", (), r) for r in results])
            previous = "tool"
            continue
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
        if m.role == "assistant" and not _text(m) and not any(isinstance(q, ToolCall) for q in m.parts):
            raise BadInput("mistral-common refuses an assistant message without text (or tool calls)")
