"""Faster pre-tokenization of the built-in patterns, with tiktoken's Unicode tables.

Unlike `ownbpe.patterns` (the three patterns and their safe cuts, which the plain path and
streaming use), this module only makes `findall` of a built-in pattern faster and reads text as
tiktoken does:

* **twins**: ASCII text goes to an ASCII twin of the pattern for the stdlib `re`, text of the
  Basic Multilingual Plane to a BMP twin (the classes spelled out as code points), the rest to
  `regex`; each twin finds exactly what its original finds on such text;
* **Unicode masking**: the characters Unicode 17.0 added (which `regex` 2025.10+ reads as letters
  and tiktoken 0.14 does not) are read as unassigned (`NEWER_THAN_TIKTOKEN`);
* **ASCII runs**: text is cut at safe cuts into ASCII and non-ASCII parts, so that most of
  mostly-ASCII text reaches the ASCII twin.
"""

from __future__ import annotations

import functools
import re
from itertools import compress
from operator import not_
from typing import Callable, Iterator

import regex

from ..userpattern import BoundedPattern
from ..unicode import NEWER as _NEWER, NEWER_THAN_TIKTOKEN as NEWER_THAN_TIKTOKEN, as_tiktoken_reads
from ..patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, _next_safe_cut, is_builtin, last_safe_cut

# ASCII twins of the three patterns for the stdlib `re`, faster than `regex` on the same text: on text that is all ASCII, `\p{L}` is `[A-Za-z]`, `\p{Lu}` is `[A-Z]`, `\p{Ll}` is
# `[a-z]`, `\p{N}` is `[0-9]`, `\p{Lt}`, `\p{Lm}`, `\p{Lo}` and `\p{M}` match nothing, and `\s` is
# the six characters below, so each twin finds exactly what its original finds (tested on
# random ASCII text and the standard library's sources).
_A_WS = r"\t\n\x0b\x0c\r "  # the ASCII part of `_WS` (a test checks it)
_ASCII_TWINS = {
    GPT2_PATTERN: rf"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]++| ?[0-9]++| ?[^{_A_WS}A-Za-z0-9]++|[{_A_WS}]++$"""
    rf"""|[{_A_WS}]+(?![^{_A_WS}])|[{_A_WS}]""",
    CL100K_PATTERN: rf"""'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{{1,3}}+| ?[^{_A_WS}A-Za-z0-9]++[\r\n]*+"""
    rf"""|[{_A_WS}]++$|(?:[\t\x0b\x0c ]*+[\r\n])++|[{_A_WS}]+(?![^{_A_WS}])|[{_A_WS}]""",
    # Possessive quantifiers are exact here: what follows each possessive run either cannot
    # match what the run took ([A-Z] then [a-z], a non-letter prefix then a letter) or is
    # optional and ends the match, so the greedy match never needed to give characters back.
    # The two word alternatives (`P? U* L+ C?` then `P? U+ L* C?`) are one here: both are
    # `P? U^a L^b C?` with maximal runs, the first when b > 0 and the second when a > 0, so
    # together they match exactly when a + b > 0. A lowercase start is tried first (the two
    # branches start with different letters, so their order changes nothing) and the
    # contractions are spelled as case classes: `re` no longer scans a word twice nor enters
    # a case-insensitive group.
    O200K_PATTERN: "|".join(
        [
            r"""[^\r\nA-Za-z0-9]?+(?:[a-z]++|[A-Z]++[a-z]*+)(?:'(?:[sStTmMdD]|[rRvV][eE]|[lL][lL]))?+""",
            r"""[0-9]{1,3}+""",
            rf""" ?[^{_A_WS}A-Za-z0-9]++[\r\n/]*+""",
            # `\s*[\r\n]+` ends at the last line break of a whitespace run; written as groups
            # that each end in line breaks, `re` gets there without giving back one character
            # at a time (code and prose indent and break lines often)
            r"""(?:[\t\x0b\x0c ]*+[\r\n]++)++""",
            rf"""[{_A_WS}]+(?![^{_A_WS}])""",
            rf"""[{_A_WS}]+""",
        ]
    ),
}


