"""Seams: places inside a pre-token that no token can cross, so BPE may encode the sides apart.

Unlike `bpe` (which merges one pre-token) and `batch` (which encodes many), this module only
answers where a pre-token may be cut without changing its tokens. It is a speed trick for long
pre-tokens of other scripts (FLORES-200: about half of the merge time), and it is exact:

**Why a seam is safe.** Both merge rules join two neighbouring parts only into a token of the
vocabulary. Call a position between two characters of a pre-token a *seam* when no token's bytes
occur in the pre-token across it. No part can then ever span the seam (the first one to do so
would be such a token), so the parts on its left and on its right never meet. Each merge picks
the lowest rank, the leftmost on ties; restricted to one side, that is the lowest rank, the
leftmost on ties, of that side alone. So the left side goes through exactly the merges it would
go through on its own, in the same order, and so does the right: the pre-token's tokens are the
left side's tokens followed by the right side's. (Neither side gets the rule "a pre-token that
is itself a token stays whole": a side is not a pre-token, so it is merged from its bytes.)

**Finding seams.** Where a token crosses the position between characters `a` and `b`, its own
bytes there hold, on the left, all of `a` or (at the token's start) the last bytes of `a`; on
the right, all of `b` or (at the token's end) the first bytes of `b`. Decoding every token of
the vocabulary with `surrogateescape` keeps whole characters and turns each byte of a partial
one into a surrogate, U+DC00 + the byte; the adjacent pairs of code points of all tokens are then
every way a token can meet a character boundary. A position is a seam unless one of
`a b`, `a lead(b)`, `tail(a) b`, `tail(a) lead(b)` is such a pair, where `lead(b)` is the
surrogate of `b`'s first byte and `tail(a)` that of `a`'s last. (Tokens are matched by their
nearest byte only, so a few true seams are missed; none is invented.) Pure-ASCII tokens are not
scanned; instead two ASCII characters never make a seam.

The answer for each pair of characters is remembered, so a text pays once per new pair.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, is_, not_
from typing import Callable, Iterable

Ids = tuple[int, ...]

_ASCII_PAIRS = [chr(a) + chr(b) for a in range(128) for b in range(128)]


class Seams:
    """The seams of pre-tokens under one vocabulary, with what was learned about pairs so far.

    Args:
        tokens: the token bytes of the vocabulary (read on first use).

    >>> Seams([b"ab"]).cuts("\u00e9ab\u00e8")  # no token crosses between é, a, b, è but ab
    [1, 3]
    """

    # Rough bytes per remembered pair: a two-character string and its dict slot.
    PAIR_BYTES = 120

    def __init__(self, tokens: Iterable[bytes]) -> None:
        self._tokens: Iterable[bytes] | None = tokens
        self._known: set[str] = set()
        self._crossable: dict[str, bool] = {}
        # str.translate tables: non-ASCII character -> the surrogate of its first / last byte.
        self._lead: dict[int, str] = {}
        self._tail: dict[int, str] = {}

    @property
    def ready(self) -> bool:
        """Whether the vocabulary has been read (the first `split` reads it)."""
        return self._tokens is None

    @property
    def load(self) -> int:
        """Approximate bytes held by the remembered pairs (the vocabulary scan is not counted)."""
        return self.PAIR_BYTES * len(self._crossable)

    def clear(self) -> None:
        """Forget the pairs learned from text (the vocabulary's own pairs stay)."""
        self._crossable.clear()

    def cuts(self, piece: str) -> list[int]:
        """The seams of one piece, as offsets into it (what `split` finds in bulk).

        >>> # "\u00e9x" crosses \u00e9|x; b"\\xa9y" (the last byte of \u00e9, then y) crosses \u00e9|y
        >>> Seams([b"ab", "\u00e9x".encode(), b"\\xa9y"]).cuts("ab\u00e9x\u00e9y\u00e9z")
        [2, 4, 6, 7]
        """
        return [k + 1 for k, crossable in enumerate(self._flags(piece)) if not crossable]

    def split(self, pieces: list[str]) -> tuple[list[str], list[int]]:
        """The pieces cut at their seams: all the parts in order, and where each piece's parts end.

        Piece `k`'s parts are `parts[stops[k - 1]:stops[k]]` (from 0 for the first).

        >>> Seams([b"ab"]).split(["\u00e9\u00e8", "ab"])
        (['\u00e9', '\u00e8', 'ab'], [2, 3])
        """
        text = "".join(pieces)
        ends = list(accumulate(map(len, pieces)))
        flags = self._flags(text)
        for end in islice(ends, len(ends) - 1):  # a piece's end is always a cut
            flags[end - 1] = False
        cuts = list(compress(range(1, len(text)), map(not_, flags)))
        cuts.append(len(text))
        parts = list(map(text.__getitem__, map(slice, [0, *islice(cuts, len(cuts) - 1)], cuts)))
        # Every end is in `cuts`, so the parts of pieces 0..k are those up to and including it.
        stops = list(map(bisect_right, repeat(cuts), ends))
        return parts, stops

    def _flags(self, text: str) -> list[bool]:
        # flags[k]: can a token cross between text[k] and text[k + 1]? All C-level passes.
        pairs = list(map(add, text, islice(text, 1, None)))
        flags = list(map(self._crossable.get, pairs))
        if None in flags:
            self._learn(list(dict.fromkeys(compress(pairs, map(is_, flags, repeat(None))))))
            flags = list(map(self._crossable.__getitem__, pairs))
        return flags  # type: ignore[return-value]  # no None left

    def _learn(self, pairs: list[str]) -> None:
        known = self._known_pairs()
        joined = "".join(pairs)
        for c in set(joined):
            if ord(c) > 127 and ord(c) not in self._lead:
                data = c.encode("utf-8", "surrogatepass")
                self._lead[ord(c)] = chr(0xDC00 + data[0])
                self._tail[ord(c)] = chr(0xDC00 + data[-1])
        lead = joined.translate(self._lead)[1::2]
        tail = joined.translate(self._tail)[0::2]
        contains = known.__contains__
        crossable = map(
            any,
            zip(
                map(contains, pairs),
                map(contains, map(add, joined[0::2], lead)),
                map(contains, map(add, tail, joined[1::2])),
                map(contains, map(add, tail, lead)),
            ),
        )
        self._crossable.update(zip(pairs, crossable))

    def _known_pairs(self) -> set[str]:
        if self._tokens is not None:
            # One decode of all non-ASCII tokens, joined by 0xFF (never in UTF-8, so it only
            # adds pairs with U+DCFF, which no character's lead or tail byte gives).
            wide = [t for t in self._tokens if not t.isascii()]
            decoded = b"\xff".join(wide).decode("utf-8", "surrogateescape")
            self._known = set(map(add, decoded, islice(decoded, 1, None)))
            self._known.update(_ASCII_PAIRS)
            self._tokens = None
        return self._known


def split_ids(
    seams: Seams, pieces: list[str], cache: dict[str, Ids], encode: Callable[[list[str]], list[Ids]]
) -> tuple[list[Ids], dict[str, Ids]]:
    """Ids of `pieces` by encoding their seam-free parts: each distinct part once, via `cache`.

    Args:
        seams: the vocabulary's seams.
        pieces: pre-tokens (none of them a token itself: their parts are all merged).
        cache: part -> ids, from earlier calls (read only).
        encode: parts -> their ids by merging from bytes, in order.

    Returns the ids of each piece and the parts newly encoded (for the caller to cache).
    """
    parts, stops = seams.split(pieces)
    distinct = list(dict.fromkeys(parts))
    found = list(map(cache.get, distinct))
    new: dict[str, Ids] = {}
    if None in found:
        missing = list(compress(distinct, map(is_, found, repeat(None))))
        new = dict(zip(missing, encode(missing)))
        found = list(map(new.get, distinct, found))
    part_ids = list(map(dict(zip(distinct, found)).__getitem__, parts))
    starts = [0, *islice(stops, len(stops) - 1)]
    ids = list(map(tuple, map(chain.from_iterable, map(part_ids.__getitem__, map(slice, starts, stops)))))
    return ids, new
