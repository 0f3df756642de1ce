"""Seams and whole characters: how a long pre-token may skip work without changing its tokens.

Unlike `bpe` (which merges one pre-token) and `batch` (which encodes many), this module only
finds where merging may be cut short. Both tricks are for long pre-tokens of other scripts
(FLORES-200 spends most of its merge time there), and both are exact under the ranked rule:

**Seams.** Call a position between two characters of a pre-token a *seam* when no token's bytes
occur in the pre-token across it. Two neighbouring parts only ever merge into a token, so no
part can span a seam (the first one to do so would be such a token), and the parts on its two
sides never meet. Each merge picks the lowest rank, the leftmost on ties; restricted to one side
that is the lowest rank, the leftmost on ties, of that side alone. So each side goes through
exactly the merges it would go through on its own, in the same order: the pre-token's tokens
are the left side's followed by the right side's. (A side is not a pre-token, so it is merged
from its bytes even when it is a token.) The parts between seams repeat across pre-tokens far
more than whole pre-tokens do, and each distinct part is merged once.

**Whole characters.** Let `c` be a multi-byte character whose bytes merge into the one token
`c`, the highest rank among those merges being `M(c)`. If every token that may cross a boundary
of `c` in the part ranks above `M(c)`, the part can start with `c` whole instead of as bytes.
While `c` is unfinished, one of its own merges (rank at most `M(c)`) is pending, so no merge
across its boundary can be the lowest, and `c` is finished as it would be alone. Any merge made
elsewhere meanwhile was the lowest and leftmost in the byte-level run; in the run that starts
with `c` whole it still is, because the pairs that involve `c` there cross its boundary and
rank above `M(c)`, which is at least the pending rank. Once `c` is finished the two runs are in
the same state. The same holds for several such characters at once. This saves the merges
inside characters.

**Half characters.** The argument needs only a run of bytes that merges alone into one token,
not a whole character. A three-byte character that may not start whole may still start as its
first merge: the lower-ranked of its two byte pairs, if that pair is a token (rank `P`) and every
token that may cross either end of the pair ranks above `P`. Across the pair's outer end lie the
character's own boundary (its crossing rank, as above); across its inner end (between the
second byte and the third for the leading pair, the first and the second for the trailing one)
lie the character itself, the other pair, and tokens that begin (or end) with those two bytes.
Decoded with `surrogateescape`, the last are the tokens holding that pair of surrogates, which
the vocabulary scan below already remembers. This saves one merge in each such character.

**Which tokens may cross.** Where a token crosses the position between characters `a` and `b`,
its own bytes there hold, on the left, all of `a` or (at the token's start) the last bytes of
`a`; on the right, all of `b` or (at the token's end) the first bytes of `b`. Decoding every
token with `surrogateescape` keeps whole characters and turns each byte of a partial one into a
surrogate, U+DC00 + the byte, so the adjacent pairs of code points of all tokens are every way a
token meets a character boundary. A token may cross `a|b` if one of `a b`, `a lead(b)`,
`tail(a) b`, `tail(a) lead(b)` is such a pair, where `lead(b)` is the surrogate of `b`'s first
byte and `tail(a)` that of `a`'s last; the lowest rank of those tokens is the position's
*crossing rank* (none: a seam). Matching by the nearest byte only may miss a seam or a whole
character, never invent one. Pure-ASCII tokens are not scanned: two ASCII characters are taken
to be crossed at any rank.

The answer for each pair of characters (and each character's `M`) is remembered, so a text pays
once per new pair.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, eq, getitem, is_, lt, ne
from typing import Callable, Iterator, Mapping

from ..bpe import BYTES, NO_MERGE, merge_ranked

Ids = tuple[int, ...]

_ASCII_PAIRS = [chr(a) + chr(b) for a in range(128) for b in range(128)]


class Seams:
    """The seams and whole characters of pre-tokens under one ranked vocabulary (tiktoken's rule).

    Args:
        ranks: token bytes -> rank (read on first use).

    >>> Seams({b"ab": 256} | {bytes([b]): b for b in range(256)}).cuts("\u00e9ab\u00e8")  # only ab crosses
    [1, 3]
    """

    # Rough bytes per remembered pair: a two-character string, its rank and its dict slot.
    PAIR_BYTES = 120

    def __init__(self, ranks: Mapping[bytes, int]) -> None:
        self._ranks = ranks
        self._known: dict[str, int] | None = None  # pair of code points -> lowest rank holding it
        self._crossing: dict[str, int] = {}  # pair of characters -> crossing rank (NO_MERGE: seam)
        # Per character seen: its three ways to start (as bytes, as a pair and a byte, whole),
        # and the ranks a position's crossing rank must exceed for the second and the third
        # (see `starts`). Where it has no pair, the second way is the first.
        self._units: dict[str, tuple[tuple[bytes, ...], tuple[bytes, ...], tuple[bytes, ...]]] = {}
        self._limits: dict[str, tuple[int, int]] = {}
        # str.translate tables: non-ASCII character -> the surrogate of its first / last byte.
        self._lead: dict[int, str] = {}
        self._tail: dict[int, str] = {}

    @property
    def ready(self) -> bool:
        """Whether the vocabulary has been read (the first `split` reads it)."""
        return self._known is not None

    @property
    def load(self) -> int:
        """Approximate bytes held by the remembered pairs (the vocabulary scan is not counted)."""
        return self.PAIR_BYTES * len(self._crossing)

    def clear(self) -> None:
        """Forget the pairs learned from text (the vocabulary's own pairs stay)."""
        self._crossing.clear()

    def cuts(self, piece: str) -> list[int]:
        """The seams of one piece, as offsets into it (what `split` finds in bulk).

        >>> # "\u00e9x" crosses \u00e9|x; b"\\xa9y" (the last byte of \u00e9, then y) crosses \u00e9|y
        >>> ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, "\u00e9x".encode(): 257, b"\\xa9y": 258}
        >>> Seams(ranks).cuts("ab\u00e9x\u00e9y\u00e9z")
        [2, 4, 6, 7]
        """
        return [k + 1 for k, rank in enumerate(self._crossing_ranks(piece, [len(piece)])[:-1]) if rank == NO_MERGE]

    def split(self, pieces: list[str]) -> tuple[list[str], list[int]]:
        """The pieces cut at their seams: all the parts in order, and where each piece's parts end.

        Piece `k`'s parts are `parts[stops[k - 1]:stops[k]]` (from 0 for the first).

        >>> Seams({b"ab": 256} | {bytes([b]): b for b in range(256)}).split(["\u00e9\u00e8", "ab"])
        (['\u00e9', '\u00e8', 'ab'], [2, 3])
        """
        parts, stops, _, _ = self.split_ranked(pieces)
        return parts, stops

    def split_ranked(self, pieces: list[str]) -> tuple[list[str], list[int], list[int], list[int]]:
        """`split`, plus what `starts` can reuse: the crossing rank after each character of the
        pieces joined (`NO_MERGE` at every cut, and after the last), and where each part ends."""
        text = "".join(pieces)
        ends = list(accumulate(map(len, pieces)))
        ranks = self._crossing_ranks(text, ends)  # a piece's end is always a cut
        cuts = list(compress(range(1, len(text) + 1), map(eq, ranks, repeat(NO_MERGE))))
        parts = list(map(text.__getitem__, map(slice, [0, *islice(cuts, len(cuts) - 1)], cuts)))
        # Every end is in `cuts`, so the parts of pieces 0..k are those up to and including it.
        stops = list(map(bisect_right, repeat(cuts), ends))
        return parts, stops, ranks, cuts

    def starts(self, parts: list[str], crossing: list[int] | None = None) -> Iterator[list[bytes]]:
        """The parts each of `parts` may start merging from: whole characters where that is
        exact, single bytes elsewhere.

        Args:
            parts: seam-free parts (from `split`).
            crossing: if known (from `split_ranked`), the crossing rank after each character
                of the parts joined, `NO_MERGE` after each part's last one.

        >>> ranks = {bytes([b]): b for b in range(256)} | {b"\\xc3\\xa9": 256, b"\\xa9x": 300}
        >>> list(Seams(ranks).starts(["\u00e9\u00e9", "\u00e9x"]))  # \\xa9x (rank 300) ranks above \u00e9 (256)
        [[b'\\xc3\\xa9', b'\\xc3\\xa9'], [b'\\xc3\\xa9', b'x']]
        """
        text = "".join(parts)
        for c in set(text).difference(self._limits):  # a part of one character has no pairs
            self._add_char(c)
        ends = list(accumulate(map(len, parts)))
        if crossing is None:
            crossing = self._crossing_ranks(text, ends)
        # A character starts whole when M is below the crossing ranks on both of its sides, as
        # a pair when P is; the limits are (P, M), P <= M, so bisect counts those below.
        sides = map(min, chain((NO_MERGE,), crossing), crossing)
        ways = map(bisect_left, map(self._limits.__getitem__, text), sides)
        units = list(map(getitem, map(self._units.__getitem__, text), ways))
        begins = [0, *islice(ends, len(ends) - 1)]
        # Lazily: each list is consumed (and freed) before the next is made, so they never add
        # up to the garbage collector's count (140k lists at once on FLORES-200 did).
        return map(list, map(chain.from_iterable, map(units.__getitem__, map(slice, begins, ends))))

    def _crossing_ranks(self, text: str, ends: list[int]) -> list[int]:
        """ranks[k]: the crossing rank between text[k] and text[k + 1], `NO_MERGE` after each of
        the units of `text` (which end at `ends`; nothing crosses between them, so their joins
        are not learned) and after the last character. All C-level passes."""
        pairs = list(map(add, text, islice(text, 1, None)))
        ranks: list[int | None] = list(map(self._crossing.get, pairs))
        joins = list(islice(ends, len(ends) - 1))
        for end in joins:
            ranks[end - 1] = NO_MERGE
        if None in ranks:
            # What was learned is read from its own dict: another thread may empty the memo.
            learned = self._learn(list(dict.fromkeys(compress(pairs, map(is_, ranks, repeat(None))))))
            ranks = list(map(learned.get, pairs, ranks))
            for end in joins:  # a join's pair may have been learned inside a unit
                ranks[end - 1] = NO_MERGE
        ranks.append(NO_MERGE)
        return ranks  # type: ignore[return-value]  # no None left

    def _learn(self, pairs: list[str]) -> dict[str, int]:
        known = self._known_pairs()
        joined = "".join(pairs)
        for c in set(joined).difference(self._limits):
            self._add_char(c)
        lead = joined.translate(self._lead)[1::2]
        tail = joined.translate(self._tail)[0::2]
        get = known.get
        learned = dict(
            zip(
                pairs,
                map(
                    min,
                    map(get, pairs, repeat(NO_MERGE)),
                    map(get, map(add, joined[0::2], lead), repeat(NO_MERGE)),
                    map(get, map(add, tail, joined[1::2]), repeat(NO_MERGE)),
                    map(get, map(add, tail, lead), repeat(NO_MERGE)),
                ),
            )
        )
        self._crossing.update(learned)
        return learned

    def _add_char(self, c: str) -> None:
        data = c.encode("utf-8", "surrogatepass")
        as_bytes = tuple(map(BYTES.__getitem__, data))
        cost = NO_MERGE
        if len(data) > 1:
            self._lead[ord(c)] = chr(0xDC00 + data[0])
            self._tail[ord(c)] = chr(0xDC00 + data[-1])
            trace: list[tuple[int, bytes, bytes]] = []
            if merge_ranked(data, self._ranks, trace) == [data]:
                cost = max(rank for rank, _, _ in trace)
        as_pair, pair_cost = self._half(data) or (as_bytes, NO_MERGE)
        self._units[c] = (as_bytes, as_pair, (data,))
        self._limits[c] = (min(pair_cost, cost), cost)  # last: then `c` has all its tables (threads)

    def _half(self, data: bytes) -> tuple[tuple[bytes, ...], int] | None:
        """How a three-byte character may start as its first merge, and that merge's rank P
        (see "Half characters" above); None if it may not (or has not three bytes)."""
        if len(data) != 3:
            return None
        get = self._ranks.get
        known = self._known_pairs()
        lead, tail, whole = get(data[:2], NO_MERGE), get(data[1:], NO_MERGE), get(data, NO_MERGE)
        s1, s2, s3 = (chr(0xDC00 + b) for b in data)
        if lead < tail and lead < min(whole, known.get(s2 + s3, NO_MERGE)):
            return (data[:2], BYTES[data[2]]), lead
        if tail < lead and tail < min(whole, known.get(s1 + s2, NO_MERGE)):
            return (BYTES[data[0]], data[1:]), tail
        return None

    def _known_pairs(self) -> dict[str, int]:
        if self._known is None:
            # One decode of all non-ASCII tokens, highest rank first (so that a pair keeps its
            # lowest rank), joined by 0xFF: never in UTF-8, it only adds pairs with U+DCFF,
            # which no character's lead or tail byte gives.
            tokens = [t for t in self._ranks if not t.isascii()]
            ranks = list(map(self._ranks.__getitem__, tokens))
            if not all(map(lt, ranks, islice(ranks, 1, None))):  # tiktoken files come sorted
                tokens.sort(key=self._ranks.__getitem__)
                ranks.sort()
            tokens.reverse()
            ranks.reverse()
            decoded = b"\xff".join(tokens).decode("utf-8", "surrogateescape")
            # Each token's pairs take its rank: its decoded length (+1 for the separator) of them.
            lengths = map(len, map(bytes.decode, tokens, repeat("utf-8"), repeat("surrogateescape")))
            rank_at = chain.from_iterable(map(repeat, ranks, map(add, lengths, repeat(1))))
            known = dict(zip(map(add, decoded, islice(decoded, 1, None)), rank_at))
            known.update(zip(_ASCII_PAIRS, repeat(-1)))
            self._known = known
        return self._known


def split_ids(
    seams: Seams,
    pieces: list[str],
    cache: dict[str, Ids],
    merge: Callable[[Iterator[list[bytes]]], list[Ids]],
) -> tuple[list[Ids], dict[str, Ids]]:
    """Ids of `pieces` by encoding their seam-free parts: each distinct part once, via `cache`.

    Args:
        seams: the vocabulary's seams.
        pieces: pre-tokens (none of them a token itself: their parts are all merged).
        cache: part -> ids, from earlier calls (read only).
        merge: the starting parts of each part (see `Seams.starts`) -> their ids, in order.

    Returns the ids of each piece and the parts newly encoded (for the caller to cache).
    """
    parts, stops, crossing, cuts = seams.split_ranked(pieces)
    where = dict(zip(parts, range(len(parts))))  # a part -> one place it is at
    distinct = list(where)
    found = list(map(cache.get, distinct))
    new: dict[str, Ids] = {}
    if None in found:
        missing = list(compress(distinct, map(is_, found, repeat(None))))
        # Their crossing ranks, sliced from the pieces' own (no pair is looked up again).
        at = list(map(where.__getitem__, missing))
        begins = [0, *islice(cuts, len(cuts) - 1)]
        ranks = list(chain.from_iterable(map(crossing.__getitem__, map(slice, map(begins.__getitem__, at), map(cuts.__getitem__, at)))))
        starts = seams.starts(missing, ranks)
        # Freed before merging, which allocates: the garbage collector would otherwise traverse
        # these lists of one entry per character once or twice more.
        del crossing, cuts, begins, at, ranks
        new = dict(zip(missing, merge(starts)))
        found = list(map(new.get, distinct, found))
    part_ids = list(map(dict(zip(distinct, found)).__getitem__, parts))
    firsts = [0, *islice(stops, len(stops) - 1)]
    # sum(parts' ids, ()) is the part's own tuple when a piece has one part (most have): no
    # new tuple to keep, and fewer runs of the garbage collector.
    ids: list[Ids] = list(map(sum, map(part_ids.__getitem__, map(slice, firsts, stops)), repeat(())))  # type: ignore[arg-type]  # sum of tuples
    return ids, new
