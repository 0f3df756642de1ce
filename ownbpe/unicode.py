"""The characters tiktoken reads by an older Unicode than `regex` does, and reading text as tiktoken.

Unlike `ownbpe.patterns` (the split patterns and their safe cuts) and `ownbpe.fast.pretokenize`
(faster twins of the patterns), this module holds only the difference between two Unicode
versions and the one way around it, with nothing but the stdlib `re`: code that must split text
exactly as tiktoken does (the fast path, and tokenprism's construction-free encoder for short
texts) imports it without paying for `regex` or the twins.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Callable

# The characters Unicode 17.0 added as letters, numbers or marks, as ranges of code points.
# `regex` 2025.10 and later follow Unicode 17.0 and put them in `\p{L}`, `\p{N}` or `\p{M}`;
# tiktoken 0.14's Rust tables follow 16.0, where they are unassigned, so it splits them like
# punctuation. The built-in patterns read them as tiktoken does (`findall`, `pretokenizer`):
# the BMP twins leave them out of their classes, and other text is matched with each of them
# replaced by `UNASSIGNED`. Found by asking tiktoken 0.14 and regex 2026.11.19 about every
# character (17,559 in all, in 60 ranges; the tests check the list against the installed
# tiktoken). With a `regex` of Unicode 16.0 or older the list changes nothing.
NEWER_THAN_TIKTOKEN = (
    (0x0558, 0x0558), (0x058B, 0x058C), (0x05C8, 0x05C9), (0x088F, 0x088F), (0x0B53, 0x0B54),
    (0x0C5C, 0x0C5C), (0x0CDC, 0x0CDC), (0x1ACF, 0x1AF0), (0x208F, 0x208F), (0x209D, 0x209F),
    (0xA7CE, 0xA7CF), (0xA7D2, 0xA7D2), (0xA7D4, 0xA7D4), (0xA7DD, 0xA7DD), (0xA7E2, 0xA7E2),
    (0xA7F1, 0xA7F1), (0xAB6C, 0xAB6D), (0x107BB, 0x107BF), (0x10940, 0x10959), (0x10EC5, 0x10EC7),
    (0x10ECB, 0x10ECF), (0x10ED9, 0x10EEE), (0x10EF0, 0x10EFB), (0x11B0A, 0x11B0A), (0x11B60, 0x11B67),
    (0x11DB0, 0x11DDB), (0x11DE0, 0x11DE9), (0x11DF0, 0x11DF1), (0x1246F, 0x1246F), (0x12475, 0x1247F),
    (0x12550, 0x12686), (0x16EA0, 0x16EB8), (0x16EBB, 0x16ED3), (0x16FF2, 0x16FF6), (0x187F8, 0x187FF),
    (0x18CD6, 0x18CDA), (0x18D09, 0x18D20), (0x18D80, 0x18DF2), (0x18E00, 0x19191), (0x191A0, 0x191D2),
    (0x1B123, 0x1B128), (0x1B168, 0x1B168), (0x1D127, 0x1D128), (0x1D250, 0x1D252), (0x1D25B, 0x1D25C),
    (0x1D25F, 0x1D25F), (0x1D280, 0x1D281), (0x1D6A6, 0x1D6A6), (0x1DF1F, 0x1DF24), (0x1DF2B, 0x1DF81),
    (0x1DF90, 0x1DF96), (0x1DFCD, 0x1DFFF), (0x1E6C0, 0x1E6DE), (0x1E6E0, 0x1E6F5), (0x1E6FE, 0x1E6FF),
    (0x2B73A, 0x2B73F), (0x2B81E, 0x2B81E), (0x2CEA2, 0x2CEAD), (0x323B0, 0x33479), (0x3D000, 0x3FC3F),
)
# What those characters become before matching: a private-use character, which is, like an
# unassigned one, in none of the classes the patterns use (letters, numbers, marks, spaces).
UNASSIGNED = "\ue000"
NEWER = re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in NEWER_THAN_TIKTOKEN) + "]")


def has_newer(text: str) -> bool:
    """True when `text` holds a character that tiktoken and `regex` read differently.

    >>> has_newer("plain text, Grüße"), has_newer("\U000323b0")
    (False, True)
    """
    return not text.isascii() and NEWER.search(text) is not None


def as_tiktoken_reads(find: Callable[[str], list[str]], text: str) -> list[str]:
    """`find(text)` as tiktoken reads `text`: the characters newer than its tables unassigned.

    `find` is the findall of a pattern that matches every character (each built-in one has an
    alternative for every class), so the pre-tokens follow each other without gaps and can be
    cut from `text` itself at the lengths found in the masked copy.
    """
    if not NEWER.search(text):
        return find(text)
    ends = list(accumulate(map(len, find(NEWER.sub(UNASSIGNED, text)))))
    return list(map(text.__getitem__, map(slice, [0, *ends[:-1]], ends)))
