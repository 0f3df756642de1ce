"""Llama 3's header-token chat format, id for id as llama-models' `ChatFormat` encodes a dialog.

Unlike harmony (authors, channels, a system message of its own), a Llama prompt is
`<|begin_of_text|>` then, per message, a role between two header markers, a blank line, the
text and an end-of-turn marker; it ends with the assistant's header. Reference:
`llama_models.llama3.chat_format.ChatFormat.encode_dialog_prompt` (llama-models 0.3.0), tested
id for id with the tokenizer.model that package ships. `llama4` is the same shape with Llama 4's
marker names; both are built here by `render_headers`.

How a `Request` maps: `request.system` and system/developer messages are `system` messages;
tool results are `ipython` messages; an assistant's tool calls follow its text as the JSON that
llama-models writes for a custom tool call (`{"type": "function", "name": ..., "parameters": ...}`).
Message names have no place in the format and are left out, as Meta's own templates do.
Tool *definitions* are not part of `ChatFormat` (llama-stack writes them into the system prompt,
in one of several templates), so a request with tools is counted with their JSON text in the
system prompt and labelled an estimate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ...tokenizers import Tokenizer
from ..request import Message, Request, TextPart
from .base import Rendered
from .build import Prompt, call_arguments
from .parts import split_message, tools_json_text, with_tools_as_json


@dataclass(frozen=True, slots=True)
class Markers:
    family: str
    reference: str
    header_start: str
    header_end: str
    end_of_turn: str
    end_of_message: str
    eom_after_tool_calls: bool  # Llama 4 ends a turn that calls tools (and a tool's reply) with end-of-message


LLAMA3 = Markers("llama3", "llama-models 0.3.0 llama3.ChatFormat.encode_dialog_prompt", "<|start_header_id|>",
                 "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>", False)
LLAMA4 = Markers("llama4", "llama-models 0.3.0 llama4.ChatFormat.encode_dialog_prompt", "<|header_start|>",
                 "<|header_end|>", "<|eot|>", "<|eom|>", True)

_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant", "tool": "ipython"}


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """The Llama 3 prompt of `request`.

    >>> from analysis.tokenizers import load_tokenizer
    >>> render(Request.from_text("hi"), load_tokenizer("o200k_base"))
    Traceback (most recent call last):
    analysis.errors.BadInput: the llama3 chat format needs the special token '<|begin_of_text|>', which tokenizer 'o200k_base' does not define: use this family's own tokenizer
    """
    return render_headers(request, tokenizer, LLAMA3, add_generation_prompt=add_generation_prompt)


def render_headers(request: Request, tokenizer: Tokenizer, markers: Markers, *, add_generation_prompt: bool = True) -> Rendered:
    """A Llama header-format prompt, with `markers` naming the family's special tokens."""
    p = Prompt(tokenizer, markers.family)
    p.special("<|begin_of_text|>")
    if request.system is not None:
        _message(p, markers, Message("system", (TextPart(request.system),)))
    for m in request.messages:
        _message(p, markers, m)
    if add_generation_prompt:
        _header(p, markers, "assistant")
    if not request.tools:
        return p.rendered("exact", f"ids identical to {markers.reference}, tested id for id")
    tools = tokenizer.count(tools_json_text(request.tools, description="empty", indent=4))
    return with_tools_as_json(p.rendered("exact", ""), tools,
                              f"the messages as {markers.reference} encodes them; tool definitions are not part of "
                              "that format (llama-stack writes them into the system prompt)")


def _header(p: Prompt, markers: Markers, role: str) -> None:
    p.special(markers.header_start)
    p.format_text(role)
    p.special(markers.header_end)
    p.format_text("\n\n")


def _message(p: Prompt, markers: Markers, m: Message) -> None:
    _header(p, markers, _ROLES[m.role])
    text, calls = split_message(m, markers.family)
    p.content_text(text)
    for call in calls:
        # One encode call for the whole JSON, as llama-models makes; the arguments are content.
        p.run([(f'{{"type": "function", "name": {json.dumps(call.name)}, "parameters": ', "format"),
               (json.dumps(call_arguments(call, markers.family)), "content"), ("}", "format")])
    eom = markers.eom_after_tool_calls and (bool(calls) or m.role == "tool")
    p.special(markers.end_of_message if eom else markers.end_of_turn)
