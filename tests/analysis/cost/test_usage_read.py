"""The usage read by genai-prices' extractor mappings followed over plain dicts (`usage._fast_extract`)
equals genai-prices' own `extract_usage`, on every log shape and on randomized usage objects; where
it cannot say, it leaves the reading to genai-prices (issue 44)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from genai_prices import extract_usage

from analysis.cost import usage as usage_mod
from analysis.models import genai
from analysis.cost.usage import SHAPE_PROVIDERS, read_usage

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
README = Path(__file__).resolve().parents[3] / "docs" / "examples"
KEYS = {  # the keys each shape's usage may hold, with nested detail objects
    "openai-chat": ["prompt_tokens", "completion_tokens", ("prompt_tokens_details", "cached_tokens"),
                    ("prompt_tokens_details", "audio_tokens"), ("prompt_tokens_details", "cache_write_tokens"),
                    ("completion_tokens_details", "reasoning_tokens"), ("completion_tokens_details", "audio_tokens"),
                    "total_tokens"],
    "openai-responses": ["input_tokens", "output_tokens", ("input_tokens_details", "cached_tokens"),
                         ("output_tokens_details", "reasoning_tokens"), "total_tokens"],
    "anthropic": ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                  ("cache_creation", "ephemeral_5m_input_tokens"), ("cache_creation", "ephemeral_1h_input_tokens"),
                  ("server_tool_use", "web_search_requests"), ("output_tokens_details", "thinking_tokens")],
    "gemini": ["promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "cachedContentTokenCount",
               "toolUsePromptTokenCount", "totalTokenCount"],
}
KEYS["openrouter"] = KEYS["openai-chat"]


def _reference(value: dict, shape: str):
    provider, flavor, key = SHAPE_PROVIDERS[shape]
    return extract_usage(usage_mod._wrap(value, key, None), provider_id=provider, api_flavor=flavor).usage


def _random_usage(rng: random.Random, shape: str) -> dict:
    out: dict = {}
    for key in KEYS[shape]:
        if rng.random() < 0.35:
            continue
        value = rng.choice([0, 1, 17, 1024, 200_001, 3.0, True, -1, None, "7"] if rng.random() < 0.1
                           else [0, 1, 17, 1024, 200_001])
        if isinstance(key, tuple):
            out.setdefault(key[0], {})[key[1]] = value
        else:
            out[key] = value
    if shape == "gemini" and rng.random() < 0.3:
        out["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": out.get("promptTokenCount", 0)}]
    return out


@pytest.mark.parametrize("shape", sorted(KEYS))
def test_fast_read_equals_genai_prices(shape):
    rng = random.Random(sum(map(ord, shape)))
    provider, flavor, key = SHAPE_PROVIDERS[shape]
    fast = 0
    for _ in range(400):
        value = _random_usage(rng, shape)
        body = usage_mod._wrap(value, key, None)
        try:
            ref = _reference(value, shape)
        except (ValueError, TypeError, KeyError, LookupError):
            ref = None
        ours = genai._fast_extract(body, provider, flavor)
        if ours is None:
            continue  # genai-prices itself reads it (and words its refusal)
        fast += 1
        assert ref is not None, value
        assert list(ours.__dict__.items()) == list(ref.__dict__.items()), value
    assert fast > 100  # the fast path did serve most usage objects


def _logged_usages() -> list[tuple[dict, str]]:
    from analysis.cost.logs.shapes import _logged_usage, _usage_shape

    found = []
    for path in sorted(LOGS.glob("*.jsonl")) + sorted(README.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if not isinstance(row, dict):
                continue
            response = row.get("response") if isinstance(row.get("response"), dict) else {}
            response = response.get("body", response) if isinstance(response.get("body"), dict) else response
            usage = _logged_usage(row, response)
            if isinstance(usage, dict):
                found.append((usage, _usage_shape(usage, "openai-chat", response)))
    return found


def test_every_fixture_usage_reads_as_genai_prices_reads_it():
    found = _logged_usages()
    assert len(found) >= 8
    for value, shape in found:
        ref = _reference(value, shape)
        bill = read_usage(value, shape)
        assert list(bill.genai.__dict__.items()) == list(ref.__dict__.items())


def test_inferred_values_are_genai_prices_own():
    # a value the usage does not report is genai-prices' inference (0 here), kept per reported keys
    bill = read_usage({"prompt_tokens": 50, "completion_tokens": 5}, "openai-chat")
    assert bill.cache_write_5m_tokens == 0 and bill.cache_read_tokens == 0
    assert usage_mod._int(bill.genai, "cache_write_tokens") == getattr(bill.genai, "cache_write_tokens", 0) == 0


def test_the_read_memo_holds_its_keys_at_their_size(run):
    # orjson's bytes keep a 4 kB buffer however short the text: kept as memo keys, 65,536 of them held
    # about 270 MB; a copy of exactly its size holds the entry (key, Usage, LoggedBill) under 1.5 kB
    import tracemalloc

    memo = run.memo("usage.read")
    rng = random.Random(5)
    read_usage({"prompt_tokens": 3, "completion_tokens": 1}, "openai-chat", model="gpt-4o")  # imports, caches
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for _ in range(2000):
            read_usage({"prompt_tokens": rng.randint(10, 5000), "completion_tokens": rng.randint(1, 900),
                        "prompt_tokens_details": {"cached_tokens": 0}}, "openai-chat", model="gpt-4o")
        grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before, "filename"))
    finally:
        tracemalloc.stop()
    assert len(memo) > 1900
    assert grown / len(memo) < 1500, grown / len(memo)
