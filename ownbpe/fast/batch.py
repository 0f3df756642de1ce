"""Encoding many new pre-tokens at once: the cold path of the fast encoder.

Unlike `ownbpe.bpe` (which merges one pre-token) and `fast.encoder` (which caches, and splits
text at safe cuts), this module turns a list of text units the cache has not seen
into ids with as few Python-level steps per unit as possible. The speed tricks, each exact:

* the missing chunks are joined and pre-tokenized by **one** regex call (a safe cut between
  every two of them, see `join_chunks`), not one call per chunk;
* pre-tokens are looked up as whole tokens with `map` over the batch (in C); only the rest are
  merged, each by the list scan of `bpe` (long ones by `fast.longmerge`);
* the ids are regrouped per chunk by slicing at cumulative lengths, again with `map`.
"""

from __future__ import annotations

from itertools import accumulate, chain, compress, count, repeat
from operator import is_, is_not, not_
from typing import Callable, Mapping, Sequence

from ..bpe import Trace, merge_pairs, merge_ranked
from .longmerge import LONG_PIECE_BYTES, merge_long

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


def ranked_piece_ids(pieces: list[str], encoder: dict[bytes, int]) -> dict[str, Ids]:
    """Ids of distinct pre-tokens by the ranked rule (tiktoken's): a dict pre-token -> ids.

    Raises UnicodeEncodeError on lone surrogates (the caller replaces them and retries).

    >>> encoder = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"abc": 257}
    >>> ids = ranked_piece_ids(["abc", "ab", "ax", "abx", "aba", "abab"], encoder)
    >>> [ids[p] for p in ["abc", "ab", "ax", "abx", "aba", "abab"]]
    [(257,), (256,), (97, 120), (256, 120), (256, 97), (256, 256)]
    """
    datas = list(map(str.encode, pieces))
    ranks = list(map(encoder.get, datas))
    # Most distinct pre-tokens are whole tokens (tiktoken takes them as is): their 1-tuples
    # come from one C-level zip, and only the others are merged. (No tuple is made for the
    # others: placeholders alive at once made the garbage collector run more often.)
    hit = list(map(is_not, ranks, repeat(None)))
    out: dict[str, Ids] = dict(zip(compress(pieces, hit), zip(compress(ranks, hit))))  # type: ignore[arg-type]
    ids_of = encoder.__getitem__
    for k in compress(range(len(ranks)), map(not_, hit)):
        out[pieces[k]] = tuple(map(ids_of, merge_piece(datas[k], encoder, True)))
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
