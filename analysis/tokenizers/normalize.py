"""Unicode normalisation that remembers where each piece of the result came from.

Some tokenizers normalise before encoding (Qwen: NFC; the legacy Claude tokenizer: NFKC), so
their tokens are bytes of the *normalised* text. To draw token boundaries on the text the user
typed, we cut the text into segments that normalise independently, normalise each, and keep
the segment offsets. A token boundary that falls inside a segment is moved to the segment's end:
the token holding the segment's first byte covers the whole segment, the others are partial.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from dataclasses import dataclass

from .base import NormalForm as NormalForm, Piece  # the form's name is the protocol's


@dataclass(frozen=True, slots=True)
class Normalized:
    """`text` normalised, with segment starts in both the original and the normalised text."""

    original: str
    text: str
    orig_starts: tuple[int, ...]
    norm_starts: tuple[int, ...]

    def to_original(self, pos: int) -> int:
        """Map a character offset in the normalised text to one in the original.

        Offsets at segment starts map exactly; offsets inside a segment snap forward to the
        next segment start, so spans stay in order and tile the original text.
        """
        i = bisect_left(self.norm_starts, pos)
        if i == len(self.norm_starts):
            return len(self.original)
        return self.orig_starts[i]

    def is_boundary(self, pos: int) -> bool:
        i = bisect_left(self.norm_starts, pos)
        return pos == len(self.text) or (i < len(self.norm_starts) and self.norm_starts[i] == pos)


def normalize_with_map(text: str, form: NormalForm) -> Normalized:
    """Normalise `text` with `form` ('NFC', 'NFKC', ...) and keep a segment map.

    >>> n = normalize_with_map("e\\u0301t\\u00e9", "NFC")
    >>> n.text, n.to_original(1)
    ('été', 2)
    """
    if unicodedata.is_normalized(form, text):
        starts = tuple(range(len(text)))
        return Normalized(text, text, starts, starts)
    # Cut before a character that does not combine with what precedes it: a starter
    # (combining class 0) whose pair with the previous character normalises to the two
    # normalised halves side by side.
    cuts = [0]
    for i in range(1, len(text)):
        c = text[i]
        if unicodedata.combining(c):
            continue
        pair = text[i - 1 : i + 1]
        if unicodedata.normalize(form, pair) == unicodedata.normalize(form, text[i - 1]) + unicodedata.normalize(form, c):
            cuts.append(i)
    cuts.append(len(text))
    parts = [unicodedata.normalize(form, text[a:b]) for a, b in zip(cuts, cuts[1:])]
    joined = "".join(parts)
    whole = unicodedata.normalize(form, text)
    if joined != whole:  # a composition reached across a cut: treat the text as one segment
        return Normalized(text, whole, (0,), (0,))
    orig_starts: list[int] = []
    norm_starts: list[int] = []
    pos = 0
    for a, part in zip(cuts, parts):
        if not part:  # a character that normalises to nothing (none in NFC/NFKC today)
            continue
        orig_starts.append(a)
        norm_starts.append(pos)
        pos += len(part)
    return Normalized(text, joined, tuple(orig_starts), tuple(norm_starts))


def map_pieces(norm: Normalized, pieces: list) -> list:
    """Move pieces placed on `norm.text` onto `norm.original` (see the module docstring)."""
    out = []
    for p in pieces:
        exact = norm.is_boundary(p.start) and norm.is_boundary(p.end)
        out.append(Piece(p.id, p.bytes, norm.to_original(p.start), norm.to_original(p.end), p.partial or not exact))
    return out
