"""Grapheme clusters that begin with a character of a script written without spaces, found in numpy.

`words` counts the words of Thai, Lao, Khmer, Myanmar and Tibetan text from their extended
grapheme clusters: the matches of `(?=[those scripts])\\X` (the `regex` module), scanning each
line. Asking `regex` for them costs more than tokenizing the same text (docs/performance.md);
this module finds the same positions with array passes (a test compares the two on any
text). It follows the Unicode rules as `regex` implements them, with its own property tables:

A match starts at a character of those scripts (U) that the scan reaches, and runs to the next
cluster boundary. A character *joins* the one before it (no boundary) when it is Extend, ZWJ or
SpacingMark (GB9, GB9a), an Indic conjunct consonant right after a run of conjunct extenders
holding a linker (GB9c; `regex` does not ask for a consonant before the run), or a pictograph
after pictograph Extend* ZWJ (GB11); `regex` reads these contexts in the text before a match
too. Hence, over each run of joining characters after a non-joining one (its
base), the scan counts:

* the base, if it is U (its cluster takes the whole run);
* else one cluster if the run holds any U character (the first one starts it; the rest join it).

The other rules never let a cluster that began with U go on (Prepend, Hangul and regional
indicators join only characters that no such cluster holds), and a line break is never joined,
so lines may be counted together.
"""

from __future__ import annotations

import numpy as np
import regex

from .charclass import CharClasses

UNSPACED = r"\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}"
_U, _JOIN, _EXTEND, _ZWJ, _PICT, _CONS, _LINK, _CEXT = 1, 2, 4, 8, 16, 32, 64, 128
_CLASSES = CharClasses(lambda: (
    (_U, regex.compile(rf"[{UNSPACED}]")),
    (_JOIN, regex.compile(r"[\p{GCB=Extend}\p{GCB=ZWJ}\p{GCB=SpacingMark}]")),
    (_EXTEND, regex.compile(r"\p{GCB=Extend}")), (_ZWJ, regex.compile(r"\p{GCB=ZWJ}")),
    (_PICT, regex.compile(r"\p{Extended_Pictographic}")), (_CONS, regex.compile(r"\p{InCB=Consonant}")),
    (_LINK, regex.compile(r"\p{InCB=Linker}")), (_CEXT, regex.compile(r"\p{InCB=Extend}"))))


def _last_before(positions_ok: np.ndarray) -> np.ndarray:
    """For each position i, the last position j < i where `positions_ok[j]` (-1 if none)."""
    last = np.maximum.accumulate(np.where(positions_ok, np.arange(len(positions_ok)), -1))
    return np.concatenate([[-1], last])[: len(last)]


def _joins(c: np.ndarray) -> np.ndarray:
    """Whether each character joins the one before it (see the module docstring)."""
    join = (c & _JOIN) != 0
    cons, link = (c & _CONS) != 0, (c & _LINK) != 0
    if cons.any() and link.any():  # GB9c, as `regex` has it: [extend|linker]* linker [extend|linker]* x consonant
        before = _last_before((c & (_LINK | _CEXT)) == 0)  # the last character before the run of extend/linker
        links = np.concatenate([[0], np.cumsum(link)])  # links[k]: linkers before position k
        i = np.flatnonzero(cons)
        join[i[links[i] - links[before[i] + 1] > 0]] = True
    pict, zwj = (c & _PICT) != 0, (c & _ZWJ) != 0
    if pict.any() and zwj.any():  # GB11: pictograph Extend* ZWJ x pictograph
        before = _last_before((c & _EXTEND) == 0)
        i = np.flatnonzero(pict[1:] & zwj[:-1]) + 1  # a pictograph right after a ZWJ
        b = before[i - 1]
        join[i[(b >= 0) & pict[np.maximum(b, 0)]]] = True
    return join


def cluster_starts(codes: np.ndarray) -> np.ndarray:
    """Positions in `codes` (uint32 code points) where scanning for `(?=[unspaced])\\X` starts a match.

    >>> cluster_starts(np.array([ord(c) for c in "ภาษา x ไทย"], dtype=np.uint32)).tolist()
    [0, 1, 2, 3, 7, 8, 9]
    >>> cluster_starts(np.array([ord(c) for c in "ខ្មែរ"], dtype=np.uint32)).tolist()  # coeng joins the consonants
    [0, 4]
    """
    c = _CLASSES.lookup(codes)
    u = (c & _U) != 0
    join = _joins(c)
    bases = u & ~join  # U characters that start a run: each starts a cluster
    in_run = np.flatnonzero(u & join)  # U characters inside runs: the first of a run after a non-U base does
    if not len(in_run):
        return np.flatnonzero(bases)
    base = _last_before(~join)[in_run]
    # the last position j < i that does not join; i itself joins, so that is its run's base
    first = np.concatenate([[True], base[1:] != base[:-1]])
    bases[in_run[first & ((base < 0) | ~u[np.maximum(base, 0)])]] = True
    return np.flatnonzero(bases)
