"""The dashboard's number fields and inputs, tried as a user or a link would (issue 45, findings 11-13).

Before: `/cost?cost_rpm=1e999` (and -1e999, cost_out_tokens, cost_chars, cost_messages, the BPE
lab's train_vocab) showed an OverflowError traceback with server paths; `1e30` typed in Requests
per month became 1 (the browser's number box parses by itself) and 20 nines stayed in the box while
the page showed the previous result; nested JSON in Chat's Tools box showed a RecursionError; a
link's model id reached an error message as Markdown (a remote image the browser fetches); Chat
mode drew every token of every message, where Text mode stops at 10,000 characters.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from analysis.render import HIGHLIGHT_CHARS
from dashboards.links import Param, problems
from tests.dashboards.conftest import as_read, open_link, open_page

REPO = Path(__file__).resolve().parents[2]
UNESCAPED = re.compile(r"(?<!\\)(\]\(|!\[)")
HOSTILE = "![i](http://127.0.0.1:9/t.png)"


def _said(at) -> str:
    return "\n".join(e.value for e in [*at.error, *at.warning])


def _errors(at) -> list[str]:
    return [as_read(e.value) for e in at.error]


def test_a_link_number_is_read_by_the_fields_reader():
    from dashboards.fields import workload

    param = Param("cost_rpm", "Requests per month", read=workload("requests_per_month", "Requests per month"))
    assert problems({"cost_rpm": ["5000"]}, [param]) == []
    for value, words in [("1e999", "at most"), ("-1e999", "non-negative"), ("nan", "finite"), ("x", "a number")]:
        (said,) = problems({"cost_rpm": [value]}, [param])
        assert said.startswith("link parameter 'cost_rpm' must be") and words in said, said


def test_uncaught_errors_show_no_details_on_the_page():
    """The app's config hides tracebacks and messages; Streamlit's own generic text is all a user sees."""
    from streamlit import config
    from streamlit.testing.v1 import AppTest

    client = tomllib.loads((REPO / "dashboards" / ".streamlit" / "config.toml").read_text())["client"]
    assert "showErrorDetails" in client

    def page():
        raise OverflowError("cannot convert /srv/app/secret.py")

    before = config.get_option("client.showErrorDetails")
    try:
        config.set_option("client.showErrorDetails", client["showErrorDetails"])
        at = AppTest.from_function(page).run()
    finally:
        config.set_option("client.showErrorDetails", before)
    (shown,) = at.exception
    assert not shown.stack_trace and "secret" not in shown.value and "OverflowError" not in shown.value


@pytest.mark.slow
@pytest.mark.parametrize("page, params, label", [
    ("app_pages/cost.py", {"cost_rpm": "1e999"}, "Requests per month"),
    ("app_pages/cost.py", {"cost_rpm": "-1e999"}, "Requests per month"),
    ("app_pages/cost.py", {"cost_out_tokens": "1e999"}, "Output tokens per request"),
    ("app_pages/cost.py", {"cost_chars": "1e999"}, "Characters per request"),
    ("app_pages/cost.py", {"cost_messages": "1e999"}, "Chat messages per request"),
    ("app_pages/bpe_lab.py", {"lab_tab": "ownbpe vs Hugging Face", "train_vocab": "1e999"}, "Vocabulary size"),
])
def test_an_out_of_range_link_number_is_a_message_beside_its_field(page, params, label):
    at = open_link(page, params)  # asserts no exception (was an OverflowError traceback)
    beside = [e for e in _errors(at) if e.startswith(label)]
    assert beside, _said(at)
    assert any("link parameter" in w.value for w in at.warning)
    if page.endswith("cost.py"):
        assert not at.metric, "nothing is priced with a value that was not read"


@pytest.mark.slow
def test_a_typed_number_out_of_range_is_refused_never_replaced():
    at = open_page("app_pages/cost.py")
    at.multiselect(key="cost_models").set_value(["openai:gpt-4o-mini"])
    at.button(key="cost_go").click().run()
    assert at.metric[0].value == "100,000"  # a first, good result
    for typed, words in [("1e30", "at most 1,000,000,000,000"), ("99999999999999999999", "at most"),
                         ("1e12x", "must be a number")]:
        at.text_input(key="cost_rpm").set_value(typed)
        at.button(key="cost_go").click().run()
        assert not at.exception, at.exception
        assert any(e.startswith("Requests per month") and words in e for e in _errors(at)), _said(at)
        assert not at.metric and not at.dataframe, "the previous result is not left standing"
    at.text_input(key="cost_rpm").set_value("1e3")
    at.text_input(key="cost_out_tokens").set_value("1e12")
    at.button(key="cost_go").click().run()
    assert any(e.startswith("Output tokens per request") and "at most" in e for e in _errors(at))
    at.text_input(key="cost_out_tokens").set_value("300")
    at.text_input(key="cost_rpm").set_value("1.5")
    at.button(key="cost_go").click().run()
    assert not at.error and at.metric[0].value == "1.5"  # as typed, not cut to 1


@pytest.mark.slow
def test_a_typed_number_is_escaped_in_its_message():
    at = open_page("app_pages/cost.py")
    at.text_input(key="cost_rpm").set_value(HOSTILE)
    at.button(key="cost_go").click().run()
    said = _said(at)
    assert "must be a number" in said and UNESCAPED.search(said) is None, said


@pytest.mark.slow
def test_a_linked_model_id_is_escaped_in_its_message():
    for params in ({"cost_model": HOSTILE}, {"mode": "Chat", "chat_models": HOSTILE}):
        at = open_link("app_pages/compare.py", params)
        said = _said(at)
        assert "unknown model" in said and UNESCAPED.search(said) is None, said


def _chat(messages=None, tools="") -> object:
    import pandas as pd

    at = open_link("app_pages/compare.py", {"mode": "Chat"})
    if messages is not None:
        at.session_state["_chat_rows"] = pd.DataFrame(messages, columns=["role", "name", "content"]).astype("object")
        at.session_state["_chat_link"] = None
    at.text_area(key="chat_tools").set_value(tools)
    at.multiselect(key="chat_models").set_value(["openai:gpt-4o", "anthropic:claude-sonnet-4-5"]).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
def test_deeply_nested_tools_are_a_message():
    at = _chat(tools="[" * 5000 + "]" * 5000)  # was a RecursionError traceback
    assert any("nested too deeply" in e.value for e in at.error), _said(at)


@pytest.mark.slow
def test_chat_draws_within_text_modes_bound():
    long = "word " * 20_000  # 100,000 characters in one message
    at = _chat(messages=[{"role": "user", "name": None, "content": long}])
    drawings = [h.proto.body for h in at.get("html") if "tp-" in h.proto.body and "legend" not in h.proto.body.lower()]
    assert len(drawings) == 2  # one per model: exact (gpt-4o) and content-only (claude)
    for body in drawings:
        assert body.count("·") < HIGHLIGHT_CHARS * 1.2, len(body)  # a drawn space is "·": the drawn text is bounded
    captions = " ".join(c.value for c in at.caption)
    assert "Drawing the first" in captions


@pytest.mark.slow
def test_a_chat_over_the_input_limit_is_a_message():
    from analysis.textio import MAX_INPUT_CHARS

    at = _chat(messages=[{"role": "user", "name": None, "content": "x" * (MAX_INPUT_CHARS + 1)}])
    assert any("the limit here is" in w.value for w in at.warning), _said(at)
    assert not at.table
