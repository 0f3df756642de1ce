"""Gemma 3's turn format: `<start_of_turn>ROLE\\n` ... `<end_of_turn>\\n`, the roles user and model.

Unlike the Llama header formats (a system role of its own, a header per message), Gemma has two
roles only: a system prompt is written at the start of the first turn, followed by a blank line.
A prompt is `<bos>`, then per message `<start_of_turn>user\\n` (or `model\\n`), the text,
`<end_of_turn>\\n`; the generation prompt is `<start_of_turn>model\\n`.

Sources (no reference renders it offline, so the format is "documented", never "exact"): Google's
"Gemma formatting and system instructions" (ai.google.dev/gemma/docs/core/prompt-structure) and
"Chat with Gemma" (ai.google.dev/gemma/docs/capabilities/text/chat) for the markers, the
separators, the prompt prefix and the system instruction at the start of the first user turn
with a blank line after it; the same strings are the `PROMPT` and `ANSWER` of the `gemma`
package's `gemma/gm/text/_template.py` (3.3.0, which needs jax to import, and has no system
prompt). Each text is stripped of surrounding whitespace, and the system prompt goes before the
first turn whatever its role, as the chat_template of Hugging Face's google/gemma-3-*-it models
does (not installable offline here, so not tested).

`<bos>` is a control piece; `<start_of_turn>` and `<end_of_turn>` are user-defined pieces, which
SentencePiece (and Google's own count) match wherever they occur in a text. The format emits
their ids itself and encodes every text with those two pieces unmatched, so a marker typed in a
message counts as its characters (the Hugging Face path, which encodes the rendered string whole,
would read it as the marker). Between two markers the text is encoded as one string, as the
template's rendered prompt is, so a turn's "user\\n" and its text may share a token ("\\n\\n" is
one piece).

With a proxy vocabulary (Gemma 1/2 counted with o200k_base) each marker counts one token, as in
Gemma's vocabulary, and the rest with the proxy: an estimate. Tool definitions, calls and
results have no place in Gemma 3's format: they are counted as their JSON or text in the turns,
an estimate; media are not counted, said so.
"""

from __future__ import annotations

import json
from typing import cast

from ...errors import BadInput
from ...tokenizers import SymbolTokenizer, Tokenizer
from ..request import Message, Request, TextPart, ToolCall, ToolResult
from .base import Rendered
from .build import Prompt
from .parts import join_reasons, media_counts, media_note, result_text, tools_json_text

BOS, START, END = "<bos>", "<start_of_turn>", "<end_of_turn>"
MARKERS = frozenset({START, END})
_ROLES = {"user": "user", "assistant": "model", "tool": "user"}
SOURCE = ("Gemma 3's prompt format as Google documents it (ai.google.dev/gemma/docs/core/prompt-structure), "
          "with Gemma 3's own ids; no offline reference renders it, so it is not checked id for id")


class _MarkersAsIds:
    """The tokenizer as this format encodes: texts with the turn markers unmatched, the markers as ids."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.name = tokenizer.name
        self._tokenizer = tokenizer
        symbols = tokenizer if isinstance(tokenizer, SymbolTokenizer) else None
        ids = {m: symbols.piece_id(m) if symbols else None for m in MARKERS}
        self._symbols = symbols if all(i is not None for i in ids.values()) else None
        self.own = self._symbols is not None
        specials = tokenizer.special_tokens
        # With a proxy, -1 stands for "one marker token" in the counts; its ids are never returned.
        self.special_tokens = {**specials, **{m: (i if self.own and i is not None else -1) for m, i in ids.items()}}
        if BOS not in self.special_tokens:
            self.special_tokens[BOS] = -1

    def encode(self, text: str) -> list[int]:
        if self._symbols is not None:
            return self._symbols.encode_as_text(text, MARKERS)
        return self._tokenizer.encode(text)

    def token_bytes(self, token_id: int) -> bytes:
        return self._tokenizer.token_bytes(token_id)


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """The Gemma 3 prompt of `request`.

    >>> from analysis.tokenizers import load_tokenizer
    >>> r = render(Request.from_text("hi"), load_tokenizer("o200k_base"))
    >>> (r.format_tokens, r.exactness, r.ids)
    (9, 'estimate', None)
    """
    enc = _MarkersAsIds(tokenizer)
    p = Prompt(cast(Tokenizer, enc), "gemma3")
    p.special(BOS)
    system, turns = _turns(request)
    rough = any(kind != "text" for _, _, kind in turns) or bool(request.tools)
    for turn, (role, text, _) in enumerate(turns):
        p.special(START)
        p.text(f"{role}\n", "format")
        for instruction in system if turn == 0 else ():
            p.text(instruction, "content")
            p.text("\n\n", "format")
        p.text(text, "content")
        p.special(END)
        p.text("\n", "format")
    if add_generation_prompt:
        p.special(START)
        p.text("model\n", "format")
    notes = []
    if request.tools:
        notes.append("tool definitions have no place in Gemma 3's format: counted as their JSON text")
    if any(kind == "tool" for _, _, kind in turns):
        notes.append("tool calls and results have no place in Gemma 3's format: counted as their text in the turns")
    media = media_note(media_counts(request))
    if media:
        notes.append(media)
    tools = enc.encode(tools_json_text(request.tools, wrap=False, description="empty")) if request.tools else []
    built = p.rendered("documented", "")
    if not enc.own:
        return Rendered(built.content_tokens, built.format_tokens + len(tools), "estimate", join_reasons(
            f"estimate: Gemma's turn format counted with {tokenizer.name}, its markers one token each as in "
            "Gemma's vocabulary", *notes))
    if rough or media:
        return Rendered(built.content_tokens, built.format_tokens + len(tools), "estimate",
                        join_reasons(SOURCE, *notes))
    return Rendered(built.content_tokens, built.format_tokens, "documented", SOURCE, built.ids, built.spans)


def _turns(request: Request) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The system texts (written at the start of the first turn), and (role, text, "text" or "tool") per turn."""
    system: list[str] = [request.system] if request.system is not None else []
    turns: list[tuple[str, str, str]] = []
    for m in request.messages:
        if m.role in ("system", "developer"):
            if turns:
                raise BadInput(f"a {m.role} message after the first turn has no place in Gemma 3's format, which "
                               "writes the system prompt at the start of the first turn: send it first")
            system.append("".join(_texts(m)))
            continue
        if m.role not in _ROLES:
            raise BadInput(f"role {m.role!r} has no place in Gemma 3's format: use user, assistant, system or tool")
        kind = "tool" if any(isinstance(part, (ToolCall, ToolResult)) for part in m.parts) else "text"
        turns.append((_ROLES[m.role], "".join(_texts(m)).strip(), kind))
    if system and not turns:
        turns.append(("user", "", "text"))  # a system prompt alone still reaches the model, in a user turn
    return system, turns


def _texts(m: Message) -> list[str]:
    out: list[str] = []
    for part in m.parts:
        if isinstance(part, TextPart):
            out.append(part.text)
        elif isinstance(part, ToolCall):
            out.append(json.dumps({"name": part.name, "arguments": part.arguments}))
        elif isinstance(part, ToolResult):
            out.append(result_text(part))
    return out
