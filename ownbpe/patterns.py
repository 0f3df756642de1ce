"""Pre-tokenization patterns, and where text may be cut without changing the pre-tokens.

Unlike `count`, `train` and `tokenizer`, this module knows nothing about BPE: it holds the three
regular expressions of the GPT-2 family (specification strings, identical to tiktoken's
`pat_str` of r50k/cl100k/o200k) and finds positions where cutting text provably never changes
what the pattern finds. Counting and encoding work on the *chunks* between such cuts, so a text
is pre-tokenized with a cheap regex and the expensive pattern runs once per distinct chunk;
streaming (`encode_iterable`, reading a corpus in blocks) cuts only there.

The safe cuts, and why they are safe for all three built-in patterns (`\\s` and `\\S` below are the
`regex` module's, the same as inside the patterns):

* **A** -- between a non-space character and a following whitespace character other than
  `\\r`/`\\n`. No alternative of any of the three patterns can match a non-space character
  followed by such a character within one match (letters, digits and punctuation runs all stop
  at whitespace; only cl100k/o200k's punctuation runs continue, and only into `[\\r\\n/]`), so a
  match always ends there. The text before the cut does not end in whitespace, so `\\s++$` and
  `(?!\\S)` behave the same whether the text continues or not, and none of the patterns looks
  behind, so the text after the cut is pre-tokenized the same on its own.
* **B** -- after a `\\n` that follows a non-space character and precedes a non-space character
  other than `/`: no match joins `\\n` to such a following character, and the `\\n` ends its
  pre-token whether or not text follows. The `/` is excluded because o200k's punctuation runs
  take `[\\r\\n/]*` after them: in `".\\n//"` the `\\n` and both slashes belong to the `.`.

Custom patterns get no safe cuts except special tokens: exactness first.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator

import regex

# The three patterns are strings in `split_patterns` (importing them compiles nothing).
from .split_patterns import BUILTIN_PATTERNS, CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN  # noqa: F401


# The `regex` module's `\s`, spelled out so the stdlib `re` (several times faster on simple
# patterns) can use exactly the same class: `re`'s own `\s` also matches U+001C..U+001F.
# Every Unicode White_Space character is in the BMP, so scanning it is enough.
_WS = "".join(regex.findall(r"\s", "".join(map(chr, range(0x10000)))))
_WS_CLASS = re.escape(_WS)

# One chunk = text between two consecutive cuts of kind A: optional leading whitespace, then
# non-space runs joined by whitespace runs that start with a line break (a non-space character
# followed by a line break is not a cut), then, at the very end of the text only, whitespace that
# starts with a line break. All quantifiers are possessive, so `re` never backtracks.
_CHUNK_RE = re.compile(
    rf"[{_WS_CLASS}]*+[^{_WS_CLASS}]++(?:[\r\n][{_WS_CLASS}]*+[^{_WS_CLASS}]++)*+(?:[\r\n][{_WS_CLASS}]*+)?+"
    rf"|[{_WS_CLASS}]++"
)

# Cut positions for streaming (kinds A and B), searched from the end of a buffer; and forwards.
_CUT_RE = regex.compile(r"(?<=\S)(?=[^\S\r\n])|(?<=\S\n)(?=[^\s/])", flags=regex.REVERSE)
_FORWARD_CUTS = regex.compile(r"(?<=\S)(?=[^\S\r\n])|(?<=\S\n)(?=[^\s/])")


def is_builtin(pattern: str) -> bool:
    """True if `pattern` is one of the three built-in patterns (whose safe cuts are proven).

    >>> is_builtin(GPT2_PATTERN), is_builtin(r"\\w+")
    (True, False)
    """
    return pattern in (GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN)


def chunk_text(text: str) -> list[str]:
    """Split `text` at cuts of kind A (see the module docstring); `"".join` gives `text` back.

    Only valid for the built-in patterns.

    >>> chunk_text("Hello, world.\\n  Bye  ")
    ['Hello,', ' world.\\n  Bye', '  ']
    """
    return _CHUNK_RE.findall(text)


def last_safe_cut(text: str, start: int = 0, end: int | None = None) -> int:
    """The last position in `(start, end)` where `text` may be cut (kinds A and B), or -1.

    Only valid for the built-in patterns.

    >>> last_safe_cut("one two"), last_safe_cut("one")
    (3, -1)
    """
    # The `regex` module's lookbehinds do not see before `pos`, so search from `start` itself.
    m = _CUT_RE.search(text, start, len(text) if end is None else end)
    return m.start() if m and m.start() > start else -1


def safe_blocks(text: str, size: int) -> Iterator[str]:
    """`text` in blocks of about `size` characters, cut at safe cuts (kinds A and B).

    Each block ends at the last cut before `size` characters, or, where there is none, at the
    first one after; `"".join` gives `text` back. Only valid for the built-in patterns.

    >>> list(safe_blocks("one two three four", 9))
    ['one two', ' three', ' four']
    >>> list(safe_blocks("x" * 20 + " y", 9))  # no cut in the first 9 characters
    ['xxxxxxxxxxxxxxxxxxxx', ' y']
    """
    pos = 0
    while len(text) - pos > size:
        cut = last_safe_cut(text, pos, pos + size)
        if cut < 0:
            cut = _next_safe_cut(text, pos + size)
            if cut == len(text):
                break
        yield text[pos:cut]
        pos = cut
    yield text[pos:]


def _next_safe_cut(text: str, at: int) -> int:
    # The first safe cut at or after `at`, or len(text). The `regex` module's lookbehinds see
    # from the search start on, so the search starts two characters back.
    return next((c.start() for c in _FORWARD_CUTS.finditer(text, max(at - 2, 0)) if c.start() >= at), len(text))


def stream_cut(buf: str, start: int, builtin: bool, specials: regex.Pattern | None, max_special_len: int) -> int:
    """The last position of `buf` before which nothing can change, whatever text follows; or -1.

    Used to cut a stream into pieces that encode (or count) independently: safe cuts of the
    built-in patterns (positions > `start` only, to avoid rescanning) and starts of special
    tokens, never inside a special token, and never where a special token could still be
    completed by text to come.

    >>> stream_cut("one two three", 0, True, None, 0)
    7
    """
    # A special token starting before the cut must lie wholly inside buf.
    limit = len(buf) - max(max_special_len - 1, 0) if specials is not None else len(buf)
    matches = list(specials.finditer(buf)) if specials is not None else []
    cut = last_safe_cut(buf, max(start - 2, 0), limit) if builtin and limit > 0 else -1
    # Starts of special tokens are always safe; prefer the latest safe position.
    starts = [m.start() for m in matches if 0 < m.start() <= limit]
    if starts and starts[-1] > cut:
        cut = starts[-1]
    for m in matches:  # never cut inside a special token
        if m.start() < cut < m.end():
            cut = m.start()
            break
    return cut if cut > 0 else -1


def special_alternatives(specials: Iterable[str]) -> regex.Pattern:
    """One regex matching any of the special tokens, longest first, so that a special token
    containing another one wins (both the tokenizer and the corpus counter split on it)."""
    return regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
