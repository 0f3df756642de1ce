"""Adapter for every tokenizer that is a tiktoken rank table plus a split pattern.

Unlike `hf_adapter` (whole pipelines described by a ``tokenizer.json``), a tiktoken-family
tokenizer is fully described by three things: mergeable ranks, a pre-tokenization regex and
special tokens. OpenAI's encodings, Qwen, Llama 3/4 and Mistral tekken are all of this kind, so
they share this adapter and tiktoken's Rust engine; `ownbpe` can load the same ranks to explain
them.

The engine is built on first need, not at load: until then short texts are encoded by `cold`
(the same ids, in Python, from the rank table as the cache file holds it), so a load costs
milliseconds and a command that counts a sentence never builds an engine. Once the texts
encoded cold add up to `COLD_BUDGET_CHARS` (less than building the engine costs), or one text
or batch is longer than what is left of it, the engine is built and used from then on. Warm-up
and the local engine's pool call `build()` to have it ready beforehand.
"""

from __future__ import annotations

import unicodedata
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Sequence

from ..errors import BadInput
from ..memo import IdentityKey, Shelf
from . import cold, cuts
from .rank_table import DictTable, Table
from .base import Family, Piece, Source, byte_pieces, clean_text, encode_threads, has_surrogates
from .normalize import NormalForm, map_pieces, normalize_with_map

if TYPE_CHECKING:  # imported with the first engine (25 ms): a short text encoded cold never needs it
    import tiktoken


# Below this mean length (characters) a loop of `encode` beats tiktoken's threaded batch.
BATCH_MIN_MEAN_CHARS = 2000
# From this length on, counting through tiktoken's buffer of ids beats building a list of them.
NUMPY_MIN_CHARS = 1000
_NONE: frozenset[str] = frozenset()
# What a tokenizer encodes cold before it builds its engine, in characters of ASCII text (about
# 45 ms of Python, a third of a build of o200k's engine). Other text costs COLD_NON_ASCII_WEIGHT
# per character: Chinese, whose long runs are merged byte by byte, encodes about 8 times slower
# per character than code, German 1.5 times (tests/benchmarks/bench_startup.py times both paths).
COLD_BUDGET_CHARS = 100_000
COLD_NON_ASCII_WEIGHT = 4


def _cold_cost(text: str) -> int:
    return len(text) if text.isascii() else COLD_NON_ASCII_WEIGHT * len(text)


def _pool_threads(texts: list[str]) -> int:
    """Threads for tiktoken's batch pool over `texts`, or 0 where a plain loop is faster."""
    threads = encode_threads()
    # tiktoken's batch submits one thread-pool task per text, and a task costs more than a short
    # text's encode: below BATCH_MIN_MEAN_CHARS per text a plain loop is faster than the threads are
    if threads > 1 and len(texts) > 1 and sum(map(len, texts)) >= BATCH_MIN_MEAN_CHARS * len(texts):
        return threads
    return 0


# The engines this process built, by (rank table, pattern, specials, n_vocab): a process resource
# (`memo.Shelf`), shared by every tokenizer, run and thread, never a run's cache
_ENGINES: Shelf[tuple, "tiktoken.Encoding"] = Shelf("tiktoken engines")


def _encoding(name: str, ranks: dict[bytes, int], pattern: str, specials: dict[str, int],
              n_vocab: int | None) -> "tiktoken.Encoding":
    """One tiktoken engine per (ranks, pattern, specials): gpt2 and r50k_base share theirs.

    Building an engine takes about 0.2 s per 200k ranks, with the GIL held, so tokenizers that
    are the same encoding under two names build it once: two names of one encoding loading at once,
    the second waits and shares. The rank table is found by identity (`IdentityKey` holds it, so its
    id is never another table's), not by its 200,000 entries.
    """
    def build(_: tuple) -> "tiktoken.Encoding":
        import tiktoken

        return tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials,
                                 explicit_n_vocab=n_vocab)

    return _ENGINES.get((IdentityKey(ranks), pattern, tuple(sorted(specials.items())), n_vocab), build)


