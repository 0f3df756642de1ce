"""Assembling a prompt token by token: the format's markers as special ids, every text as text.

Unlike the family modules, which know where each marker goes, this module knows nothing about
any format: `Prompt` collects ids and labels each one "format" or "content", and turns them into
a `Rendered`. Content is always encoded as plain text, so a user who types "<|eot_id|>" gets the
characters, never the marker; only `special` emits a special id, and only for a name the
tokenizer defines.

Two ways to add text, because references differ in what they encode at once:

- `format_text` / `content_text` encode one piece on its own, as reference encoders that call
  the tokenizer per piece do (llama-models, harmony, mistral-common);
- `run` encodes several pieces as one string and labels each token by the piece its first byte
  falls in, as a template that is rendered to one string and encoded whole does (Qwen,
  DeepSeek): a token may then straddle a format/content seam, and it is counted with the piece
  it starts in.
"""

from __future__ import annotations

import unicodedata
import json
import re
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any, Literal, TypeVar

from ...errors import BadInput
from ...textio import json_text
from ...tokenizers import Tokenizer
from ...tokenizers.base import clean_text
from ..request import ToolCall
from .base import Exactness, Rendered, Span

Kind = Literal["format", "content"]
T = TypeVar("T")


class NoVariant(BadInput):
    """A family's format has no variant for this tokenizer (a proxy vocabulary, say): it needs the model's own."""


def for_tokenizer(table: Mapping[str, T], tokenizer: Tokenizer, family: str, what: str) -> T:
    """`table[tokenizer.name]`: which of a family's variants (version, template) a tokenizer is read with."""
    try:
        return table[tokenizer.name]
    except KeyError:
        raise NoVariant(f"the {family} chat format has no {what} for tokenizer {tokenizer.name!r}: "
                       f"use one of {', '.join(table)}") from None


def call_arguments(call: ToolCall, family: str) -> Any:
    """A tool call's JSON arguments, parsed (templates and encoders write them as JSON objects)."""
    try:
        return json_text.loads(call.arguments, what=f"the arguments of the call to {call.name!r}") if call.arguments.strip() else {}
    except json.JSONDecodeError as e:
        raise BadInput(f"the arguments of the call to {call.name!r} are not JSON ({e.msg} at character {e.pos}): "
                       f"the {family} format writes them as a JSON object") from None


class Prompt:
    """A prompt under construction for one tokenizer and one format family.

    >>> from analysis.tokenizers import load_tokenizer
    >>> p = Prompt(load_tokenizer("o200k_harmony"), "harmony")
    >>> p.special("<|start|>"); p.format_text("user"); p.special("<|message|>"); p.content_text("<|end|>")
    >>> r = p.rendered("exact", "example"); (r.format_tokens, r.content_tokens)
    (3, 5)
    """

    def __init__(self, tokenizer: Tokenizer, family: str) -> None:
        self.tokenizer, self.family = tokenizer, family
        self._specials = tokenizer.special_tokens
        self.ids: list[int] = []
        self.kinds: list[Kind] = []
        self._pending: list[tuple[str, Kind]] = []
        self.template = ""  # which of a family's templates is being rendered, where it has several
        # Where the reference tokenizes the rendered prompt as one string (transformers'
        # apply_chat_template), a typed marker in any text is its control token: `read_typed_markers`
        # makes `text` do the same, and `typed_markers` counts those found in content.
        self._typed: re.Pattern[str] | None = None
        self.typed_markers: list[str] = []

    def read_typed_markers(self, added: Sequence[str] | None = None) -> None:
        """From now on, an added token's string in a text is that token, as transformers reads it.

        `added`: the model's own added tokens (its tokenizer.json's), where the vocabulary loaded
        here has more (a vocabulary shared by two models); None: all its special tokens."""
        names = sorted(self._specials if added is None else [a for a in added if a in self._specials],
                       key=len, reverse=True)
        self._typed = re.compile("(" + "|".join(map(re.escape, names)) + ")") if names else None

    def text(self, text: str, kind: Kind) -> None:
        """Queue text; queued texts are encoded as one string at the next marker (see `run`)."""
        if text and self._typed is not None:
            for i, piece in enumerate(self._typed.split(text)):
                if i % 2:
                    self.special(piece, kind)
                    if kind == "content":
                        self.typed_markers.append(piece)
                elif piece:
                    self._pending.append((piece, kind))
            return
        if text:
            self._pending.append((text, kind))

    def flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, []
            self.run(pending)

    def special(self, token: str, kind: Kind = "format") -> None:
        """Append the format marker `token` as its special id (`kind` "content": one the caller typed)."""
        self.flush()
        self.ids.append(self.special_id(token))
        self.kinds.append(kind)

    def special_id(self, token: str) -> int:
        try:
            return self._specials[token]
        except KeyError:
            raise BadInput(
                f"the {self.family} chat format needs the special token {token!r}, which tokenizer "
                f"{self.tokenizer.name!r} does not define: use this family's own tokenizer"
            ) from None

    def format_text(self, text: str) -> None:
        self.flush()
        self._add(self.tokenizer.encode(text) if text else [], "format")

    def content_text(self, text: str) -> None:
        self.flush()
        self._add(self.tokenizer.encode(text) if text else [], "content")

    def run(self, pieces: Sequence[tuple[str, Kind]]) -> None:
        """Encode the pieces' texts joined, as one string; label tokens by the piece they start in."""
        text = "".join(t for t, _ in pieces)
        if not text:
            return
        ids = self.tokenizer.encode(text)
        if not ids or all(kind == pieces[0][1] for _, kind in pieces):
            self._add(ids, pieces[0][1])
            return
        starts = [0, *accumulate(len(self.tokenizer.token_bytes(i)) for i in ids)][:-1]
        total = starts[-1] + len(self.tokenizer.token_bytes(ids[-1]))
        ends = list(accumulate(len(clean_text(t).encode("utf-8")) for t, _ in pieces))
        if ends[-1] != total:
            # The encoder normalised the text (Qwen's NFC): measure the pieces the same way.
            nfc = list(accumulate(len(unicodedata.normalize("NFC", clean_text(t)).encode("utf-8")) for t, _ in pieces))
            ends = nfc if nfc[-1] == total else ends
        if ends[-1] < total:  # SentencePiece's dummy prefix: the extra leading bytes go to the first piece
            ends = [e + total - ends[-1] for e in ends]
        elif ends[-1] > total:  # the encoder dropped text: place the seams in proportion
            ends = [round(e * total / ends[-1]) for e in ends]
        kinds = [kind for _, kind in pieces]
        piece = 0
        for tid, start in zip(ids, starts):
            while piece < len(ends) - 1 and start >= ends[piece]:
                piece += 1
            self.ids.append(tid)
            self.kinds.append(kinds[piece])

    def _add(self, ids: list[int], kind: Kind) -> None:
        self.ids.extend(ids)
        self.kinds.extend([kind] * len(ids))

    def rendered(self, exactness: Exactness, reason: str) -> Rendered:
        self.flush()
        spans: list[Span] = []
        start = 0
        for i in range(1, len(self.kinds) + 1):
            if i == len(self.kinds) or self.kinds[i] != self.kinds[start]:
                spans.append(Span(start, i, self.kinds[start]))
                start = i
        content = self.kinds.count("content")
        return Rendered(content_tokens=content, format_tokens=len(self.ids) - content, exactness=exactness,
                        reason=reason, ids=tuple(self.ids), spans=tuple(spans))
