"""DeepSeek-V3 against its jinja chat template, id for id (see `templates`)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from analysis.errors import BadInput
from analysis.requests import Message, Request, TextPart, ToolCall, ToolDef, ToolResult
from analysis.requests.formats import deepseek
from analysis.tokenizers import load_tokenizer

from .strategies import TEXTS, requests
from .templates import config, render_reference

MARKERS = [deepseek.BOS, deepseek.EOS, "<｜User｜>", "<｜Assistant｜>", "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>",
           "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>",
           "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>", "<｜tool▁sep｜>"]


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("deepseek-v4")


@pytest.fixture(scope="module")
def cfg():
    return config("deepseek-v3")


def check(cfg, tok, request, **kw):
    got = deepseek.render(request, tok, **kw)
    expected = render_reference(cfg, request, tok, markers=MARKERS, string_arguments=True, **kw)
    assert list(got.ids) == expected
    assert got.exactness == "exact"
    assert "DeepSeek-V3" in got.reason
    assert got.input_tokens == len(got.ids)
    return got


def test_the_vocabulary_is_deepseek_v3s(tok):
    # The template is V3's; the registry's vocabulary is V4's tokenizer.json: the same vocabulary
    # and merges (checked when this test was written), and the markers sit at the same ids.
    added = {int(k): v["content"] for k, v in config("deepseek-v3").get("added_tokens_decoder", {}).items()}
    for marker in MARKERS[2:]:
        assert len(tok.encode(marker)) == 1
    assert not added or all(added.get(tok.encode(m)[0], m) == m for m in MARKERS[2:])


def test_known_conversation(cfg, tok):
    req = Request(system="You are helpful.", messages=(
        Message("user", (TextPart("Weather? [INST] <|im_end|>"),), name="kim"),
        Message("assistant", (ToolCall("get_weather", '{"city": "Paris"}'), ToolCall("now", "{}"))),
        Message("tool", (ToolResult((TextPart("21"),)),)),
        Message("tool", (ToolResult((TextPart("noon"),)),)),
        Message("assistant", (TextPart("21 °C at noon."),)),
        Message("system", (TextPart("Be brief."),)),
        Message("user", (TextPart("Thanks"),)),
    ))
    got = check(cfg, tok, req)
    assert tok.decode(list(got.ids)).startswith(deepseek.BOS + "You are helpful.\n\nBe brief.<｜User｜>")


def test_tools_are_an_estimate(tok):
    req = Request(messages=(Message("user", (TextPart("hi"),)),), tools=(ToolDef("f", "does f", {"type": "object"}),))
    got = deepseek.render(req, tok)
    assert got.exactness == "estimate"
    assert got.ids is None
    assert got.format_tokens > deepseek.render(Request(messages=req.messages), tok).format_tokens


def test_a_tokenizer_without_the_markers_is_refused():
    with pytest.raises(BadInput, match="begin▁of▁sentence"):
        deepseek.render(Request.from_text("hi"), load_tokenizer("o200k_base"))


_CALL = st.builds(lambda n, a: ToolCall(n, json.dumps(a)), st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
                  st.dictionaries(st.text(max_size=4), st.one_of(TEXTS, st.integers()), max_size=2))
_TURN = st.one_of(
    st.builds(lambda r, t: Message(r, (TextPart(t),)), st.sampled_from(["system", "developer", "user", "assistant"]), TEXTS),
    st.builds(lambda calls: Message("assistant", tuple(calls)), st.lists(_CALL, min_size=1, max_size=3)),
    st.builds(lambda t: Message("tool", (ToolResult((TextPart(t),)),)), TEXTS),
)


@given(st.one_of(st.none(), TEXTS), st.lists(_TURN, max_size=7), st.booleans())
def test_random_conversations(cfg, tok, system, turns, gen):
    check(cfg, tok, Request(system=system, messages=tuple(turns)), add_generation_prompt=gen)


@given(requests(roles=("system", "user", "assistant")))
def test_random_texts_with_markers(cfg, tok, request):
    check(cfg, tok, request)
