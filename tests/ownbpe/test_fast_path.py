"""The fast path (`ownbpe.fast`) against the plain path and `_educational`: the same ids.

The plain path (`encode(..., fast=False)`) and `_educational` read characters by the installed
`regex`'s Unicode tables, the fast path by tiktoken's: the random texts here leave out the
characters of Unicode 17.0, which `test_tiktoken_equality` checks on their own.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ownbpe
from ownbpe import _educational, tokenizer
from ownbpe.fast import pretokenize

from .conftest import MAX_EXAMPLES
from .test_tiktoken_equality import UNITS, adversarial_texts

NAMES = ["cl100k_base", "o200k_base"]


def no_newer_characters(text: str) -> bool:
    return pretokenize._NEWER.search(text) is None


TEXT = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(UNITS), max_size=30).map("".join),  # the adversarial units, mixed
).filter(no_newer_characters)


def three_ways(tok: ownbpe.Tokenizer, text: str, reference) -> None:
    fast = tok.encode_ordinary(text)
    assert fast == tok.encode_ordinary(text, fast=False), "fast != plain"
    assert fast == reference(text), "fast != _educational"


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=TEXT)
def test_ranked_fast_equals_plain_equals_educational(encodings, name, text):
    enc, tok = encodings[name]
    three_ways(tok, text, lambda t: _educational.encode(t, tok._encoder, pattern=tok.pattern))
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=TEXT)
def test_pairs_fast_equals_plain_equals_educational(small_tok, text):
    merges = small_tok.merges
    three_ways(small_tok, text, lambda t: _educational.encode(t, merges, pattern=small_tok.pattern))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=TEXT, allowed=st.sampled_from([frozenset(), "all", frozenset({"<|endoftext|>"})]))
def test_special_tokens_alike_on_both_paths(encodings, text, allowed):
    _, tok = encodings["o200k_base"]
    text = text + "<|endoftext|>" + text + "<|endofprompt|>"
    assert tok.encode(text, allowed_special=allowed) == tok.encode(text, allowed_special=allowed, fast=False)


# The plain path merges a long run quadratically (5000 emoji, one piece of 20,000 bytes: seconds).
# By default it reads a text of more than 4,096 bytes from its first 1,200 characters, still longer
# than the longest piece it caches (MAX_CACHED_CHARS); --runslow reads every text whole.
PLAIN_CUT = [4096, pytest.param(None, marks=pytest.mark.slow)]


@pytest.mark.parametrize("plain_cut", PLAIN_CUT, ids=["plain-cut-over-4096-bytes", "plain-whole"])
@pytest.mark.parametrize("name", NAMES)
def test_adversarial_texts_fast_equals_plain(encodings, name, plain_cut):
    # Long runs included; the fast path reads every text whole.
    assert tokenizer.MAX_CACHED_CHARS < 1200
    enc, tok = encodings[name]
    plain = ownbpe.Tokenizer.from_tiktoken(dict(tok._encoder), tok.pattern, tok.special_tokens)
    for k, text in enumerate(adversarial_texts(seed=17, n=150)):
        expected = enc.encode_ordinary(text)
        assert tok.encode_ordinary(text) == expected, f"fast, adversarial text {k}"
        if plain_cut is not None and len(text.encode("utf-8", "surrogatepass")) > plain_cut:
            text = text[:1200]
            expected = enc.encode_ordinary(text)
        assert plain.encode_ordinary(text, fast=False) == expected, f"plain, adversarial text {k}"
        if len(text) <= 400:  # the reference recounts every pair before every merge
            assert _educational.encode(text, tok._encoder, pattern=tok.pattern) == expected, f"reference, text {k}"


def test_a_second_pass_does_not_fill_another_cache(encodings):
    # The reason a second call is never slower than the first: a long text fills the piece
    # cache on its first pass, and its second pass only reads it.
    _, shared = encodings["o200k_base"]
    tok = ownbpe.Tokenizer.from_tiktoken(dict(shared._encoder), shared.pattern, shared.special_tokens)
    text = "".join(adversarial_texts(seed=19, n=200))
    first = tok.encode_ordinary(text)
    sizes = (len(tok._fast._chunk_cache), len(tok._fast._piece_cache))
    assert tok.encode_ordinary(text) == first
    assert (len(tok._fast._chunk_cache), len(tok._fast._piece_cache)) == sizes
