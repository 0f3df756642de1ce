"""The Why page under AppTest: digits, years, trailing spaces and merge traces equal the library's."""

from __future__ import annotations

import ownbpe
import pytest
import pandas as pd

from analysis import available_tokenizers, load_tokenizer
from analysis.lab.trace import merge_trace
from analysis.probes.numbers import digit_grouping, single_token_numbers, single_token_years
from analysis.tokenizers import tiktoken_params
from tests.dashboards.conftest import open_page

PAGE = "app_pages/why.py"


def test_digit_grouping_follows_the_typed_number():
    at = open_page(PAGE)
    at.text_input(key="why_number").set_value("31415926535").run()
    assert not at.exception
    shown = at.table[0].value.reset_index(drop=True)
    expected = digit_grouping(available_tokenizers(), ["31415926535"])
    assert shown["pieces"].tolist() == expected["pieces"].tolist()
    assert shown["n_tokens"].tolist() == expected["n_tokens"].tolist()
    assert shown.set_index("tokenizer").loc["cl100k_base", "pieces"] == "314|159|265|35"


def test_a_number_without_digits_is_a_message():
    at = open_page(PAGE)
    at.text_input(key="why_number").set_value("twelve").run()
    assert not at.exception
    assert any("Type a number" in w.value for w in at.warning)


def test_years_summary_and_grid_equal_the_probe():
    at = open_page(PAGE)
    at.segmented_control(key="why_context").set_value("leading space")
    at.selectbox(key="why_years_tok").set_value("cl100k_base").run()
    assert not at.exception
    years = single_token_years(single_token_numbers(available_tokenizers(), stop=2101, contexts=["leading space"]))
    expected = years.groupby("tokenizer", observed=True)["single_token"].sum()
    summary = at.table[1].value.set_index("tokenizer")
    assert summary["single_token_years"].to_dict() == expected.to_dict()
    grid = at.table[2].value
    cl = years[years["tokenizer"] == "cl100k_base"].set_index("number")["single_token"]
    assert bool(grid.loc["2020s", "4"]) == bool(cl[2024])


def test_trailing_spaces_before_and_after_equal_the_encodings():
    text = "The answer is 42."
    at = open_page(PAGE)
    at.text_input(key="ws_text").set_value(text)
    at.slider(key="ws_k").set_value(3).run()
    assert not at.exception
    table = at.table[3].value.set_index("tokenizer")
    for name in available_tokenizers():
        tok = load_tokenizer(name)
        assert table.loc[name, "before"] == len(tok.encode(text))
        assert table.loc[name, "after"] == len(tok.encode(text + "   "))
    at.segmented_control(key="ws_kind").set_value("newline").run()
    table = at.table[3].value.set_index("tokenizer")
    assert table.loc["o200k_base", "after"] == len(load_tokenizer("o200k_base").encode(text + "\n"))


def test_merge_trace_under_a_chosen_vocabulary():
    at = open_page(PAGE)
    at.text_input(key="trace_word").set_value("unbelievably")
    at.selectbox(key="trace_tok").set_value("cl100k_base").run()
    assert not at.exception
    assert any("exactly tiktoken's ids" in s.value for s in at.success)
    explained = ownbpe.Tokenizer.from_tiktoken(*tiktoken_params("cl100k_base")).explain("unbelievably", ordinary=True)
    pieces, steps = merge_trace(explained)
    pd.testing.assert_frame_equal(at.dataframe[0].value.reset_index(drop=True), steps)  # the question tabs run only when shown
    assert at.table[-1].value["ids"].tolist() == pieces["ids"].tolist()


def test_merge_trace_input_limits():
    at = open_page(PAGE)
    at.text_input(key="trace_word").set_value("").run()
    assert any("Type a word" in w.value for w in at.warning)
    at.text_input(key="trace_word").set_value("x" * 201).run()
    assert not at.exception
    assert any("up to 200" in w.value for w in at.warning)


# -- a tab per question: its headline, table and figure, deep-linked ------------------------------
from analysis.probes import questions  # noqa: E402
from tests.dashboards.conftest import open_link  # noqa: E402


@pytest.mark.parametrize("key", ["yaml", "endoftext", "digits"])
def test_a_question_tab_shows_the_answer_the_cli_prints(key):
    q = questions.QUESTIONS[key]
    at = open_link(PAGE, {"why_tab": q.tab, f"why_{key}_toks": ["cl100k_base", "o200k_base"]})
    assert not at.exception
    expected = questions.answer(key, ["cl100k_base", "o200k_base"])
    assert any(m.value == f"**{expected.headline}**" for m in at.markdown)
    shown = at.dataframe[-1].value.reset_index(drop=True)
    assert shown["tokenizer"].astype(str).tolist() == expected.table["tokenizer"].astype(str).head(30).tolist()
    assert len(at.get("image")) == 1  # the figure


@pytest.mark.slow
def test_every_question_tab_renders():
    for key, q in questions.QUESTIONS.items():
        at = open_link(PAGE, {"why_tab": q.tab})
        assert not at.exception, key
        assert any(m.value.startswith("**") for m in at.markdown), key
