"""input_tokens: the Cookbook's verified totals to the token, and honest labels everywhere else."""

from __future__ import annotations

from dataclasses import replace

import pytest

from analysis.errors import BadInput, UnknownName
from analysis.models import FAMILIES, resolve
from analysis.requests import Message, Request, TextPart, input_tokens, parse
from analysis.requests.formats import FORMATS, MODEL_FORMATS
from analysis.tokenizers import load_tokenizer

from .cookbook import NAMES_MESSAGES, TOOLS, TOOLS_MESSAGES, VERIFIED


@pytest.mark.parametrize(("model", "body", "billed", "revision"), [
    pytest.param(*case, id=f"{case[0]}-{'tools' if 'tools' in case[1] else 'names'}") for case in VERIFIED])
def test_cookbook_api_verified_examples_to_the_token(model, body, billed, revision):
    count = input_tokens(parse(body), model)
    assert count.input_tokens == billed, f"{model}: the API counted {billed} ({revision})"
    assert count.exactness == "documented"
    assert "verified against the API" in count.reason
    assert count.ids is None


def test_the_cookbook_split_into_content_and_format():
    # gpt-4o, names example: 6 messages x (3 + 1 role token) + 4 names x 1 + the names' own tokens + 3
    tok = load_tokenizer("o200k_base")
    count = input_tokens(parse({"messages": NAMES_MESSAGES}), "gpt-4o")
    names = sum(tok.count(m["name"]) + 1 for m in NAMES_MESSAGES if "name" in m)
    assert count.format_tokens == 6 * (3 + 1) + names + 3
    assert count.content_tokens == sum(tok.count(m["content"]) for m in NAMES_MESSAGES)


@pytest.mark.parametrize("model", ["gpt-4.1-mini", "gpt-5", "o3", "o4-mini"])
def test_newer_openai_models_get_the_rules_as_an_estimate_that_says_which_models_the_evidence_covers(model):
    count = input_tokens(parse({"messages": TOOLS_MESSAGES, "tools": TOOLS}), model)
    assert count.exactness == "estimate"
    assert "verified there only on gpt-3.5-turbo, gpt-4, gpt-4o and gpt-4o-mini" in count.reason
    assert count.input_tokens == 101  # the o200k rules, the same as gpt-4o's


def test_what_the_notebook_does_not_cover_is_an_estimate_naming_it():
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "see"},
                                                      {"type": "image_url", "image_url": {"url": "u"}}]},
                         {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
                                                               "function": {"name": "f", "arguments": "{}"}}]}]}
    count = input_tokens(parse(body), "gpt-4o")
    assert count.exactness == "estimate"
    assert "tool calls" in count.reason
    assert "image (unsized) not counted" in count.reason and "--image-size WxH" in count.reason
    responses = input_tokens(parse({"input": "hi", "instructions": "Be brief."}), "gpt-4o")
    assert responses.exactness == "estimate"
    assert "leading system message" in responses.reason


def test_the_generation_prompt_is_optional():
    request = Request.from_text("hello world")
    with_prompt = input_tokens(request, "gpt-4o")
    without = input_tokens(request, "gpt-4o", add_generation_prompt=False)
    assert with_prompt.input_tokens - without.input_tokens == 3
    assert "reply-priming" in without.reason


def test_text_only_family_is_exact_with_ids():
    request = Request((Message("user", (TextPart("hello"), TextPart(" world"))),), system="Be brief.")
    count = input_tokens(request, "openai:text-embedding-3-small")
    tok = load_tokenizer("cl100k_base")
    assert count.exactness == "exact"
    assert count.format_tokens == 0
    assert count.ids == tuple(tok.encode("Be brief.") + tok.encode("hello") + tok.encode(" world"))
    assert count.row(ids=True)["ids"] == list(count.ids)


def test_a_proxy_tokenizer_makes_any_count_an_estimate_and_names_the_proxy():
    count = input_tokens(Request.from_text("What is your name?"), "gemini-2.5-flash")
    assert count.exactness == "estimate"
    assert count.ids is None
    assert count.format_tokens == 0
    assert "o200k_base is a proxy" in count.reason


def test_claude_is_an_estimate_whose_error_is_unmeasured_with_the_documented_tool_prompt():
    body = {"messages": [{"role": "user", "content": "Weather in Oslo?"}],
            "tools": [{"name": "weather", "description": "Weather now.", "input_schema": {"type": "object"}}]}
    auto = input_tokens(parse(body), "claude-sonnet-4-5")
    forced = input_tokens(parse({**body, "tool_choice": {"type": "any"}}), "claude-sonnet-4-5")
    opus3 = input_tokens(parse(body), "claude-3-opus-latest")
    assert {auto.exactness, forced.exactness, opus3.exactness} == {"estimate"}
    assert "unmeasured" in auto.reason
    assert "346 tokens" in auto.reason
    assert auto.input_tokens - forced.input_tokens == 346 - 313
    assert opus3.input_tokens - auto.input_tokens == 530 - 346
    plain = input_tokens(parse({"messages": body["messages"]}), "claude-sonnet-4-5")
    assert plain.format_tokens > 0
    assert plain.content_tokens == load_tokenizer("o200k_base").count("Weather in Oslo?")


