"""A pre-tokenization pattern given by a user: checked before use, and run with a time bound.

Unlike `patterns` (the three built-in patterns, trusted, and their safe cuts), this module
handles any other pattern, which comes from a model file or a `--pattern` flag and so may be
hostile or simply wrong. Two checks run when it is compiled:

* it must not match the empty string: `findall` steps over a character where only an empty
  match fits, so that character's bytes would be counted as no token at all (an empty pattern
  counted 52 characters as 0 tokens);
* on `PROBE`, a text of every kind of character, its matches must cover every character, for
  the same reason.

Every search then runs with a time limit of `SECONDS` plus `SECONDS_PER_MCHAR` per million
characters searched, far above what a sane pattern needs (tens of nanoseconds a character),
far below what catastrophic backtracking (`(a|a)*$` on a run of a's) takes: past it the search
stops with `PatternTimeout`, a ValueError naming the pattern.
"""

from __future__ import annotations

import regex

SECONDS = 2.0
SECONDS_PER_MCHAR = 20.0
PROBE = ("Hello, World! it's 2024-06-01: x=3.14; naïve café, Ünïcödé, 中文, 日本語, 한국어, ЖЖ, عربى, "
         "e\u0301 \t  tabs\n\nnew  lines\r\n  //code() {x++;} <|endoftext|> \u00a0\u3000 🙂👍🏽 \x00\x7f ~`$^")


class PatternTimeout(ValueError):
    """A user's pattern ran past its time limit on some text (catastrophic backtracking)."""


class BoundedPattern:
    """A compiled user pattern whose `findall` and `finditer` stop at a time limit.

    >>> BoundedPattern(r"\\w+|\\W").findall("hi there")
    ['hi', ' ', 'there']
    >>> BoundedPattern("")
    Traceback (most recent call last):
    ...
    ValueError: the pre-tokenization pattern '' matches the empty string, so characters where only an empty match fits would be dropped from the count. Fix: make every alternative consume at least one character
    """

    __slots__ = ("pattern", "_re")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        try:
            self._re = regex.compile(pattern)
        except (regex.error, TypeError) as err:
            raise ValueError(f"invalid pre-tokenization pattern {pattern!r}: {err}") from err
        check(self)

    def __reduce__(self):  # training's worker processes get the pattern, not the compiled object
        return (BoundedPattern, (self.pattern,))

    def _limit(self, text: str) -> float:
        return SECONDS + SECONDS_PER_MCHAR * len(text) / 1e6

    def _timeout(self, text: str) -> PatternTimeout:
        return PatternTimeout(
            f"the pre-tokenization pattern {_short(self.pattern)} ran for more than {self._limit(text):.1f} s on "
            f"{len(text):,} characters: it backtracks catastrophically (as `(a|a)*$` does on a run of a's). Fix: "
            "simplify the pattern (no nested or overlapping repeats), or use a built-in one")

    def findall(self, text: str, *args) -> list[str]:
        try:
            return self._re.findall(text, *args, timeout=self._limit(text))
        except TimeoutError:
            raise self._timeout(text) from None

    def finditer(self, text: str, *args):
        try:  # a list: the time limit holds over the whole search, not per step of an iterator
            return iter(list(self._re.finditer(text, *args, timeout=self._limit(text))))
        except TimeoutError:
            raise self._timeout(text) from None


def _short(pattern: str) -> str:
    return repr(pattern) if len(pattern) <= 80 else repr(pattern[:77]) + "..."


def check(compiled: BoundedPattern) -> None:
    """Raise ValueError if the pattern can drop characters (see the module's docstring)."""
    pattern = compiled.pattern
    if compiled._re.fullmatch("", timeout=SECONDS) is not None:
        raise ValueError(f"the pre-tokenization pattern {_short(pattern)} matches the empty string, so characters "
                         "where only an empty match fits would be dropped from the count. Fix: make every "
                         "alternative consume at least one character")
    covered = "".join(compiled.findall(PROBE))
    if covered != PROBE:
        lost = next((c for c, d in zip(PROBE, covered) if c != d), PROBE[len(covered):][:1])
        raise ValueError(f"the pre-tokenization pattern {_short(pattern)} leaves characters unmatched (such as "
                         f"{lost!r}), which would be dropped from the count. Fix: end it with an alternative that "
                         "takes any one character, such as |[\\s\\S]")


def compile_pattern(pattern: str, builtin: bool):
    """`regex.compile(pattern)` for a built-in pattern, else a checked `BoundedPattern`."""
    if builtin:
        return regex.compile(pattern)
    return BoundedPattern(pattern)
