"""The `Tokenizer`: text -> ids and back, streaming, explaining, saving.

Unlike `train` (which learns merges from a corpus) and `bpe` (which merges one pre-token), this
module does everything around the merge loop. Its plain path is the algorithm as a learner
reads it: special tokens are split out first (longest first, and only those the caller allows),
the rest is pre-tokenized with the pattern, and each pre-token is merged by `bpe` once and then
cached. `encode` takes the fast path by default (`ownbpe.fast.FastEncoder`, the one entry point
to the speed layer), which gives the same ids several times faster; `fast=False` takes the
plain one.

Two merge rules exist (see `bpe`): a `Tokenizer(vocab, merges)` follows its merges list, like
GPT-2's files and the CS336 reference; `Tokenizer.from_tiktoken(ranks, ...)` follows tiktoken's
ranks and reproduces its ids exactly.

Special tokens, two rules side by side:

- **The library follows its caller.** A `Tokenizer` built with `special_tokens=[...]` (or loaded
  from a model file that lists them) encodes each of those strings as its single id, in `encode`,
  `encode_iterable` and `explain`, the longest first where two overlap
  (`<|endoftext|><|endoftext|>` before `<|endoftext|>`). This is the contract of Stanford CS336's
  assignment 1: named special tokens are never split. `allowed_special=` narrows it (a set of
  them; `frozenset()` for none, which is `encode_ordinary`) as tiktoken's keyword does; tiktoken
  raises on a disallowed special string, ownbpe encodes it as the text it is.
- **The product counts what a user typed.** tokenprism (`analysis`) asks ownbpe for plain text
  (`allowed_special=frozenset()`) in its adapter, so `count`, `compare`, the API and the
  dashboard count a pasted `<|endoftext|>` as the characters it is, as every other tokenizer
  there does. The `python -m ownbpe encode` command keeps that default too, and
  `--allow-special` turns the strings into ids.
"""

from __future__ import annotations

from itertools import accumulate
from pathlib import Path
from typing import AbstractSet, Iterable, Iterator, Literal, Mapping, Sequence, Union

import regex

from . import io
from .bpe import merge_pairs, merge_ranked
from .explain import MergeStep, PieceExplanation
from .fast import FastEncoder
from .patterns import GPT2_PATTERN, is_builtin, special_alternatives, stream_cut
from .userpattern import compile_pattern

# Pieces longer than this are merged each time instead of cached (a megabyte-long run would
# otherwise pin its text and ids in memory).
MAX_CACHED_CHARS = 1024
# Approximate memory the caches may use before they are emptied.
DEFAULT_CACHE_BYTES = 32 << 20
# encode_iterable works on blocks of about this many characters.
STREAM_BLOCK = 1 << 16

# The special tokens `encode` turns into ids: a set of them, or "all".
AllowedSpecial = Union[AbstractSet[str], Literal["all"]]