def test_a_family_not_built_yet_counts_the_content_and_says_so():
    missing = [f for f in FAMILIES if f not in FORMATS and f not in MODEL_FORMATS]
    if not missing:
        pytest.skip("every family of FAMILIES is built")
    spec = replace(resolve("gpt-4o"), format=missing[0])
    count = input_tokens(Request.from_text("hello world"), spec)
    assert (count.content_tokens, count.format_tokens, count.exactness) == (2, 0, "estimate")
    assert f"the {missing[0]} chat format is not built in this version" in count.reason


def test_a_model_without_a_known_format_says_so():
    count = input_tokens(Request.from_text("hello"), "grok-4")
    assert count.exactness == "estimate"
    assert "no chat format is known" in count.reason


def test_refusals():
    with pytest.raises(UnknownName, match="did you mean gpt-4o"):
        input_tokens(Request.from_text("hi"), "gpt-4oo")
    with pytest.raises(BadInput, match="no text tokenizer"):
        input_tokens(Request.from_text("hi"), "whisper-1")
    # tests run with an empty data dir: an exact vocabulary that is not fetched is never replaced
    with pytest.raises(BadInput, match="tokenprism vocab fetch llama3"):
        input_tokens(Request.from_text("hi"), "llama3")


def test_rows_keep_the_json_contract():
    row = input_tokens(parse({"messages": NAMES_MESSAGES}), "gpt-4o").row(ids=True)
    assert list(row) == ["model", "tokenizer", "input_tokens", "content_tokens", "format_tokens", "media_tokens",
                         "exactness", "exactness_reason", "ids"]
    assert all(type(row[k]) is int for k in ("input_tokens", "content_tokens", "format_tokens", "media_tokens"))
    assert row["input_tokens"] == row["content_tokens"] + row["format_tokens"] + row["media_tokens"]
    assert row["ids"] is None


# -- the open-model families as the resolver picks them ------------------------------------------
CHAT = Request(system="You are terse.", messages=(Message("user", (TextPart("What is 2+2?"),)),))


@pytest.mark.parametrize(("model", "family"), [
    ("gpt-oss-120b", "harmony"), ("qwen3", "qwen"), ("qwen2.5", "qwen"), ("deepseek-v3", "deepseek"),
])
def test_open_model_families_are_exact_with_ids_that_tile_the_prompt(model, family):
    count = input_tokens(CHAT, model)
    assert resolve(model).format == family
    assert count.exactness == "exact", count.reason
    assert count.ids is not None
    assert len(count.ids) == count.input_tokens
    assert count.format_tokens > 0
    assert load_tokenizer(count.tokenizer).decode(list(count.ids)).count("What is 2+2?") == 1


def test_qwen3_models_take_the_qwen3_template_not_qwen25s():
    # Qwen2.5's template adds its default system prompt when a request has none; Qwen3's does not
    bare = Request.from_text("hi")
    qwen25, qwen3 = input_tokens(bare, "qwen2.5"), input_tokens(bare, "qwen3")
    assert qwen25.tokenizer == qwen3.tokenizer == "qwen2.5"
    assert "qwen3 chat template" in qwen3.reason
    assert "qwen2.5 chat template" in qwen25.reason
    assert qwen25.format_tokens > qwen3.format_tokens + 10


def test_deepseek_models_other_than_v3_are_an_estimate_that_names_why():
    v3, r1 = input_tokens(CHAT, "deepseek-v3"), input_tokens(CHAT, "deepseek-r1")
    assert v3.exactness == "exact"
    assert r1.exactness == "estimate"
    assert "V3's template" in r1.reason
    assert r1.input_tokens == v3.input_tokens  # the same rendering, labelled for what it is


def test_a_format_written_in_the_models_own_tokens_falls_back_to_content_under_a_proxy():
    # mistral-large-latest counts with mistral-tekken, and with the o200k_base proxy until it is
    # fetched; mistral-common cannot write its format in o200k's tokens.
    spec = resolve("mistral-large-latest")
    if spec.choice().exactness == "exact":
        pytest.skip("mistral-tekken is fetched in this data dir, so no proxy stands in")
    count = input_tokens(Request.from_text("hello world"), spec)
    assert count.exactness == "estimate"
    assert count.format_tokens == 0
    assert count.content_tokens == len(load_tokenizer("o200k_base").encode("hello world"))
    assert "vocab fetch mistral-tekken" in count.reason