# BMP twins of the three patterns for `re`, several times as fast as `regex` on text of
# other scripts. Each is its original with every class
# spelled out as the code points of the Basic Multilingual Plane that `regex` puts in it
# (`_bmp_classes`, read from `regex` itself, so both agree on every character of such text),
# and the case-insensitive contractions as classes of the letters `regex` folds together.
# Text with characters beyond the BMP (emoji, some CJK) goes to `regex`.
_BMP_TWINS = {
    GPT2_PATTERN: r"""'(?:[sdmt]|ll|ve|re)| ?[{L}]++| ?[{N}]++| ?[^{WS}{L}{N}]++|[{WS}]++$|[{WS}]+(?![^{WS}])|[{WS}]""",
    CL100K_PATTERN: r"""'(?:[{s}{d}{m}{t}]|[{l}][{l}]|[{v}][{e}]|[{r}][{e}])|[^\r\n{L}{N}]?+[{L}]++|[{N}]{{1,3}}+"""
    r"""| ?[^{WS}{L}{N}]++[\r\n]*+|[{WS}]++$|[{WS}]*[\r\n]|[{WS}]+(?![^{WS}])|[{WS}]""",
    O200K_PATTERN: "|".join(
        [
            r"""[^\r\n{L}{N}]?[{Lu}{Lt}{Lm}{Lo}{M}]*[{Ll}{Lm}{Lo}{M}]+(?:'(?:[{s}]|[{t}]|[{r}][{e}]|[{v}][{e}]|[{m}]|[{l}][{l}]|[{d}]))?""",
            r"""[^\r\n{L}{N}]?[{Lu}{Lt}{Lm}{Lo}{M}]+[{Ll}{Lm}{Lo}{M}]*(?:'(?:[{s}]|[{t}]|[{r}][{e}]|[{v}][{e}]|[{m}]|[{l}][{l}]|[{d}]))?""",
            r"""[{N}]{{1,3}}""",
            r""" ?[^{WS}{L}{N}]+[\r\n/]*""",
            r"""[{WS}]*[\r\n]+""",
            r"""[{WS}]+(?![^{WS}])""",
            r"""[{WS}]+""",
        ]
    ),
}
_BEYOND_BMP = re.compile("[\U00010000-\U0010ffff]")

# The characters newer than tiktoken's Unicode tables and how they are read: see `ownbpe.unicode`.


@functools.cache
def _bmp_classes() -> dict[str, str]:
    """The BMP members of each class the patterns use, as `re` class contents (ranges).

    Read once per process from `regex`: the classes `\\p{L}`, `\\p{N}`, `\\s` and the
    letter categories, and for each contraction letter the characters `(?i:...)` matches.
    """
    bmp = _NEWER.sub("", "".join(map(chr, range(0x10000))))  # as tiktoken reads them: in no class
    classes = {name: rf"\p{{{name}}}" for name in ("L", "N", "Lu", "Lt", "Lm", "Lo", "Ll", "M")}
    classes["WS"] = r"\s"
    classes.update((c, f"(?i:{c})") for c in "sdmtlver")
    return {name: _as_ranges(regex.findall(cls, bmp)) for name, cls in classes.items()}


def _as_ranges(chars: list[str]) -> str:
    # Sorted characters -> `re` class contents: runs of consecutive code points as ranges.
    out = []
    start = prev = -2
    for code in map(ord, chars):
        if code != prev + 1:
            if start >= 0:
                out.append(re.escape(chr(start)) + ("-" + re.escape(chr(prev)) if prev > start else ""))
            start = code
        prev = code
    if start >= 0:
        out.append(re.escape(chr(start)) + ("-" + re.escape(chr(prev)) if prev > start else ""))
    return "".join(out)


def findall(pattern: str, text: str) -> list[str]:
    """`regex.findall(pattern, text)`, except that the built-in patterns read the characters
    newer than tiktoken's Unicode tables as unassigned, as tiktoken does (`NEWER_THAN_TIKTOKEN`).

    >>> findall(GPT2_PATTERN, "Hello, wörld!")
    ['Hello', ',', ' wörld', '!']
    >>> findall(O200K_PATTERN, "\U000323b0:A")  # CJK of Unicode 17.0 (`regex` 2025.10+ alone: 2 + ':A')
    ['\U000323b0:', 'A']
    """
    if not is_builtin(pattern):
        return _bounded(pattern).findall(text)
    return as_tiktoken_reads(regex.compile(pattern).findall, text)


_bounded = functools.lru_cache(maxsize=16)(BoundedPattern)  # the checks once per pattern


def pretokenizer(pattern: str) -> Callable[[str], list[str]]:
    """`findall` for `pattern`: for a built-in pattern, ASCII text goes to its faster `re` twin,
    other text of the BMP to its BMP twin, and the characters newer than tiktoken's Unicode
    tables are read as tiktoken reads them (see `findall`).

    >>> pretokenizer(GPT2_PATTERN)("Hello, wörld!")
    ['Hello', ',', ' wörld', '!']
    """
    if not is_builtin(pattern):  # a user's pattern: checked, and bounded in time
        return _bounded(pattern).findall
    full = regex.compile(pattern)
    twin = _ASCII_TWINS.get(pattern)
    if twin is None:
        return full.findall
    return _AsciiFirst(re.compile(twin), pattern, full)


@functools.cache
def _bmp_twin(pattern: str) -> re.Pattern:
    # Reading the classes from `regex` takes tens of milliseconds: done by the first text that
    # is not ASCII, not by every load of a model that may only ever see ASCII.
    return re.compile(_BMP_TWINS[pattern].format_map(_bmp_classes()))


