"""Applying merges to one pre-token: the inner loop of encoding, with an optional trace.

Unlike `tokenizer` (which splits text, caches and assembles ids) and `train` (which learns
merges), this module only answers: given the bytes of one pre-token, which tokens does BPE
produce, and which merges fired on the way? Two rules exist and both are here:

* **ranked** (tiktoken): any two adjacent parts whose concatenation is a token may merge; the
  pair whose concatenation has the lowest rank merges first, the leftmost one on ties. A piece
  that is itself a token is that one token (`Tokenizer` checks this before calling us).
* **pairs** (GPT-2's merges file, HF, the CS336 reference): only the listed `(left, right)` pairs
  may merge; the pair listed first merges first, the leftmost one on ties.

Short pieces use a list scan (quadratic, but `min`/`index` run in C, so it wins below a few
hundred bytes); long pieces use rank buckets over a linked list of parts (`_merge_long`), about
O(n log n), so a megabyte of one repeated character encodes in seconds instead of hours.
"""

from __future__ import annotations

from array import array
from heapq import heapify, heappop, heappush
from itertools import compress, groupby, repeat
from operator import add, eq, lshift, or_

# Beyond this many bytes a piece goes to `_merge_long` (measured crossover: about 100 bytes).
LONG_PIECE_BYTES = 128

_NONE = 1 << 62  # "no merge" rank: larger than any real rank, and an int so min() stays fast
_BYTES = [bytes((b,)) for b in range(256)]

# A trace collects (rank, left, right) for every merge that fires, in order.
Trace = list[tuple[int, bytes, bytes]]


def merge_ranked(
    piece: bytes, ranks: dict[bytes, int], trace: Trace | None = None, byte_pair_ranks: list[int] | None = None
) -> list[bytes]:
    """Split `piece` into tokens by the ranked rule (tiktoken's). Returns the token bytes.

    Args:
        piece: the bytes of one pre-token; every single byte must be in `ranks`.
        ranks: token bytes -> rank (lower merges first); the rank is also the token id.
        trace: if given, receives `(rank, left, right)` for each merge, in order.
        byte_pair_ranks: optional, from `byte_pair_table(ranks)`: the first ranks come from
            one list look-up per byte pair instead of a slice and a dict look-up.

    >>> merge_ranked(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"abc": 4})
    [b'abc']
    """
    n = len(piece)
    if n > LONG_PIECE_BYTES:
        return _merge_long(piece, ranks, True, trace)
    if n < 2:
        return [piece] if piece else []
    # The parts themselves, not offsets: the pair to look up is then one concatenation
    # (`parts[i - 1] + merged`) instead of two list reads and a slice (~10% faster).
    parts = list(map(_BYTES.__getitem__, piece))
    if byte_pair_ranks is not None:
        # C-level maps over the bytes: the pair (x, y) sits at x << 8 | y in the table.
        pair_ranks = list(map(byte_pair_ranks.__getitem__, map(or_, map(lshift, piece, repeat(8)), piece[1:])))
        return _merge_parts(parts, pair_ranks, ranks, trace)
    return merge_ranked_parts(parts, ranks, trace)


def merge_ranked_parts(parts: list[bytes], ranks: dict[bytes, int], trace: Trace | None = None) -> list[bytes]:
    """`merge_ranked` from given starting parts instead of single bytes (`parts` is consumed).

    Only exact where the merges from bytes would have built those parts first (see `seams`).
    A long string is merged from its bytes by `_merge_long` (the starting parts only save the
    merges inside characters; a long string needs the buckets more).

    >>> merge_ranked_parts([b"ab", b"c"], {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"abc": 4})
    [b'abc']
    """
    if len(parts) < 2:
        return parts
    if len(parts) > LONG_PIECE_BYTES // 2:  # (a cheap test first: the join costs more)
        data = b"".join(parts)
        if len(data) > LONG_PIECE_BYTES:
            return _merge_long(data, ranks, True, trace)
    return _merge_parts(parts, list(map(ranks.get, map(add, parts, parts[1:]), repeat(_NONE))), ranks, trace)


