"""The model -> tokenizer map: packaged rules, exactness labels, nothing substituted silently."""

from __future__ import annotations

import pytest

from analysis import load_tokenizer
from analysis.models.rules import EXACTNESS, Rule, choose, load_rules, parse_rules, rule_for
from analysis.tokenizers import CATALOGUE


def _choice(model: str, rules: list[Rule]):
    """The choice for a model id by the rules alone, as the resolver makes it."""
    return choose(rule_for((model,), rules), model)


@pytest.fixture(scope="module")
def rules():
    return load_rules()


def test_packaged_rules_load_and_name_registry_tokenizers(rules):
    assert len(rules) > 20
    for rule in rules:
        assert rule.exactness in EXACTNESS
        assert all(name in CATALOGUE for name in rule.tokenizers)
        assert rule.why


@pytest.mark.parametrize(("model", "tokenizer", "exactness"), [
    pytest.param("gpt-4o", "o200k_base", "exact", id="gpt-4o"),
    pytest.param("gpt-4o-mini", "o200k_base", "exact", id="gpt-4o-mini-not-gpt-4"),  # first rule wins
    pytest.param("gpt-4-turbo", "cl100k_base", "exact", id="gpt-4-turbo"),
    pytest.param("gpt-3.5-turbo", "cl100k_base", "exact", id="gpt-3.5"),
    pytest.param("text-davinci-003", "p50k_base", "exact", id="p50k"),
    pytest.param("davinci", "r50k_base", "exact", id="r50k"),
    pytest.param("gpt-oss-120b", "o200k_harmony", "exact", id="gpt-oss"),
    pytest.param("deepseek-chat", "deepseek-v4", "exact", id="deepseek"),
    pytest.param("qwen/qwen3-32b", "qwen2.5", "exact", id="qwen3"),
    pytest.param("Qwen/Qwen3.6-Plus", "qwen3.6", "exact", id="qwen3.6"),
    pytest.param("deepseek-r1-distill-llama-70b", "llama3", "exact", id="distill-llama-before-deepseek"),
    pytest.param("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama4", "exact", id="llama4"),
    pytest.param("llama-3.3-70b-versatile", "llama3", "exact", id="llama3"),
    pytest.param("mistral-nemo", "mistral-tekken", "exact", id="tekken"),
    pytest.param("claude-sonnet-4-5", "o200k_base", "estimate", id="claude"),
    pytest.param("gemini-2.5-flash", "gemma3", "estimate", id="gemini"),  # gemma3 not fetched here: the proxy counts
    pytest.param("whisper-1", None, "none", id="speech"),
])
def test_known_mappings(rules, model, tokenizer, exactness):
    choice = _choice(model, rules)
    assert choice.exactness == exactness
    assert choice.wanted == tokenizer


def test_openai_models_agree_with_tiktoken(rules):
    """Every OpenAI model id in the price data that tiktoken can map gets the same encoding, exact."""
    tiktoken_model = pytest.importorskip("tiktoken.model")
    from genai_prices import data_snapshot

    checked = 0
    for provider in data_snapshot.get_snapshot().providers:
        if provider.id != "openai":
            continue
        for info in provider.models:
            try:
                expected = tiktoken_model.encoding_name_for_model(info.id)
            except KeyError:
                continue
            choice = _choice(info.id, rules)
            assert (choice.wanted, choice.exactness) == (expected, "exact"), info.id
            checked += 1
    assert checked >= 20


def test_an_estimate_is_labelled_with_its_proxy(rules):
    choice = _choice("claude-sonnet-4-5", rules)
    assert choice.usable
    assert choice.tokenizer == "o200k_base"
    assert choice.label == "~o200k_base"
    assert choice.note.startswith("estimate")
    exact = _choice("gpt-4o", rules)
    assert exact.label == "o200k_base"
    assert "estimate" not in exact.note


def test_unmatched_model_has_no_tokenizer_and_says_how_to_get_one(rules):
    choice = _choice("acme-frontier-9", rules)
    assert (choice.tokenizer, choice.exactness, choice.status) == (None, "none", "no tokenizer")
    assert not choice.usable
    assert "--fallback-tokenizer" in choice.note


def test_exact_tokenizer_not_fetched_is_not_replaced_by_a_proxy(rules):
    # tests run with an empty TOKENPRISM_DATA_DIR (conftest), so llama3 is not fetched
    choice = _choice("llama-3.3-70b-versatile", rules)
    assert choice.exactness == "exact"
    assert choice.tokenizer is None
    assert not choice.usable
    assert choice.status == "not fetched: tokenprism vocab fetch llama3"


def test_an_estimate_falls_to_next_proxy_and_names_the_closer_one(rules):
    choice = _choice("mistral-medium-latest", rules)
    assert choice.exactness == "estimate"
    assert choice.tokenizer == "o200k_base"  # mistral-tekken is not fetched in tests
    assert "tokenprism vocab fetch mistral-tekken" in choice.note


def test_later_names_are_tried_when_the_first_matches_nothing(rules):
    assert rule_for(("acme-1", "gpt-4o"), rules).tokenizers == ("o200k_base",)
    assert rule_for(("acme-1",), rules) is None


@pytest.mark.parametrize(("rule", "message"), [
    pytest.param({"match": ["x"], "tokenizer": "nope", "exactness": "exact", "why": "w"}, "unknown tokenizer", id="tokenizer"),
    pytest.param({"match": ["x"], "tokenizer": [], "exactness": "exact", "why": "w"}, "names its tokenizer", id="exact-empty-list"),
    pytest.param({"match": ["x"], "tokenizer": "o200k_base", "exactness": "estimate", "why": "w"}, "proxy", id="estimate-str"),
    pytest.param({"match": ["x"], "tokenizer": "o200k_base", "exactness": "approximate", "why": "w"}, "proxy", id="approx-str"),
    pytest.param({"match": ["x"], "tokenizer": "o200k_base", "exactness": "none", "why": "w"}, "no tokenizer", id="none"),
    pytest.param({"match": ["x"], "exactness": "sure", "why": "w"}, "exactness", id="exactness"),
    pytest.param({"match": ["x"], "exactness": "none", "why": "w", "colour": 1}, "unknown keys", id="key"),
    pytest.param({"match": [], "exactness": "none", "why": "w"}, "match", id="match"),
    pytest.param({"match": ["x"], "exactness": "none"}, "why", id="why"),
    pytest.param({"match": ["x"], "tokenizer": "o200k_base", "exactness": "exact", "why": "w",
                  "chat": {"per_message": 4, "per_request": 3, "source": "s"}}, "unknown keys", id="chat"),
])
def test_bad_rules_are_rejected_with_the_rule_number(rule, message):
    with pytest.raises(ValueError, match=message) as info:
        parse_rules({"version": 1, "rule": [rule]})
    assert "rule #1" in str(info.value)


def test_patterns_are_case_insensitive_globs():
    rule = Rule(("*Llama-3*",), ("llama3",), "exact", "w", None)
    assert rule.matches("meta-llama/LLAMA-3.3-70b")
    assert not rule.matches("llama-2-7b")


def test_rules_speak_the_contracts_words_and_read_the_former_one():
    from analysis.contract import TEXT_EXACTNESS

    packaged = {rule.exactness for rule in load_rules()}
    assert packaged <= set(TEXT_EXACTNESS) and "estimate" in packaged
    old = {"version": 1, "rule": [{"match": ["x"], "tokenizer": ["o200k_base"], "exactness": "approximate", "why": "w"}]}
    assert parse_rules(old)[0].exactness == "estimate"
    assert choose(parse_rules(old)[0], "x").exactness == "estimate"
