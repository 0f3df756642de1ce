"""Adapter for tokenprism's own BPE (`ownbpe`), and the built-in model trained on our corpora.

Unlike the tiktoken and HF adapters, the engine here is ours: pure Python, able to explain each
split. The built-in model (`analysis/data/ownbpe-builtin.model`) is trained deterministically on
the built-in corpora by `python -m analysis.tokenizers.ownbpe_adapter` (see `make builtin-model`),
so ownbpe appears in every comparison beside the production tokenizers.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Sequence

import ownbpe
from ownbpe.userpattern import PatternTimeout

from ..data import BUILTIN_MODEL, builtin_model_path
from ..errors import BadInput
from . import cuts
from .base import Family, Piece, Source, byte_pieces, clean_text
from .normalize import NormalForm
from .vocab import VocabularyError

BUILTIN_VOCAB_SIZE = 8192
# What the adapter asks ownbpe for: no special token becomes its id; a typed marker is text.
_AS_TEXT: frozenset[str] = frozenset()


class OwnBPETokenizer:
    """An `ownbpe.Tokenizer` behind the tokenprism interface.

    Special-token strings in the text are counted as plain text, as the `Tokenizer` protocol
    promises. This is the one place the product's rule meets ownbpe's: `ownbpe.Tokenizer.encode`
    turns the special tokens it was built with into their ids by default (the CS336 contract),
    so the adapter asks for plain text with `allowed_special=frozenset()`.
    """

    family: Family = "ownbpe"
    normalize: NormalForm | None = None  # ownbpe splits the text as given

    def __init__(self, name: str, tok: "ownbpe.Tokenizer", *, source: Source) -> None:
        self.name = name
        self.source = source
        self.bpe = tok
        self._lock = threading.Lock()  # ownbpe's pre-token cache is a plain dict

    @classmethod
    def from_file(cls, path: str | Path, *, name: str | None = None) -> "OwnBPETokenizer":
        path = Path(path)
        try:
            tok = ownbpe.Tokenizer.load(path)
        except FileNotFoundError:
            raise VocabularyError(f"ownbpe model {str(path)!r} not found; train one with: tokenprism train CORPUS --out {path}") from None
        except ValueError as e:  # ownbpe knows nothing of analysis: its refusal of the file becomes ours here
            raise VocabularyError(str(e)) from e
        return cls(name or f"ownbpe:{path.name}", tok, source=Source("", str(path), "user file"))

    @property
    def n_vocab(self) -> int:
        return self.bpe.n_vocab

    def build(self) -> None:
        """Nothing to build: ownbpe encodes from the model it was made with."""

    @property
    def special_tokens(self) -> dict[str, int]:
        """The model's special tokens (string -> id); in text they are counted as plain text."""
        return dict(self.bpe.special_tokens)

    def __repr__(self) -> str:
        return f"OwnBPETokenizer(name={self.name!r}, n_vocab={self.n_vocab})"

    def encode(self, text: str) -> list[int]:
        text = clean_text(text)
        parts = cuts.iter_long(text) if cuts.is_long(text) and self.bpe.pattern in cuts.SAFE_PATTERNS else [text]
        out: list[int] = []
        for part in parts:  # one part at a time (see `cuts`): the same ids, bounded working memory
            out.extend(self._encode_part(part))
        return out

    def _encode_part(self, text: str) -> list[int]:
        try:
            with self._lock:
                return self.bpe.encode(text, allowed_special=_AS_TEXT)
        except PatternTimeout as e:  # a model file's own pattern, stopped at its time bound
            raise BadInput(f"{self.name} ({self.source}): {e}") from None

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return [self.encode(t) for t in texts]

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.encode_batch(texts)]

    def count_total(self, texts: Sequence[str]) -> int:
        return sum(self.count_batch(texts))

    def count(self, text: str) -> int:
        text = clean_text(text)
        if not (cuts.is_long(text) and self.bpe.pattern in cuts.SAFE_PATTERNS):
            return len(self.encode(text))
        total = 0
        for part in cuts.iter_long(text):
            total += len(self._encode_part(part))
        return total

    def token_bytes(self, token_id: int) -> bytes:
        try:
            return self.bpe.vocab[token_id]
        except (KeyError, IndexError):
            raise BadInput(f"{self.name}: unknown token id {token_id}: valid ids are 0..{self.n_vocab - 1}") from None

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        return b"".join(self.token_bytes(int(i)) for i in ids)

    def decode(self, ids: Sequence[int]) -> str:
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def pieces(self, text: str) -> list[Piece]:
        text = clean_text(text)
        ids = self.encode(text)
        return byte_pieces(text, ids, map(self.token_bytes, ids))


def builtin_ownbpe() -> OwnBPETokenizer:
    path = builtin_model_path()
    if not path.is_file():
        raise VocabularyError(f"the built-in ownbpe model is missing ({path}); rebuild it with: make builtin-model")
    tok = ownbpe.Tokenizer.load(path)
    return OwnBPETokenizer("ownbpe", tok, source=Source("tokenprism", f"analysis/data/{BUILTIN_MODEL}", "MIT"))


BUILTIN_CATEGORIES = ("prose", "code", "multilingual")
BUILTIN_SPECIAL = "<|endoftext|>"


def train_builtin(*, vocab_size: int = BUILTIN_VOCAB_SIZE, progress: bool = False) -> "ownbpe.Tokenizer":
    """Train the built-in model: o200k's split pattern, on the built-in prose, code and
    multilingual corpora in manifest order. Deterministic: the same corpora give the same file."""
    from ..corpora import load_builtin

    texts = load_builtin(list(BUILTIN_CATEGORIES)).sort_values("id", kind="stable")["text"].tolist()
    return ownbpe.Tokenizer.train_from_iterator(texts, vocab_size, [BUILTIN_SPECIAL], pattern=ownbpe.O200K_PATTERN,
                                                progress=progress)


if __name__ == "__main__":  # python -m analysis.tokenizers.ownbpe_adapter  (make builtin-model)
    import sys

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else builtin_model_path()
    tok = train_builtin(progress=True)
    tok.save(out)
    print(f"wrote {out}: {tok.n_vocab} tokens, {len(tok.merges)} merges", file=sys.stderr)