class Tokenizer:
    """A byte-level BPE tokenizer of the GPT-2 family.

    Args:
        vocab: id -> token bytes. Must contain every single byte.
        merges: `(left, right)` pairs in the order they were learned; each side and their
            concatenation must be in `vocab`.
        special_tokens: strings that `encode` turns into one id each wherever they occur (unless
            `allowed_special=` leaves them out). A list takes the id of the same bytes in `vocab`, or a new id after the largest; a
            dict gives the ids.
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
        given = [tuple(m) for m in merges]
        specials = _resolve_specials(special_tokens, vocab, given)
        special_ids = set(specials.values())
        encoder: dict[bytes, int] = {}
        for i in sorted(vocab):
            if i not in special_ids:
                encoder.setdefault(vocab[i], i)  # duplicated bytes: the lower id wins
        pair_ranks: dict[tuple[bytes, bytes], int] = {}
        checked: list[tuple[bytes, bytes]] = []
        for k, merge in enumerate(given):
            if len(merge) != 2 or not all(isinstance(t, bytes) for t in merge):
                raise ValueError(f"merge {k} is {merge!r}; each merge must be a pair of bytes (left, right)")
            left, right = merge
            checked.append((left, right))
            for what, token in (("left", left), ("right", right), ("merged", left + right)):
                if token not in encoder:
                    raise ValueError(
                        f"merge {k} ({left!r}, {right!r}) references an unknown token: its {what} token "
                        f"{token!r} is not in the vocab; the merges do not belong to this vocab"
                    )
            pair_ranks.setdefault((left, right), k)  # a repeated merge never fires twice
        self._setup("pairs", vocab, encoder, pair_ranks, specials, pattern, cache_bytes)
        self.merges: list[tuple[bytes, bytes]] = checked

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
        >>> Tokenizer.from_tiktoken(ranks, GPT2_PATTERN, {"<|endoftext|>": 257}).encode("ab<|endoftext|>", allowed_special="all")
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
        tok._setup("ranked", _check_vocab(full), encoder, {}, specials, pattern, cache_bytes)
        tok.merges = []
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
        >>> tok.encode("abc<|endoftext|>", allowed_special="all")
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
        >>> loaded.encode("lowest<|endoftext|>", allowed_special="all") == [257, 101, 115, 116, 258]
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

    def encode(self, text: str, *, allowed_special: AllowedSpecial = "all", fast: bool = True) -> list[int]:
        """Encode `text`; each special token this tokenizer was given becomes its one id.

        Args:
            text: the text. Lone surrogates are replaced with U+FFFD first, as tiktoken does.
            allowed_special: the special tokens that become their ids where their strings
                occur: "all" (the default: every special token named at construction), or a
                set of them. The others, and all of them with `frozenset()`, are encoded as the
                plain text they are (tiktoken would raise instead; tokenprism counts them as
                text).
            fast: use the fast path (`ownbpe.fast`); False takes the plain path (pre-tokenize,
                merge each pre-token, one cache), which gives the same ids except on the
                characters of a Unicode version newer than tiktoken's (see `encode_ordinary`).

        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 259, ["<|endoftext|>"])
        >>> tok.encode("lowest<|endoftext|>")  # l, ow... were merged into 257 = "low"
        [257, 101, 115, 116, 258]
        >>> len(tok.encode("<|endoftext|>", allowed_special=frozenset()))  # as plain text: 13 characters
        13
        """
        specials = self._specials_regex(allowed_special)
        if specials is None:
            return self.encode_ordinary(text, fast=fast)
        out: list[int] = []
        pos = 0
        for m in specials.finditer(text):
            if m.start() > pos:
                out += self.encode_ordinary(text[pos : m.start()], fast=fast)
            out.append(self.special_tokens[m.group()])
            pos = m.end()
        if pos < len(text):
            out += self.encode_ordinary(text[pos:], fast=fast)
        return out

    def encode_ordinary(self, text: str, *, fast: bool = True) -> list[int]:
        """Encode `text` treating special-token strings as plain text (`encode(text, allowed_special=frozenset())`).

        The fast path (`ownbpe.fast`) reads characters by tiktoken's Unicode tables (0.14:
        Unicode 16.0); the plain path (`fast=False`) by those of the installed `regex` (2025.10
        and later: 17.0), as `ownbpe._educational` does. They differ only on the 17,559
        characters Unicode 17.0 added (`ownbpe.fast.pretokenize.NEWER_THAN_TIKTOKEN`).

        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 259, ["<|endoftext|>"])
        >>> tok.encode_ordinary("lowest") == tok.encode_ordinary("lowest", fast=False) == [257, 101, 115, 116]
        True
        """
        encode = self._fast.encode_ordinary if fast else self._encode_plain
        try:
            return encode(text)
        except UnicodeEncodeError:
            return encode(_fix_surrogates(text))

    def _encode_plain(self, text: str) -> list[int]:
        # The plain path: pre-tokenize, then each pre-token's ids, from the cache or merged.
        ids: list[int] = []
        cache = self._plain_cache
        for piece in self._pattern.findall(text):
            piece_ids = cache.get(piece)
            if piece_ids is None:
                piece_ids = self._merge_plain(piece.encode("utf-8"))
                if len(piece) <= MAX_CACHED_CHARS:
                    if len(cache) >= self._plain_cache_size:
                        cache.clear()  # emptying beats LRU bookkeeping: the hit stays a dict lookup
                    cache[piece] = piece_ids
            ids += piece_ids
        return ids

    def _merge_plain(self, data: bytes) -> tuple[int, ...]:
        # One pre-token's ids by the tokenizer's rule (see `bpe`). A piece that is a token is
        # that token under the ranked rule (tiktoken's shortcut); the pairs rule has none.
        if self.rule == "ranked":
            rank = self._encoder.get(data)
            if rank is not None:
                return (rank,)
            return tuple(map(self._encoder.__getitem__, merge_ranked(data, self._encoder)))
        return tuple(map(self._encoder.__getitem__, merge_pairs(data, self._pair_ranks)))

    def _specials_regex(self, allowed_special: AllowedSpecial) -> regex.Pattern | None:
        # The regex that finds the allowed special tokens (longest first), or None.
        if allowed_special == "all":
            return self._special_re
        if isinstance(allowed_special, str):
            raise ValueError(
                f"allowed_special={allowed_special!r}: give a set of special tokens, e.g. "
                f"allowed_special={{{allowed_special!r}}}, or \"all\""
            )
        allowed = frozenset(allowed_special)
        if not allowed:
            return None
        unknown = sorted(allowed.difference(self.special_tokens))
        if unknown:
            raise ValueError(
                f"allowed_special names {unknown[0]!r}, which is not a special token of this tokenizer; "
                f"its special tokens are {sorted(self.special_tokens) or 'none'}"
            )
        found = self._special_res.get(allowed)
        if found is None:
            found = self._special_res[allowed] = special_alternatives(allowed)
        return found

    def encode_iterable(self, texts: Iterable[str], *, allowed_special: AllowedSpecial = "all") -> Iterator[int]:
        """Encode a stream of strings lazily, exactly as `encode("".join(texts), ...)` would.

        Text is cut only where the result provably does not change (see `patterns`), so any
        chunking gives the same ids and memory stays bounded by the block size plus the
        longest pre-token. With a custom pattern only special tokens are safe cuts.

        Args:
            texts: strings, e.g. an open text file (lines) or fixed-size reads.
            allowed_special: as for `encode`.

        >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 259, ["<|endoftext|>"])
        >>> list(tok.encode_iterable(["low", "er lo", "west"])) == tok.encode("lower lowest")
        True
        """
        specials = self._specials_regex(allowed_special)
        longest = max(map(len, self.special_tokens), default=0) if specials is not None else 0
        buf = ""
        searched = 0  # the part of buf already known to hold no cut
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"encode_iterable expects strings, got {type(text).__name__}; open files in text mode")
            buf += text
            if len(buf) - searched < STREAM_BLOCK:
                continue
            cut = stream_cut(buf, searched, self._builtin, specials, longest)
            if cut > 0:
                yield from self.encode(buf[:cut], allowed_special=allowed_special)
                buf = buf[cut:]
                searched = 0
            else:
                searched = max(0, len(buf) - longest - 2)
        if buf:
            yield from self.encode(buf, allowed_special=allowed_special)

    def explain(
        self, text: str, *, allowed_special: AllowedSpecial = "all", ordinary: bool | None = None
    ) -> list[PieceExplanation]:
        """Explain the encoding of `text`: per pre-token, the merges that fired, in order.

        The ids are exactly those of `encode(text, allowed_special=...)`. Render the result
        with `ownbpe.format_explanation`.

        Args:
            allowed_special: as for `encode`.
            ordinary: kept for older callers: True means `allowed_special=frozenset()` (special
                strings as plain text), False means `allowed_special="all"`.

        >>> vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab"}
        >>> [p.steps[0].result for p in Tokenizer(vocab, [(b"a", b"b")]).explain("ab")]
        [b'ab']
        """
        if ordinary is not None:
            allowed_special = frozenset() if ordinary else "all"
        specials = self._specials_regex(allowed_special)
        out: list[PieceExplanation] = []
        pos = 0
        segments: list[tuple[int, str, bool]] = []
        if specials is not None:
            for m in specials.finditer(text):
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
            offsets: Iterable[int]
            if self._builtin:  # as `encode` splits it (see `fast.pretokenize`); no gaps between pieces
                pieces = self._fast.pretokenize(segment)
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
        parts = self._fast.merge(data, trace)
        direct = self.rule == "ranked" and data in self._encoder
        if direct:
            parts = [data]
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
        rule: Literal["ranked", "pairs"],
        vocab: dict[int, bytes],
        encoder: dict[bytes, int],
        pair_ranks: dict[tuple[bytes, bytes], int],
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
        try:  # a user's pattern is checked, and runs with a time bound (see `userpattern`)
            compiled = compile_pattern(pattern, is_builtin(pattern))
        except regex.error as err:
            raise ValueError(f"invalid pre-tokenization pattern {pattern!r}: {err}") from err
        self.rule = rule
        self.vocab: dict[int, bytes] = vocab
        self.special_tokens: dict[str, int] = specials
        self.pattern = pattern
        self._encoder = encoder
        self._pair_ranks = pair_ranks
        self._pattern = compiled
        self._builtin = is_builtin(pattern)
        self._n_vocab = max(vocab) + 1
        self._special_re = special_alternatives(specials) if specials else None
        self._special_res: dict[frozenset[str], regex.Pattern] = {}
        self._plain_cache: dict[str, tuple[int, ...]] = {}
        self._plain_cache_size = max(cache_bytes // 256, 1)  # entries: ~256 bytes each, as `fast` counts them
        self._fast = FastEncoder(rule, encoder, pair_ranks, pattern, self._builtin, cache_bytes)


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
    special_tokens: Iterable[str] | Mapping[str, int] | None, vocab: dict[int, bytes], merges: list[tuple[bytes, ...]]
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


def _fix_surrogates(text: str) -> str:
    # What tiktoken does with lone surrogates: round-trip through UTF-16, replacing them.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
