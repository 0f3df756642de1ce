"""Links that reopen a view, under AppTest: a page opened with query parameters shows that view,
the Copy link control gives them back, and bad parameters get a message, never an exception."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

from analysis import load_tokenizer
from dashboards.links import LINK_MAX_TEXT, Param, problems
from tests.dashboards.conftest import open_link, vega_charts

TEXT = "Tokenizers cut text: 2024 costs one token, ２０２４ more."


def _counts(at) -> dict[str, int]:
    df = at.table[0].value
    return dict(zip(df["tokenizer"], df["n_tokens"]))


def _link(at) -> dict[str, list[str]]:
    """The query of the URL shown by the Copy link control."""
    return parse_qs(urlsplit(at.code[-1].value).query)


def _warnings(at) -> str:
    """The warnings' text as a reader sees it (the link's echoed values are Markdown-escaped)."""
    return re.sub(r"\\(.)", r"\1", "\n".join(w.value for w in at.warning))


def test_compare_link_sets_text_and_tokenizers_and_copy_link_gives_them_back():
    at = open_link("app_pages/compare.py", {"text": TEXT, "tokenizers": ["o200k_base", "gpt2"]})
    assert at.text_area(key="text").value == TEXT
    assert at.multiselect(key="tokenizers").value == ["o200k_base", "gpt2"]
    assert _counts(at) == {n: len(load_tokenizer(n).encode(TEXT)) for n in ("o200k_base", "gpt2")}
    link = _link(at)
    assert link["text"] == [TEXT]
    assert link["tokenizers"] == ["o200k_base", "gpt2"]
    assert not at.warning


def test_a_text_too_long_for_a_link_is_a_message_and_the_default_text_stays():
    at = open_link("app_pages/compare.py", {"text": "x" * (LINK_MAX_TEXT + 1), "tokenizers": "gpt2"})
    assert f"links carry up to {LINK_MAX_TEXT:,}" in _warnings(at)
    assert at.text_area(key="text").value != "x" * (LINK_MAX_TEXT + 1)
    # a long text typed on the page is counted, and the link says it left the text out
    long = "y " * (LINK_MAX_TEXT // 2 + 1)
    at.text_area(key="text").set_value(long).run()
    assert not at.exception
    assert _counts(at) == {"gpt2": len(load_tokenizer("gpt2").encode(long))}
    assert "text" not in _link(at)
    assert _link(at)["tokenizers"] == ["gpt2"]
    assert any(f"longer than a link carries ({LINK_MAX_TEXT:,} characters" in c.value for c in at.caption)


def test_unknown_and_invalid_parameters_are_named_with_the_fix():
    at = open_link("app_pages/compare.py", {"tokenizer": "gpt2", "tokenizers": ["o200k_base", "gtp2"]})
    said = _warnings(at)
    assert "unknown link parameter 'tokenizer' (did you mean 'tokenizers'?)" in said
    assert "'gtp2' is not one of the tokenizer names; did you mean 'gpt2'?" in said
    assert at.multiselect(key="tokenizers").value == ["o200k_base"]  # the good name is kept

    at = open_link("app_pages/why.py", {"ws_k": "nine", "why_tab": "Nope", "trace_word": "w" * 500})
    said = _warnings(at)
    assert "'ws_k' must be a whole number of spaces, not 'nine'" in said
    assert "'Nope' is not one of the tabs" in said
    assert "'trace_word' is 500 characters long" in said
    assert any("up to 200 accepted" in w.value for w in at.warning)  # the page's own limit still holds


def test_why_link_sets_the_number_and_the_word():
    at = open_link("app_pages/why.py", {"why_number": "31415926535", "trace_word": "unbelievably",
                                        "trace_tok": "cl100k_base", "why_tab": "Merge trace"})
    assert at.text_input(key="why_number").value == "31415926535"
    assert at.text_input(key="trace_word").value == "unbelievably"
    grouping = at.table[0].value.set_index("tokenizer")
    assert grouping.loc["cl100k_base", "pieces"] == "314|159|265|35"
    assert any("exactly tiktoken's ids" in s.value and str(load_tokenizer("cl100k_base").encode("unbelievably")) in s.value
               for s in at.success)
    assert _link(at)["why_number"] == ["31415926535"]
    assert not at.warning


def test_explore_link_sets_section_and_filters():
    at = open_link("app_pages/explore.py", {"ex_section": "2 · Languages", "ex_tokenizers": ["cl100k_base", "o200k_base"],
                                            "ex_languages": ["te", "de"]})
    assert at.segmented_control(key="ex_section").value == "2 · Languages"
    premium = next(d for spec, ds in vega_charts(at) for d in ds if "premium" in d.columns)
    assert set(premium["tokenizer"]) == {"cl100k_base", "o200k_base"}
    assert set(premium["language"]) == {"te", "de"}
    assert _link(at)["ex_languages"] == ["te", "de"]


def test_cost_link_sets_models_and_workload():
    models = ["openai:gpt-4o-mini", "deepseek:deepseek-chat"]
    at = open_link("app_pages/cost.py", {"cost_models": models, "cost_rpm": "5000", "cost_out_tokens": "120"})
    assert at.multiselect(key="cost_models").value == models
    assert at.text_input(key="cost_rpm").value == "5000"
    assert list(at.dataframe[0].value["model"]) == models
    assert at.metric[0].value == "5,000"
    bad = open_link("app_pages/cost.py", {"cost_cached": "2"})
    assert "'cost_cached' must be between 0 and 1, not 2" in _warnings(bad)


def test_bpe_lab_link_sets_its_inputs():
    at = open_link("app_pages/bpe_lab.py", {"lab_corpus": "aaab aaab aab", "lab_merges": "2"})
    assert at.text_area(key="lab_corpus").value == "aaab aaab aab"
    assert at.slider(key="lab_merges").value == 2
    assert at.metric[0].value == "2"  # merges learned


def test_problems_is_a_pure_check():
    params = [Param("n", "a whole number", number="int", low=1, high=8), Param("t", "names", choices=lambda: ["a", "b"],
                                                                             multi=True)]
    assert problems({"n": ["3"], "t": ["a", "b"]}, params) == []
    assert problems({"embed": ["true"]}, params) == []  # Streamlit's own
    assert problems({"n": ["3", "4"]}, params) == ["link parameter 'n' is given 2 times: give it once"]
    assert problems({"n": ["0"]}, params) == ["link parameter 'n' must be between 1 and 8, not 0"]
    assert problems({"t": ["c"]}, params) == ["link parameter 't': 'c' is not one of the names; valid: a, b"]


def test_compare_chat_link_round_trips_the_messages_and_models():
    chat = {"messages": [{"role": "system", "content": "Be brief."},
                         {"role": "user", "name": "ann", "content": "Tokens & «quotes»?"}],
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]}
    at = open_link("app_pages/compare.py", {"mode": "Chat", "chat": json.dumps(chat),
                                            "chat_models": ["gpt-4o", "qwen3-32b"]})
    assert not at.warning and not at.error
    assert list(at.table[0].value["model"]) == ["gpt-4o", "qwen3-32b"]
    link = _link(at)
    assert link["mode"] == ["Chat"] and link["chat_models"] == ["gpt-4o", "qwen3-32b"]
    assert json.loads(link["chat"][0]) == chat
    # the link, opened again, shows the same counts
    again = open_link("app_pages/compare.py", {k: v if len(v) > 1 else v[0] for k, v in link.items()})
    assert again.table[0].value.equals(at.table[0].value)


def test_compare_chat_link_with_a_bad_chat_or_mode_is_a_message():
    at = open_link("app_pages/compare.py", {"mode": "Chatt"})
    assert "'Chatt' must be Text or Chat; did you mean 'Chat'?" in _warnings(at)
    at = open_link("app_pages/compare.py", {"mode": "Chat", "chat": json.dumps({"messages": "hi"})})
    assert "could not be read" in _warnings(at)
