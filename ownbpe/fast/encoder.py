"""The fast encoder: the same ids as the plain path of `Tokenizer`, with caches and batches.

Unlike `ownbpe.tokenizer` (whose plain path pre-tokenizes, merges each pre-token and keeps one
cache), this module holds every trick that makes encoding fast, behind one class:

* a **short text** (up to `LONG_TEXT_CHARS`) is cut into chunks at safe cuts (see `patterns`);
  the chunks the chunk cache lacks are joined and pre-tokenized by one call (see
  `batch.join_chunks`), and each distinct one is cached. Seen again, the text costs one cheap
  regex pass and dictionary look-ups;
* a **long text** is pre-tokenized block by block and each distinct pre-token is looked up in
  the piece cache or encoded once (see `batch`). It never fills the chunk cache: a second pass
  over the same text then does the first one's work minus the merging, so it is never slower;
* pre-tokenizing uses the ASCII and BMP twins and reads text with tiktoken's Unicode tables
  (see `pretokenize`);
* pieces longer than `LONG_PIECE_BYTES` are merged by rank buckets (see `longmerge`).

What each trick buys, measured, is in docs/ownbpe-fast-path.md.
"""

from __future__ import annotations

from functools import reduce
from itertools import compress, repeat
from operator import iadd, is_
from typing import Iterable, Literal, Sequence

from ..patterns import chunk_text, safe_blocks
from . import batch
from .pretokenize import ascii_runs, pretokenizer

Ids = tuple[int, ...]

# Chunks and pieces longer than this are encoded each time instead of cached (a megabyte-long
# run would otherwise pin its text and ids in memory).
MAX_CACHED_CHARS = 1024
# Texts longer than this take the pre-token path (see `_encode_long`).
LONG_TEXT_CHARS = 4096
# Long text is pre-tokenized and encoded in blocks of about this many characters (see
# `_encode_long`).
NEW_BLOCK = 1 << 18


