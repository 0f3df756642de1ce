"""Adapter for Hugging Face ``tokenizer.json`` pipelines (DeepSeek, the legacy Claude tokenizer, ...).

Unlike `tiktoken_adapter`, the whole pipeline (normaliser, pre-tokenizer, model, decoder) comes
from one JSON file and runs in HF `tokenizers`. Two changes are made on load, both so that
counting never surprises: special added tokens are not matched (`encode_special_tokens`), so
strings such as ``<｜begin▁of▁sentence｜>`` are encoded as ordinary text, and no post-processor
adds BOS/EOS. Non-special added tokens (DeepSeek's ``<think>``, ``<｜User｜>``) are still matched,
as the model's own tokenizer matches them in any text.

Loading: the facts read from the JSON besides the engine (`hf_meta`) are kept in the data dir,
so a bundled or fetched file, once seen, loads without a parse and builds its Rust engine on
first use (or on `build()`: warm-up, a server once ready). A file named by a user's spec is
parsed and built at once, so that a broken one is refused on load.

Offsets: for byte-level pipelines (a ByteLevel pre-tokenizer or decoder) the pieces tile the
text exactly, as for tiktoken. With a normaliser (e.g. NFKC) the pieces are placed on the
normalised text and mapped back segment by segment (`normalize.map_pieces`). Other pipelines
(SentencePiece-style Metaspace) use the offsets HF reports, which need not tile: a piece may be
empty or overlap its neighbour, and such pieces are marked partial.
"""

from __future__ import annotations

import threading
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from ..errors import BadInput
from . import cuts, hf_meta, hf_words
from .base import Family, Piece, Source, byte_pieces, clean_text
from .normalize import NormalForm, map_pieces, normalize_with_map
from .vocab import UNICODE_TO_BYTE, VocabularyError, read_bytes, read_json

if TYPE_CHECKING:  # imported with the first engine
    from tokenizers import Tokenizer as HFTokenizer

# Long texts are cut where the ids provably do not change (see `cuts`): after a newline that is
# followed by a non-space character, or between a letter and whitespace. That holds for the
# pipelines we ship (DeepSeek's splits, GPT-2-style ByteLevel); unknown `hf:` files are never cut.
CHUNK_CHARS = cuts.CHUNK_CHARS
_SAFE_POINTS = f"{cuts.NEWLINE_NONSPACE}|{cuts.LETTER_SPACE}"


def split_at_safe_cuts(text: str, size: int | None = None) -> list[str]:
    """Cut `text` into parts of about `size` characters at safe points (see above).

    >>> split_at_safe_cuts("1\\n2\\n 3\\nab cd", size=1)
    ['1\\n', '2\\n 3\\n', 'ab', ' cd']
    """
    return cuts.split_long(text, points=_SAFE_POINTS, size=size)


# A tokenizer.json whose model lists more merges than this is refused before Hugging Face
# loads it: a file costs about 25 bytes of memory per byte once loaded, and the largest real
# ones have a few hundred thousand merges (Gemma 3: 514,906; Qwen, DeepSeek: about 128k-151k).
MAX_MERGES = 1_000_000
# And at most this many JSON strings in all (tokens, merges, keys), counted before parsing: a
# file of 1M merges and 1M tokens (3M strings, 27 MB) peaks at 0.73 GB loaded, Gemma 3's holds
# about 1.3M, so this bounds a load near 1 GB whatever the file's shape.
MAX_STRINGS = 4_000_000


class _Guarded:
    """The HF engine, whose refusals of a text become ours, naming the file.

    HF `tokenizers` raises a bare `Exception` ("WordLevel error: Missing [UNK] token") for a
    text its model cannot encode, and a Rust panic (pyo3's PanicException, not even an
    Exception) when a Split regex gives up ("retry-limit-in-match over", which is how onig
    bounds catastrophic backtracking). Both are the file's fault, not the text's or ours.
    """

    __slots__ = ("_tok", "_where")

    def __init__(self, tok: "HFTokenizer", where: str) -> None:
        self._tok, self._where = tok, where

    def __getattr__(self, name: str):
        return getattr(self._tok, name)

    def _call(self, method: str, *args, **kwargs):
        try:
            return getattr(self._tok, method)(*args, **kwargs)
        except BaseException as e:
            if type(e) is Exception or type(e).__name__ == "PanicException":
                raise BadInput(f"{self._where}: Hugging Face tokenizers cannot encode this text with this file's "
                               f"pipeline ({str(e).splitlines()[0] if str(e) else type(e).__name__}). Fix: check the "
                               "file's model (an unk_token), normalizer and pre-tokenizer (a Split regex that "
                               "backtracks catastrophically), or use another tokenizer") from None
            raise

    def encode(self, *args, **kwargs):
        return self._call("encode", *args, **kwargs)

    def encode_batch(self, *args, **kwargs):
        return self._call("encode_batch", *args, **kwargs)

    def encode_batch_fast(self, *args, **kwargs):
        return self._call("encode_batch_fast", *args, **kwargs)

    def decode(self, *args, **kwargs):
        return self._call("decode", *args, **kwargs)


