"""Encoding many new pre-tokens at once: the cold path of the fast encoder.

Unlike `ownbpe.bpe` (which merges one pre-token) and `fast.encoder` (which caches, and splits
text at safe cuts), this module turns a list of text units the cache has not seen
into ids with as few Python-level steps per unit as possible. The speed tricks, each exact:

* the missing chunks are joined and pre-tokenized by **one** regex call (a safe cut between
  every two of them, see `join_chunks`), not one call per chunk;
* pre-tokens are looked up as whole tokens with `map` over the batch (in C); only the rest are
  merged: long non-ASCII ones by their seam-free parts, started from whole characters where
  that is exact (see `seams`), two- and three-byte pieces directly, the others by the merge
  scan of `bpe`, from starting parts and byte-pair ranks sliced out of one pass over all
  their bytes (long ones by `fast.longmerge`);
* the ids are regrouped per chunk by slicing at cumulative lengths, again with `map`.
"""

from __future__ import annotations

from itertools import accumulate, chain, compress, count, repeat
from operator import is_, is_not, lshift, not_, or_
from typing import Callable, Iterable, Mapping, Sequence

from ..bpe import BYTES, NO_MERGE, Trace, merge_pairs, merge_ranked
from .longmerge import LONG_PIECE_BYTES, merge_long

# Pre-tokens of at least this many characters are cut at their seams (see `seams`) before
# merging; shorter ones are merged whole.
SEAM_MIN_CHARS = 2

Ids = tuple[int, ...]


def missing_units(units: list[str], found: list[Ids | None]) -> list[str]:
    """The distinct units whose ids are None in `found`, in order of first appearance.

    >>> missing_units(["a", " b", "a", " c"], [None, (1,), None, None])
    ['a', ' c']
    """
    return list(dict.fromkeys(compress(units, map(is_, found, repeat(None)))))


def join_chunks(units: list[str], missing: list[str]) -> list[str]:
    """Order `missing` chunks (of a built-in pattern) so that joined they pre-tokenize as apart.

    Every chunk but a text's first starts with horizontal whitespace, and every chunk but its
    last ends with a non-space character: between them lies a safe cut (see `patterns`), so the
    pattern finds the same pre-tokens in the joined text. Only the text's first chunk (which may
    start otherwise) must come first, where it already is, and its last chunk (which may end in
    whitespace) last.

    >>> join_chunks(["Hi", " there", "  "], ["  ", "Hi", " there"])
    ['Hi', ' there', '  ']
    """
    ordered = list(missing)
    first, last = units[0], units[-1]
    if first in ordered and ordered[0] != first:
        ordered.remove(first)
        ordered.insert(0, first)
    if last in ordered and ordered[-1] != last:
        ordered.remove(last)
        ordered.append(last)
    return ordered


def split_ascii(units: list[str]) -> list[list[str]]:
    """`units` as one or two non-empty lists: the ASCII ones, then the others (order kept).

    >>> split_ascii(["a", "é", "b"]), split_ascii(["a"])
    ([['a', 'b'], ['é']], [['a']])
    """
    flags = list(map(str.isascii, units))
    if all(flags) or not any(flags):
        return [units]
    return [list(compress(units, flags)), list(compress(units, map(not_, flags)))]


def regroup(chunks: list[str], pieces: list[str], piece_ids: Sequence[Ids]) -> list[Ids]:
    """The ids of each chunk, given the pre-tokens of the chunks joined and their ids.

    Each chunk ends where the pieces so far have the same total length as the chunks so far.

    >>> regroup(["ab", " cd"], ["ab", " c", "d"], [(1,), (2,), (3,)])
    [(1,), (2, 3)]
    """
    piece_index = dict(zip(accumulate(map(len, pieces)), count(1)))
    stops = list(map(piece_index.__getitem__, accumulate(map(len, chunks))))
    starts = [0, *stops[:-1]]
    return list(map(tuple, map(chain.from_iterable, map(piece_ids.__getitem__, map(slice, starts, stops)))))


