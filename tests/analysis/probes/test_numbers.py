"""Probe 3 on hand-checked inputs: digit grouping, tokens vs digits, single-token numbers."""

from __future__ import annotations

import pytest

from analysis.probes.numbers import (
    digit_grouping,
    digit_lengths,
    grouping_rule,
    single_token_numbers,
    single_token_summary,
    single_token_years,
    thousands_separators,
)


@pytest.mark.parametrize("name, pieces, rule", [
    ("cl100k_base", "123|456|7", "threes from the left"),
    ("o200k_base", "123|456|7", "threes from the left"),
    ("deepseek-v4", "123|456|7", "threes from the left"),
    ("qwen2.5", "1|2|3|4|5|6|7", "single digits"),
    ("gpt2", "123|45|67", "vocabulary merges (irregular)"),  # no digit rule: whatever the merges made
])
def test_how_1234567_is_cut(name, pieces, rule):
    row = digit_grouping(name, ["1234567"]).iloc[0]
    assert (row["pieces"], row["rule"], row["n_tokens"]) == (pieces, rule, len(pieces.split("|")))
    assert row["pattern"] == "-".join(str(len(p)) for p in pieces.split("|"))


def test_grouping_rule_names():
    assert grouping_rule([3, 3, 3, 3, 3, 3, 2]) == "threes from the left"
    assert grouping_rule([2, 3, 3]) == "threes from the right"
    assert grouping_rule([3, 3]) == "threes"  # both readings fit
    assert grouping_rule([1] * 5) == "single digits"
    assert grouping_rule([4, 1]) == "vocabulary merges (irregular)"
    assert grouping_rule([]) == "none"


def test_tokens_vs_digits_follows_the_digit_rule():
    d = digit_lengths("cl100k_base,qwen2.5", max_digits=9, per_length=20)
    cl = d[d["tokenizer"] == "cl100k_base"].set_index("n_digits")["tokens_per_number"]
    qw = d[d["tokenizer"] == "qwen2.5"].set_index("n_digits")["tokens_per_number"]
    assert cl.tolist() == [1, 1, 1, 2, 2, 2, 3, 3, 3]  # ceil(digits / 3)
    assert qw.tolist() == list(range(1, 10))  # one token per digit
    assert (d["n_numbers"] == 20).all()
    assert d.equals(digit_lengths("cl100k_base,qwen2.5", max_digits=9, per_length=20))  # seeded


def test_single_token_numbers_cl100k_and_gpt2():
    s = single_token_numbers("cl100k_base,gpt2", stop=2101)
    cl = s[(s["tokenizer"] == "cl100k_base") & (s["context"] == "bare")].set_index("number")["single_token"]
    assert cl.loc[0:999].all()
    assert not cl.loc[1000:].any()
    gpt2_space = s[(s["tokenizer"] == "gpt2") & (s["context"] == "leading space")].set_index("number")["single_token"]
    # the "2023 vs 2024" case: GPT-2's vocabulary has " 2024" but not " 2023"
    assert gpt2_space[2024]
    assert not gpt2_space[2023]
    years = single_token_years(s)
    assert years["number"].between(1900, 2100).all()
    assert years["number"].nunique() == 201


def test_single_token_summary_counts():
    s = single_token_numbers("cl100k_base", stop=10_000, contexts=["bare"])
    row = single_token_summary(s).iloc[0]
    assert (row["single_1_digit"], row["single_2_digit"], row["single_3_digit"], row["single_4_digit"]) == (10, 90, 900, 0)
    assert row["all_single_below"] == 1000
    assert row["single_years"] == 0


def test_single_token_numbers_rejects_unknown_context():
    with pytest.raises(ValueError, match="unknown context"):
        single_token_numbers("cl100k_base", stop=10, contexts=["sideways"])


def test_thousands_separators_cost_tokens():
    t = thousands_separators("cl100k_base,qwen2.5", count=30).astype({"tokenizer": str, "separator": str})
    none = t[t["separator"] == "none"]
    assert (none["extra_tokens_pct"] == 0).all()
    comma = t[t["separator"] == "comma"].set_index("tokenizer")
    assert (comma["extra_tokens_pct"] > 0).all()
    # single-digit tokenizers pay exactly one token per separator character
    qw = t[t["tokenizer"] == "qwen2.5"].set_index("separator")
    assert qw.loc["comma", "n_tokens"] == qw.loc["comma", "n_chars"]
    assert t.loc[t["separator"] == "comma", "example"].iloc[0].count(",") >= 1


class _WordStart:
    """o200k_base with a word-start token before each text, as SentencePiece vocabularies encode digits."""

    name = "word-start"

    def __init__(self) -> None:
        from analysis import load_tokenizer

        self._tok = load_tokenizer("o200k_base")
        (self._space,) = self._tok.encode(" ")

    def encode_batch(self, texts, **_):
        return [[self._space, *ids] for ids in self._tok.encode_batch(texts)]

    def __getattr__(self, name):
        return getattr(self._tok, name)


def test_a_word_start_token_is_a_piece_of_its_own_but_no_digit_group():
    # the Why page said "8 tokens" beside 7 pieces: the marker token was left out of the pieces
    row = digit_grouping([_WordStart()], ["1234567"]).iloc[0]
    assert row["n_tokens"] == 4 and row["pieces"] == "·|123|456|7"
    assert row["n_tokens"] == len(row["pieces"].split("|"))
    assert (row["pattern"], row["rule"]) == ("3-3-1", "threes from the left")