def _check_merges(path: Path, raw: bytes, spec: dict | None = None) -> None:
    """Refuse a file with more than MAX_MERGES merges: first, before anything is parsed, from
    the quotes after "merges" (two per merge, four per pair), then exactly from `spec`."""
    at = raw.find(b'"merges"')
    estimate = 0
    if at >= 0:
        start = raw.find(b"[", at) + 1
        per = 4 if raw[start:start + 64].lstrip()[:1] == b"[" else 2  # ["a", "b"] pairs, or "a b" strings
        estimate = raw.count(b'"', start) // per
    if spec is None:
        strings = (raw.count(b'"') - raw.count(b'\\"')) // 2
        if strings > MAX_STRINGS:
            raise VocabularyError(f"{path}: the file holds about {strings:,} strings (tokens, merges), more than the "
                                  f"{MAX_STRINGS:,} tokenprism loads (real tokenizers hold one or two million; loading "
                                  "costs about 250 bytes of memory per string). Fix: check the file")
        # the estimate also counts the quotes of the few keys after the merges
        n, too_many = estimate, estimate > MAX_MERGES + 100
    else:
        model = spec.get("model")
        merges = model.get("merges") if isinstance(model, dict) else None
        n = len(merges) if isinstance(merges, list) else 0
        too_many = n > MAX_MERGES
    if too_many:
        raise VocabularyError(f"{path}: the file lists {'about ' if spec is None else ''}{n:,} merges, "
                              f"more than the {MAX_MERGES:,} tokenprism loads (real tokenizers have a few hundred "
                              "thousand). Fix: check the file")


