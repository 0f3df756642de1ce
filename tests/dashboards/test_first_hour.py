"""The dashboard in the first hour (issue 46): warnings only where true, one colour per tokenizer
with every legend entry, tools as their own part, links that carry every setting, BPE lab's step.

The AppTest runs take seconds each, so they are marked slow; the pure parts run every time."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest

from analysis.plots import charts
from tests.dashboards.conftest import open_link, open_page


def _warnings(at) -> str:
    return re.sub(r"\\(.)", r"\1", "\n".join(w.value for w in at.warning))


# -- one colour per tokenizer, every one in the legend -------------------------------------------
def test_every_catalogued_tokenizer_has_its_own_colour_on_every_chart():
    from analysis.tokenizers import CATALOGUE

    names = list(CATALOGUE)
    colours = charts.tokenizer_colors(names)
    assert len(set(colours)) == len(names)  # 19 tokenizers, 19 colours (tableau10 had 10)
    # the same tokenizer keeps its colour whatever else is drawn
    assert charts.tokenizer_colors(["mistral-v3", "cl100k_base"]) == [colours[names.index("mistral-v3")],
                                                                      colours[names.index("cl100k_base")]]
    # names outside the catalogue take colours no catalogued tokenizer has
    extra = charts.tokenizer_colors(["hf:a/b", "ownbpe:x.model"])
    assert len(set(extra)) == 2 and not set(extra) & set(colours)


def test_tokens_vs_digits_with_fifteen_tokenizers_colours_and_lists_all_fifteen():
    # the chart: 9 of 15 in the legend, gpt2/llama3 and o200k_base/gemma3 alike
    from analysis.tokenizers import CATALOGUE

    names = list(CATALOGUE)[:15]
    lengths = pd.DataFrame([{"tokenizer": n, "n_digits": d, "n_numbers": 10, "tokens_per_number": d / 2,
                             "min_tokens": 1, "max_tokens": d} for n in names for d in (1, 2, 3)])
    spec = charts.tokens_vs_digits(lengths).to_dict()
    (color,) = [layer["encoding"]["color"] for layer in spec["layer"] if "color" in layer.get("encoding", {})]
    assert color["scale"]["domain"] == names
    assert len(set(color["scale"]["range"])) == 15
    assert color["legend"]["symbolLimit"] == 0 and color["legend"]["labelLimit"] == 0


# -- the chat's tools are a part of their own ----------------------------------------------------
def test_tool_positions_are_the_tokens_the_tools_add():
    from dashboards.chat import tool_positions

    assert tool_positions((5, 1, 2, 3), (5, 3)) == {1, 2}
    assert tool_positions((1, 2), (1, 2)) == set()


CHAT = {"messages": [{"role": "user", "content": "What is the weather in Paris?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "description": "the weather of a city",
                                                     "parameters": {"type": "object", "properties": {
                                                         "city": {"type": "string", "description": "a city"}}}}}]}


@pytest.mark.slow
def test_chat_files_tool_tokens_apart_from_the_format_and_draws_them():
    from analysis.requests import input_tokens, parse

    models = ["groq:qwen/qwen3-32b", "google:gemini-2.5-flash", "openai:gpt-4o"]
    at = open_link("app_pages/compare.py", {"mode": "Chat", "chat": json.dumps(CHAT), "chat_models": models})
    table = at.table[0].value.set_index("model")
    for model in models:
        row = table.loc[model]
        whole = input_tokens(parse(CHAT), model)
        bare = input_tokens(parse({**CHAT, "tools": []}), model)
        assert row["tool_tokens"] == whole.input_tokens - bare.input_tokens > 0
        assert row["input_tokens"] == row["content_tokens"] + row["format_tokens"] + row["tool_tokens"] + row["media_tokens"]
    assert table.loc["google:gemini-2.5-flash", "format_tokens"] == 0  # "no chat format": the tools are tools
    drawn = "".join(h.proto.body for h in at.get("html"))
    # Qwen's prompt is rendered id for id: every token the tools add is drawn as a tool token
    assert drawn.count('class="tp-tok tp-fmt tp-tool"') >= table.loc["groq:qwen/qwen3-32b", "tool_tokens"]
    assert any("+ 0 format + " in m.value and "tools" in m.value for m in at.markdown)


# -- warnings where they are true ----------------------------------------------------------------
@pytest.mark.slow
def test_a_value_typed_in_the_form_is_not_called_a_link():
    # the issue: typing a bad value in the Cost form gave a link warning ("open the link again");
    # the field says what is wrong with it, the link check speaks of links only (once per session)
    at = open_page("app_pages/cost.py")
    at.text_input(key="cost_rpm").set_value("-5")
    at.button(key="cost_go").click().run()
    at.query_params["cost_rpm"] = "-5"  # what the field's binding writes into the URL
    at.run()
    assert "link" not in _warnings(at).lower()
    assert "-5" in " ".join(e.value for e in [*at.error, *at.warning, *at.caption, *at.markdown])


@pytest.mark.slow
def test_a_bad_link_value_is_still_named_when_the_link_is_opened():
    at = open_link("app_pages/cost.py", {"cost_rpm": "-1"})
    assert "'cost_rpm'" in _warnings(at) and "link" in _warnings(at)
    at = open_link("app_pages/cost.py", {"cost_messages": "0"})  # 0 messages (the raw text) is allowed
    assert "cost_messages" not in _warnings(at)


# -- links carry every setting -------------------------------------------------------------------
@pytest.mark.slow
def test_compare_link_carries_the_boundary_view():
    at = open_link("app_pages/compare.py", {"show": ["o200k_base", "gpt2", "cl100k_base"], "partner": "cl100k_base",
                                            "show_ids": "true"})
    assert at.multiselect(key="show").value == ["o200k_base", "gpt2", "cl100k_base"]
    assert at.selectbox(key="partner").value == "cl100k_base" and at.toggle(key="show_ids").value is True
    assert not at.warning
    bad = open_link("app_pages/compare.py", {"show": ["o200k_base", "nope"]})
    assert "'show': 'nope' is not one of the tokenizer names" in _warnings(bad)


@pytest.mark.slow
def test_cost_link_carries_the_source_the_categories_and_typed_model_ids():
    at = open_link("app_pages/cost.py", {"cost_source": "Built-in corpus", "cost_categories": ["code"],
                                         "cost_model_ids": "gpt-4o"})
    assert at.segmented_control(key="cost_source").value == "Built-in corpus"
    assert at.multiselect(key="cost_categories").value == ["code"]
    assert at.text_input(key="cost_model_ids").value == "gpt-4o" and "link" not in _warnings(at) and not at.exception
    bad = open_link("app_pages/cost.py", {"cost_source": "Carrier pigeon"})
    assert "'cost_source': 'Carrier pigeon' is not one of the request sources" in _warnings(bad)


# -- BPE lab: a new training shows its own last step ---------------------------------------------
@pytest.mark.slow
def test_bpe_lab_shows_the_last_step_of_a_new_corpus_and_keeps_a_links_step():
    at = open_page("app_pages/bpe_lab.py")
    at.slider(key="lab_step").set_value(3).run()
    assert at.slider(key="lab_step").value == 3
    at.text_area(key="lab_corpus").set_value("aaab aaab abab abab cdcd cdcd").run()
    step = at.slider(key="lab_step")
    assert step.value == step.max  # not the 3 of the corpus before
    assert any(f"corpus after step {int(step.max)}" in m.value for m in at.markdown)
    assert open_link("app_pages/bpe_lab.py", {"lab_step": "2"}).slider(key="lab_step").value == 2


@pytest.mark.slow
def test_why_digit_table_pieces_are_its_tokens():
    at = open_link("app_pages/why.py", {"why_number": "31415926535"})
    table = at.table[0].value
    for _, row in table.iterrows():
        assert row["n_tokens"] == len(str(row["pieces"]).split("|")), row.to_dict()
