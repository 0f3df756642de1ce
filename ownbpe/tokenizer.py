"""The `Tokenizer`: text -> ids and back, streaming, explaining, saving.

Unlike `train` (which learns merges from a corpus) and `bpe` (which merges one pre-token), this
module does everything around the merge loop: special tokens are split out first (longest
first), the rest is cut into chunks at provably safe positions (see `patterns`), each distinct
chunk is pre-tokenized and merged once, and the result is cached. A warm cache turns encoding
into one cheap regex pass plus dictionary lookups. A long text seen for the first time skips
the chunk cache: it is pre-tokenized block by block and each distinct pre-token is encoded once
(see `batch`); its chunks are cached when it comes again. Long new pre-tokens of other scripts are
cut where no token can cross and merged part by part, each distinct part once (see `seams`).

Two merge rules exist (see `bpe`): a `Tokenizer(vocab, merges)` follows its merges list, like
GPT-2's files and the CS336 reference; `Tokenizer.from_tiktoken(ranks, ...)` follows tiktoken's
ranks and reproduces its ids exactly.
"""

from __future__ import annotations

from functools import reduce
from itertools import accumulate, compress, repeat
from operator import iadd, is_
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

import regex

from . import io
from . import batch
from .bpe import byte_pair_table, merge_pairs, merge_ranked
from .explain import MergeStep, PieceExplanation
from .patterns import GPT2_PATTERN, ascii_runs, chunk_text, is_builtin, pretokenizer, safe_blocks, stream_cut
from .seams import Seams, split_ids

# Chunks and pieces longer than this are encoded each time instead of cached (a megabyte-long
# run would otherwise pin its text and ids in memory).
MAX_CACHED_CHARS = 1024
# Approximate memory the two caches may use before they are emptied (see `_cache_many`).
DEFAULT_CACHE_BYTES = 32 << 20
# Texts longer than this are first sampled (their first SAMPLE_CHARS characters) to choose
# between the chunk cache and encoding pre-tokens directly (see `_looks_new`).
SAMPLE_CHARS = 4096
# The seams (see `_split_ids`) are first used for a batch of at least this many long pieces.
SEAM_FIRST_PIECES = 512
# New text is pre-tokenized and encoded in blocks of about this many characters (see
# `_encode_new`; 3 MB of prose: the same at 150k to 1M characters).
NEW_BLOCK = 1 << 18
# encode_iterable works on blocks of about this many characters.
STREAM_BLOCK = 1 << 16


