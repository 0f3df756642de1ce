"""The one model resolver: which ids it accepts, what it answers, and what it refuses."""

from __future__ import annotations

import pytest

from analysis.errors import BadInput, UnknownName
from analysis.models import FAMILIES, ModelSpec, load_rules, resolve
from analysis.models.rules import parse_known, parse_rules


@pytest.mark.parametrize(("model_id", "model", "tokenizer", "exactness", "family", "price_ref"), [
    pytest.param("gpt-4o", "gpt-4o", "o200k_base", "exact", "openai", "openai:gpt-4o", id="bare"),
    pytest.param("openai:gpt-4o", "gpt-4o", "o200k_base", "exact", "openai", "openai:gpt-4o", id="prefixed"),
    pytest.param("gpt-4o-2024-08-06", "gpt-4o", "o200k_base", "exact", "openai", "openai:gpt-4o", id="dated-alias"),
    pytest.param("anthropic:claude-sonnet-4-5", "claude-sonnet-4-5", "o200k_base", "estimate", "claude",
                 "anthropic:claude-sonnet-4-5", id="claude-prefixed"),
    pytest.param("claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "o200k_base", "estimate", "claude",
                 "anthropic:claude-sonnet-4-5", id="claude-dated-alias"),
    pytest.param("gpt-oss-120b", "gpt-oss-120b", "o200k_harmony", "exact", "harmony", "openai:gpt-oss-120b", id="gpt-oss"),
    pytest.param("groq:llama-3.3-70b-versatile", "llama-3.3-70b-versatile", "llama3", "exact", "llama3",
                 "groq:llama-3.3-70b-versatile", id="host"),
    pytest.param("llama3", "llama3", "llama3", "exact", "llama3", None, id="known-family"),
    pytest.param("deepseek-chat", "deepseek-chat", "deepseek-v4", "exact", "deepseek", "deepseek:deepseek-chat", id="deepseek"),
    pytest.param("gemini-2.5-flash", "gemini-2.5-flash", "gemma3", "exact", "none", "google:gemini-2.5-flash", id="gemini"),
    pytest.param("whisper-1", "whisper-1", None, "none", None, "openai:whisper-1", id="no-text-tokenizer"),
])
def test_accepted_ids(model_id, model, tokenizer, exactness, family, price_ref):
    spec = resolve(model_id)
    assert isinstance(spec, ModelSpec)
    assert (spec.model, spec.tokenizer, spec.exactness, spec.format, spec.price_ref) == (
        model, tokenizer, exactness, family, price_ref)
    assert spec.id == model_id
    assert spec.reason


@pytest.mark.parametrize(("typo", "closest"), [
    pytest.param("gpt-4oo", "gpt-4o", id="gpt-4oo"),  # "gpt-4o*" matches it as a glob: still refused
    pytest.param("claude-sonet-4-5", "claude-sonnet-4-5", id="claude-typo"),
    pytest.param("anthropic:claude-sonet-4-5", "anthropic:claude-sonnet-4-5", id="prefixed-typo"),
])
def test_misspelt_ids_are_refused_with_the_closest_names(typo, closest):
    with pytest.raises(UnknownName) as info:
        resolve(typo)
    assert closest in info.value.closest
    assert f"unknown model {typo!r}" in str(info.value)
    assert closest in str(info.value)
    assert isinstance(info.value, KeyError)  # older callers' `except KeyError` still catches it


def test_unknown_id_without_close_names_says_how_to_list_models():
    with pytest.raises(UnknownName, match="tokenprism models"):
        resolve("zzqx-unheard-of-9")


def test_a_tokenizer_name_is_not_a_model_and_the_message_says_where_it_works():
    with pytest.raises(UnknownName, match="is a tokenizer, not a model.*compare -t o200k_base"):
        resolve("o200k_base")


def test_empty_id_is_bad_input():
    with pytest.raises(BadInput, match="empty"):
        resolve("  ")


def test_an_id_several_hosts_price_resolves_without_picking_a_price():
    spec = resolve("meta-llama/Llama-3.1-8B-Instruct")
    assert (spec.tokenizer, spec.format, spec.exactness) == ("llama3", "llama3", "exact")
    assert spec.price_ref is None
    assert "PROVIDER:MODEL" in spec.price_note


def test_the_typed_id_picks_the_rule_before_the_price_datas_id():
    # openrouter prices "mistralai/mistral-7b-instruct" without its version; the typed v0.3 decides
    spec = resolve("mistralai/Mistral-7B-Instruct-v0.3")
    assert spec.tokenizer == "mistral-v3"
    assert spec.price_ref is not None
    assert "priced as" in spec.price_note


def test_every_rule_names_a_family_or_none_and_every_family_is_named():
    families = {rule.format for rule in load_rules()}
    assert families - {None} <= set(FAMILIES)
    # every family but gemma's own chat models (Gemini counts text only) is used by some rule
    assert {"openai", "harmony", "llama3", "llama4", "mistral", "qwen", "deepseek", "claude", "none"} <= families


def test_choice_checks_what_is_on_this_machine():
    # tests run with an empty data dir, so llama3 is not fetched: exact, never a proxy
    choice = resolve("llama3").choice()
    assert choice.exactness == "exact"
    assert not choice.usable
    assert "tokenprism vocab fetch llama3" in choice.status
    assert resolve("gpt-4o").choice().tokenizer == "o200k_base"


def test_explicit_rules_are_used_when_given():
    rules = parse_rules({"version": 1, "rule": [
        {"match": ["gpt-4o*"], "tokenizer": "cl100k_base", "exactness": "exact", "why": "test", "format": "none"}]})
    spec = resolve("gpt-4o", rules=rules)
    assert (spec.tokenizer, spec.format) == ("cl100k_base", "none")


@pytest.mark.parametrize(("data", "message"), [
    pytest.param({"version": 1, "rule": [{"match": ["x"], "exactness": "none", "why": "w", "format": "chatml"}]},
                 "unknown chat format", id="format"),
])
def test_bad_format_is_rejected(data, message):
    with pytest.raises(ValueError, match=message):
        parse_rules(data)


@pytest.mark.parametrize("known", [
    pytest.param({"known": [{"ids": []}]}, id="no-why"),
    pytest.param({"known": [{"ids": [], "why": "w"}]}, id="empty"),
    pytest.param({"known": [{"ids": ["a"], "why": "w", "extra": 1}]}, id="key"),
])
def test_bad_known_tables_are_rejected(known):
    with pytest.raises(ValueError, match="known #1"):
        parse_known(known)