def _merge_parts(parts: list[bytes], pair_ranks: list[int], ranks: dict[bytes, int], trace: Trace | None) -> list[bytes]:
    # One merge per round: after cutting at seams (see `seams`) the parts are short and a pair
    # rarely occurs twice, so merging every occurrence of it in one pass (as `_merge_long` does)
    # cost more in bookkeeping than it saved (~12% slower on FLORES-200 parts).
    get = ranks.get
    best = min(pair_ranks)
    while best != _NONE:
        i = pair_ranks.index(best)  # index() finds the leftmost: tiktoken's tie-break
        if trace is not None:
            trace.append((best, parts[i], parts[i + 1]))
        merged = parts[i] + parts[i + 1]
        parts[i] = merged
        del parts[i + 1]
        del pair_ranks[i]
        # Only the pairs touching the new part change rank.
        if i:
            pair_ranks[i - 1] = get(parts[i - 1] + merged, _NONE)
        if i < len(pair_ranks):
            pair_ranks[i] = get(merged + parts[i + 1], _NONE)
        elif not i:  # one part left
            break
        best = min(pair_ranks)
    return parts


def byte_pair_table(ranks: dict[bytes, int]) -> list[int]:
    """The rank of every two-byte token at index `x << 8 | y` (no merge: a huge sentinel).

    >>> table = byte_pair_table({b"ab": 7})
    >>> table[ord("a") << 8 | ord("b")], table[0] > 1 << 60
    (7, True)
    """
    get = ranks.get
    return [get(bytes((x, y)), _NONE) for x in range(256) for y in range(256)]


def merge_pairs(
    piece: bytes, pair_ranks: dict[tuple[bytes, bytes], int], trace: Trace | None = None
) -> list[bytes]:
    """Split `piece` into tokens by the pairs rule (GPT-2 merges files). Returns the token bytes.

    Args:
        piece: the bytes of one pre-token.
        pair_ranks: `(left, right)` -> position in the merges list (lower merges first).
        trace: if given, receives `(rank, left, right)` for each merge, in order.

    >>> merge_pairs(b"abc", {(b"b", b"c"): 0, (b"a", b"b"): 1, (b"ab", b"c"): 2})
    [b'a', b'bc']
    """
    if len(piece) > LONG_PIECE_BYTES:
        return _merge_long(piece, pair_ranks, False, trace)
    get = pair_ranks.get
    parts = [piece[i : i + 1] for i in range(len(piece))]
    ranks = [get((parts[i], parts[i + 1]), _NONE) for i in range(len(parts) - 1)]
    while ranks:
        best = min(ranks)
        if best == _NONE:
            break
        i = ranks.index(best)
        if trace is not None:
            trace.append((best, parts[i], parts[i + 1]))
        parts[i] += parts[i + 1]
        del parts[i + 1]
        del ranks[i]
        if i:
            ranks[i - 1] = get((parts[i - 1], parts[i]), _NONE)
        if i < len(ranks):
            ranks[i] = get((parts[i], parts[i + 1]), _NONE)
    return parts