class HFTokenizerAdapter:
    """A ``tokenizer.json`` behind the tokenprism interface.

    >>> from analysis import load_tokenizer
    >>> load_tokenizer("deepseek-v4").decode(load_tokenizer("deepseek-v4").encode("héllo"))
    'héllo'
    """

    family: Family = "hf"

    def __init__(self, name: str, path: str | Path, *, source: Source, safe_newline_cuts: bool = False,
                 lazy: bool = False) -> None:
        """Args:
            lazy: take the file's facts from the data dir's copy when there is one, and build
                the engine on first use (for bundled and fetched files, checked by sha256);
                otherwise parse and build now, refusing a broken file on load.
        """
        self.name = name
        self.source = source
        self.path = Path(path)
        self._lock = threading.Lock()
        self._engine: _Guarded | None = None
        self._junctions_engine: hf_words.Junctions | None = None
        meta, sha = hf_meta.read(self.path) if lazy else (None, "")
        if meta is None:
            raw = read_bytes(self.path)  # bounded, regular files only
            _check_merges(self.path, raw)  # before parsing: a 3M-merge file would take gigabytes
            spec = read_json(self.path, data=raw)
            if not isinstance(spec, dict) or "model" not in spec:
                raise VocabularyError(f"{self.path}: not a Hugging Face tokenizer.json (no 'model' section)")
            _check_merges(self.path, raw, spec)
            meta = hf_meta.from_spec(spec, safe_newline_cuts)
            self._take(meta)
            self._build(raw)
            if meta["n_vocab"] is None:  # neither BPE nor Unigram: the engine knows its ids
                top = max(self._tok.get_vocab(with_added_tokens=True).values())
                meta["n_vocab"] = max([top, *meta["added"]]) + 1
                self._take(meta)
            if lazy:
                hf_meta.write(sha, meta)
        else:
            self._take(meta)

    def _take(self, meta: dict[str, Any]) -> None:
        self._special: dict[int, str] = meta["special"]
        self._added: dict[int, str] = meta["added"]
        self.safe_newline_cuts: bool = meta["safe_newline_cuts"]
        self.normalize: NormalForm | None = meta["normalize"]
        self._exotic_normalizer: bool = meta["exotic"]  # lowercasing, replacements: HF's own offsets
        self._byte_level: bool = meta["byte_level"]
        self._n_vocab: int = meta["n_vocab"] or 0
        self._use_junctions: bool = meta["junctions"]
        self._had_post_processor: bool = meta["post_processor"]

    def _build(self, raw: bytes | None = None) -> _Guarded:
        """Build the engine from the file's bytes (read again when not given), check it, keep it."""
        from tokenizers import Tokenizer as HFTokenizer

        with self._lock:
            if self._engine is not None:
                return self._engine
            if raw is None:
                raw = read_bytes(self.path)
            try:
                # the file's own text: no re-serialisation of a multi-MB spec
                engine = HFTokenizer.from_str(raw.decode("utf-8"))
                if self._had_post_processor:
                    engine.post_processor = None
            except BaseException as e:  # plain Exceptions from Rust, or a Rust panic (not an Exception)
                if not isinstance(e, Exception) and type(e).__name__ != "PanicException":
                    raise
                raise VocabularyError(f"{self.path}: Hugging Face tokenizers cannot load it: {e}") from None
            # Special added tokens are not matched in text (ids stay as in the file; removing them
            # from the JSON instead would renumber the others).
            engine.encode_special_tokens = True
            guarded = _Guarded(engine, str(self.path))
            self._probe(guarded)
            # cuts inside long words (hf_words), for the pipelines it describes
            self._junctions_engine = hf_words.Junctions(engine) if self._use_junctions else None
            self._engine = guarded
            return guarded

    def build(self) -> None:
        """Build the engine now (warm-up, a server once ready)."""
        self._build()

    @property
    def _tok(self) -> _Guarded:
        return self._engine if self._engine is not None else self._build()

    @property
    def _junctions(self) -> hf_words.Junctions | None:
        self._tok
        return self._junctions_engine

    def _probe(self, engine: _Guarded) -> None:
        """Refuse a pipeline that cannot encode ordinary text or deletes it all (a normaliser
        replacing every character by nothing counted 52 characters as 0 tokens)."""
        from ownbpe.userpattern import PROBE  # ordinary text of every kind, which every pipeline must encode

        try:
            n = len(engine.encode(PROBE, add_special_tokens=False).ids)
        except BadInput as e:
            raise VocabularyError(str(e)) from None
        if n == 0:
            raise VocabularyError(f"{self.path}: its pipeline turns {len(PROBE)} characters of ordinary text into 0 "
                                  "tokens: its normalizer or pre-tokenizer deletes the text. Fix: check the file")

    @property
    def n_vocab(self) -> int:
        return self._n_vocab

    @property
    def special_tokens(self) -> dict[str, int]:
        """The special added tokens (string -> id); in text they are counted as plain text."""
        return {content: i for i, content in self._special.items()}

    def __repr__(self) -> str:
        return f"HFTokenizerAdapter(name={self.name!r}, n_vocab={self.n_vocab}, source={str(self.source)!r})"

    def _spans(self, text: str) -> Iterator[tuple[int, int, bool]]:
        """(start, end, cut inside a word at start) of a long text's parts, about CHUNK_CHARS each.

        At the first point of `cuts` after each CHUNK_CHARS; where there is none within another
        CHUNK_CHARS, inside a long run of letters (`hf_words`, when `_junctions` allows it).
        """
        size, points = cuts.CHUNK_CHARS, cuts.compiled(_SAFE_POINTS)
        runs = hf_words.LongRuns(text, 2 * (hf_words.SHIFT + hf_words.MAX_ADDED) + 2) if self._junctions else None
        start, in_word = 0, False
        while len(text) - start > size:
            m = points.search(text, start + size, start + 2 * size)
            c = None if m is not None or runs is None else runs.cut_in(start + size, len(text))
            if m is None:  # the next point of `cuts`, however far, unless a word can be cut before it
                m = points.search(text, start + size, c if c is not None else len(text))
            if m is not None:
                end, next_in_word = m.start(), False
            elif c is not None:
                end, next_in_word = c, True
            else:
                break
            yield start, end, in_word
            start, in_word = end, next_in_word
        yield start, len(text), in_word

    def _encode_many(self, texts: list[str]) -> list[list[int]]:
        # parallel batches without offsets: every core, no offset bookkeeping
        return [e.ids for e in self._tok.encode_batch_fast(texts, add_special_tokens=False)]

    def _long_ids(self, text: str) -> Iterator[list[int]]:
        """A long text's ids, part by part (memory for one batch of parts at a time)."""
        if self._junctions is None:
            for batch in cuts.batches(text[s:e] for s, e, _ in self._spans(text)):
                yield from self._encode_many(batch)
            return
        yield from hf_words.exact_ids(self._spans(text), text, self._encode_many, self._junctions, cuts.PARTS_PER_BATCH)

    def encode(self, text: str) -> list[int]:
        text = clean_text(text)
        if not (self.safe_newline_cuts and cuts.is_long(text)):
            return self._tok.encode(text, add_special_tokens=False).ids
        out: list[int] = []
        try:
            for ids in self._long_ids(text):
                out.extend(ids)
        except hf_words.NoExactCut:  # no fitting joint inside a word: whole, as before
            return self._tok.encode(text, add_special_tokens=False).ids
        return out

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        if any(cuts.is_long(t) for t in texts):
            return [self.encode(t) for t in texts]  # long texts take `encode`'s cut path
        encs = self._tok.encode_batch([clean_text(t) for t in texts], add_special_tokens=False)
        return [e.ids for e in encs]

    def count(self, text: str) -> int:
        text = clean_text(text)
        if not (self.safe_newline_cuts and cuts.is_long(text)):
            return len(self._tok.encode(text, add_special_tokens=False).ids)
        try:  # one batch of encodings at a time: memory stays bounded whatever the length
            return sum(map(len, self._long_ids(text)))
        except hf_words.NoExactCut:
            return len(self._tok.encode(text, add_special_tokens=False).ids)

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        texts = [clean_text(t) for t in texts]
        if self.safe_newline_cuts and any(cuts.is_long(t) for t in texts):
            return [self.count(t) for t in texts]  # long texts take `encode`'s cut path
        # the fast batch skips offsets: same ids, less work
        return [len(e.ids) for e in self._tok.encode_batch_fast(texts, add_special_tokens=False)]

    def count_total(self, texts: Sequence[str]) -> int:
        return sum(self.count_batch(texts))

    def token_bytes(self, token_id: int) -> bytes:
        if token_id in self._added:
            return self._added[token_id].encode("utf-8")
        tok = self._tok.id_to_token(token_id)
        if tok is None:
            raise BadInput(f"{self.name}: unknown token id {token_id}: valid ids are 0..{self.n_vocab - 1}")
        if self._byte_level:
            try:
                return bytes(UNICODE_TO_BYTE[c] for c in tok)
            except KeyError:  # an added (non-special) token stored as plain text
                return tok.encode("utf-8")
        if len(tok) == 6 and tok.startswith("<0x") and tok.endswith(">"):  # SentencePiece byte fallback
            return bytes([int(tok[3:5], 16)])
        return tok.replace("\u2581", " ").encode("utf-8")

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        return b"".join(self.token_bytes(int(i)) for i in ids)

    def decode(self, ids: Sequence[int]) -> str:
        if self._byte_level:
            return self.decode_bytes(ids).decode("utf-8", errors="replace")
        for i in ids:
            if not 0 <= int(i) < self.n_vocab:
                raise BadInput(f"{self.name}: unknown token id {i}: valid ids are 0..{self.n_vocab - 1}")
        return self._tok.decode(list(ids), skip_special_tokens=False)

    def pieces(self, text: str) -> list[Piece]:
        text = clean_text(text)
        if self._byte_level and not self._exotic_normalizer:
            if self.normalize and not unicodedata.is_normalized(self.normalize, text):
                norm = normalize_with_map(text, self.normalize)
                ids = self.encode(norm.text)
                return map_pieces(norm, byte_pieces(norm.text, ids, map(self.token_bytes, ids)))
            ids = self.encode(text)
            return byte_pieces(text, ids, map(self.token_bytes, ids))
        enc = self._tok.encode(text, add_special_tokens=False)
        out: list[Piece] = []
        prev_end = 0
        for tid, (s, e) in zip(enc.ids, enc.offsets):
            partial = s < prev_end or s == e
            out.append(Piece(tid, self.token_bytes(tid), s, e, partial))
            prev_end = max(prev_end, e)
        return out
