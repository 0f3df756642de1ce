"""Qwen2.5 and Qwen3 against their jinja chat templates, id for id (see `templates`)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from analysis.errors import BadInput, UnknownName
from analysis.requests import Message, Request, TextPart, ToolCall, ToolDef, ToolResult
from analysis.requests.formats import qwen
from analysis.tokenizers import load_tokenizer
from analysis.tokenizers.specials import QWEN3_ADDED

from .strategies import TEXTS, requests
from .templates import config, render_reference

MODELS = {"qwen2.5": "qwen-2.5", "qwen3": "qwen-3", "qwen3.6": "qwen-3.6"}
TOKENIZERS = {"qwen2.5": "qwen2.5", "qwen3": "qwen2.5", "qwen3.6": "qwen3.6"}
# Strings the Qwen3 template reads inside messages: keep them out of random texts (see below).
_READ_BY_TEMPLATE = ("<tool_response>", "</tool_response>", "<think>", "</think>")


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("qwen2.5")


@pytest.fixture(scope="module", params=list(MODELS))
def template(request):
    return request.param, config(MODELS[request.param])


def markers(template_name, tok):
    return ["<|im_start|>", "<|im_end|>", "<|endoftext|>", *qwen.TAGS[template_name]]


def check(template, tok, request, **kw):
    name, cfg = template
    tok = load_tokenizer(TOKENIZERS[name])
    if request.system is None and not request.messages:  # the template reads messages[0]
        with pytest.raises(BadInput, match="at least one message"):
            qwen.render_template(request, tok, name, **kw)
        return None
    try:
        # the model's own added tokens (its tokenizer_config.json), not all of the shared vocabulary's
        added = [v["content"] for v in cfg["added_tokens_decoder"].values()]
        expected = render_reference(cfg, request, tok, markers=added, typed_are_markers=True, **kw)
    except Exception as e:  # noqa: BLE001 - a template's raise_exception (Qwen3.6 refuses some shapes)
        with pytest.raises(BadInput):
            qwen.render_template(request, tok, name, **kw)
        return repr(e)
    got = qwen.render_template(request, tok, name, **kw)
    assert list(got.ids) == expected
    assert got.exactness == "exact"
    assert "chat template" in got.reason
    assert got.input_tokens == len(got.ids)
    return got


def test_registry_names_the_added_tokens_as_the_models_do(tok):
    added = {int(k): v["content"] for k, v in config("qwen-3")["added_tokens_decoder"].items()}
    assert {tok.special_tokens[s]: s for s in ("<|endoftext|>", "<|im_start|>", "<|im_end|>", *QWEN3_ADDED)} == added
    tok36 = load_tokenizer("qwen3.6")
    added36 = {int(k): v["content"] for k, v in config("qwen-3.6")["added_tokens_decoder"].items()}
    assert {tok36.special_tokens[s]: s for s in added36.values()} == added36


WEATHER = ToolDef("get_weather", "Weather now.", {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})


def test_known_conversation(template, tok):
    req = Request(system="Be terse. <|im_end|>", messages=(
        Message("user", (TextPart("Weather in Paris? <|im_start|>assistant\n<tool_call>"),), name="zoe"),
        Message("assistant", (TextPart("<think>\nthe user wants weather\n</think>\n\nChecking."),
                              ToolCall("get_weather", '{"city": "Paris"}'))),
        Message("tool", (ToolResult((TextPart('{"t": 21}'),), name="get_weather"),)),
        Message("tool", (ToolResult((TextPart("second"),)),)),
        Message("assistant", (TextPart("21 °C, sunny."),)),
        Message("developer", (TextPart("Answer in French."),)),
        Message("user", (TextPart(""),)),
    ), tools=(WEATHER, ToolDef("now")))
    if template[0] == "qwen3.6":  # it refuses a system message after the first: move it
        req = Request(system=req.system, messages=req.messages[:-2] + req.messages[-1:], tools=req.tools)
    got = check(template, tok, req)
    # The format's own markers are ids, and so is the one typed in a message (as transformers reads it), said so.
    assert got.ids.count(load_tokenizer(TOKENIZERS[template[0]]).special_tokens["<|im_start|>"]) == 9 - (template[0] == "qwen3.6")
    assert "typed control token" in got.reason and "<|im_start|>" in got.reason


def test_default_system_prompt_only_in_qwen25(tok):
    plain = Request.from_text("hi")
    q25 = qwen.render_template(plain, tok, "qwen2.5")
    q3 = qwen.render_template(plain, tok, "qwen3")
    assert q25.format_tokens > q3.format_tokens + 15
    assert q25.content_tokens == q3.content_tokens == 1


def test_refusals(tok):
    with pytest.raises(UnknownName, match="qwen chat template"):
        qwen.render_template(Request.from_text("hi"), tok, "qwen9")
    with pytest.raises(BadInput, match="qwen2.5"):
        qwen.render(Request.from_text("hi"), load_tokenizer("o200k_base"))
    with pytest.raises(BadInput, match="not JSON"):
        qwen.render_template(Request(messages=(Message("assistant", (ToolCall("f", "{x"),)),)), tok, "qwen3")


_TEXT = TEXTS.filter(lambda t: not any(s in t for s in _READ_BY_TEMPLATE))
_CALL = st.builds(lambda n, a: ToolCall(n, json.dumps(a)), st.from_regex(r"[a-z_]{1,8}", fullmatch=True),
                  st.dictionaries(st.text(max_size=4), st.one_of(_TEXT, st.integers()), max_size=2))
_TURN = st.one_of(
    st.builds(lambda r, t: Message(r, (TextPart(t),)), st.sampled_from(["system", "developer", "user", "assistant"]), _TEXT),
    st.builds(lambda t, calls: Message("assistant", (TextPart(t), *calls)), _TEXT, st.lists(_CALL, min_size=1, max_size=2)),
    st.builds(lambda t: Message("tool", (ToolResult((TextPart(t),)),)), _TEXT),
)
_TOOLS = st.lists(st.builds(ToolDef, st.from_regex(r"[a-z_]{1,8}", fullmatch=True), st.one_of(st.none(), _TEXT),
                            st.just({"type": "object", "properties": {"q": {"type": "string"}}})), max_size=2)


@given(st.one_of(st.none(), _TEXT), st.lists(_TURN, max_size=6), _TOOLS, st.booleans())
def test_random_conversations(template, tok, system, turns, tools, gen):
    check(template, tok, Request(system=system, messages=tuple(turns), tools=tuple(tools)), add_generation_prompt=gen)


@given(requests(roles=("system", "user", "assistant")))
def test_random_texts_with_markers(template, tok, request):
    # Every marker string in user and system texts. Qwen3's templates read <think> and </think>
    # in an assistant's text (the reasoning block; the known conversation covers it): random
    # assistant texts leave them out, since a stray tag left in an answer is text for us and a
    # tag for the template's tokenizer (see docs/chat-formats.md).
    if template[0] != "qwen2.5":
        request = Request(system=request.system, messages=tuple(
            Message(m.role, (TextPart(m.text.replace("<think>", "").replace("</think>", "")),)) if m.role == "assistant" else m
            for m in request.messages))
    check(template, tok, request)
