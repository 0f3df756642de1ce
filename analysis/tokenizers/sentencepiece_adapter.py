"""Adapter for SentencePiece ``.model`` files (Mistral v1/v3, Gemma 3), through the `sentencepiece` library.

Unlike the byte-level adapters, SentencePiece works on characters: it replaces spaces with
U+2581, and Mistral's models also add one at the start of the text (the "dummy prefix"), so a
token's bytes are its piece with U+2581 read as a space, or one raw byte for byte-fallback
pieces (``<0xNN>``). Ids are SentencePiece's own, with no BOS/EOS added.

Offsets: when the tokens' bytes are exactly the text's (Gemma 3: identity normalisation, no
dummy prefix), pieces tile the text as for the byte-level adapters, and the bytes of a
character split by byte fallback belong to the token holding its first byte. Otherwise (the
dummy prefix, or a literal U+2581 in the text, which SentencePiece reads as a space) pieces take
SentencePiece's own offsets, and the dummy prefix belongs to the first token.

Special tokens: control symbols (``<s>``, ``<bos>``, ``<eos>``, ``<pad>``) are never matched in
text, so their strings count as plain text; they are `special_tokens`. User-defined symbols
(Gemma's ``<start_of_turn>``, ``<end_of_turn>``, runs of spaces, HTML tags) are matched in text
by SentencePiece itself and by Google's `LocalTokenizer`, so here too: they are ordinary pieces.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ..errors import BadInput
from .base import Family, Piece, Source, byte_pieces, clean_text
from .normalize import NormalForm
from .vocab import VocabularyError


class SentencePieceTokenizer:
    family: Family = "sentencepiece"  # not byte-level: pieces need not tile (see README)
    normalize: NormalForm | None = None  # SentencePiece normalises inside its model, not before it

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
        # Gemma's 262,144 pieces take about 0.1 s to scan: once, on first use.
        self._special: dict[str, int] | None = None
        self._text_sp: dict[frozenset[str], Any] = {}  # see encode_as_text

    @property
    def n_vocab(self) -> int:
        return self._sp.GetPieceSize()

    def build(self) -> None:
        """Nothing to build: the model is loaded whole when the adapter is made."""

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

    def piece_id(self, piece: str) -> int | None:
        """The id of a piece of the vocabulary (a marker such as Gemma's ``<start_of_turn>``), None if absent."""
        i = self._sp.PieceToId(piece)
        return i if self._sp.IdToPiece(i) == piece else None

    def encode_as_text(self, text: str, symbols: frozenset[str]) -> list[int]:
        """Ids of `text` in which the user-defined `symbols` are plain characters, never matched.

        SentencePiece matches user-defined symbols wherever they occur, so a chat format's
        marker typed in a message would become the marker. Here those pieces are made control
        pieces (which SentencePiece never matches in text) in a second copy of the model, and
        the text is encoded with it: every other piece and id is the same.
        """
        if not any(symbol in text for symbol in symbols):
            return self.encode(text)
        return self._text_processor(symbols).EncodeAsIds(clean_text(text))

    def _text_processor(self, symbols: frozenset[str]):
        cached = self._text_sp.get(symbols)
        if cached is None:
            import sentencepiece as spm
            from sentencepiece import sentencepiece_model_pb2 as model_pb2  # needs protobuf

            # The generated protobuf module has no type stubs.
            piece_type: Any = model_pb2.ModelProto.SentencePiece  # type: ignore[attr-defined]
            proto = model_pb2.ModelProto()  # type: ignore[attr-defined]
            proto.ParseFromString(self._sp.serialized_model_proto())
            for piece in proto.pieces:
                if piece.piece in symbols and piece.type == piece_type.USER_DEFINED:
                    piece.type = piece_type.CONTROL
            cached = self._text_sp[symbols] = spm.SentencePieceProcessor(model_proto=proto.SerializeToString())
        return cached

    @property
    def special_tokens(self) -> dict[str, int]:
        """The control pieces (<s>, </s>, ...): in text they are counted as plain text."""
        if self._special is None:
            self._special = {self._sp.IdToPiece(i): i for i in range(self.n_vocab) if self._sp.IsControl(i)}
        return dict(self._special)

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

    def __repr__(self) -> str:
        return f"SentencePieceTokenizer(name={self.name!r}, n_vocab={self.n_vocab}, source={str(self.source)!r})"

    def pieces(self, text: str) -> list[Piece]:
        text = clean_text(text)
        ids = self.encode(text)
        parts = [self.token_bytes(i) for i in ids]
        if b"".join(parts) == text.encode("utf-8"):
            return byte_pieces(text, ids, parts)
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
