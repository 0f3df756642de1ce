"""analysis.lab.bpe: BPE training replayed merge by merge, and ownbpe vs Hugging Face, without Streamlit."""

from __future__ import annotations

from collections import Counter

import pytest
import regex

import ownbpe
from analysis.lab import bpe as lab
from analysis.corpora import sample_text

CORPUS = "low low low low low lower lower newest newest newest widest widest\naaaa aaab 1234 1234"


def test_bpe_steps_counts_are_the_winning_pair_counts():
    steps = lab.bpe_steps(CORPUS, 25)
    rules = steps.rules
    assert rules["round_trip"].all()
    assert rules["n_tokens"].is_monotonic_decreasing
    pretokens = Counter(regex.findall(ownbpe.GPT2_PATTERN, CORPUS))
    for k, row in enumerate(rules.itertuples(), start=1):
        # recount, independently, with the tokenizer that knows the k-1 previous merges
        tok = steps.tokenizer_at(k - 1)
        pairs = Counter()
        for piece, n in pretokens.items():
            toks = [tok.vocab[i] for i in tok.encode_ordinary(piece)]
            for a, b in zip(toks, toks[1:]):
                pairs[a, b] += n
        left, right = steps.merges[k - 1]
        assert row.count == pairs[left, right] == max(pairs.values())
        assert row.n_tokens == len(steps.tokenizer_at(k).encode_ordinary(CORPUS))


def test_bpe_steps_pieces_tile_the_corpus():
    steps = lab.bpe_steps(CORPUS, 5)
    for step in (0, 3, 5):
        pieces = steps.pieces_at(step)
        assert "".join(CORPUS[p.start:p.end] for p in pieces) == CORPUS
    assert len(steps.pieces_at(0)) == len(CORPUS.encode())
    with pytest.raises(ValueError, match="step must be 0..5"):
        steps.tokenizer_at(6)


@pytest.mark.parametrize("corpus, n, message", [
    ("", 5, "empty"),
    ("x" * (lab.LAB_MAX_CHARS + 1), 5, "limited to"),
    ("abc", 0, "1.."),
    ("abc", lab.LAB_MAX_MERGES + 1, "1.."),
])
def test_bpe_steps_rejects_bad_input(corpus, n, message):
    with pytest.raises(ValueError, match=message):
        lab.bpe_steps(corpus, n)


def test_train_both_agrees_until_a_tie():
    corpus = sample_text() * 3
    result = lab.train_both(corpus, 400)
    own, hf = result.summary.set_index("trainer").loc[["ownbpe", "hf"], "n_merges"]
    assert own == hf == 144
    merges = result.merges
    first = result.first_difference or len(merges) + 1
    assert merges.loc[merges["step"] < first, "same"].all()
    assert result.vocab["in_both"].sum() + result.vocab["hf_id"].isna().sum() == own
    split = result.split("lowest newest tokenizer").set_index("trainer")
    for trainer in ("ownbpe", "hf"):
        assert split.loc[trainer, "split"].replace(" ", "").replace("·", " ") == "lowest newest tokenizer"


@pytest.mark.parametrize("corpus, vocab, message", [("", 300, "empty"), ("abc", 256, "257.."), ("abc", 10**6, "257..")])
def test_train_both_rejects_bad_input(corpus, vocab, message):
    with pytest.raises(ValueError, match=message):
        lab.train_both(corpus, vocab)