class TiktokenTokenizer:
    """A tiktoken `Encoding` behind the tokenprism interface.

    Special-token strings in the text are encoded as ordinary text (`encode_ordinary`), so no
    input raises. With `normalize="NFC"` the text is normalised first, as Qwen's reference
    tokenizer does.

    >>> from analysis import load_tokenizer
    >>> load_tokenizer("cl100k_base").encode("hello world")
    [15339, 1917]
    """

    family: Family = "tiktoken"

    def __init__(
        self,
        name: str,
        *,
        ranks: dict[bytes, int] | Table,
        pattern: str,
        special_tokens: dict[str, int],
        source: Source,
        normalize: NormalForm | None = None,
        n_vocab: int | None = None,
    ) -> None:
        self.name = name
        self.source = source
        self.pattern = pattern
        self.normalize = normalize
        self.special_tokens = dict(special_tokens)
        self._table: Table = DictTable(ranks) if isinstance(ranks, dict) else ranks
        self._explicit_n_vocab = n_vocab
        # long texts are cut where the ids provably do not change (see `cuts`), for this pattern only
        self._cuttable = pattern in cuts.SAFE_PATTERNS
        # totals of short texts are counted joined, for these patterns only, and never through a normaliser
        self._joinable = pattern in cuts.JOIN_PATTERNS and normalize is None
        self._join_count: int | None = None
        self._bytes_of: list[bytes] | None = None  # rank -> token bytes, built on first use by `pieces`
        self._engine: "tiktoken.Encoding | None" = None  # built by `_enc` on first need
        self._cold = cold.ColdEncoder(self._table, pattern) if pattern in cold.PATTERNS else None
        self._cold_left = COLD_BUDGET_CHARS

    # -- properties -------------------------------------------------------------------------
    @property
    def _enc(self) -> "tiktoken.Encoding":
        """tiktoken's engine, built on first use (shared by the names of one encoding)."""
        enc = self._engine
        if enc is None:
            enc = self._engine = _encoding(self.name, self._table.ranks(), self.pattern, self.special_tokens,
                                           self._explicit_n_vocab)
        return enc

    def build(self) -> None:
        """Build the engine now (warm-up, or before forking workers that should share it)."""
        self._enc

    @property
    def n_vocab(self) -> int:
        if self._engine is not None:
            return self._engine.n_vocab
        # what tiktoken computes: one past the largest id, ranks and special tokens alike
        return self._explicit_n_vocab or max(self._table.max_rank, max(self.special_tokens.values(), default=0)) + 1

    @property
    def ranks(self) -> dict[bytes, int]:
        """The mergeable ranks (shared; do not mutate)."""
        return self._table.ranks()

    def __repr__(self) -> str:
        return f"TiktokenTokenizer(name={self.name!r}, n_vocab={self.n_vocab}, source={str(self.source)!r})"

    # -- encoding ---------------------------------------------------------------------------
    def _prepare(self, text: str) -> str:
        text = clean_text(text)
        if self.normalize and not unicodedata.is_normalized(self.normalize, text):
            text = unicodedata.normalize(self.normalize, text)
        return text

    def _parts(self, text: str):
        """A prepared long text's parts (lazily), or None when it is encoded whole."""
        if self._cuttable and cuts.is_long(text):
            return cuts.iter_long(text)
        return None

    def _cold_ids(self, text: str) -> list[int] | None:
        """A prepared text's ids from the cold encoder, or None: the engine is built, or must be."""
        if self._engine is not None or self._cold is None:
            return None
        cost = _cold_cost(text)
        if cost > self._cold_left:
            return None
        ids = self._cold.encode(text)
        if ids is not None:
            self._cold_left -= cost  # a race between threads only moves the switch a little
        return ids

    def _cold_many(self, texts: Sequence[str]) -> list[list[int]] | None:
        """Prepared texts' ids from the cold encoder, all of them or None."""
        if self._engine is not None or self._cold is None or sum(map(_cold_cost, texts)) > self._cold_left:
            return None
        out = []
        for text in texts:
            ids = self._cold_ids(text)
            if ids is None:
                return None
            out.append(ids)
        return out

    def encode(self, text: str) -> list[int]:
        text = self._prepare(text)
        cold_ids = self._cold_ids(text)
        if cold_ids is not None:
            return cold_ids
        parts = self._parts(text)
        if parts is None:
            return self._enc.encode_ordinary(text)
        out: list[int] = []
        for batch in cuts.batches(parts):
            for ids in self._encode_many(batch):
                out.extend(ids)
        return out

    def _encode_many(self, texts: list[str]) -> list[list[int]]:
        """Prepared texts -> ids: tiktoken's thread pool when it pays, else a plain loop."""
        if threads := _pool_threads(texts):
            return self._enc.encode_ordinary_batch(texts, num_threads=threads)
        return [self._enc.encode_ordinary(t) for t in texts]

    def _prepare_batch(self, texts: Sequence[str]) -> list[str]:
        # one scan of the joined batch finds what `_prepare` would change, so a batch of clean
        # texts (nearly every batch) costs no Python call per text
        if self.normalize is None and not has_surrogates(texts):
            return list(texts)
        return [self._prepare(t) for t in texts]

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        if self._engine is None and (cold_ids := self._cold_many(self._prepare_batch(texts))) is not None:
            return cold_ids
        if len(texts) and max(map(len, texts)) > 2 * cuts.CHUNK_CHARS:  # `cuts.is_long`, for the batch at once
            return [self.encode(t) for t in texts]  # long texts take `encode`'s cut path
        return self._encode_many(self._prepare_batch(texts))

    def _count_prepared(self, text: str) -> int:
        # long texts: ids into tiktoken's buffer of u32 instead of a list of Python ints (the same
        # ids: no special token is allowed, so special-token text is ordinary text, as in
        # `encode_ordinary`), which spends less time per token; for short texts the buffer's
        # fixed cost is larger than what it saves. The buffer is the one `encode_to_numpy` wraps,
        # read here as a memoryview: counting imports no numpy (a forked worker would import it
        # on its first long text, 0.1 s each).
        if len(text) >= NUMPY_MIN_CHARS:
            to_buffer = getattr(self._enc._core_bpe, "encode_to_tiktoken_buffer", None)
            if to_buffer is None:  # a tiktoken without it: the public numpy path
                return len(self._enc.encode_to_numpy(text, allowed_special=_NONE, disallowed_special=()))
            ids = memoryview(to_buffer(text, _NONE))
            return ids.nbytes // ids.itemsize
        return len(self._enc.encode_ordinary(text))

    def count(self, text: str) -> int:
        text = self._prepare(text)
        cold_ids = self._cold_ids(text)
        if cold_ids is not None:
            return len(cold_ids)
        parts = self._parts(text)
        if parts is None:
            return self._count_prepared(text)
        # one batch of parts at a time: memory stays bounded whatever the length
        return sum(sum(self._count_many(batch)) for batch in cuts.batches(parts))

    def _count_many(self, texts: list[str]) -> list[int]:
        """Prepared texts -> counts: a thread pool when it pays, else a loop; into buffers either way."""
        if threads := _pool_threads(texts):
            # not tiktoken's batch, which builds a list of Python ints per text while holding the
            # GIL: its buffer of ids is filled in Rust, so the threads (and whatever else runs in
            # this process, such as other dashboard sessions) wait for each other less
            with ThreadPoolExecutor(max_workers=min(threads, len(texts))) as pool:
                return list(pool.map(self._count_prepared, texts))
        if sum(map(len, texts)) < NUMPY_MIN_CHARS * len(texts):  # mostly short texts: skip the per-text test
            # the core's own call: the texts are prepared (no lone surrogate, which is all tiktoken's
            # wrapper around it mends), and a call per text is most of what short texts cost
            encode = getattr(self._enc, "_core_bpe", self._enc).encode_ordinary
            return list(map(len, map(encode, texts)))
        count = self._count_prepared
        return [count(t) for t in texts]

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        if self._engine is None and (cold_ids := self._cold_many(self._prepare_batch(texts))) is not None:
            return list(map(len, cold_ids))
        if len(texts) and max(map(len, texts)) > 2 * cuts.CHUNK_CHARS:
            return [self.count(t) for t in texts]  # long texts take `count`'s bounded path
        return self._count_many(self._prepare_batch(texts))

    def count_total(self, texts: Sequence[str]) -> int:
        # short texts with no whitespace at their ends are joined (see `cuts.JOIN`), a call per
        # ~64k characters; the separators' tokens, a fixed number each, are taken off again
        # (long texts gain nothing from joining; `count_batch` cuts them and scans each once)
        if self._engine is None and (cold_ids := self._cold_many(self._prepare_batch(texts))) is not None:
            return sum(map(len, cold_ids))
        if not self._joinable or len(texts) < 2 or max(map(len, texts)) > 2 * cuts.CHUNK_CHARS \
                or has_surrogates(texts):
            return sum(self.count_batch(texts))
        joinable, rest = cuts.split_joinable(texts)
        parts, seps = [], 0
        for text, n in cuts.joined(joinable):
            if n == 1:  # alone (it may be long: `count_batch` cuts it)
                rest.append(text)
            else:
                parts.append(text)
                seps += n - 1
        return sum(self._count_many(parts)) - seps * self._join_tokens + sum(self.count_batch(rest))

    @property
    def _join_tokens(self) -> int:
        """Tokens of `cuts.JOIN` between two texts (the same between any two: see `cuts`)."""
        if self._join_count is None:
            encode = self._enc.encode_ordinary
            self._join_count = len(encode("a" + cuts.JOIN + "a")) - 2 * len(encode("a"))
        return self._join_count

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        try:
            return self._enc.decode_bytes(list(ids))
        except (KeyError, ValueError, OverflowError, TypeError) as e:
            raise BadInput(self._undecodable(ids)) from e

    def _undecodable(self, ids: Sequence[int]) -> str:
        """Why `ids` cannot be decoded: out of range, or in range but assigned to no token."""
        bad = [i for i in ids if not isinstance(i, int) or not 0 <= i < self.n_vocab]
        if bad:
            return f"{self.name}: cannot decode ids {bad[:5]}: valid ids are 0..{self.n_vocab - 1}"
        specials = set(self.special_tokens.values())
        assigned = set(self.ranks.values()) | specials  # built only on this error path
        gaps = [i for i in ids if i not in assigned][:5]
        top = self._table.max_rank
        named = ", ".join(str(i) for i in sorted(specials)[:5]) or "none"
        return (f"{self.name}: ids {gaps or list(ids)[:5]} are assigned to no token: its vocabulary is ids "
                f"0..{top} and its special tokens are {named}{', ...' if len(specials) > 5 else ''}; "
                f"the ids between are unused")

    def decode(self, ids: Sequence[int]) -> str:
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def token_bytes(self, token_id: int) -> bytes:
        if self._engine is None and isinstance(token_id, int) and 0 <= token_id <= self._table.max_rank:
            try:  # the table answers for ranks; special ids and errors are the engine's
                return self._table.token(token_id)
            except KeyError:
                pass
        return self._enc.decode_single_token_bytes(token_id)

    def _tokens_bytes(self, ids: list[int]) -> list[bytes]:
        """`[token_bytes(i) for i in ids]` from a table (two Python calls per token otherwise)."""
        if self._engine is None:  # a short text encoded cold: a look-up per id beats building the list
            return list(map(self.token_bytes, ids))
        table = self._bytes_of
        if table is None:
            table = [b""] * self.n_vocab
            for data, rank in self.ranks.items():
                table[rank] = data
            self._bytes_of = table
        try:
            return list(map(table.__getitem__, ids))
        except IndexError:  # not an id of the ranks: the engine's own message
            return list(map(self.token_bytes, ids))

    def pieces(self, text: str) -> list[Piece]:
        text = clean_text(text)
        if self.normalize and not unicodedata.is_normalized(self.normalize, text):
            norm = normalize_with_map(text, self.normalize)
            ids = self.encode(norm.text)
            return map_pieces(norm, byte_pieces(norm.text, ids, map(self.token_bytes, ids)))
        ids = self.encode(text)
        return byte_pieces(text, ids, self._tokens_bytes(ids))
