"""Character classes as bits of one byte per code point, looked up for a whole array at once.

Unlike calling a regular expression per character, a `CharClasses` runs each of its patterns
once over the Basic Multilingual Plane (when first used in a process) to build a table of 65,536
class bytes; an array of code points is then classified by indexing that table. Code points
beyond the BMP, few and rarely distinct, are classified by running the patterns over just those.
`words` (spaces, word characters, scripts) and `graphemes` (cluster-break properties) use it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import numpy as np

BMP = 0x10000
_MARK = "\uffff"  # a noncharacter: what `classify` writes over each match


class CharClasses:
    """Bits of character classes. `patterns()` gives (bit, compiled pattern matching one character) pairs.

    Patterns are compiled only when the table is first needed, so importing costs nothing.

    >>> import re
    >>> cc = CharClasses(lambda: ((1, re.compile(r"\\s")), (2, re.compile(r"\\d"))))
    >>> cc.lookup(np.array([ord(c) for c in "a 1\\U0001d7ce"], dtype=np.uint32)).tolist()
    [0, 1, 2, 2]
    """

    def __init__(self, patterns: Callable[[], Sequence[tuple[int, Any]]]) -> None:
        self._patterns = patterns

    @cached_property
    def _compiled(self) -> tuple[tuple[int, Any], ...]:
        return tuple(self._patterns())

    def classify(self, chars: str) -> np.ndarray:
        """The class byte of each character of `chars`."""
        codes = np.frombuffer(chars.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        out = np.zeros(len(chars), dtype=np.uint8)
        for bit, pattern in self._compiled:
            # every pattern matches one character: replacing each match by a marker keeps positions,
            # and one `sub` call is far faster than a Python step per match
            marked = np.frombuffer(pattern.sub(_MARK, chars).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            hits = (marked == ord(_MARK)) & ((codes != ord(_MARK)) | bool(pattern.match(_MARK)))
            out[hits] |= bit
        return out

    @cached_property
    def table(self) -> np.ndarray:
        """The class byte of every BMP code point (built once per process, about 0.1 s)."""
        return self.classify(np.arange(BMP, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass"))

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """The class byte of each code point of `codes` (a uint32 array)."""
        astral = codes >= BMP
        if not astral.any():
            return self.table[codes]
        out = self.table[np.where(astral, 0, codes)]
        found, where = np.unique(codes[astral], return_inverse=True)  # few distinct astral characters
        out[astral] = self.classify(found.astype("<u4").tobytes().decode("utf-32-le"))[where]
        return out