class Tokenizer:
    """A byte-level BPE tokenizer of the GPT-2 family.

    Args:
        vocab: id -> token bytes. Must contain every single byte.
        merges: `(left, right)` pairs in the order they were learned; each side and their
            concatenation must be in `vocab`.
        special_tokens: strings encoded as one id each by `encode`. A list takes the id of the
            same bytes in `vocab`, or a new id after the largest; a dict gives the ids.
        pattern: the pre-tokenization regex (`regex` module syntax).
        cache_bytes: rough memory budget of the pre-token caches.

    >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
    >>> tok = Tokenizer(vocab, [(b"a", b"b")], ["<|endoftext|>"])
    >>> tok.encode("abc<|endoftext|>")
    [256, 99, 257]
    >>> tok.decode([256, 99])
    'abc'
    """

    def __init__(
        self,
        vocab: Mapping[int, bytes],
        merges: Sequence[tuple[bytes, bytes]],
        special_tokens: Iterable[str] | Mapping[str, int] | None = None,
        *,
        pattern: str = GPT2_PATTERN,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        vocab = _check_vocab(vocab)
        merges = [tuple(m) for m in merges]
        specials = _resolve_specials(special_tokens, vocab, merges)
        special_ids = set(specials.values())
        encoder: dict[bytes, int] = {}
        for i in sorted(vocab):
            if i not in special_ids:
                encoder.setdefault(vocab[i], i)  # duplicated bytes: the lower id wins
        pair_ranks: dict[tuple[bytes, bytes], int] = {}
        for k, merge in enumerate(merges):
            if len(merge) != 2 or not all(isinstance(t, bytes) for t in merge):
                raise ValueError(f"merge {k} is {merge!r}; each merge must be a pair of bytes (left, right)")
            left, right = merge
            for what, token in (("left", left), ("right", right), ("merged", left + right)):
                if token not in encoder:
                    raise ValueError(
                        f"merge {k} ({left!r}, {right!r}) references an unknown token: its {what} token "
                        f"{token!r} is not in the vocab; the merges do not belong to this vocab"
                    )
            pair_ranks.setdefault((left, right), k)  # a repeated merge never fires twice
        self._setup("pairs", vocab, encoder, specials, pattern, cache_bytes)
        self.merges: list[tuple[bytes, bytes]] = merges
        self._pair_ranks = pair_ranks

    @classmethod
    def from_tiktoken(
        cls,
        ranks: Mapping[bytes, int],
        pattern: str,
        special_tokens: Mapping[str, int] | None = None,
        *,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> "Tokenizer":
        """A tokenizer that reproduces tiktoken's ids from its mergeable ranks.

        Args:
            ranks: token bytes -> rank (= id), e.g. from an `o200k_base.tiktoken` file.
            pattern: the encoding's `pat_str`, e.g. `O200K_PATTERN`.
            special_tokens: special token -> id, e.g. `{"<|endoftext|>": 199999}`.

        >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256}
        >>> Tokenizer.from_tiktoken(ranks, GPT2_PATTERN, {"<|endoftext|>": 257}).encode("ab<|endoftext|>")
        [256, 257]
        """
        encoder = dict(ranks)
        vocab: dict[int, bytes] = {}
        for token, rank in encoder.items():
            if not isinstance(token, bytes) or not isinstance(rank, int):
                raise ValueError(f"ranks must map bytes to int; got {token!r}: {rank!r}")
            if rank in vocab:
                raise ValueError(f"rank {rank} is given to both {vocab[rank]!r} and {token!r}; ranks must be unique")
            vocab[rank] = token
        specials = dict(special_tokens or {})
        for text, i in specials.items():
            if i in vocab:
                raise ValueError(
                    f"special token {text!r} has id {i}, which is the rank of {vocab[i]!r}; give special tokens unused ids"
                )
        tok = cls.__new__(cls)
        full = dict(vocab)
        full.update({i: s.encode("utf-8") for s, i in specials.items()})
        tok._setup("ranked", _check_vocab(full), encoder, specials, pattern, cache_bytes)
        tok.merges = []
        tok._pair_ranks = {}
        return tok

    @classmethod
    def from_gpt2_files(
        cls,
        vocab_path: str | Path,
        merges_path: str | Path,
        special_tokens: Iterable[str] | None = None,
        *,
        pattern: str = GPT2_PATTERN,
    ) -> "Tokenizer":
        """Build from GPT-2 style `vocab.json` + `merges.txt` (tokens in GPT-2 byte characters).

        `<|...|>` entries of the vocab become special tokens (add others with `special_tokens`).

        >>> import json, tempfile
        >>> chars = io.gpt2_byte_to_char()  # GPT-2 writes each byte as a printable character
        >>> encoder = {chars[b]: b for b in range(256)} | {"ab": 256, "<|endoftext|>": 257}
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     _ = Path(folder, "vocab.json").write_text(json.dumps(encoder), encoding="utf-8")
        ...     _ = Path(folder, "merges.txt").write_text("#version: 0.2\\na b\\n", encoding="utf-8")
        ...     tok = Tokenizer.from_gpt2_files(Path(folder, "vocab.json"), Path(folder, "merges.txt"))
        >>> tok.encode("abc<|endoftext|>")
        [256, 99, 257]
        """
        vocab, merges, specials = io.read_gpt2_files(vocab_path, merges_path)
        for text in special_tokens or ():
            if text not in specials:
                specials[text] = max([*vocab, *specials.values()]) + 1
        vocab.update({i: s.encode("utf-8") for s, i in specials.items()})
        return cls(vocab, merges, specials, pattern=pattern)

    @classmethod
    def train(
        cls,
        input_path: str | Path,
        vocab_size: int,
        special_tokens: Iterable[str] = (),
        *,
        pattern: str = GPT2_PATTERN,
        workers: int | None = None,
        progress: bool = False,
    ) -> "Tokenizer":
        """Train on a UTF-8 text file (see `ownbpe.train_bpe`) and return the tokenizer.

        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     corpus = Path(folder, "corpus.txt")
        ...     _ = corpus.write_text("low lower lowest<|endoftext|>" * 3, encoding="utf-8")
        ...     tok = Tokenizer.train(corpus, 259, ["<|endoftext|>"])
        >>> tok.merges, tok.special_tokens
        ([(b'o', b'w'), (b'l', b'ow')], {'<|endoftext|>': 258})
        """
        from .train import train_bpe

        specials = list(dict.fromkeys(special_tokens))
        vocab, merges = train_bpe(input_path, vocab_size, specials, pattern=pattern, workers=workers, progress=progress)
        return cls(vocab, merges, specials, pattern=pattern)

    @classmethod
    def train_from_iterator(
        cls,
        texts: Iterable[str],
        vocab_size: int,
        special_tokens: Iterable[str] = (),
        *,
        pattern: str = GPT2_PATTERN,
        progress: bool = False,
    ) -> "Tokenizer":
        """Train on an iterable of texts (each one is pre-tokenized on its own).

        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 258)
        >>> tok.merges
        [(b'o', b'w'), (b'l', b'ow')]
        """
        from .train import train_bpe_from_iterator

        specials = list(dict.fromkeys(special_tokens))
        vocab, merges = train_bpe_from_iterator(texts, vocab_size, specials, pattern=pattern, progress=progress)
        return cls(vocab, merges, specials, pattern=pattern)

    @classmethod
    def load(cls, path: str | Path) -> "Tokenizer":
        """Load a model written by `save`. A corrupt file raises ValueError naming the line.

        >>> import tempfile
        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 259, ["<|endoftext|>"])
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     tok.save(Path(folder, "my.model"))
        ...     loaded = Tokenizer.load(Path(folder, "my.model"))
        >>> loaded.encode("lowest<|endoftext|>") == tok.encode("lowest<|endoftext|>")
        True
        """
        model = io.read_model(path)
        try:
            if model["rule"] == "ranked":
                special_ids = set(model["specials"].values())
                ranks = {t: i for i, t in model["vocab"].items() if i not in special_ids}
                return cls.from_tiktoken(ranks, model["pattern"], model["specials"])
            return cls(model["vocab"], model["merges"], model["specials"], pattern=model["pattern"])
        except ValueError as err:
            raise ValueError(f"{path}: inconsistent model: {err}") from err

    from_file = load  # the name Hugging Face `tokenizers` uses

    def save(self, path: str | Path) -> None:
        """Write the model as versioned, human-readable text (see `ownbpe.io`).

        >>> import tempfile
        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 258)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     tok.save(Path(folder, "my.model"))
        ...     Path(folder, "my.model").read_text(encoding="utf-8").splitlines()[0]
        'ownbpe v1'
        """
        io.write_model(
            path, pattern=self.pattern, rule=self.rule, vocab=self.vocab, merges=self.merges, specials=self.special_tokens
        )

    # -- properties -------------------------------------------------------------------------

    @property
    def n_vocab(self) -> int:
        """One more than the largest id (tiktoken's convention; ids may have gaps)."""
        return self._n_vocab

    def __repr__(self) -> str:
        return (
            f"Tokenizer(rule={self.rule!r}, n_vocab={self.n_vocab}, merges={len(self.merges)}, "
            f"special_tokens={list(self.special_tokens)!r})"
        )

    # -- encoding ---------------------------------------------------------------------------

    def encode(self, text: str) -> list[int]:
        """Encode `text`; special-token strings become their ids.

        Lone surrogates are replaced with U+FFFD first, as tiktoken does.

        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 259, ["<|endoftext|>"])
        >>> tok.encode("lowest<|endoftext|>")  # l, ow... were merged into 257 = "low"
        [257, 101, 115, 116, 258]
        """
        if self._special_re is None:
            return self.encode_ordinary(text)
        out: list[int] = []
        pos = 0
        specials = self.special_tokens
        for m in self._special_re.finditer(text):
            if m.start() > pos:
                out += self.encode_ordinary(text[pos : m.start()])
            out.append(specials[m.group()])
            pos = m.end()
        if pos < len(text):
            out += self.encode_ordinary(text[pos:])
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode `text` treating special-token strings as plain text.

        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 259, ["<|endoftext|>"])
        >>> len(tok.encode_ordinary("<|endoftext|>")), len(tok.encode("<|endoftext|>"))
        (13, 1)
        """
        try:
            return self._encode_ordinary(text)
        except UnicodeEncodeError:
            return self._encode_ordinary(_fix_surrogates(text))

    def _encode_ordinary(self, text: str) -> list[int]:
        if self._builtin and len(text) > SAMPLE_CHARS and self._looks_new(text):
            return self._encode_new(text)
        # Hot path: one cheap regex pass, then cache lookups done by map() in C. The misses
        # are encoded together in a second pass (see `batch`).
        units = chunk_text(text) if self._builtin else self._findall(text)
        found = list(map(self._chunk_cache.get, units))
        if None in found:
            missing = batch.missing_units(units, found)
            if self._builtin:
                # One pre-tokenization for all the new chunks, joined (see `batch.join_chunks`);
                # two if some are ASCII and some not, so that the ASCII ones get the faster twin.
                new = {}
                for group in batch.split_ascii(missing):
                    group = batch.join_chunks(units, group)
                    pieces = self._findall("".join(group))
                    piece_ids = list(map(self._piece_ids(pieces).__getitem__, pieces))
                    new.update(zip(group, batch.regroup(group, pieces, piece_ids)))
            else:  # the units are pre-tokens already
                new = self._encode_pieces(missing)
            self._cache_many(self._chunk_cache, new)
            found = list(map(new.get, units, found))
        return _extend([], found)

    def _looks_new(self, text: str) -> bool:
        """Whether the start of `text` is new to both caches (then `_encode_new` is faster).

        A text whose chunks are unknown but whose pre-tokens are known is being seen again:
        it takes the chunk path, which fills the chunk cache for the next time.
        """
        sample = chunk_text(text[:SAMPLE_CHARS])[:-1]  # the last chunk may be cut short
        if not sample or sum(map(self._chunk_cache.__contains__, sample)) * 2 >= len(sample):
            return False
        pieces = self._findall("".join(sample))
        return sum(map(self._piece_cache.__contains__, pieces)) * 2 < len(pieces)

    def _encode_new(self, text: str) -> list[int]:
        # First sight of a text: pre-tokenize it (ASCII stretches with the pattern's
        # faster twin) and look up, or encode, each distinct pre-token once. Skipping the
        # chunk cache saves regrouping pre-tokens into chunks: new text is mostly seen once.
        # Short ASCII gaps stay inside non-ASCII parts (`join_gaps`): in other scripts a part
        # per word costs more than the twin saves (FLORES-200: ~3 s -> ~0.55 s). Text with
        # non-ASCII characters in most places (accented or other scripts) is not cut at all:
        # the BMP twin then beats cutting (FLORES-200: 225 -> 145 ms; German 8.3 -> 3.5 ms).
        # The text goes block by block (`NEW_BLOCK` characters, cut at safe cuts): the
        # pre-tokens of one block then fit in the processor's caches while they are counted,
        # looked up and joined, and their memory is reused by the next block instead of
        # growing the heap (3 MB of prose: 36 MB of strings at once). Interleaved against the
        # whole text at once: 3 MB of prose 0.273 -> 0.258 s, of code 0.262 -> 0.244 s.
        out: list[int] = []
        for block in safe_blocks(text, NEW_BLOCK):
            pieces: list[str] = []
            for part, _ in ascii_runs(block, join_gaps=True):
                pieces += self._findall(part)
            _extend(out, map(self._piece_ids(pieces).__getitem__, pieces))
        return out

    def _piece_ids(self, pieces: list[str]) -> dict[str, tuple[int, ...]]:
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

    def _encode_pieces(self, pieces: list[str]) -> dict[str, tuple[int, ...]]:
        # Distinct pieces -> their ids.
        if self.rule == "ranked":
            return batch.ranked_piece_ids(pieces, self._encoder, self._byte_ids, self._byte_pair_ranks, self._split_ids)
        return dict(zip(pieces, batch.pairs_piece_ids(pieces, self._encoder, self._pair_ranks)))

    def _split_ids(self, pieces: list[str]) -> list[tuple[int, ...]] | None:
        # Long pieces of other scripts, by their seam-free parts (see `seams`), cached apart:
        # a part that is a token is merged, not taken whole, so it cannot share the piece cache.
        # The first use reads the whole vocabulary (~80 ms for o200k): a few pieces (an accented
        # word in English prose) are merged whole instead.
        if not self._seams.ready and len(pieces) < SEAM_FIRST_PIECES:
            return None
        ids, new = split_ids(self._seams, pieces, self._part_cache, self._merge_starts)
        if new:
            self._cache_many(self._part_cache, new)
        return ids

    def _merge_starts(self, starts: Iterator[list[bytes]]) -> list[tuple[int, ...]]:
        # Each part starts from whole characters where that is exact (see `seams`).
        return batch.ranked_start_ids(starts, self._encoder)

    def _cache_many(self, cache: dict, new: dict[str, tuple[int, ...]]) -> None:
        if max(map(len, new)) > MAX_CACHED_CHARS:
            new = {key: ids for key, ids in new.items() if len(key) <= MAX_CACHED_CHARS}
        # Rough bytes per entry: the key string, the tuple and the dict slot.
        load = 160 * len(new) + 2 * sum(map(len, new)) + 8 * sum(map(len, new.values()))
        if load > self._cache_bytes:
            return  # more new text than the whole budget: keep none of it
        parts = cache is self._part_cache
        if self._cache_load + self._part_load + self._seams.load + load > self._cache_bytes:
            # Emptying beats LRU bookkeeping here: the hot path stays a bare dict lookup.
            # Chunks and pieces go first: they are rebuilt from parts and pairs without
            # merging. Those go too once they hold half of the budget.
            self._chunk_cache.clear()
            self._piece_cache.clear()
            self._cache_load = 0
            kept = self._part_load + self._seams.load
            if kept + load > self._cache_bytes or (not parts and kept > self._cache_bytes // 2):
                self._part_cache.clear()
                self._seams.clear()
                self._part_load = 0
        cache.update(new)
        if parts:
            self._part_load += load
        else:
            self._cache_load += load

    def encode_iterable(self, texts: Iterable[str], *, ordinary: bool = False) -> Iterator[int]:
        """Encode a stream of strings lazily, exactly as `encode("".join(texts))` would.

        Text is cut only where the result provably does not change (see `patterns`), so any
        chunking gives the same ids and memory stays bounded by the block size plus the
        longest pre-token. With a custom pattern only special tokens are safe cuts.

        Args:
            texts: strings, e.g. an open text file (lines) or fixed-size reads.
            ordinary: treat special-token strings as plain text (like `encode_ordinary`).

        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 259, ["<|endoftext|>"])
        >>> list(tok.encode_iterable(["low", "er lo", "west"])) == tok.encode("lower lowest")
        True
        """
        encode = self.encode_ordinary if ordinary or self._special_re is None else self.encode
        specials = None if ordinary else self._special_re
        buf = ""
        searched = 0  # the part of buf already known to hold no cut
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"encode_iterable expects strings, got {type(text).__name__}; open files in text mode")
            buf += text
            if len(buf) - searched < STREAM_BLOCK:
                continue
            cut = stream_cut(buf, searched, self._builtin, specials, self._max_special_len)
            if cut > 0:
                yield from encode(buf[:cut])
                buf = buf[cut:]
                searched = 0
            else:
                searched = max(0, len(buf) - self._max_special_len - 2)
        if buf:
            yield from encode(buf)

    def explain(self, text: str, *, ordinary: bool = False) -> list[PieceExplanation]:
        """Explain the encoding of `text`: per pre-token, the merges that fired, in order.

        The ids are exactly those of `encode` (or `encode_ordinary` if `ordinary`). Render
        the result with `ownbpe.format_explanation`.

        >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
        >>> [p.steps[0].result for p in Tokenizer(vocab, [(b"a", b"b")]).explain("ab")]
        [b'ab']
        """
        out: list[PieceExplanation] = []
        pos = 0
        segments: list[tuple[int, str, bool]] = []
        if self._special_re is not None and not ordinary:
            for m in self._special_re.finditer(text):
                if m.start() > pos:
                    segments.append((pos, text[pos : m.start()], False))
                segments.append((m.start(), m.group(), True))
                pos = m.end()
        if pos < len(text):
            segments.append((pos, text[pos:], False))
        for start, segment, special in segments:
            if special:
                i = self.special_tokens[segment]
                out.append(PieceExplanation(segment, start, True, False, (), (i,), (self.vocab[i],)))
                continue
            segment = _fix_surrogates(segment)
            if self._builtin:  # as `encode` splits it (see `patterns.findall`); no gaps between pieces
                pieces = self._findall(segment)
                offsets = accumulate(map(len, pieces), initial=start)
            else:
                matches = list(self._pattern.finditer(segment))
                pieces = [m.group() for m in matches]
                offsets = (start + m.start() for m in matches)
            out.extend(map(self._explain_piece, pieces, offsets))
        return out

    def _explain_piece(self, piece: str, start: int) -> PieceExplanation:
        data = piece.encode("utf-8")
        trace: list[tuple[int, bytes, bytes]] = []
        if self.rule == "ranked":
            parts = merge_ranked(data, self._encoder, trace)
            direct = data in self._encoder
            if direct:
                parts = [data]
        else:
            parts = merge_pairs(data, self._pair_ranks, trace)
            direct = False
        steps = tuple(MergeStep(r, a, b, a + b, self._encoder[a + b]) for r, a, b in trace)
        ids = tuple(self._encoder[p] for p in parts)
        return PieceExplanation(piece, start, False, direct, steps, ids, tuple(parts))

    # -- decoding ---------------------------------------------------------------------------

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of `ids` joined.

        >>> Tokenizer.train_from_iterator(["low lower"], 257).decode_bytes([72, 105, 256])
        b'Hiow'
        """
        try:
            return b"".join(map(self.vocab.__getitem__, ids))
        except KeyError as err:
            raise ValueError(
                f"unknown token id {err.args[0]!r}: this tokenizer's ids are 0..{self.n_vocab - 1}"
                f"{' (with gaps)' if len(self.vocab) < self.n_vocab else ''}"
            ) from None

    def decode(self, ids: Iterable[int]) -> str:
        """Decode `ids` to text; malformed UTF-8 (e.g. half a character) becomes U+FFFD.

        >>> tok = Tokenizer.train_from_iterator(["low lower"], 257)
        >>> tok.decode(tok.encode("héllo")), tok.decode([195])  # 195 is half of "é"
        ('héllo', '\ufffd')
        """
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    # -- internals --------------------------------------------------------------------------

    def _setup(
        self,
        rule: str,
        vocab: dict[int, bytes],
        encoder: dict[bytes, int],
        specials: dict[str, int],
        pattern: str,
        cache_bytes: int,
    ) -> None:
        missing = [b for b in range(256) if bytes([b]) not in encoder]
        if missing:
            raise ValueError(
                f"the vocab lacks {len(missing)} single-byte tokens (e.g. {bytes([missing[0]])!r}); a byte-level "
                "BPE needs all 256 so that any text can be encoded"
            )
        if not isinstance(pattern, str):
            raise TypeError(f"pattern must be a str, got {type(pattern).__name__}")
        try:
            compiled = regex.compile(pattern)
        except regex.error as err:
            raise ValueError(f"invalid pre-tokenization pattern {pattern!r}: {err}") from err
        self.rule = rule
        self.vocab: dict[int, bytes] = vocab
        self.special_tokens: dict[str, int] = specials
        self.pattern = pattern
        self._encoder = encoder
        self._pattern = compiled
        self._findall = pretokenizer(pattern)  # ASCII text goes to a faster twin (see `patterns`)
        self._builtin = is_builtin(pattern)
        self._n_vocab = max(vocab) + 1
        self._special_re = (
            regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
            if specials
            else None
        )
        self._max_special_len = max(map(len, specials), default=0)
        if rule == "ranked":  # tables for `batch.ranked_piece_ids`
            self._byte_ids = [encoder[bytes([b])] for b in range(256)]
            self._byte_pair_ranks = byte_pair_table(encoder)
        self._seams = Seams(encoder)  # reads the vocabulary on first use
        self._chunk_cache: dict[str, tuple[int, ...]] = {}
        self._piece_cache: dict[str, tuple[int, ...]] = {}
        self._part_cache: dict[str, tuple[int, ...]] = {}
        self._cache_bytes = cache_bytes
        self._cache_load = 0  # chunks and pieces
        self._part_load = 0  # parts (the seams' pairs count their own)


