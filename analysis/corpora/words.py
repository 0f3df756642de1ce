"""Sizes of texts: characters, UTF-8 bytes and words, for a whole batch in a few numpy passes.

Unlike `sample.detect_script` (one text at a time) this module never loops over texts in
Python: a batch is joined, each character is looked up in tables of character classes, and the
counts of every text come out of array operations. A chunk of a million short JSON lines costs
the same few passes as one long file.

Words are counted so that `tokens_per_word` means something for scripts written without spaces:

- spaced scripts (Latin, Cyrillic, Arabic, Devanagari, Hangul, ...): a word is a run of
  non-space characters holding at least one letter, digit or underscore ("--" is no word,
  "don't" and "x=1" are one);
- Han, Hiragana and Katakana: every character is a word (the usual convention for Chinese
  and Japanese counts, as with "characters" in CJK word limits);
- Thai, Lao, Khmer, Myanmar and Tibetan (no spaces between words): the number of extended
  grapheme clusters divided by 3, rounded half up per text: an approximation of word length in
  these scripts that needs no dictionary segmenter. Treat their tokens-per-word as indicative
  only.

How, exactly (a test compares it with a direct regular-expression reading of these rules):

- No word spans a line break, so each line is counted on its own. A line holding no
  ideographic or unspaced character (a "plain" line: nearly every line of most corpora) uses
  `str.isspace` for spaces and `re`'s \\w (`str.isalnum()` or "_") for word characters.
- The other lines use the `regex` module's Unicode properties: \\s, \\w, and the scripts
  above, which end a word and are counted apart.
- Grapheme clusters are `regex`'s \\X, found with array passes by `graphemes` (a test
  compares the two), on the lines that hold such a script.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from itertools import compress

import numpy as np
import regex

from .charclass import CharClasses
from .graphemes import UNSPACED as _UNSPACED, cluster_starts

_IDEOGRAPHIC = r"\p{Han}\p{Hiragana}\p{Katakana}"
_NO_SPACES = _IDEOGRAPHIC + _UNSPACED
GRAPHEMES_PER_WORD = 3
# A line holding any of these may hold an ideographic or unspaced character: a superset of
# them (code point ranges), plus every astral code point. Tests check the superset property.
_MAYBE_NO_SPACES = re.compile(
    "[\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029"
    "\u3038-\u303b\u3040-\u30ff\u31f0-\u31ff\u32d0-\u3357\u3400-\u4dbf\u4e00-\u9fff\ua9e0-\ua9ff"
    "\uaa60-\uaa7f\uf900-\ufaff\uff66-\uff9f\U00010000-\U0010ffff]")
# The same for the unspaced scripts alone (Myanmar Extended-C, U+116D0.., is astral).
_UNSPACED_GATE = re.compile("[\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\ua9e0-\ua9ff\uaa60-\uaa7f"
                            "\U000116d0-\U000116ff]")

# Character classes: bits of one byte per code point.
# plain lines (`str`/`re`):
_SPACE, _WORD, _GATE, _UGATE = 1, 2, 4, 8
# other lines (`regex`, V1): \s, \w that is not ideographic/unspaced, ideographic/unspaced, ideographic
_RSPACE, _RWORD, _NO, _IDEO = 16, 32, 64, 128
_UTF8 = operator.methodcaller("encode", "utf-8", "surrogatepass")
# A batch is measured in parts of about this many characters (the arrays take ~40 bytes a character).
PART_CHARS = 1_000_000


_CLASSES = CharClasses(lambda: (
    (_SPACE, re.compile(r"\s")), (_WORD, re.compile(r"\w")), (_GATE, _MAYBE_NO_SPACES), (_UGATE, _UNSPACED_GATE),
    (_RSPACE, regex.compile(r"\s", flags=regex.V1)), (_RWORD, regex.compile(rf"[\w--[{_NO_SPACES}]]", flags=regex.V1)),
    (_NO, regex.compile(rf"[{_NO_SPACES}]")), (_IDEO, regex.compile(rf"[{_IDEOGRAPHIC}]"))))
_classes = _CLASSES.lookup


def _runs_with(separator: np.ndarray, member: np.ndarray) -> np.ndarray:
    """One position in each maximal run of non-separators that holds a member: its first member.

    `member` must never be a separator (the class tables make word characters never spaces).
    With the other characters left out, a run's members are one unbroken stretch, so its first
    member is a member whose predecessor is a separator (or nothing): no running count needed.
    """
    kept = np.flatnonzero(separator | member)
    is_member = member[kept]
    first = is_member.copy()
    first[1:] &= ~is_member[:-1]
    return kept[first]


def _owner(text_starts: np.ndarray, positions: np.ndarray, n_texts: int) -> np.ndarray:
    """How many of `positions` fall in each text."""
    return np.bincount(np.searchsorted(text_starts, positions, side="right") - 1, minlength=n_texts)


def _part_sizes(texts: Sequence[str], lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(UTF-8 bytes, words) of each text of one part: its ASCII texts and the others apart."""
    ascii = np.fromiter(map(str.isascii, texts), dtype=bool, count=len(texts))  # a flag per text, no scan
    if ascii.all():
        return _ascii_sizes(texts, lengths)
    if not ascii.any():
        return _sizes(texts, lengths)
    n_bytes, words = np.empty(len(texts), np.int64), np.empty(len(texts), np.int64)
    for sizes, which in ((_ascii_sizes, ascii), (_sizes, ~ascii)):
        n_bytes[which], words[which] = sizes(list(compress(texts, which)), lengths[which])
    return n_bytes, words


