"""Errors by meaning: UnknownName is 404, BadInput 422, and anything else (a bare KeyError or
ValueError included) is a bug, answered 500 with no traceback and no exception text."""

from __future__ import annotations

import logging

import pytest

from analysis.api.routers import count as count_router
from analysis.api.routers import tokenize as tokenize_router
from analysis.errors import BadInput, UnknownName
from analysis.tokenizers.tiktoken_adapter import TiktokenTokenizer

SECRET = "planted-bug-detail-7f3a"


def _raiser(exc: BaseException):
    def fn(*args, **kwargs):
        raise exc
    return fn


def _problem(r, status: int) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    return r.json()


def _assert_bug(r) -> dict:
    body = _problem(r, 500)
    assert body["type"] == "urn:tokenprism:problem:internal-error"
    assert "bug in tokenprism" in body["detail"]
    assert SECRET not in r.text  # neither the exception's text ...
    assert "Traceback" not in r.text  # ... nor its traceback reach the client
    return body


@pytest.mark.parametrize("exc", [KeyError(SECRET), ValueError(SECRET), LookupError(SECRET)], ids=type)
def test_a_planted_bug_in_a_handler_is_500(client, monkeypatch, caplog, exc):
    monkeypatch.setattr(count_router, "count_texts", _raiser(exc))
    with caplog.at_level(logging.ERROR, logger="tokenprism.api"):
        r = client.post("/v1/count", json={"text": "hello"})
    _assert_bug(r)
    logged = [rec.getMessage() for rec in caplog.records if rec.name == "tokenprism.api"]
    assert any("internal error on POST /v1/count" in m and type(exc).__name__ in m and SECRET in m for m in logged), logged


def test_a_planted_bug_in_the_pool_is_500(client, monkeypatch):
    # Above INLINE_WORK the work runs in the encoding pool: the error crosses the thread unchanged.
    monkeypatch.setattr(count_router, "count_texts", _raiser(KeyError(SECRET)))
    _assert_bug(client.post("/v1/count", json={"text": "x" * 10_000}))


def test_a_planted_bug_in_a_library_function_is_500(client, monkeypatch):
    # Deeper than the router: the tokenizer itself raises a bare ValueError while encoding.
    monkeypatch.setattr(TiktokenTokenizer, "encode", _raiser(ValueError(SECRET)))
    _assert_bug(client.post("/v1/tokenize", json={"text": "hello", "tokenizer": "o200k_base"}))


def test_unknown_name_is_404_with_valid_and_closest(client, monkeypatch):
    monkeypatch.setattr(tokenize_router, "explain_text",
                        _raiser(UnknownName("sample", "helo", ["hello", "help", "world"])))
    body = _problem(client.post("/v1/explain", json={"text": "x", "tokenizer": "o200k_base"}), 404)
    assert body["type"] == "urn:tokenprism:problem:unknown-name"
    assert body["detail"] == "unknown sample 'helo'; did you mean hello, help?"
    assert body["valid"] == ["hello", "help", "world"]
    assert body["closest"] == ["hello", "help"]


def test_bad_input_is_422(client, monkeypatch):
    monkeypatch.setattr(tokenize_router, "explain_text", _raiser(BadInput("the text is wrong. Fix: send another")))
    body = _problem(client.post("/v1/explain", json={"text": "x", "tokenizer": "o200k_base"}), 422)
    assert body["type"] == "urn:tokenprism:problem:invalid-input"
    assert body["detail"] == "the text is wrong. Fix: send another"


def test_library_refusals_reach_the_client_typed(client):
    # Real refusals, not planted: an id outside the vocabulary (BadInput from the adapter) and a
    # tokenizer without a rank table (BadInput from the lab).
    assert "assigned to no token" in _problem(client.post("/v1/detokenize", json={"ids": [199998]}), 422)["detail"]
    assert "rank table" in _problem(client.post("/v1/explain", json={"text": "x", "tokenizer": "deepseek-v4"}),
                                    422)["detail"]


def test_the_cost_router_maps_typed_refusals_and_a_plain_keyerror_is_a_bug(client, monkeypatch):
    base = {"text": "hello", "models": ["gpt-4o"], "requests_per_month": "1000", "output_tokens": 10}
    assert _problem(client.post("/v1/cost", json={**base, "models": ["gpt-4oo"]}), 404)["detail"].startswith(
        "unknown model 'gpt-4oo'")
    assert "at most" in _problem(client.post("/v1/cost", json={**base, "output_ratio": "1e308", "output_tokens": None}),
                                 422)["detail"]
    for planted in (ValueError(SECRET), KeyError(SECRET), TypeError(SECRET)):
        import analysis.cost

        # the router imports `estimate` from analysis.cost when a request comes (pandas is not
        # imported before the server is ready): planted there, it is what the request gets
        monkeypatch.setattr(analysis.cost, "estimate", _raiser(planted))
        _assert_bug(client.post("/v1/cost", json=base))


def test_limit_helper_names_the_flag(client):
    body = _problem(client.post("/v1/explain", json={"text": "a" * 201, "tokenizer": "o200k_base"}), 422)
    assert body["type"] == "urn:tokenprism:problem:limit-exceeded"
    assert body["detail"].startswith("text has 201 characters")
    assert "the limit is 200" in body["detail"]
    assert body["detail"].endswith("or raise the server's --max-explain-chars")
