"""The longest start of a text that fits in N tokens, cut at a token boundary and never inside a character.

Unlike `cuts` (which splits a long text where the ids provably do not change, to encode it in
parts), this module shortens a text on purpose: `keep_tokens` keeps the first N tokens' worth of
text, as `tokenprism truncate` and ttok's `--truncate` do. Two things make that more than
`text[:pieces[N-1].end]`:

* a byte-level token can end inside a character (an emoji is often two or three tokens); a text
  cannot hold half a character, so the cut drops back to the last whole character;
* a prefix encoded on its own is not always the first N tokens of the whole: the pre-tokenizer
  and the merges see a different end. The kept text is re-encoded and shortened again until it
  fits, so the promise "re-encodes to N tokens or fewer" holds for every tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..errors import BadInput
from .base import Piece, Tokenizer, clean_text

_CONTINUATION = frozenset(range(0x80, 0xC0))  # UTF-8 continuation bytes, 0b10xxxxxx


@dataclass(frozen=True, slots=True)
class Kept:
    """What `keep_tokens` kept.

    Attributes:
        text: the kept start of the text.
        n_tokens: its tokens when encoded on its own (at most the budget).
        total_tokens: the tokens of the whole text.
        mid_character: the budget's last token ended inside a character, so the cut dropped back
            to the last whole character.
    """

    text: str
    n_tokens: int
    total_tokens: int
    mid_character: bool

    @property
    def cut(self) -> bool:
        """True when text was dropped."""
        return self.n_tokens < self.total_tokens


def _cut(pieces: Sequence[Piece], n: int) -> tuple[int, bool]:
    """(character offset after the first `n` of `pieces`, whether token n splits a character); n < len(pieces)."""
    if n == 0:
        return 0, False
    end = pieces[n - 1].end
    nxt = pieces[n]
    # The next token starts inside a character: its span begins before the cut (offsets of a
    # tokenizer that gives every byte token of a character the character's span), or its first
    # byte continues a UTF-8 sequence (byte-level tokens, whose later bytes have an empty span).
    if nxt.start < end:
        return nxt.start, True
    if nxt.bytes[:1] and nxt.bytes[0] in _CONTINUATION and nxt.partial:
        return max(end - 1, 0), True
    return end, False


def keep_tokens(text: str, tokenizer: Tokenizer, max_tokens: int) -> Kept:
    """The longest start of `text` whose tokens are the first `max_tokens` of it, ending on a whole character.

    Special-token strings in `text` are text here as everywhere (`<|endoftext|>` is several tokens).
    Lone surrogates count as U+FFFD, as `encode` counts them.

    Args:
        text: the text.
        tokenizer: the tokenizer whose tokens are counted.
        max_tokens: the budget, at least 0.

    Raises:
        BadInput: a negative budget.

    >>> from analysis.tokenizers import load_tokenizer
    >>> kept = keep_tokens("hello world, again", load_tokenizer("cl100k_base"), 2)
    >>> (kept.text, kept.n_tokens, kept.total_tokens)
    ('hello world', 2, 4)
    """
    if max_tokens < 0:
        raise BadInput(f"max_tokens must be 0 or more, got {max_tokens}")
    text = clean_text(text)
    pieces = tokenizer.pieces(text)
    total = len(pieces)
    if total <= max_tokens:
        return Kept(text, total, total, False)
    cut, mid = _cut(pieces, max_tokens)
    n = tokenizer.count(text[:cut])
    while n > max_tokens:  # the prefix alone encodes to more tokens: cut again within it
        again, _ = _cut(tokenizer.pieces(text[:cut]), max_tokens)
        cut = min(again, cut - 1)  # always shorter, so this ends (at worst at "", 0 tokens)
        n = tokenizer.count(text[:cut])
    return Kept(text[:cut], n, total, mid)
