"""Probe 4 on hand-checked inputs: trailing spaces, newlines and tabs; " the" vs "the"."""

from __future__ import annotations

from analysis.probes.whitespace import leading_space, trailing_whitespace, whitespace_summary


def _row(frame, tokenizer, text, suffix):
    f = frame.astype({"tokenizer": str, "suffix": str})
    return f[(f["tokenizer"] == tokenizer) & (f["text"] == text) & (f["suffix"] == suffix)].iloc[0]


def test_spaces_each_cost_a_token_in_gpt2_but_one_run_in_cl100k():
    t = trailing_whitespace("gpt2,cl100k_base", ["Hello world"], max_spaces=4)
    assert [_row(t, "gpt2", "Hello world", f"{k} space{'s' if k != 1 else ''}")["extra_tokens"] for k in range(5)] \
        == [0, 1, 2, 3, 4]
    assert [_row(t, "cl100k_base", "Hello world", f"{k} space{'s' if k != 1 else ''}")["extra_tokens"] for k in range(5)] \
        == [0, 1, 1, 1, 1]
    row = _row(t, "cl100k_base", "Hello world", "3 spaces")
    assert row["prefix_kept"]
    assert row["tail"] == "···"


def test_a_newline_can_change_the_last_token_not_only_the_count():
    t = trailing_whitespace("cl100k_base", ["The answer is 42."], max_spaces=0)
    row = _row(t, "cl100k_base", "The answer is 42.", "newline")
    # "." then "\n" merge into ".\n": same count, different last token
    assert row["extra_tokens"] == 0
    assert not row["prefix_kept"]
    assert row["tail"] == ".↵"
    tab = _row(t, "cl100k_base", "The answer is 42.", "tab")
    assert tab["extra_tokens"] == 1
    assert tab["prefix_kept"]


def test_whitespace_summary_pools_texts():
    t = trailing_whitespace("cl100k_base", ["The answer is 42.", "Hello world"], max_spaces=1)
    s = whitespace_summary(t).astype({"suffix": str}).set_index("suffix")
    assert s.loc["1 space", "extra_tokens"] == 2
    assert s.loc["1 space", "n_texts"] == 2
    assert s.loc["newline", "share_last_tokens_changed"] == 0.5


def test_leading_space_is_part_of_the_token():
    l = leading_space("cl100k_base,gpt2", ["the", "2024"]).astype({"tokenizer": str, "form": str})
    the = l[(l["word"] == "the")].set_index(["tokenizer", "form"])
    assert the.loc[("cl100k_base", "bare"), "ids"] == "1820"
    assert the.loc[("cl100k_base", "leading space"), "ids"] == "279"  # " the" is its own token
    assert not the.loc[("cl100k_base", "leading space"), "same_ids_as_bare"]
    assert the.loc[("cl100k_base", "after newline"), "same_ids_as_bare"]  # "\n" + "the"
    year = l[(l["word"] == "2024") & (l["tokenizer"] == "cl100k_base")].set_index("form")
    # cl100k splits the space from digits, so the year's ids stay the same
    assert year.loc["leading space", "same_ids_as_bare"]
    assert year.loc["leading space", "pieces"] == "·|202|4"