def ranked_piece_ids(
    pieces: list[str],
    encoder: dict[bytes, int],
    byte_ids: list[int],
    byte_pair_ranks: list[int],
    split: Callable[[list[str]], list[Ids] | None] | None = None,
) -> dict[str, Ids]:
    """Ids of distinct pre-tokens by the ranked rule (tiktoken's), cheapest cases first: a dict
    pre-token -> ids.

    Args:
        split: if given, encodes long non-ASCII pre-tokens that are not tokens (by their seams,
            see `seams`), or returns None to leave them to be merged here.

    Raises UnicodeEncodeError on lone surrogates (the caller replaces them and retries).

    >>> encoder = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257}
    >>> ids = ranked_piece_ids(["abc", "ab", "ax", "abx", "aba", "abab"], encoder, list(range(256)), byte_pair_table(encoder))
    >>> [ids[p] for p in ["abc", "ab", "ax", "abx", "aba", "abab"]]
    [(257,), (256,), (97, 120), (256, 120), (256, 97), (256, 256)]
    """
    datas = list(map(str.encode, pieces))
    ranks = list(map(encoder.get, datas))
    # Most distinct pre-tokens are whole tokens (tiktoken takes them as is): their 1-tuples
    # come from one C-level zip, and only the others are merged. (No tuple is made for the
    # others: 200k placeholders alive at once made the garbage collector run more often.)
    hit = list(map(is_not, ranks, repeat(None)))
    out: dict[str, Ids] = dict(zip(compress(pieces, hit), zip(compress(ranks, hit))))  # type: ignore[arg-type]
    rest = list(compress(range(len(ranks)), map(not_, hit)))
    del ranks, hit  # before merging, which allocates: the garbage collector need not traverse them
    if split is not None and rest:
        # Long pieces of other scripts: their seams cut them into parts that repeat across
        # pieces far more than whole pieces do.
        is_wide = [len(pieces[k]) >= SEAM_MIN_CHARS and not datas[k].isascii() for k in rest]
        wide = [pieces[k] for k in compress(rest, is_wide)]
        done = split(wide) if wide else None
        if done is not None:
            out.update(zip(wide, done))
            rest = list(compress(rest, map(not_, is_wide)))
    out.update(zip(map(pieces.__getitem__, rest), ranked_merge_ids([datas[k] for k in rest], encoder, byte_ids, byte_pair_ranks)))
    return out


def ranked_merge_ids(
    datas: list[bytes], encoder: dict[bytes, int], byte_ids: list[int], byte_pair_ranks: list[int]
) -> list[Ids]:
    """Ids of byte strings merged from their bytes by the ranked rule.

    Unlike a pre-token, a byte string that is a token is not taken whole: it gets what its
    merges give (the parts `seams` cuts a pre-token into are merged this way).

    >>> encoder = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258}
    >>> ranked_merge_ids([b"abc", b"ab", b"ax", b"abx", b"bcd", b"a"], encoder, list(range(256)), byte_pair_table(encoder))
    [(258,), (256,), (97, 120), (256, 120), (257, 100), (97,)]
    """
    get = encoder.get
    ids_of = encoder.__getitem__
    out: list[Ids] = []
    # The starting parts and byte-pair ranks of all the strings at once: C-level passes over
    # their bytes joined, each string then takes its two slices (the pairs across two strings
    # are never read). Six small passes per string cost more. Long strings stay out:
    # `longmerge` takes them from their bytes.
    blob = b"".join([data for data in datas if len(data) <= LONG_PIECE_BYTES])
    units = list(map(BYTES.__getitem__, blob))
    pair_ranks = list(map(byte_pair_ranks.__getitem__, map(or_, map(lshift, blob, repeat(8)), blob[1:])))
    end = 0
    for data in datas:
        n = len(data)
        if n <= LONG_PIECE_BYTES:
            start = end
            end += n
        if n == 2:  # the only pair is the string itself
            rank = get(data)
            out.append((byte_ids[data[0]], byte_ids[data[1]]) if rank is None else (rank,))
        elif n == 3:
            # Two pairs; the lower rank merges, then the only pair left is the whole string.
            left = byte_pair_ranks[data[0] << 8 | data[1]]
            right = byte_pair_ranks[data[1] << 8 | data[2]]
            if left == right == NO_MERGE:  # no pair is a token
                out.append((byte_ids[data[0]], byte_ids[data[1]], byte_ids[data[2]]))
            elif data in encoder:
                out.append((encoder[data],))
            elif right < left:
                out.append((byte_ids[data[0]], right))
            else:  # lower, or the same token twice ("::"): the left one wins
                out.append((left, byte_ids[data[2]]))
        elif n == 1:
            out.append((byte_ids[data[0]],))
        elif n <= LONG_PIECE_BYTES:
            out.append(tuple(map(ids_of, merge_ranked(units[start:end], encoder, None, pair_ranks[start : end - 1]))))
        else:
            out.append(tuple(map(ids_of, merge_long(data, encoder, True))))
    return out


