"""Applying merges to one pre-token: the inner loop of encoding, with an optional trace.

Unlike `tokenizer` (which splits text, caches and assembles ids) and `train` (which learns
merges), this module only answers: given the bytes of one pre-token, which tokens does BPE
produce, and which merges fired on the way? Two rules exist, one function each:

* **ranked** (tiktoken): any two adjacent parts whose concatenation is a token may merge; the
  pair whose concatenation has the lowest rank merges first, the leftmost one on ties. A piece
  that is itself a token is that one token (`Tokenizer` checks this before calling us).
* **pairs** (GPT-2's merges file, HF, the CS336 reference): only the listed `(left, right)` pairs
  may merge; the pair listed first merges first, the leftmost one on ties.

Both are the same list scan: keep the rank of every adjacent pair, merge the lowest, update the
two pairs beside it. That is quadratic in the length of the piece (fine for words; `min` and
`index` run in C). The fast path (`ownbpe.fast`) sends long pieces to `fast.longmerge` instead,
a different algorithm with the same result.
"""

from __future__ import annotations

from itertools import repeat
from operator import add
from typing import Mapping

NO_MERGE = 1 << 62  # "no merge" rank: larger than any real rank, and an int so min() stays fast
BYTES = [bytes((b,)) for b in range(256)]  # BYTES[b] is the one-byte token b

# A trace collects (rank, left, right) for every merge that fires, in order.
Trace = list[tuple[int, bytes, bytes]]


def merge_ranked(piece: bytes, ranks: Mapping[bytes, int], trace: Trace | None = None) -> list[bytes]:
    """Split `piece` into tokens by the ranked rule (tiktoken's). Returns the token bytes.

    Args:
        piece: the bytes of one pre-token; every single byte must be in `ranks`.
        ranks: token bytes -> rank (lower merges first); the rank is also the token id.
        trace: if given, receives `(rank, left, right)` for each merge, in order.

    >>> merge_ranked(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"abc": 4})
    [b'abc']
    """
    # The parts themselves, not offsets: the pair to look up is then one concatenation
    # (`parts[i - 1] + merged`) instead of two list reads and a slice.
    parts = list(map(BYTES.__getitem__, piece))
    if len(parts) < 2:
        return parts
    get = ranks.get
    pair_ranks = list(map(get, map(add, parts, parts[1:]), repeat(NO_MERGE)))
    # One merge per round, as the rule says (merging every occurrence of the best pair at once
    # is `fast.longmerge`'s job: on short pieces its bookkeeping costs more than it saves).
    best = min(pair_ranks)
    while best != NO_MERGE:
        i = pair_ranks.index(best)  # index() finds the leftmost: tiktoken's tie-break
        if trace is not None:
            trace.append((best, parts[i], parts[i + 1]))
        merged = parts[i] + parts[i + 1]
        parts[i] = merged
        del parts[i + 1]
        del pair_ranks[i]
        # Only the pairs touching the new part change rank.
        if i:
            pair_ranks[i - 1] = get(parts[i - 1] + merged, NO_MERGE)
        if i < len(pair_ranks):
            pair_ranks[i] = get(merged + parts[i + 1], NO_MERGE)
        elif not i:  # one part left
            break
        best = min(pair_ranks)
    return parts


def merge_pairs(
    piece: bytes, pair_ranks: Mapping[tuple[bytes, bytes], int], trace: Trace | None = None
) -> list[bytes]:
    """Split `piece` into tokens by the pairs rule (GPT-2 merges files). Returns the token bytes.

    The same scan as `merge_ranked` under the other rule: a pair is looked up as `(left,
    right)`, not as its concatenation. (One loop for both would put a function call in the
    inner loop.)

    Args:
        piece: the bytes of one pre-token.
        pair_ranks: `(left, right)` -> position in the merges list (lower merges first).
        trace: if given, receives `(rank, left, right)` for each merge, in order.

    >>> merge_pairs(b"abc", {(b"b", b"c"): 0, (b"a", b"b"): 1, (b"ab", b"c"): 2})
    [b'a', b'bc']
    """
    get = pair_ranks.get
    parts = list(map(BYTES.__getitem__, piece))
    ranks = [get((parts[i], parts[i + 1]), NO_MERGE) for i in range(len(parts) - 1)]
    while ranks:
        best = min(ranks)
        if best == NO_MERGE:
            break
        i = ranks.index(best)
        if trace is not None:
            trace.append((best, parts[i], parts[i + 1]))
        parts[i] += parts[i + 1]
        del parts[i + 1]
        del ranks[i]
        if i:
            ranks[i - 1] = get((parts[i - 1], parts[i]), NO_MERGE)
        if i < len(ranks):
            ranks[i] = get((parts[i], parts[i + 1]), NO_MERGE)
    return parts
