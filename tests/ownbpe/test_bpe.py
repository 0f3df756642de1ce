"""The merge loop on one pre-token: both rules, the long-piece algorithm, traces.

Three merge functions exist because they are different: `bpe.merge_ranked` and `bpe.merge_pairs`
(the list scan under each rule) and `fast.longmerge.merge_long` (rank buckets, for long pieces).
Each is checked here against the one-merge-at-a-time reference of `_educational`.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ownbpe import _educational
from ownbpe.bpe import merge_pairs, merge_ranked
from ownbpe.fast import batch
from ownbpe.fast.longmerge import LONG_PIECE_BYTES, merge_long

from .conftest import MAX_EXAMPLES

BYTES = {bytes([i]): i for i in range(256)}


def test_ranked_lowest_rank_first_leftmost_on_ties():
    ranks = BYTES | {b"aa": 256, b"aaa": 257, b"ab": 258}
    # "aaa": both (a,a) pairs have rank 256; the leftmost merges, then (aa, a) -> "aaa".
    trace = []
    assert merge_ranked(b"aaa", ranks, trace) == [b"aaa"]
    assert trace == [(256, b"a", b"a"), (257, b"aa", b"a")]
    # "aab": (a,a)=256 beats (a,b)=258.
    assert merge_ranked(b"aab", ranks) == [b"aa", b"b"]


def test_ranked_rule_accepts_any_split_of_a_token():
    # tiktoken merges any adjacent parts whose concatenation is a token.
    ranks = BYTES | {b"bc": 256, b"abc": 257}
    assert merge_ranked(b"abc", ranks) == [b"abc"]  # a + bc -> abc
    # ...while the pairs rule only merges listed pairs.
    assert merge_pairs(b"abc", {(b"b", b"c"): 0, (b"ab", b"c"): 1}) == [b"a", b"bc"]


def test_pairs_rule_follows_the_list_order():
    pairs = {(b"l", b"o"): 0, (b"lo", b"w"): 1, (b"e", b"r"): 2, (b"low", b"er"): 3}
    trace = []
    assert merge_pairs(b"lower", pairs, trace) == [b"lower"]
    assert [r for r, _, _ in trace] == [0, 1, 2, 3]
    assert merge_pairs(b"", pairs) == []
    assert merge_pairs(b"x", pairs) == [b"x"]


ALPHABETS = [b"a", b"ab", b"abc", b"a b", b"\xc3\xa9 ", b"xyz\n"]


@st.composite
def piece_and_table(draw):
    alphabet = draw(st.sampled_from(ALPHABETS))
    piece = bytes(draw(st.lists(st.sampled_from(alphabet), min_size=0, max_size=300)))
    # A random ranked table over substrings of the piece (ranks need not be consistent).
    subs = sorted({piece[i : i + k] for i in range(len(piece)) for k in (2, 3, 4, 5, 8) if i + k <= len(piece)})
    chosen = draw(st.lists(st.sampled_from(subs), unique=True, max_size=40)) if subs else []
    ranks = dict(BYTES)
    order = draw(st.permutations(range(len(chosen))))
    for token, r in zip(chosen, order):
        ranks[token] = 256 + r
    return piece, ranks


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(piece_and_table())
def test_long_algorithm_equals_scan_ranked(case):
    piece, ranks = case
    scan_trace, long_trace = [], []
    scan = merge_ranked(piece, ranks, scan_trace)  # the scan merges any length (quadratically)
    assert merge_long(piece, ranks, True, long_trace) == scan
    assert long_trace == scan_trace
    assert b"".join(scan) == piece


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(piece_and_table())
def test_long_algorithm_equals_scan_pairs(case):
    piece, ranks = case
    # Derive a pairs table: every split of every multi-byte token, in rank order.
    pairs = {}
    for token, r in sorted(ranks.items(), key=lambda kv: kv[1]):
        for k in range(1, len(token)):
            pairs.setdefault((token[:k], token[k:]), len(pairs))
    scan_trace, long_trace = [], []
    scan = merge_pairs(piece, pairs, scan_trace)
    assert merge_long(piece, pairs, False, long_trace) == scan
    assert long_trace == scan_trace


@pytest.mark.parametrize("n", [LONG_PIECE_BYTES - 1, LONG_PIECE_BYTES + 1, 5000])
def test_long_runs_give_the_same_tokens_either_way(n):
    ranks = BYTES | {b"aa": 300, b"aaaa": 301, b"aaa": 302, b"a" * 8: 299}
    piece = b"a" * n
    assert merge_long(piece, ranks, True) == merge_ranked(piece, ranks)
    assert batch.merge_piece(piece, ranks, True) == merge_ranked(piece, ranks)


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(piece_and_table())
def test_scan_equals_one_merge_at_a_time(case):
    # The reference recomputes every pair before every merge; the scan updates the two pairs
    # beside each merge.
    piece, ranks = case
    steps = _educational.encode_steps(piece, ranks)
    expected = list(steps[-1].parts) if steps else [bytes([b]) for b in piece]
    trace = []
    assert merge_ranked(piece, ranks, trace) == expected
    assert trace == [(s.rank, *s.pair) for s in steps]


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(piece_and_table())
def test_batch_equals_the_reference(case):
    # Whole-token look-up and the scan, on every prefix of the piece (so short pieces are
    # well covered), against the one-merge-at-a-time rule.
    piece, ranks = case
    prefixes = [piece[:k].decode("latin-1") for k in range(1, min(len(piece), 12) + 1)]
    # (Both sides encode the same strings, so bytes >= 0x80 simply become two bytes each.)
    encoder = dict(ranks)
    ids = batch.ranked_piece_ids(prefixes, encoder)
    got = [ids[p] for p in prefixes]
    expected = [tuple(_educational.encode(p, ranks, (), r"(?s).+")) for p in prefixes]
    assert got == expected
