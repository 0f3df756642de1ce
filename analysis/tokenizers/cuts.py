"""Cutting a long text into parts whose encodings, joined, equal the encoding of the whole.

Unlike the adapters (which encode), this module only finds cut points. An adapter that encodes
a text of any length in one call needs memory in proportion to it (HF tokenizers aborted on a
200 MB line); cut into parts of about `CHUNK_CHARS` characters, it needs memory for one batch
of parts at a time, and `count` never holds more than one batch of ids.

Why a cut does not change the ids. Every pipeline we cut is regex pre-tokenization followed by
BPE inside each pre-token, so the ids are unchanged when the cut falls on a pre-token boundary of
the whole text and the matches after the cut do not depend on what came before it. The patterns
(GPT-2, cl100k, o200k, Qwen, Llama 3, DeepSeek's Split sequence) have no look-behind and no
start anchor, and their `$` needs trailing whitespace, so matching the part after a boundary
from its own start finds the same matches. Two kinds of point are boundaries:

* LETTER_SPACE, between a letter (\\p{L}) and a whitespace character: every alternative of
  these patterns that can consume a letter consumes letters, marks and an optional contraction
  ('s, 'll, ...), never whitespace, so the pre-token holding the letter ends right there.
  A digit or CJK split in front (DeepSeek) only adds boundaries.
* NEWLINE_NONSPACE (DeepSeek only, as before): after a newline that is followed by a
  non-space character, since whitespace runs end at the newline and no split joins a newline
  to the character after it.

Added tokens matched in text (DeepSeek's ``<think>``) contain no whitespace and strip none, so
none can span a cut; `hf_adapter` checks that on load. A text with no such point (200 MB of
one word) is encoded in one piece, as before. The tests compare the ids of cut and uncut
encodings on every built-in corpus.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import regex

from ownbpe import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN

CHUNK_CHARS = 32_768
# Parts encoded per call: a few MB of text, so a batch's ids and HF encodings stay small.
PARTS_PER_BATCH = 64

LETTER_SPACE = r"(?<=\p{L})(?=\s)"
NEWLINE_NONSPACE = r"(?<=\n)(?=\S)"

_compiled: dict[str, regex.Pattern] = {}


def _cutter(points: str) -> regex.Pattern:
    if points not in _compiled:
        _compiled[points] = regex.compile(points)
    return _compiled[points]


def iter_long(text: str, *, points: str = LETTER_SPACE, size: int | None = None) -> Iterator[str]:
    """Yield `text` in parts of about `size` characters, cut at the first cut point after each `size`.

    Lazy: only the part being yielded is copied, so a 200 MB text is never held twice.

    >>> list(iter_long("ab cd ef", size=2))
    ['ab', ' cd', ' ef']
    >>> list(iter_long("abcdef", size=2))
    ['abcdef']
    """
    size = CHUNK_CHARS if size is None else size
    start = 0
    cut = _cutter(points)
    while len(text) - start > size:
        m = cut.search(text, start + size)
        if m is None:
            break
        yield text[start : m.start()]
        start = m.start()
    yield text[start:]


def split_long(text: str, *, points: str = LETTER_SPACE, size: int | None = None) -> list[str]:
    """`iter_long` as a list (for tests and short texts)."""
    return list(iter_long(text, points=points, size=size))


def batches(parts: Iterable[str], n: int = PARTS_PER_BATCH) -> Iterator[list[str]]:
    """`parts` in lists of `n`, produced lazily, for encoding one bounded batch at a time."""
    batch: list[str] = []
    for part in parts:
        batch.append(part)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch


# tiktoken-family patterns for which LETTER_SPACE is proven above; Qwen's and Llama 3's are
# registered from the registry (they live there), other patterns are never cut.
SAFE_PATTERNS: set[str] = {GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN}


def is_long(text: str) -> bool:
    return len(text) > 2 * CHUNK_CHARS
