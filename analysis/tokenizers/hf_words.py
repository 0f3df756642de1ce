"""Exact cuts inside one long run of ASCII letters, for DeepSeek's Hugging Face BPE.

Unlike `cuts` (points between pre-tokens, found from the text alone), a cut here falls inside
a pre-token, and is checked with the BPE model itself. A line with no cut point of `cuts`
(32M copies of one letter) was encoded whole, at about 70 bytes per character.

Why the ids do not change. Two facts about BPE that merges the lowest-ranked pair first,
leftmost on ties (HF's BPE without dropout or `ignore_merges`; shown in the README of
github/rust-gems' `bpe` crate as corollaries II and IIIa): a stretch of a BPE encoding is the
BPE encoding of its own bytes; and two encodings joined are the encoding of the joined bytes
when the two tokens at the joint, re-encoded together, give the same two tokens
(`Junctions.fit`). So a word cut into parts, each encoded on its own, gives the word's
encoding when every joint fits. When a joint does not fit, the cut moves by a character,
up to `SHIFT` times; the part on its left must keep its first token, so that its own left
joint still fits. If no shift fits, the caller encodes the text whole, as before.

Which cuts leave the pre-tokens otherwise unchanged. DeepSeek's third split takes a letter run
either as `[punctuation][A-Za-z]+` or as `[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+`. Inside a
run of ASCII letters, the part after a cut starts with a letter, so it is taken by the second
form and ends where the run of letters and marks ends; the pre-token of the whole text ends
there too, unless it took the first form (punctuation just before the run) and a letter or
mark other than ASCII follows the run: such runs are never cut (`LongRuns`). The digit and CJK
splits never touch ASCII letters. A cut stays `SHIFT` + `MAX_ADDED` characters inside the run,
so no added token (none is made of ASCII letters only: checked on load) can span it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import Any

import regex

SHIFT = 48  # how far a cut may move to find a fitting joint
MAX_ADDED = 64  # cuts keep this far (plus SHIFT) inside a run; longer added tokens turn cutting off
_FIRST_FORM = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_LETTER_OR_MARK = regex.compile(r"[\p{L}\p{M}]")


class NoExactCut(Exception):
    """No fitting joint near a cut: the text is to be encoded whole."""


class LongRuns:
    """The runs of ASCII letters of one text long enough to cut inside, found in one scan."""

    def __init__(self, text: str, min_len: int) -> None:
        self.spans: list[tuple[int, int]] = []
        for m in re.finditer(f"[A-Za-z]{{{min_len},}}", text):
            a, b = m.span()
            first_form = a > 0 and text[a - 1] in _FIRST_FORM
            if first_form and b < len(text) and _LETTER_OR_MARK.match(text[b]):
                continue  # the whole text's pre-token ends at b, a cut's would run on
            self.spans.append((a, b))
        self._ends = [b - SHIFT - MAX_ADDED for _, b in self.spans]

    def cut_in(self, lo: int, hi: int) -> int | None:
        """The first position in [lo, hi) at least SHIFT + MAX_ADDED inside a run, or None."""
        i = bisect.bisect_right(self._ends, lo)
        if i == len(self.spans):
            return None
        a, _ = self.spans[i]
        c = max(lo, a + SHIFT + MAX_ADDED)
        return c if c < min(hi, self._ends[i]) else None


class Junctions:
    """Whether two tokens, re-encoded together by the BPE model, stay those two tokens."""

    def __init__(self, engine: Any) -> None:
        self._model = engine.model
        self._token = engine.id_to_token
        self._seen: dict[tuple[int, int], bool] = {}

    def fit(self, left: int, right: int) -> bool:
        key = (left, right)
        hit = self._seen.get(key)
        if hit is None:
            ids = [t.id for t in self._model.tokenize(self._token(left) + self._token(right))]
            hit = self._seen[key] = ids == [left, right]
        return hit


def usable(spec: dict, added: list[dict]) -> bool:
    """True when the pipeline is DeepSeek-like plain BPE that `Junctions` describes."""
    model = spec.get("model") or {}
    if model.get("type") != "BPE" or model.get("dropout") or model.get("ignore_merges"):
        return False
    if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        return False
    plain = re.compile("[A-Za-z]*")
    return not any(not t.get("special") and (plain.fullmatch(t["content"]) or len(t["content"]) > MAX_ADDED)
                   for t in added)


def exact_ids(spans: Iterator[tuple[int, int, bool]], text: str, encode_many, junctions: Junctions,
              batch: int) -> Iterator[list[int]]:
    """The ids of `text`'s parts in order; `spans` are (start, end, cut inside a word at start).

    Raises:
        NoExactCut: a joint inside a word fits at no shift (rare); encode the text whole.
    """
    held: tuple[int, int, list[int]] | None = None  # the last part, its ids not given out yet
    held_free = True  # its start is a cut of `cuts` (or the text's start): its first token may change
    pending: list[tuple[int, int, bool]] = []

    def flush() -> Iterator[list[int]]:
        nonlocal held, held_free
        encs = encode_many([text[s:e] for s, e, _ in pending])
        for (s, e, in_word), ids in zip(pending, encs):
            if held is not None and in_word and not (held[2] and ids and junctions.fit(held[2][-1], ids[0])):
                held, (s, ids) = _shift(text, held, held_free, s, e, encode_many, junctions)
            if held is not None:
                yield held[2]
            held, held_free = (s, e, ids), not in_word
        pending.clear()

    for span in spans:
        pending.append(span)
        if len(pending) == batch:
            yield from flush()
    yield from flush()
    if held is not None:
        yield held[2]


def _shift(text: str, held: tuple[int, int, list[int]], held_free: bool, s: int, e: int, encode_many,
           junctions: Junctions) -> tuple[tuple[int, int, list[int]], tuple[int, list[int]]]:
    """Move the cut between `held` and [s, e) until its joint fits, keeping held's first token."""
    hs, _, hids = held
    for d in range(1, SHIFT + 1):
        for c in (s + d, s - d):
            left, right = encode_many([text[hs:c], text[c:e]])
            if left and right and (held_free or left[0] == hids[0]) and junctions.fit(left[-1], right[0]):
                return (hs, c, left), (c, right)
    raise NoExactCut
