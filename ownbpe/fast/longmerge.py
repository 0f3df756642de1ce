"""Merging a long pre-token in about O(n log n): rank buckets over a linked list of parts.

Unlike `ownbpe.bpe` (the list scans: each merge looks at every pair again, so a piece of n
bytes costs O(n^2)), this module is a different algorithm for the same result under both rules.
The fast path sends pieces longer than `LONG_PIECE_BYTES` here, so a megabyte of one repeated
character encodes in seconds instead of hours; below that length the list scan is faster (its
`min`/`index` run in C).
"""

from __future__ import annotations

from array import array
from heapq import heapify, heappop, heappush
from itertools import compress, groupby, repeat
from operator import eq
from typing import Mapping

from ..bpe import NO_MERGE, Trace

# Beyond this many bytes a piece is merged here (the crossover with the list scan is about
# 100 bytes; see docs/ownbpe-fast-path.md).
LONG_PIECE_BYTES = 128


def merge_long(piece: bytes, table: Mapping, ranked: bool, trace: Trace | None = None) -> list[bytes]:
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
        first = [get(piece[s : s + 2], NO_MERGE) for s in range(n - 1)]
    else:
        first = [get((piece[s : s + 1], piece[s + 1 : s + 2]), NO_MERGE) for s in range(n - 1)]
    distinct = set(first)
    distinct.discard(NO_MERGE)
    if len(distinct) <= 16:
        # Long pieces are mostly runs of a few byte pairs: one C-level pass per rank.
        for r in distinct:
            buckets[r] = array("q", compress(range(n - 1), map(eq, first, repeat(r))))
    else:
        # Group offsets by rank with a C sort (stable, so each bucket is in offset order).
        rank_at = first.__getitem__
        for r, group in groupby(sorted(range(n - 1), key=rank_at), key=rank_at):
            if r == NO_MERGE:
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
