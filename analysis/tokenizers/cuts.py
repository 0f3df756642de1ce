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

from collections.abc import Iterable, Iterator, Sequence
from itertools import compress
from operator import itemgetter, not_, or_

from typing import TYPE_CHECKING

from ownbpe import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN

from ..memo import Shelf
from .patterns import CUT_SAFE

CHUNK_CHARS = 32_768
# Parts encoded per call: a few MB of text, so a batch's ids and HF encodings stay small.
PARTS_PER_BATCH = 64

LETTER_SPACE = r"(?<=\p{L})(?=\s)"
NEWLINE_NONSPACE = r"(?<=\n)(?=\S)"

if TYPE_CHECKING:  # imported by the first long text (20 ms): listing and short texts never pay for it
    import regex

# the compiled cut patterns: a process resource (`memo.Shelf`), compiled once and shared by every run
_COMPILED: Shelf[str, "regex.Pattern"] = Shelf("compiled cut points")


def compiled(points: str) -> "regex.Pattern":
    """The compiled pattern of cut points `points` (compiled once)."""
    return _cutter(points)


def _cutter(points: str) -> "regex.Pattern":
    return _COMPILED.get(points, _compile)


def _compile(points: str) -> "regex.Pattern":
    import regex

    return regex.compile(points)


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


# tiktoken-family patterns for which LETTER_SPACE is proven above (stated beside the patterns
# themselves); other patterns are never cut.
SAFE_PATTERNS: frozenset[str] = CUT_SAFE


def is_long(text: str) -> bool:
    return len(text) > 2 * CHUNK_CHARS


# -- joining short texts ---------------------------------------------------------------------
# The other way round: many short texts joined into one, so that a total of tokens costs one
# encoder call per ~64k characters instead of one per text (JSON lines of 50 characters spend
# about a tenth of their time in per-call overhead and building lists of ids).
#
# Why the total does not change. Put JOIN = " \n" between two texts A and B where A's last
# character X and B's first character Y are not whitespace, under the GPT-2, cl100k or o200k
# pattern (the three below; Qwen and Llama 3 have other alternatives and are not proven here):
#
# * X's pre-token ends at X. Every alternative that can take X stops before a space: letter
#   runs (and their 's/'ll suffixes), digit runs, and punctuation runs, whose optional tail is
#   only [\r\n] (cl100k), [\r\n/] (o200k) or nothing (GPT-2). The whitespace alternatives
#   cannot start at X. A match ending at X is the one found for A alone, followed by its end.
# * The separator is one fixed set of pre-tokens, whatever A and B are. At its space no
#   letter, digit or punctuation alternative matches (the optional space or symbol in front of
#   a run needs a letter or symbol after it, and "\n" is neither); cl100k and o200k then take
#   `\s*[\r\n]+`, which stops at Y: " \n". GPT-2 takes `\s+(?!\S)`, which gives back the "\n"
#   because Y is not a space: " ", then "\n" by `\s+`.
# * B's pre-tokens start at Y and are those of B alone: the patterns have no look-behind.
#
# So the tokens of A + JOIN + B are those of A, a fixed number of separator tokens, then those
# of B, and by induction for any number of texts. "Not whitespace" is tested with
# `str.isspace`, which holds for every character of Unicode's White_Space (the regex engines'
# \s) and a few more (a test checks all code points), so it only ever excludes more texts.
# A text with a whitespace edge, or an empty one, is counted on its own.
JOIN = " \n"
JOIN_PATTERNS: frozenset[str] = frozenset({GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN})
_FIRST, _LAST = itemgetter(0), itemgetter(-1)
JOIN_CHARS = 2 * CHUNK_CHARS  # a joined text stays short of `is_long`: no cut scan, bounded ids


def split_joinable(texts: Sequence[str]) -> tuple[list[str], list[str]]:
    """(texts with no whitespace at either end, the others), each in order.

    >>> split_joinable(["a b", " a", "b\\n", "", "é"])
    (['a b', 'é'], [' a', 'b\\n', ''])
    """
    if not all(texts):  # an empty text has no edge characters
        full = list(compress(texts, texts))
        joinable, rest = split_joinable(full)
        return joinable, rest + [t for t in texts if not t]
    bad = list(map(or_, map(str.isspace, map(_FIRST, texts)), map(str.isspace, map(_LAST, texts))))
    if not any(bad):
        return list(texts), []
    return list(compress(texts, map(not_, bad))), list(compress(texts, bad))


def joined(texts: Sequence[str], max_chars: int = JOIN_CHARS) -> Iterator[tuple[str, int]]:
    """(`JOIN`.join of consecutive texts, how many texts it holds), about `max_chars` characters each.

    A text longer than `max_chars` comes alone.

    >>> list(joined(["ab", "cd", "ef"], max_chars=6))
    [('ab \\ncd', 2), ('ef', 1)]
    """
    start, size = 0, 0
    for i, text in enumerate(texts):
        if i > start and size + len(text) > max_chars:
            yield JOIN.join(texts[start:i]), i - start
            start, size = i, 0
        size += len(text) + len(JOIN)
    if start < len(texts):
        yield JOIN.join(texts[start:]), len(texts) - start
