"""The one interface every tokenizer is used through, and the helpers all adapters share.

Unlike the adapter modules beside it (`tiktoken_adapter`, `hf_adapter`, `ownbpe_adapter`), this
module knows nothing about any backend: it defines the `Tokenizer` protocol, the `Piece` and
`Source` records, the text clean-up every adapter applies before encoding (lone surrogates become
U+FFFD), and `byte_pieces`, which turns a byte-level token sequence into character spans that
tile the text.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import itemgetter, or_
from typing import Iterable, Literal, NamedTuple, Protocol, Sequence, TypeAlias, Union, runtime_checkable

Family = Literal["tiktoken", "hf", "sentencepiece", "ownbpe"]
NormalForm = Literal["NFC", "NFD", "NFKC", "NFKD"]  # what unicodedata.normalize accepts

_SURROGATES = re.compile("[\ud800-\udfff]")
_CHECK_CHARS = 1 << 20  # characters encoded at a time by `_clean`

# Threads one batch call may use. Engine workers set it to 1: there the process pool is the
# parallelism, and a thread pool inside every worker would only add switching and overhead.
ENCODE_THREADS_ENV = "TOKENPRISM_ENCODE_THREADS"


def encode_threads() -> int:
    """Threads a batch call may use: $TOKENPRISM_ENCODE_THREADS if set to a positive number, else one per core.

    >>> os.environ[ENCODE_THREADS_ENV] = "1"; encode_threads()
    1
    >>> del os.environ[ENCODE_THREADS_ENV]; encode_threads() == (os.cpu_count() or 1)
    True
    """
    raw = os.environ.get(ENCODE_THREADS_ENV, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else (os.cpu_count() or 1)


def has_surrogates(texts: Sequence[str]) -> bool:
    """True if any text holds a lone surrogate: one scan of the joined batch, not a call per text.

    Raises TypeError (from `clean_text`) when an item is not a str.

    >>> has_surrogates(["ok", "a\\ud800b"]), has_surrogates(["ok", "fine"])
    (True, False)
    """
    try:
        return not _clean("".join(texts))
    except TypeError:
        for text in texts:
            clean_text(text)  # names the item that is not a str
        raise


@dataclass(frozen=True, slots=True)
class Source:
    """Where a vocabulary came from: the carrier package, the file inside it, and its licence."""

    package: str
    file: str
    licence: str
    version: str = ""
    url: str = ""

    def __str__(self) -> str:
        ver = f"=={self.version}" if self.version else ""
        return f"{self.package}{ver}:{self.file}" if self.package else self.file


class Piece(NamedTuple):
    """One token of an encoding, located in the text it came from.

    `start`/`end` are character (code point) offsets into the text given to `pieces()`, so
    `text[start:end]` is what the token covers. A character whose UTF-8 bytes are split
    across tokens belongs to the token holding its first byte; the tokens holding only its
    later bytes get an empty span (`start == end`) and `partial=True`. A token that holds the
    first byte of a character but not all of them is also `partial`.

    An immutable record with named fields. A named tuple rather than a frozen dataclass: the
    dashboard places thousands per drawing with the GIL held, and `Piece._make` builds one in C
    (a frozen dataclass's `__init__` makes five Python-level `object.__setattr__` calls).
    """

    id: int
    bytes: bytes
    start: int
    end: int
    partial: bool = False

    @property
    def text(self) -> str:
        """The token's bytes as text; a partial character shows as U+FFFD."""
        return self.bytes.decode("utf-8", errors="replace")


@runtime_checkable
class Tokenizer(Protocol):
    """Everything analysis, the CLI, the service and the dashboard use of a tokenizer.

    Backend knowledge stays behind this line: callers never ask which backend an adapter wraps
    to pick a code path; they call `encode_batch` or `count_batch`, which each adapter runs the
    fastest way its backend allows. `encode` never raises for a `str`: special-token strings
    are counted as plain text, and lone surrogates become U+FFFD.
    """

    name: str
    family: Family
    source: Source
    # The Unicode form the adapter puts text into before it splits it (Qwen's NFC; an HF
    # normalizer's form), so that a caller explaining a split sees the text the vocabulary saw.
    # None: the text is split as given (SentencePiece normalises inside its own model).
    normalize: NormalForm | None

    def build(self) -> None:
        """Build now what the adapter defers to its first long text (tiktoken's or HF's engine); a
        no-op where nothing is deferred. For a server once ready, or a pool before it forks."""
        ...

    @property
    def n_vocab(self) -> int:
        """One more than the largest token id."""
        ...

    @property
    def special_tokens(self) -> dict[str, int]:
        """Special-token strings and their ids (empty when the vocabulary has none)."""
        ...

    def encode(self, text: str) -> list[int]:
        """The ids of `text`, as the reference implementation gives them."""
        ...

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """The ids of each text, through the backend's fastest path for texts of this size."""
        ...

    def count(self, text: str) -> int:
        """`len(encode(text))`, without keeping the ids where the backend allows."""
        ...

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        """`[len(ids) for ids in encode_batch(texts)]`, the fastest way the backend allows."""
        ...

    def count_total(self, texts: Sequence[str]) -> int:
        """`sum(count_batch(texts))`, for callers that keep only the total (aggregates)."""
        ...

    def decode(self, ids: Sequence[int]) -> str:
        """Text of `ids`; bytes that are not whole UTF-8 characters become U+FFFD."""
        ...

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """The exact bytes of `ids`; an unknown id raises ValueError naming the valid range."""
        ...

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token."""
        ...

    def pieces(self, text: str) -> list[Piece]:
        """The tokens of `text`, each located in it by character offsets."""
        ...


@runtime_checkable
class SymbolTokenizer(Tokenizer, Protocol):
    """A tokenizer whose vocabulary matches user-defined symbols in text (SentencePiece: Gemma's
    ``<start_of_turn>``): a chat format that writes such a marker as its id, and the text around it
    with the marker unmatched, needs these two members besides `Tokenizer`'s."""

    def piece_id(self, piece: str) -> int | None:
        """The id of a piece of the vocabulary, None if it has no such piece."""
        ...

    def encode_as_text(self, text: str, symbols: frozenset[str]) -> list[int]:
        """The ids of `text` in which the user-defined `symbols` are plain characters, never matched."""
        ...


TokenizersArg: TypeAlias = Union[Iterable[Union[str, Tokenizer]], str, Tokenizer, None]
"""What functions that take tokenizers accept: adapters, names (a list, or one comma-separated
string such as ``"gpt2,o200k_base"``), one adapter, or None for every tokenizer available
offline. `analysis.pipeline.as_tokenizers` turns any of them into a list of adapters."""


def clean_text(text: str) -> str:
    """Return `text` with every lone surrogate (U+D800..U+DFFF) replaced by U+FFFD.

    Python strings can hold lone surrogates (from `surrogateescape` decoding or JSON `\\ud83d`),
    which have no UTF-8 form. Replacing them one for one keeps every character offset valid.

    >>> clean_text("a\\ud83db")
    'a\\ufffdb'
    """
    if not isinstance(text, str):
        raise TypeError(f"expected str, got {type(text).__name__}: encode text, not {type(text).__name__}")
    return text if _clean(text) else _SURROGATES.sub("\ufffd", text)


def _clean(text: str) -> bool:
    """True when `text` holds no lone surrogate. ASCII is a flag; otherwise strict UTF-8 encoding,
    which fails exactly on a lone surrogate, is quicker than searching for one with a regex
    (measured: docs/performance.md)."""
    if text.isascii():
        return True
    try:  # in blocks, so a long text never has a whole UTF-8 copy (a slice cannot split a character)
        for start in range(0, len(text), _CHECK_CHARS):
            text[start : start + _CHECK_CHARS].encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 continuation bytes, 0b10xxxxxx
_CONTINUATION_START = {bytes((b,)) for b in range(0x80, 0xC0)}  # a token's first byte, as a 1-byte slice


def byte_pieces(text: str, ids: Sequence[int], token_bytes: Iterable[bytes]) -> list[Piece]:
    """Place byte-level tokens on `text`: their spans tile `text` exactly, in order.

    Args:
        text: the (already cleaned) text that was encoded.
        ids: the token ids.
        token_bytes: the bytes of each token, same length as `ids`; their concatenation must
            be `text.encode("utf-8")`.

    Returns:
        One `Piece` per token; `pieces[0].start == 0`, `pieces[-1].end == len(text)` and each
        piece starts where the previous one ends.

    >>> [(p.start, p.end, p.partial) for p in byte_pieces("é", [1, 2], [b"\\xc3", b"\\xa9"])]
    [(0, 1, True), (1, 1, True)]
    """
    data = text.encode("utf-8")
    parts = list(map(bytes, token_bytes))
    ids = list(ids)
    if len(parts) != len(ids) or b"".join(parts) != data:
        _misplaced(data, ids, parts)
    if not parts:
        return []
    # In C-level passes, not a Python step per token (the dashboard draws with the GIL held):
    # a token covers the characters whose first byte it holds, so its length in characters is
    # its number of bytes that are not continuation bytes; it is partial when it starts inside
    # a character or the next token does.
    n_chars = list(map(len, map(bytes.translate, parts, repeat(None), repeat(_CONTINUATION))))
    ends = list(accumulate(n_chars))
    starts_inside = list(map(_CONTINUATION_START.__contains__, map(itemgetter(slice(0, 1)), parts)))
    partial = list(map(or_, starts_inside, [*starts_inside[1:], False]))
    return list(map(Piece._make, zip(ids, parts, [0, *ends[:-1]], ends, partial)))


def _misplaced(data: bytes, ids: Sequence[int], parts: Sequence[bytes]) -> None:
    """Raise ValueError naming where the tokens stop matching the text's bytes."""
    if len(parts) != len(ids):
        raise ValueError(f"{len(ids)} ids but {len(parts)} token byte strings")
    pos = 0
    for tid, tb in zip(ids, parts):
        if data[pos : pos + len(tb)] != tb:
            raise ValueError(
                f"token {tid} bytes {tb!r} do not match the text at byte {pos}: the encoder "
                "changed the text (normalisation?) and byte_pieces cannot place it"
            )
        pos += len(tb)
    raise ValueError(f"tokens cover {pos} of {len(data)} bytes of the text")
