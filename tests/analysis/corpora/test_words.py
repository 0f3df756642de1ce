"""Text sizes: the numpy counts equal a direct regular-expression reading of the word rules."""

from __future__ import annotations

import re

import numpy as np
import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.corpora import words as W
from analysis.corpora.words import count_words, text_sizes
from tests.analysis.corpora.test_graphemes import UNSPACED_GRAPHEME

# -- the reference: the rules of the module docstring, read directly, one text at a time -------
_R_WORD = regex.compile(rf"[^\s{W._NO_SPACES}\w]*+[\w--[{W._NO_SPACES}]][^\s{W._NO_SPACES}]*+", flags=regex.V1)
_R_IDEO = regex.compile(rf"[{W._IDEOGRAPHIC}]")


def reference_words(text: str) -> int:
    words = graphemes = 0
    for line in text.split("\n"):
        if W._MAYBE_NO_SPACES.search(line):  # a line that may hold ideographic/unspaced characters
            words += len(_R_WORD.findall(line)) + len(_R_IDEO.findall(line))
            graphemes += len(UNSPACED_GRAPHEME.findall(line))
        else:  # plain line: whitespace-separated runs holding a `re` word character
            words += sum(1 for run in line.split() if re.search(r"\w", run))
    return words + int(graphemes / W.GRAPHEMES_PER_WORD + 0.5)


def reference_sizes(texts):
    return ([len(t) for t in texts], [len(t.encode("utf-8", "surrogatepass")) for t in texts],
            [reference_words(t) for t in texts])


@pytest.mark.parametrize("text, words", [
    ("Hello, world!", 2),
    ("x = 1 -- y", 3),            # "=" and "--" are no words
    ("snake_case camelCase", 2),
    ("don't stop", 2),
    ("  \n\t ", 0),
    ("Привет, мир", 2),
    ("東京は大きい", 6),            # one word per Han/kana character
    ("東京 Tower", 3),
    ("ภาษาไทย", 2),               # 7 grapheme clusters / 3, rounded
    ("नमस्ते दुनिया", 2),             # Devanagari is spaced
    ("a\x1cb", 2),                # str.isspace: U+001C separates on a plain line
    ("a\x1cb 東", 2),              # ... but not for `regex`'s \s, on a line with Han
    ("𝐀𝐁 x", 2),                  # astral letters: `regex`'s \w
])
def test_count_words(text, words):
    assert count_words(text) == words == reference_words(text)


_ALPHABET = list("ab1 ,.-\n\r\t_=\x1c") + list("ภาษาไทยេខ្មែរ東京はПриветéက") + ["\u0e31", "\u200d", "\U0001f44d", "\u00a0",
                                                                          "\U000116d0", "\U00020000", "\ud800", "𝐀"]
_TEXT = st.text(st.sampled_from(_ALPHABET), max_size=30)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(_TEXT, max_size=10))
def test_text_sizes_equal_the_reference(texts):
    got = [a.tolist() for a in text_sizes(texts)]
    assert got == [list(x) for x in reference_sizes(texts)]


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(st.text(st.characters(max_codepoint=127), max_size=30), max_size=10))
def test_ascii_batches_equal_the_reference(texts):
    # an all-ASCII batch takes its own path (one byte a character, no line gates)
    assert [a.tolist() for a in text_sizes(texts)] == [list(x) for x in reference_sizes(texts)]


@settings(max_examples=30, deadline=None)
@given(texts=st.lists(st.text(max_size=20), max_size=6))
def test_text_sizes_equal_the_reference_on_any_text(texts):
    assert [a.tolist() for a in text_sizes(texts)] == [list(x) for x in reference_sizes(texts)]


def test_batch_is_measured_in_parts(monkeypatch):
    texts = ["東京 and more words\n" * 3, "ภาษาไทย x", "", "plain words here"] * 5
    whole = [a.tolist() for a in text_sizes(texts)]
    monkeypatch.setattr(W, "PART_CHARS", 7)  # a part every few texts
    assert [a.tolist() for a in text_sizes(texts)] == whole == [list(x) for x in reference_sizes(texts)]


def test_empty_batch():
    assert [a.tolist() for a in text_sizes([])] == [[], [], []]
    assert all(a.dtype == np.int64 for a in text_sizes(["x"]))


def test_fast_path_gate_covers_every_unspaced_character():
    everything = "".join(map(chr, [*range(0xD800), *range(0xE000, 0x110000)]))
    exact = set(regex.findall(rf"[{W._NO_SPACES}]", everything))
    assert len(exact) > 90_000  # Han alone
    assert exact <= set(W._MAYBE_NO_SPACES.findall(everything))
    unspaced = set(regex.findall(rf"[{W._UNSPACED}]", everything))
    assert len(unspaced) > 300
    assert unspaced <= set(W._UNSPACED_GATE.findall(everything))
