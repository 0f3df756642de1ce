"""Adapter for SentencePiece ``.model`` files (Mistral v1/v3), through the `sentencepiece` library.

Unlike the byte-level adapters, SentencePiece works on characters: it replaces spaces with
U+2581 and adds one at the start of the text (the "dummy prefix"), so a token's bytes are its
piece with U+2581 read as a space, or one raw byte for byte-fallback pieces (``<0xNN>``). Pieces
take SentencePiece's own offsets; the dummy prefix belongs to the first token. Control symbols
such as ``[INST]`` are never matched in text, so special-token strings count as plain text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..errors import BadInput
from .base import Family, Piece, Source, clean_text
from .vocab import VocabularyError


class SentencePieceTokenizer:
    family: Family = "sentencepiece"  # not byte-level: pieces need not tile (see README)

    def __init__(self, name: str, path: str | Path, *, source: Source) -> None:
        try:
            import sentencepiece as spm
        except ImportError:
            raise VocabularyError(
                f"{name} needs the sentencepiece package. Fix: pip install sentencepiece"
            ) from None
        self.name = name
        self.source = source
        self._sp = spm.SentencePieceProcessor()
        try:
            self._sp.Load(str(path))
        except (OSError, RuntimeError) as e:
            raise VocabularyError(f"{path}: not a SentencePiece model ({e})") from None

    @property
    def n_vocab(self) -> int:
        return self._sp.GetPieceSize()

    def encode(self, text: str) -> list[int]:
        return self._sp.EncodeAsIds(clean_text(text))

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        return self._sp.Encode([clean_text(t) for t in texts])

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.encode_batch(texts)]

    def count_total(self, texts: Sequence[str]) -> int:
        return sum(self.count_batch(texts))

    @property
    def special_tokens(self) -> dict[str, int]:
        """The control pieces (<s>, </s>, ...): in text they are counted as plain text."""
        return {self._sp.IdToPiece(i): i for i in range(self.n_vocab) if self._sp.IsControl(i)}

    def token_bytes(self, token_id: int) -> bytes:
        if not 0 <= token_id < self.n_vocab:
            raise BadInput(f"{self.name}: unknown token id {token_id}: valid ids are 0..{self.n_vocab - 1}")
        piece = self._sp.IdToPiece(token_id)
        if self._sp.IsByte(token_id):
            return bytes([int(piece[3:5], 16)])
        return piece.replace("\u2581", " ").encode("utf-8")

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        return b"".join(self.token_bytes(int(i)) for i in ids)

    def decode(self, ids: Sequence[int]) -> str:
        for i in ids:
            if not 0 <= int(i) < self.n_vocab:
                raise BadInput(f"{self.name}: unknown token id {i}: valid ids are 0..{self.n_vocab - 1}")
        return self._sp.DecodeIds(list(ids))

    def pieces(self, text: str) -> list[Piece]:
        text = clean_text(text)
        try:
            proto = self._sp.encode(text, return_type="proto")  # sentencepiece >= 0.2.1
        except (TypeError, ValueError):
            proto = self._sp.EncodeAsImmutableProto(text)  # type: ignore[attr-defined]  # sentencepiece 0.2.0
        data = text.encode("utf-8")
        # SentencePiece reports byte offsets into the original text.
        char_at = {}
        pos = 0
        for i, ch in enumerate(text):
            char_at[pos] = i
            pos += len(ch.encode("utf-8"))
        char_at[len(data)] = len(text)
        out: list[Piece] = []
        prev = 0
        for p in proto.pieces:
            s = char_at.get(p.begin, prev)
            e = char_at.get(p.end, s)
            partial = p.begin not in char_at or p.end not in char_at or s == e
            out.append(Piece(p.id, self.token_bytes(p.id), max(s, prev), max(e, prev), partial))
            prev = max(prev, e)
        return out