def ranked_start_ids(starts: Iterable[list[bytes]], encoder: dict[bytes, int]) -> list[Ids]:
    """Ids of byte strings given as their starting parts (see `seams.Seams.starts`), merged by
    the ranked rule.

    >>> ranked_start_ids([[b"a", b"bc"], [b"x"]], {b"a": 0, b"bc": 1, b"x": 2, b"abc": 3})
    [(3,), (2,)]
    """
    ids_of = encoder.__getitem__
    out = []
    for parts in starts:
        # A long string needs the buckets more than the starting parts (which only save the
        # merges inside characters).
        long = len(parts) > LONG_PIECE_BYTES // 2 and sum(map(len, parts)) > LONG_PIECE_BYTES
        out.append(tuple(map(ids_of, merge_long(b"".join(parts), encoder, True) if long else merge_ranked(parts, encoder))))
    return out


def pairs_piece_ids(pieces: list[str], encoder: dict[bytes, int], pair_ranks: dict) -> list[Ids]:
    """Ids of distinct pre-tokens by the pairs rule (a merges list).

    >>> pairs_piece_ids(["ab", "ba"], {b"a": 0, b"b": 1, b"ab": 2}, {(b"a", b"b"): 0})
    [(2,), (1, 0)]
    """
    ids_of: Callable = encoder.__getitem__
    return [tuple(map(ids_of, merge_piece(data, pair_ranks, False))) for data in map(str.encode, pieces)]


def merge_piece(piece: bytes, table: Mapping, ranked: bool, trace: Trace | None = None) -> list[bytes]:
    """One pre-token merged by either rule: the list scan of `bpe`, or `longmerge` when long.

    Args:
        table: token bytes -> rank (`ranked`), or `(left, right)` -> rank (the pairs rule).

    >>> merge_piece(b"ab" * 100, {bytes([b]): b for b in range(256)} | {b"ab": 256}, True)[:2]
    [b'ab', b'ab']
    """
    if len(piece) > LONG_PIECE_BYTES:
        return merge_long(piece, table, ranked, trace)
    return merge_ranked(piece, table, trace) if ranked else merge_pairs(piece, table, trace)


def byte_pair_table(ranks: Mapping[bytes, int]) -> list[int]:
    """The rank of every two-byte token at index `x << 8 | y` (no merge: `NO_MERGE`).

    >>> table = byte_pair_table({b"ab": 7})
    >>> table[ord("a") << 8 | ord("b")], table[0] == NO_MERGE
    (7, True)
    """
    get = ranks.get
    return [get(bytes((x, y)), NO_MERGE) for x in range(256) for y in range(256)]
