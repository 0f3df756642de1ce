"""gpt-oss's "harmony" chat format, id for id as the `openai-harmony` package renders it.

Unlike the header formats of Llama (a role between two markers, then the text), harmony gives
every message an author, an optional recipient and a channel, and opens the prompt with a
system message of its own. Reference: `openai_harmony.load_harmony_encoding(HARMONY_GPT_OSS)`
and its `render_conversation_for_completion` (or `render_conversation` without a generation
prompt), tested id for id over random conversations.

How a `Request` becomes a harmony conversation (the mapping OpenAI's gpt-oss guide describes for
chat messages):

- the system message is harmony's default (`SystemContent.new()`: identity, knowledge cutoff,
  reasoning effort medium, the valid channels; plus the line routing calls to `functions` when
  there are tools). Serving stacks that add a conversation date add its tokens too.
- `request.system` and the system/developer messages before the first other message become one
  developer message, "# Instructions" and their texts joined by blank lines; a later system or
  developer message becomes a developer message where it stands.
- user messages keep their `name` (author `user:NAME`); assistant text goes to the `final`
  channel; each tool call is a `commentary` message to `functions.NAME`, constrained to JSON and
  ended by `<|call|>`; a tool result is a message from `functions.NAME` to the assistant.

Tool definitions are rendered by `harmony_tools` (TypeScript-like declarations).
"""

from __future__ import annotations

from ...errors import BadInput
from ...tokenizers import Tokenizer
from ..request import Message, Request, TextPart, ToolCall, ToolResult
from .base import Rendered
from .build import Kind, Prompt
from .harmony_tools import declarations

REFERENCE = "openai-harmony (HARMONY_GPT_OSS, render_conversation_for_completion)"

# The default system message's text, as openai-harmony 0.0.8 renders SystemContent.new().
_SYSTEM = ("You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\n\n"
           "Reasoning: medium\n\n# Valid channels: analysis, commentary, final. Channel must be included for every message.")
_SYSTEM_TOOLS = "\nCalls to these tools must go to the commentary channel: 'functions'."


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """The harmony prompt of `request`, with its ids.

    >>> from analysis.tokenizers import load_tokenizer
    >>> r = render(Request.from_text("hi"), load_tokenizer("o200k_harmony"))
    >>> (r.content_tokens, r.format_tokens, r.exactness)
    (1, 56, 'exact')
    """
    p = Prompt(tokenizer, "harmony")
    _message(p, "system", [(_SYSTEM + (_SYSTEM_TOOLS if request.tools else ""), "format")])

    messages = list(request.messages)
    leading = [request.system] if request.system is not None else []
    while messages and messages[0].role in ("system", "developer"):
        leading.append(_text(messages.pop(0)))
    if leading or request.tools:
        body: list[tuple[str, Kind]] = []
        if leading:
            body.append(("# Instructions\n\n", "format"))
            for i, text in enumerate(leading):
                body += [("\n\n", "format")] if i else []
                body.append((text, "content"))
        if request.tools:
            body.append((("\n\n" if leading else "") + "# Tools\n\n" + declarations(request.tools), "format"))
        _message(p, "developer", body)

    calls: dict[str, str] = {}  # tool_call_id -> function name, to name the results
    for m in messages:
        if m.role in ("system", "developer"):
            _message(p, "developer", [("# Instructions\n\n", "format"), (_text(m), "content")])
        elif m.role == "user":
            _message(p, "user", [(_text(m), "content")], name=m.name)
        elif m.role == "assistant":
            _assistant(p, m, calls)
        else:
            _tool(p, m, calls)
    if add_generation_prompt:
        p.special("<|start|>")
        p.format_text("assistant")
    return p.rendered("exact", f"ids identical to {REFERENCE}, tested id for id")


def _message(p: Prompt, role: str, body: list[tuple[str, Kind]], *, name: str | None = None) -> None:
    p.special("<|start|>")
    p.format_text(role)
    if name:  # the reference encodes the role and ":name" apart
        p.format_text(f":{name}")
    p.special("<|message|>")
    p.run(body)
    p.special("<|end|>")


def _assistant(p: Prompt, m: Message, calls: dict[str, str]) -> None:
    text = "".join(part.text for part in m.parts if isinstance(part, TextPart))
    tool_calls = [part for part in m.parts if isinstance(part, ToolCall)]
    _only_text_and(m, ToolCall)
    if text or not tool_calls:
        p.special("<|start|>")
        p.format_text("assistant")
        p.special("<|channel|>")
        p.format_text("final")
        p.special("<|message|>")
        p.content_text(text)
        p.special("<|end|>")
    for call in tool_calls:
        if call.id:
            calls[call.id] = call.name
        p.special("<|start|>")
        p.format_text("assistant")
        p.format_text(f" to=functions.{call.name}")
        p.special("<|channel|>")
        p.format_text("commentary")
        p.format_text(" ")
        p.special("<|constrain|>")
        p.format_text("json")
        p.special("<|message|>")
        p.content_text(call.arguments)
        p.special("<|call|>")


def _tool(p: Prompt, m: Message, calls: dict[str, str]) -> None:
    _only_text_and(m, ToolResult)
    results = [part for part in m.parts if isinstance(part, ToolResult)]
    if not results:  # a bare tool message: its text, named by the message
        results = [ToolResult(tuple(part for part in m.parts if isinstance(part, TextPart)), name=m.name)]
    for result in results:
        name = result.name or m.name or calls.get(result.tool_call_id or "")
        if not name:
            raise BadInput(f"a tool result (tool_call_id {result.tool_call_id!r}) names no function, and no earlier "
                           "tool call has that id: harmony needs the function's name (give the result a name)")
        text = "".join(part.text for part in result.parts if isinstance(part, TextPart))
        p.special("<|start|>")
        p.format_text(f"functions.{name}")
        p.format_text(" to=assistant")
        p.special("<|channel|>")
        p.format_text("commentary")
        p.special("<|message|>")
        p.content_text(text)
        p.special("<|end|>")


def _text(m: Message) -> str:
    _only_text_and(m)
    return m.text


def _only_text_and(m: Message, *allowed: type) -> None:
    for part in m.parts:
        if not isinstance(part, (TextPart, *allowed)):
            raise BadInput(f"a {m.role} message holds a {type(part).__name__}, which the harmony format (gpt-oss, "
                           "text only) cannot carry here: send its text instead")
