"""The service's JSON walked for money as the CLI's is (tests/analysis/cli/test_json_money.py):
every `usd` and `usd_*` value, nested `parts` and days included, a 10-place decimal string or null;
and the tokenizer field of a request count marks a proxy with `~`, as every face does."""

from __future__ import annotations

import pytest

from tests.analysis.cli.test_json_money import bad_money

BODIES = [
    ("/v1/cost", {"text": "Summarise this contract.", "models": ["gpt-4o", "o3", "claude-sonnet-4-5"],
                  "requests_per_month": 100000, "output_tokens": 300, "reasoning_tokens": 777}),
    ("/v1/cost", {"text": "Summarise this contract.", "models": ["gpt-4o", "o3"], "requests_per_month": 1000,
                  "output_tokens": 300, "batch": True}),
    ("/v1/cost", {"text": "Where is parcel 7?", "system": "You are a support agent. " * 40, "requests_per_lifetime": 10,
                  "cache_breakpoints": "auto", "models": ["gpt-4.1", "claude-sonnet-4-5"], "requests_per_month": 1000,
                  "output_tokens": 300}),
    ("/v1/cost", {"text": "Where is parcel 7?", "system": "You are a support agent. " * 40, "cached_share": 0,
                  "models": ["gpt-4o"], "requests_per_month": 1000, "output_tokens": 300}),
]


@pytest.mark.parametrize("route,body", BODIES, ids=[f"{r} {i}" for i, (r, _) in enumerate(BODIES)])
def test_every_money_value_the_service_writes_has_ten_places(client, route, body):
    r = client.post(route, json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    assert bad_money(data) == [] and '"usd' in r.text


def test_models_money_has_ten_places(client):
    r = client.get("/v1/models", params={"contains": "claude"})
    assert r.status_code == 200 and bad_money(r.json()) == []


def test_a_request_count_marks_a_proxy_tokenizer(client):
    rows = client.post("/v1/count", json={"models": ["gpt-4o", "claude-sonnet-4-5"],
                                          "messages": [{"role": "user", "content": "hi"}]}).json()["results"]
    assert [r["tokenizer"] for r in rows] == ["o200k_base", "~o200k_base"]
    vllm = client.post("/tokenize", json={"model": "claude-sonnet-4-5", "prompt": "hi"}).json()
    assert vllm["tokenizer"] == "~o200k_base"


def test_cached_share_0_is_no_cache_on_the_service_too(client):
    base = {"text": "Where is parcel 7?", "system": "You are a support agent. " * 300, "models": ["gpt-4o"],
            "requests_per_month": 1000, "output_tokens": 300, "requests_per_lifetime": 10}
    simulated = client.post("/v1/cost", json=base).json()["models"][0]
    none = client.post("/v1/cost", json={**base, "cached_share": 0}).json()["models"][0]
    assert float(none["usd_total"]) > float(simulated["usd_total"])  # the simulated cache read a prefix
    assert none["cache_read_tokens"] == 0