def _merge_long(piece: bytes, table: dict, ranked: bool, trace: Trace | None) -> list[bytes]:
    """The same merge order as the list scans, in about O(n log n), for long pieces.

    Parts are byte spans in a linked list (`nxt`/`prv`, indexed by a part's start offset).
    Candidate pairs wait in buckets, one per rank, as the start offset of their left part; a
    heap gives the lowest pending rank. A whole bucket is then merged left to right, which is
    what the one-merge-at-a-time rule does as long as no merge creates a pair of *lower* rank
    (equal is impossible: a new pair contains the token just made, so it is longer). When that
    does happen the rest of the bucket goes back and the lower rank is served first.

    A bucket entry is stale when its pair no longer exists; the offsets of a pair's parts tell:
    tokens of one rank always have the same length (ranked rule: the concatenation; pairs rule:
    left and right), and parts only ever grow, so a stale entry never becomes valid again.
    """
    n = len(piece)
    get = table.get
    dead = n + 1
    # Offsets live in arrays, not lists: a 10 MB piece would otherwise need gigabytes of ints.
    nxt = array("q", range(1, n + 2))  # nxt[n] is a sentinel; dead parts point to it, and...
    nxt.append(-1)  # ...it points nowhere, so "nxt[nxt[s]] == end" fails for them
    prv = array("q", range(-1, n))
    buckets: dict[int, array] = {}
    # The lengths of the pair of each rank: the left token and both together.
    left_len: dict[int, int] = {}
    pair_len: dict[int, int] = {}
    if ranked:
        first = [get(piece[s : s + 2], _NONE) for s in range(n - 1)]
    else:
        first = [get((piece[s : s + 1], piece[s + 1 : s + 2]), _NONE) for s in range(n - 1)]
    distinct = set(first)
    distinct.discard(_NONE)
    if len(distinct) <= 16:
        # Long pieces are mostly runs of a few byte pairs: one C-level pass per rank.
        for r in distinct:
            buckets[r] = array("q", compress(range(n - 1), map(eq, first, repeat(r))))
    else:
        # Group offsets by rank with a C sort (stable, so each bucket is in offset order).
        rank_at = first.__getitem__
        for r, group in groupby(sorted(range(n - 1), key=rank_at), key=rank_at):
            if r == _NONE:
                break
            buckets[r] = array("q", group)
    del first
    for r in buckets:
        left_len[r] = 1
        pair_len[r] = 2
    heap = list(buckets)
    heapify(heap)
    unsorted: set[int] = set()  # ranks whose bucket got an offset smaller than its last one
    while heap:
        r = heappop(heap)
        todo = buckets.pop(r)
        if r in unsorted:  # appended out of order: restore offset order (sorting is costly)
            unsorted.discard(r)
            todo = array("q", sorted(todo))
        size = pair_len[r]
        la = 0 if ranked else left_len[r]  # the ranked rule does not care where the split is
        for k, s in enumerate(todo):
            m = nxt[s]
            e = s + size
            if nxt[m] != e or (la and m != s + la):
                continue
            if trace is not None:
                trace.append((r, piece[s:m], piece[m:e]))
            nxt[s] = e
            nxt[m] = dead
            lower = False
            if e < n:
                prv[e] = s
                f = nxt[e]
                r2 = get(piece[s:f]) if ranked else get((piece[s:e], piece[e:f]))
                if r2 is not None:
                    bucket = buckets.get(r2)
                    if bucket is None:
                        buckets[r2] = array("q", (s,))
                        left_len[r2] = e - s
                        pair_len[r2] = f - s
                        heappush(heap, r2)
                    else:
                        if bucket[-1] > s:
                            unsorted.add(r2)
                        bucket.append(s)
                    lower = r2 < r
            p = prv[s]
            if p >= 0:
                r2 = get(piece[p:e]) if ranked else get((piece[p:s], piece[s:e]))
                if r2 is not None:
                    bucket = buckets.get(r2)
                    if bucket is None:
                        buckets[r2] = array("q", (p,))
                        left_len[r2] = s - p
                        pair_len[r2] = e - p
                        heappush(heap, r2)
                    else:
                        if bucket[-1] > p:
                            unsorted.add(r2)
                        bucket.append(p)
                    lower = lower or r2 < r
            if lower:
                rest = todo[k + 1 :]
                if rest:
                    bucket = buckets.get(r)
                    if bucket is None:
                        buckets[r] = rest
                        heappush(heap, r)
                    else:
                        unsorted.add(r)
                        bucket.extend(rest)
                break
    out = []
    s = 0
    while s < n:
        e = nxt[s]
        out.append(piece[s:e])
        s = e
    return out
