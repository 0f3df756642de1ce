"""tiktoken's ids for a short text before tiktoken's engine exists: the first answer at once.

Unlike `tiktoken_adapter` (which owns the engine and every long or batched path), this module
encodes one text by the same rule in Python, straight from a `rank_table` table: split it with
the vocabulary's pattern, take each pre-token whole when it is a token, else merge its bytes by
rank (`ownbpe.bpe.merge_ranked`, tiktoken's rule, tested id for id against it). Building
tiktoken's engine costs about 0.15 s per 200,000 ranks with the GIL held; this costs a regex
compile and a few look-ups per word, so a command that counts a sentence under ten vocabularies
answers before one engine would have been built.

It is exact only where the split is: the patterns listed in `PATTERNS` (each one tested against
tiktoken), on text without the characters tiktoken reads by an older Unicode than `regex` does
(`ownbpe.unicode`). Elsewhere `encode` answers None and the caller builds the engine.
"""

from __future__ import annotations

from typing import Callable

from ownbpe.bpe import merge_ranked
from ownbpe.unicode import has_newer

from .patterns import COLD_EXACT
from .rank_table import Table

# Split patterns whose `regex` matches are tiktoken's (stated beside the patterns themselves;
# `tests/analysis/tokenizers/test_cold.py` checks each one on corpora).
PATTERNS: frozenset[str] = COLD_EXACT


class ColdEncoder:
    """Ordinary text -> ids by tiktoken's rule, from a rank table, for texts of a safe pattern."""

    def __init__(self, table: Table, pattern: str) -> None:
        self._table = table
        self._pattern = pattern
        self._findall: Callable[[str], list[str]] | None = None

    def encode(self, text: str) -> list[int] | None:
        """The ids tiktoken's `encode_ordinary` gives `text`, or None where this cannot be exact.

        `text` must be prepared as for the engine (no lone surrogates, normalised if the
        vocabulary asks for it).
        """
        if has_newer(text):
            return None
        findall = self._findall
        if findall is None:
            import regex  # the first cold text pays for it, never an import of this module

            findall = self._findall = regex.compile(self._pattern).findall
        table = self._table
        get = table.get
        out: list[int] = []
        for piece in findall(text):
            data = piece.encode("utf-8")
            rank = get(data)
            if rank is not None:
                out.append(rank)
            else:
                out += map(table.__getitem__, merge_ranked(data, table))  # type: ignore[arg-type]
        return out