def _check_vocab(vocab: Mapping[int, bytes]) -> dict[int, bytes]:
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a mapping id -> bytes, got {type(vocab).__name__}")
    out: dict[int, bytes] = {}
    for i, token in vocab.items():
        if not isinstance(i, int) or i < 0:
            raise ValueError(f"vocab ids must be non-negative ints, got {i!r}")
        if not isinstance(token, bytes) or not token:
            raise ValueError(f"vocab[{i}] must be non-empty bytes, got {token!r}")
        out[i] = token
    if not out:
        raise ValueError("the vocab is empty; it needs at least the 256 single bytes")
    return out


def _resolve_specials(
    special_tokens: Iterable[str] | Mapping[str, int] | None, vocab: dict[int, bytes], merges: list
) -> dict[str, int]:
    """Special token -> id, adding tokens missing from `vocab` (which is updated) at new ids.

    A listed special token takes the id of the same bytes in `vocab` (the CS336 convention),
    unless those bytes are an ordinary token: a single byte, or a token the merges use.
    """
    if special_tokens is None:
        return {}
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of strings, not the string {special_tokens!r}")
    if isinstance(special_tokens, Mapping):
        specials = {}
        for text, i in special_tokens.items():
            if not isinstance(text, str) or not text:
                raise ValueError(f"special tokens must be non-empty strings, got {text!r}")
            if i in vocab and vocab[i] != text.encode("utf-8"):
                raise ValueError(f"special token {text!r} has id {i}, which the vocab gives to {vocab[i]!r}")
            vocab[i] = text.encode("utf-8")
            specials[text] = i
        return specials
    by_bytes: dict[bytes, int] = {}
    for i in sorted(vocab, reverse=True):
        by_bytes[vocab[i]] = i  # the lowest id wins
    ordinary = {t for merge in merges if len(merge) == 2 for t in (*merge, merge[0] + merge[1])}
    specials = {}
    for text in special_tokens:
        if not isinstance(text, str) or not text:
            raise ValueError(f"special tokens must be non-empty strings, got {text!r}")
        data = text.encode("utf-8")
        i = by_bytes.get(data)
        if i is None or len(data) == 1 or data in ordinary:
            i = max(vocab) + 1
            vocab[i] = data
        specials[text] = i
    return specials


def _extend(out: list[int], ids: Iterable[Sequence[int]]) -> list[int]:
    # `out` extended by each tuple in turn (`list += tuple` copies it in C): faster than
    # `list(chain.from_iterable(...))`, which steps through every id (3 MB of prose, 650k
    # tuples: 34 against 40 ms).
    return reduce(iadd, ids, out)


def _fix_surrogates(text: str) -> str:
    # What tiktoken does with lone surrogates: round-trip through UTF-16, replacing them.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