def _joined(texts: Sequence[str], lengths: np.ndarray) -> tuple[str, np.ndarray]:
    """The texts joined by "\\n" (no word spans it), and where each one starts in the join."""
    return "\n".join(texts), np.cumsum(lengths + 1) - (lengths + 1)


def _ascii_sizes(texts: Sequence[str], lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_sizes` of ASCII texts: every line is plain, a byte a character (about half the time)."""
    joined, text_starts = _joined(texts, lengths)
    cls = np.take(_CLASSES.table[:128], np.frombuffer(joined.encode("ascii"), dtype=np.uint8))
    return lengths.copy(), _owner(text_starts, _runs_with((cls & _SPACE) != 0, (cls & _WORD) != 0), len(texts))


def _sizes(texts: Sequence[str], lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(UTF-8 bytes, words) of each of `texts`."""
    n = len(texts)
    joined, text_starts = _joined(texts, lengths)
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    # a lone surrogate counts 3 bytes, as the U+FFFD the adapters put in its place
    n_bytes = np.fromiter(map(len, map(_UTF8, texts)), dtype=np.int64, count=n)
    cls = _classes(codes)
    newline = codes == 10
    line = np.cumsum(newline, dtype=np.int32 if len(codes) < 2**31 else np.int64)  # ("\n" opens its line)
    n_lines = int(line[-1]) + 1 if len(line) else 0
    other = np.zeros(n_lines, dtype=bool)  # lines with ideographic/unspaced characters
    other[line[(cls & _GATE) != 0]] = True
    # plain lines: words by `str.isspace` and `re`'s \w (one position per word, on its line)
    word_at = _runs_with((cls & _SPACE) != 0, (cls & _WORD) != 0)
    words = _owner(text_starts, word_at[~other[line[word_at]]], n)
    if other.any():
        on_other = other[line]
        where = np.flatnonzero(on_other)
        sub = cls[where]
        # a line's own "\n" is on it, so lines stay apart in `sub`
        separator = (sub & (_RSPACE | _NO)) != 0
        words += _owner(text_starts, where[_runs_with(separator, (sub & _RWORD) != 0)], n)
        words += _owner(text_starts, where[(sub & _IDEO) != 0], n)
        if (sub & _UGATE).any():  # grapheme clusters of unspaced scripts: never across a line break
            graphemes = _owner(text_starts, where[cluster_starts(codes[where])], n)
            # round half up per text (a lone Thai syllable still counts as one word): int(g / k + 0.5)
            words += (2 * graphemes + GRAPHEMES_PER_WORD) // (2 * GRAPHEMES_PER_WORD)
    return n_bytes, words


def text_sizes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(characters, UTF-8 bytes, words) of each text, as int64 arrays.

    Code points count as characters; a lone surrogate counts 3 bytes, like the U+FFFD that
    every adapter encodes in its place. The batch is measured in parts of about `PART_CHARS`
    characters, so memory stays bounded (a single longer text is one part).

    >>> [a.tolist() for a in text_sizes(["héllo wörld", "", "東京 Tower", "ภาษาไทย"])]
    [[11, 0, 8, 7], [13, 0, 12, 21], [2, 0, 3, 2]]
    """
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    # parts of about PART_CHARS characters: a new part where the running size passes a multiple
    part = (np.cumsum(lengths) - lengths) // PART_CHARS
    cuts = np.flatnonzero(np.diff(part)) + 1
    n_bytes, words = np.zeros(len(texts), np.int64), np.zeros(len(texts), np.int64)
    for start, stop in zip([0, *cuts.tolist()], [*cuts.tolist(), len(texts)]):
        if stop > start:
            n_bytes[start:stop], words[start:stop] = _part_sizes(texts[start:stop], lengths[start:stop])
    return lengths, n_bytes, words


def count_words(text: str) -> int:
    """Words in `text`, for any script (the rules are in the module docstring).

    >>> count_words("Hello, world -- x=1"), count_words("東京は大きい"), count_words("ภาษาไทย")
    (3, 6, 2)
    """
    return int(text_sizes([text])[2][0])