class _AsciiFirst:
    """`findall` that sends ASCII text to the ASCII twin, other text of the BMP to the BMP twin
    (compiled on first use), and the rest to `regex`. A class, not a closure, so that it pickles
    into the worker processes of parallel training."""

    def __init__(self, ascii_re: re.Pattern, pattern: str, full_re) -> None:
        self._ascii_findall = ascii_re.findall
        self._pattern = pattern
        self._bmp_findall: Callable[[str], list[str]] | None = None
        self._findall = full_re.findall

    def __call__(self, text: str) -> list[str]:
        # str.isascii() reads a flag: it costs nothing whatever the length.
        if text.isascii():
            return self._ascii_findall(text)
        if _BEYOND_BMP.search(text):
            return as_tiktoken_reads(self._findall, text)
        if self._bmp_findall is None:
            self._bmp_findall = _bmp_twin(self._pattern).findall
        return self._bmp_findall(text)  # its classes leave out the newer characters

    def __reduce__(self):
        return (_AsciiFirst, (self._ascii_findall.__self__, self._pattern, self._findall.__self__))


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# Non-ASCII runs with ASCII gaps of at most 63 characters inside them (possessive: a longer
# gap never helps). Used by `ascii_runs(text, join_gaps=True)`. A shorter limit leaves text of
# other scripts in more, smaller parts; a longer one sends more of the prose around a few accents
# to `regex` instead of the ASCII twin (both measured, see docs/ownbpe-fast-path.md).
_NON_ASCII_JOINED = re.compile(r"[^\x00-\x7f]++(?:[\x00-\x7f]{1,63}+[^\x00-\x7f]++)*+")
# Block size for finding non-ASCII stretches (see `_non_ascii_matches`); above the 63-character
# gaps `_NON_ASCII_JOINED` bridges, so no match reaches across an all-ASCII block. Small blocks
# leave the regex less ASCII to scan around scattered accents; text of other scripts is mixed
# in every block, whatever their size.
ASCII_BLOCK = 256

def ascii_runs(text: str, join_gaps: bool = False) -> list[tuple[str, bool]]:
    """Cut `text` at safe cuts (kinds A and B) into parts that are all ASCII or not.

    Returns `(part, is_ascii)` in order; `"".join` of the parts gives `text` back. Each
    non-ASCII stretch is widened to the nearest safe cuts around it, so every part pre-tokenizes
    on its own as it does in `text`. Only valid for the built-in patterns.

    With `join_gaps`, ASCII stretches shorter than 64 characters between two non-ASCII ones
    stay inside the non-ASCII part: in text of other scripts (spaces and punctuation between
    words) one part per word would cost more in per-part overhead than the faster ASCII
    pattern saves. And text with a non-ASCII character in more than half of its
    `ASCII_BLOCK`-character blocks is one part: there the BMP twin beats cutting (accented
    languages and other scripts have such blocks almost everywhere, English prose rarely).

    >>> ascii_runs("plain text, then café au lait and more")
    [('plain text, then', True), (' café', False), (' au lait and more', True)]
    >>> text = "plain text, " * 30 + "then café au lait and crème"
    >>> [(len(part), is_ascii) for part, is_ascii in ascii_runs(text, join_gaps=True)]
    [(364, True), (23, False)]
    >>> ascii_runs("café au lait and crème", join_gaps=True)  # one block, and it holds é
    [('café au lait and crème', False)]
    """
    mixed = _mixed_blocks(text)
    blocks = -(-len(text) // ASCII_BLOCK)
    if join_gaps and len(mixed) * 2 > blocks:
        return [(text, False)]
    out = []
    pos = 0
    for m in _non_ascii_matches(_NON_ASCII_JOINED if join_gaps else _NON_ASCII, text, mixed):
        first, stop = m.span()
        if stop <= pos:  # already inside the previous non-ASCII part
            continue
        start = pos if first < pos else max(last_safe_cut(text, pos, first + 1), pos)
        end = _next_safe_cut(text, stop)
        if start > pos:
            out.append((text[pos:start], True))
        out.append((text[start:end], False))
        pos = end
    if pos < len(text):
        out.append((text[pos:], True))
    return out


def _mixed_blocks(text: str) -> list[int]:
    """Where the `ASCII_BLOCK`-character blocks of `text` that hold a non-ASCII character start.

    `str.isascii()` on each block's copy (a memory copy and a flag each), in C-level passes.
    """
    starts = range(0, len(text), ASCII_BLOCK)
    copies = map(text.__getitem__, map(slice, starts, range(ASCII_BLOCK, len(text) + ASCII_BLOCK, ASCII_BLOCK)))
    return list(compress(starts, map(not_, map(str.isascii, copies))))


def _non_ascii_matches(pattern: re.Pattern, text: str, mixed: list[int]) -> Iterator[re.Match]:
    """`pattern.finditer(text)` for a pattern whose matches start and end with non-ASCII
    characters, searching only the stretches of consecutive `mixed` blocks.

    Mostly-ASCII text (English prose, code) is thus scanned by block copies instead of the
    regex engine testing every character. Exact: no match
    can start or end in an all-ASCII block, nor reach across one (its ASCII gaps are shorter
    than a block), and the patterns look neither behind nor ahead, so each stretch finds on its
    own what the whole text finds there.
    """
    first = prev = -1  # the first and the last block of the current stretch
    for block in mixed:
        if block != prev + ASCII_BLOCK:
            if first >= 0:
                yield from pattern.finditer(text, first, prev + ASCII_BLOCK)
            first = block
        prev = block
    if first >= 0:
        yield from pattern.finditer(text, first, prev + ASCII_BLOCK)


