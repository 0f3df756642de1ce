"""Findings 15 and 19 of issue 34: the service's answers to odd but valid requests.

A library bug must never reach a client as a 422, and a refusal must say what is wrong.
Run in process (FastAPI's TestClient, the API tests' `ready_client`).
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from analysis.api.settings import Settings  # noqa: E402
from tests.analysis.api.conftest import ready_client  # noqa: E402


@pytest.fixture(scope="module")
def client():
    c = ready_client(Settings(tokenizers=("o200k_base", "gpt2")))
    yield c
    c.__exit__(None, None, None)


def _post(client, path: str, body: dict):
    # json.dumps writes a lone surrogate as the escape "\ud800", as a client's JSON would
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


def test_cost_counts_a_lone_surrogate_as_count_does(client):
    # finding 15: 422 "'utf-8' codec can't encode ..." from pyarrow, while /v1/count counted it
    text = "a\ud800"
    count = _post(client, "/v1/count", {"text": text, "tokenizers": ["o200k_base"]})
    assert count.status_code == 200, count.text
    n = count.json()["results"][0]["n_tokens"]
    cost = _post(client, "/v1/cost", {"text": text, "models": ["openai:gpt-4o"], "requests_per_month": 1000,
                                      "output_tokens": 10, "on": "2025-06-01"})
    assert cost.status_code == 200, cost.text
    same = _post(client, "/v1/cost", {"text": "a\ufffd", "models": ["openai:gpt-4o"], "requests_per_month": 1000,
                                      "output_tokens": 10, "on": "2025-06-01"})
    assert cost.json() == same.json()  # the surrogate is counted as U+FFFD, as every tokenizer counts it
    assert n == _post(client, "/v1/count", {"text": "a\ufffd", "tokenizers": ["o200k_base"]}).json()["results"][0]["n_tokens"]


@pytest.mark.parametrize("gap", [199998, 200000, 200017])
def test_detokenize_names_unassigned_ids(client, gap):
    # finding 19: said "valid ids are 0..200018" of an id inside that range
    r = _post(client, "/v1/detokenize", {"tokenizer": "o200k_base", "ids": [1, gap]})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert f"[{gap}]" in detail and "assigned to no token" in detail and "199999" in detail
    assert "valid ids are" not in detail


def test_detokenize_out_of_range_still_names_the_range(client):
    r = _post(client, "/v1/detokenize", {"tokenizer": "gpt2", "ids": [50257]})
    assert r.status_code == 422 and "0..50256" in r.json()["detail"]
