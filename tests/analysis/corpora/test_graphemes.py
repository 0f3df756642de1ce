"""Cluster starts found in numpy are exactly where `regex`'s scan for (?=[unspaced])\\X starts a match."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.corpora import load_builtin
from analysis.corpora.graphemes import UNSPACED, cluster_starts


# the reference: `regex` scanning for a cluster that starts with a character of those scripts
UNSPACED_GRAPHEME = regex.compile(rf"(?=[{UNSPACED}])\X")


def reference(text: str) -> list[int]:
    return [m.start() for m in UNSPACED_GRAPHEME.finditer(text)]


def starts(text: str) -> list[int]:
    return cluster_starts(np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)).tolist()


# what the rules turn on: bases and marks of the five scripts, Indic conjuncts (consonant, linker,
# nukta) in Khmer, Myanmar and Devanagari, spacing marks, ZWJ/ZWNJ, pictographs and skin tones,
# regional indicators, Hangul jamo, Prepend characters, controls and line breaks, a lone surrogate
_ALPHABET = (list("ภาษไทยัำ่ ") + ["\u0e81", "\u0eb1", "\u0ec8"]  # Thai, Lao
             + ["\u1780", "\u1781", "\u17d2", "\u17b6", "\u17c1", "\u17c6"]  # Khmer: consonants, coeng, vowels
             + ["\u1000", "\u1001", "\u1039", "\u103a", "\u103b", "\u102b", "\u1037"]  # Myanmar: virama (linker), asat
             + ["\u0f40", "\u0f71", "\u0f90", "\U000116d0"]  # Tibetan, Myanmar Extended-C
             + ["\u0915", "\u0916", "\u094d", "\u093c", "\u0903", "\u0995", "\u09cd"]  # Devanagari, Bengali
             + ["\u200d", "\u200c", "\u0301", "\ufe0f", "\U0001f44d", "\U0001f3fb", "\u2764", "\U0001f1fa",
                "\U0001f1f8", "\u1100", "\u1161", "\u11a8", "\uac00", "\u0600", "\u0d4e", "\U000110bd",
                "a", "\n", "\r", "\x01", "\ud800"])


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from(_ALPHABET), max_size=40))
def test_starts_equal_the_regex_scan(text):
    assert starts(text) == reference(text)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=30))
def test_starts_equal_the_regex_scan_on_any_text(text):
    assert starts(text) == reference(text)


@pytest.mark.parametrize("text, n", [("ภาษาไทย", 7), ("ខ្មែរ", 2), ("", 0), ("abc", 0), ("a\u0e31", 1)])
def test_known_counts(text, n):
    assert len(starts(text)) == n == len(reference(text))


def test_real_text_of_every_unspaced_script(shared_dir):
    texts = [t for t in load_builtin(["multilingual"])["text"] if UNSPACED_GRAPHEME.search(t)]
    flores = Path(shared_dir) / "corpora" / "flores200" / "dev"
    texts += [p.read_text(encoding="utf-8") for p in sorted(flores.glob("*_Mymr.dev"))]
    assert len(texts) >= 3
    for text in texts:
        assert starts(text) == reference(text)
