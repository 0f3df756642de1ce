"""One exactness word per model: Compare and Cost say for a model the word `tokenprism count` says.

The word is the count's (`analysis.requests.input_tokens`, the contract's words exact, documented
or estimate). Cost prices more than the count (an output, a model's reasoning): what its count
cannot see is said in its own column and notes, not by another word for the model.
"""

from __future__ import annotations

import json

import pytest

from analysis.cli import main
from analysis.cost import caching
from tests.dashboards.conftest import open_page

TEXT = "Summarise this contract in three bullet points, and name the parties."
# Gemini (a proxy here, exact once gemma3 is fetched), an exact vocabulary and format, a proxy
# vocabulary (~), and a documented format
MODELS = ["google:gemini-2.5-flash", "groq:qwen/qwen3-32b", "anthropic:claude-sonnet-4-5", "openai:gpt-4o-mini"]


def _cli(capsys, models: list[str]) -> dict[str, dict]:
    assert main(["count", TEXT, "-m", ",".join(models), "--format", "json"]) == 0
    return {r["model"]: r for r in json.loads(capsys.readouterr().out)}


def _compare(models: list[str]) -> dict[str, tuple[str, str]]:
    """model -> (exactness, tokenizer) as the Compare page shows them under "Count it for"."""
    at = open_page("app_pages/compare.py")
    at.multiselect(key="tokenizers").set_value(["o200k_base"])
    at.text_area(key="text").set_value(TEXT).run()
    out = {}
    for model in models:
        at.selectbox(key="cost_model").set_value(model).run()
        assert not at.exception and not at.error, model
        metrics = {m.label: m for m in at.metric}
        out[model] = (metrics["Input tokens"].delta, metrics["Content tokens"].delta)
    return out


def _cost(models: list[str]):
    """The Cost page priced for `models` (the default workload: 300 output tokens a request)."""
    at = open_page("app_pages/cost.py")
    at.multiselect(key="cost_models").set_value(models)
    at.text_area(key="cost_text").set_value(TEXT)
    at.button(key="cost_go").click().run()
    assert not at.exception
    return at


def _cost_words(at) -> dict[str, tuple[str, str]]:
    table = at.dataframe[0].value.set_index("model")
    return {m: (table.loc[m, "exactness"], table.loc[m, "tokenizer"]) for m in table.index}


def test_each_model_has_one_exactness_word_on_compare_cost_and_the_cli(capsys):
    cli = {m: (r["exactness"], r["tokenizer"]) for m, r in _cli(capsys, MODELS).items()}
    compare = _compare(MODELS)
    cost = _cost_words(_cost(MODELS))
    assert compare == cli
    assert cost == cli
    assert {word for word, _ in cli.values()} == {"exact", "documented", "estimate"}
    assert cli["groq:qwen/qwen3-32b"][0] == "exact"
    assert cli["anthropic:claude-sonnet-4-5"] == ("estimate", "~o200k_base")  # a proxy: ~ on every face


def _reasons_by_default(model_glob: str):
    """The reasoning rules with one more: models matching `model_glob` always reason."""
    cache, reasoning = caching._rules()
    extra = caching.ReasoningRule(match=(model_glob,), source="a test", checked="2026-12-07",
                                  why="stands for a model that counts exactly and reasons")
    return lambda: (cache, (extra, *reasoning))


def test_a_reasoning_model_keeps_its_counts_word_and_says_its_reasoning_apart(monkeypatch, capsys):
    # Gemini 2.5 counts exactly once gemma3 is fetched and reasons by default: its Cost row then
    # lacks the reasoning no text shows. That case here without the fetched vocabulary: qwen3-32b
    # (counted exactly, from the bundled qwen2.5 vocabulary) made a model that always reasons.
    model = "groq:qwen/qwen3-32b"
    monkeypatch.setattr(caching, "_rules", _reasons_by_default("qwen3-32b"))
    assert caching.reasoning_rule(model) is not None
    word = _cli(capsys, [model])[model]["exactness"]
    assert word == "exact"
    assert _compare([model])[model][0] == word
    at = _cost([model])
    assert _cost_words(at)[model][0] == word
    table = at.dataframe[0].value.set_index("model")
    assert table.loc[model, "reasoning/req"] == "reasoning not included"
    assert any(model in w.value and "understated" in w.value for w in at.warning)
    notes = "\n".join(m.value for m in at.markdown)
    assert f"REASONING NOT INCLUDED: {model}" in notes
    assert f"ESTIMATE: {model}" not in notes  # no second word for the model
    assert int(next(m for m in at.metric if m.label.startswith("Estimates")).value) == 0


@pytest.mark.parametrize("model", ["google:gemini-2.5-flash", "google:gemini-2.5-pro"])
def test_gemini_reasons_and_its_word_is_its_counts(model, capsys):
    # Gemini 2.5 bills reasoning as output: with no reasoning figure its Cost row says so apart,
    # and its word is the count's (exact with gemma3 fetched, estimate through the o200k proxy)
    assert caching.reasoning_rule(model) is not None
    word = _cli(capsys, [model])[model]["exactness"]
    at = _cost([model])
    assert _cost_words(at)[model][0] == word == _compare([model])[model][0]
    assert at.dataframe[0].value.set_index("model").loc[model, "reasoning/req"] == "reasoning not included"