class FastEncoder:
    """Ordinary text -> ids for one vocabulary, fast (special tokens are the caller's job).

    Args:
        rule: "ranked" (tiktoken's ranks) or "pairs" (a merges list).
        encoder: token bytes -> id.
        pair_ranks: the pairs rule's `(left, right)` -> rank (empty for "ranked").
        pattern: the pre-tokenization regex.
        builtin: whether `pattern` is a built-in one (whose safe cuts are proven).
        cache_bytes: rough memory budget of the caches.

    >>> encoder = {bytes([b]): b for b in range(256)} | {b"ab": 256}
    >>> from ownbpe.patterns import GPT2_PATTERN
    >>> FastEncoder("ranked", encoder, {}, GPT2_PATTERN, True, 1 << 20).encode_ordinary("abc ab")
    [256, 99, 32, 256]
    """

    def __init__(
        self,
        rule: Literal["ranked", "pairs"],
        encoder: dict[bytes, int],
        pair_ranks: dict[tuple[bytes, bytes], int],
        pattern: str,
        builtin: bool,
        cache_bytes: int,
    ) -> None:
        self._rule = rule
        self._encoder = encoder
        self._pair_ranks = pair_ranks
        self._builtin = builtin
        self.pretokenize = pretokenizer(pattern)  # ASCII text goes to a faster twin (see `pretokenize`)
        self._chunk_cache: dict[str, Ids] = {}
        self._piece_cache: dict[str, Ids] = {}
        self._cache_bytes = cache_bytes
        self._cache_load = 0

    def merge(self, piece: bytes, trace: batch.Trace | None = None) -> list[bytes]:
        """The tokens of one pre-token that is not itself taken whole (see `batch.merge_piece`)."""
        table = self._encoder if self._rule == "ranked" else self._pair_ranks
        return batch.merge_piece(piece, table, self._rule == "ranked", trace)

    def encode_ordinary(self, text: str) -> list[int]:
        """The ids of `text`, special-token strings included as plain text.

        Raises UnicodeEncodeError on lone surrogates (the caller replaces them and retries).
        """
        if self._builtin and len(text) > LONG_TEXT_CHARS:
            return self._encode_long(text)
        # Hot path: one cheap regex pass, then cache lookups done by map() in C. The misses
        # are encoded together in a second pass (see `batch`).
        units = chunk_text(text) if self._builtin else self.pretokenize(text)
        found = list(map(self._chunk_cache.get, units))
        if None in found:
            missing = batch.missing_units(units, found)
            new: dict[str, Ids] = {}
            if self._builtin:
                # One pre-tokenization for all the new chunks, joined (see `batch.join_chunks`);
                # two if some are ASCII and some not, so that the ASCII ones get the faster twin.
                for group in batch.split_ascii(missing):
                    group = batch.join_chunks(units, group)
                    pieces = self.pretokenize("".join(group))
                    piece_ids = list(map(self._piece_ids(pieces).__getitem__, pieces))
                    new.update(zip(group, batch.regroup(group, pieces, piece_ids)))
            else:  # the units are pre-tokens already
                new = self._encode_pieces(missing)
            self._cache_many(self._chunk_cache, new)
            found = list(map(new.get, units, found))
        return _extend([], found)  # type: ignore[arg-type]  # no None left

    def _encode_long(self, text: str) -> list[int]:
        # Pre-tokenize (ASCII stretches with the pattern's faster twin) and look up, or encode,
        # each distinct pre-token once; no chunks, so no regrouping of pre-tokens into chunks.
        # Short ASCII gaps stay inside non-ASCII parts (`join_gaps`): in other scripts a part
        # per word costs more than the twin saves. Text with non-ASCII characters in most
        # places (accented or other scripts) is not cut at all: the BMP twin then beats cutting.
        # The text goes block by block (`NEW_BLOCK` characters, cut at safe cuts): the
        # pre-tokens of one block then fit in the processor's caches while they are counted,
        # looked up and joined, and their memory is reused by the next block instead of
        # growing the heap.
        out: list[int] = []
        for block in safe_blocks(text, NEW_BLOCK):
            pieces: list[str] = []
            for part, _ in ascii_runs(block, join_gaps=True):
                pieces += self.pretokenize(part)
            _extend(out, map(self._piece_ids(pieces).__getitem__, pieces))
        return out

    def _piece_ids(self, pieces: list[str]) -> dict[str, Ids]:
        """Pre-token -> ids for every distinct one of `pieces`: cached, or encoded once."""
        distinct = list(dict.fromkeys(pieces))
        found = list(map(self._piece_cache.get, distinct))
        if None in found:
            first_sight = found.count(None) == len(found)
            missing = distinct if first_sight else list(compress(distinct, map(is_, found, repeat(None))))
            new = self._encode_pieces(missing)
            self._cache_many(self._piece_cache, new)
            if first_sight:  # what was encoded is the answer: no second look-up pass and dict
                return new
            found = list(map(new.get, distinct, found))
        return dict(zip(distinct, found))  # type: ignore[arg-type]  # no None left

    def _encode_pieces(self, pieces: list[str]) -> dict[str, Ids]:
        # Distinct pieces -> their ids.
        if self._rule == "ranked":
            return batch.ranked_piece_ids(pieces, self._encoder)
        return dict(zip(pieces, batch.pairs_piece_ids(pieces, self._encoder, self._pair_ranks)))

    def _cache_many(self, cache: dict[str, Ids], new: dict[str, Ids]) -> None:
        if max(map(len, new)) > MAX_CACHED_CHARS:
            new = {key: ids for key, ids in new.items() if len(key) <= MAX_CACHED_CHARS}
        # Rough bytes per entry: the key string, the tuple and the dict slot.
        load = 160 * len(new) + 2 * sum(map(len, new)) + 8 * sum(map(len, new.values()))
        if load > self._cache_bytes:
            return  # more new text than the whole budget: keep none of it
        if self._cache_load + load > self._cache_bytes:
            # Emptying beats LRU bookkeeping here: the hot path stays a bare dict lookup.
            self._chunk_cache.clear()
            self._piece_cache.clear()
            self._cache_load = 0
        cache.update(new)
        self._cache_load += load


def _extend(out: list[int], ids: Iterable[Sequence[int]]) -> list[int]:
    # `out` extended by each tuple in turn (`list += tuple` copies it in C): faster than
    # `list(chain.from_iterable(...))`, which steps through every id.
    return reduce(iadd, ids, out)
