"""The readable reference (`ownbpe._educational`) and the fast modules agree: same merges, same ids.

The reference recounts every pair before every merge and scans every pair before every encoding
step; the fast modules (incremental counts, heaps, caches, safe cuts) must give exactly its
results. With tiktoken ranks both must also equal tiktoken.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ownbpe
from ownbpe import _educational as ref
from ownbpe.fast import pretokenize

from .conftest import MAX_EXAMPLES, load_ranks

PIECES = ["a", "b", "ab", "aa", " ", "  ", "\n", "\r\n", "é", "!", "1", "X", "<s>", "'s", "ba", "ß", "東京", "👩‍👧", "\t"]
CORPUS_TEXT = st.lists(st.sampled_from(PIECES), max_size=80).map("".join)
# Without the characters of Unicode 17.0: the reference reads them by `regex`'s tables, the fast
# modules by tiktoken's (see `ownbpe.fast.pretokenize`).
ANY_TEXT = st.one_of(CORPUS_TEXT, st.text(max_size=60)).filter(lambda t: pretokenize._NEWER.search(t) is None)
PATTERNS = [ownbpe.GPT2_PATTERN, ownbpe.CL100K_PATTERN, ownbpe.O200K_PATTERN]


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(ANY_TEXT, min_size=1, max_size=3), st.integers(256, 330), st.sampled_from(PATTERNS))
def test_training_equals_reference(texts, vocab_size, pattern):
    vocab_size += 1  # room for the special token
    fast = ownbpe.train.train_bpe_from_iterator(texts, vocab_size, ["<s>"], pattern=pattern)
    assert fast == ref.train(texts, vocab_size, ["<s>"], pattern)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(CORPUS_TEXT, min_size=1, max_size=3), st.integers(257, 320), ANY_TEXT, st.sampled_from(PATTERNS))
def test_encoding_with_merges_equals_reference(texts, vocab_size, text, pattern):
    vocab, merges = ref.train(texts, vocab_size, ["<s>"], pattern)
    tok = ownbpe.Tokenizer(vocab, merges, ["<s>"], pattern=pattern)
    for sample in (text, "".join(texts), text + "<s>" + texts[0]):
        assert tok.encode(sample, allowed_special="all") == ref.encode(sample, merges, ["<s>"], pattern)
        assert tok.encode(sample, allowed_special="all", fast=False) == ref.encode(sample, merges, ["<s>"], pattern)
    # The same vocab read as tiktoken-style ranks follows the ranked rule.
    ranks = {token: i for i, token in vocab.items() if token != b"<s>"}
    ranked = ownbpe.Tokenizer.from_tiktoken(ranks, pattern, {"<s>": len(vocab) - 1})
    assert ranked.encode(text, allowed_special="all") == ref.encode(text, ranks, {"<s>": len(vocab) - 1}, pattern)


@pytest.fixture(scope="module")
def o200k(encodings):
    enc, tok = encodings["o200k_base"]
    return enc, tok, load_ranks("o200k_base")


ADVERSARIAL = st.lists(
    st.sampled_from(["   ", "\t", "\n\n", "123456", "!!!", "aaaa", "Hello", " world", "東京は", "مرحبا", "😀", "'ll",
                     "ё", "\u0301", "\r\n", "::", "0x1F", "ǅ"]),
    max_size=30,
).map("".join)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.one_of(ADVERSARIAL, st.text(max_size=40)))
def test_o200k_reference_fast_and_tiktoken_agree(o200k, text):
    enc, tok, ranks = o200k
    expected = enc.encode_ordinary(text)
    assert tok.encode_ordinary(text) == expected
    assert ref.encode(text, ranks, (), ownbpe.O200K_PATTERN) == expected


def test_train_steps_report_counts_and_token_totals():
    steps = ref.train_steps("low lower lowest", 3)
    assert [(s.new_id, s.token, s.count) for s in steps] == [(256, b"ow", 3), (257, b"low", 3), (258, b"lowe", 2)]  # (low, e) beats ( , low) on the tie
    # "low" + " lower" + " lowest" = 16 bytes; each merge removes `count` tokens.
    assert [s.n_tokens for s in steps] == [13, 10, 8]


def test_encode_steps_follow_the_explain_of_the_fast_tokenizer():
    vocab, merges = ref.train(["low lower lowest newest widest"] * 4, 280)
    tok = ownbpe.Tokenizer(vocab, merges)
    for word in ("lowest", " newest", "widest!"):
        for piece in tok.explain(word):
            steps = ref.encode_steps(piece.text, merges)
            assert [(s.rank, s.pair) for s in steps] == [(m.rank, (m.left, m.right)) for m in piece.steps]
            assert (steps[-1].parts if steps else tuple(bytes([b]) for b in piece.text.encode())) == piece.tokens


def test_ranked_rule_takes_a_whole_token_piece_directly():
    # "abc" is a token, but merging would stop at "ab|c" (no rank for "bc" or "ab"+"c" before
    # it): tiktoken, and so the reference, take the whole piece.
    ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abcd": 257, b"abc": 258}
    assert ref.encode("abc", ranks) == [258]
    assert [s.parts for s in ref.encode_steps("abc", ranks)] == [(b"ab", b"c"), (b"abc",)]


def test_visualise_returns_text_and_prints_nothing(capsys):
    shown = ref.visualise("aaa", [(b"a", b"a")])
    assert shown == "a|a|a\naa|a"
    assert capsys.readouterr() == ("", "")


def test_vocab_size_too_small():
    with pytest.raises(ValueError, match="too small"):
        ref.train("abc", 256, ["<s>"])
