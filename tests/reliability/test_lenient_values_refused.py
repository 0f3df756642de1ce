"""Lenient values are refused by name (finding 11 of the fifth audit).

/v1/cost took "1_000", " 5 " and "٥" as numbers (Python's Decimal does) and `batch: "yes"` as true
(pydantic's lax bool); an Anthropic `cache_control.ttl` of "forever", -1 or {"a": 1} passed
silently. Numbers are JSON numbers or ASCII-digit strings, booleans JSON booleans, a ttl "5m" or
"1h". (--image-size ١٠x١٠ is in test_media_sizes_capped.)
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from analysis.api.settings import Settings  # noqa: E402
from tests.analysis.api.conftest import ready_client  # noqa: E402

COST = {"text": "hello there", "models": ["openai:gpt-4o"], "requests_per_month": 1000, "output_tokens": 10,
        "on": "2025-06-01"}


@pytest.fixture(scope="module")
def client():
    c = ready_client(Settings(tokenizers=("o200k_base",)))
    yield c
    c.__exit__(None, None, None)


def _post(client, path: str, body: dict):
    return client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})


@pytest.mark.parametrize("value", ["1_000", " 5 ", "٥", "infinity", "nan", "1e5 ", "0x10", "²"])
def test_cost_numbers_must_be_ascii_digits(client, value):
    r = _post(client, "/v1/cost", dict(COST, requests_per_month=value))
    assert r.status_code == 422, r.text
    assert "requests_per_month" in r.text and "ASCII digits" in r.json()["detail"]


@pytest.mark.parametrize("value", ["1000", 1000, "1000.5", "1e3", 1e3])
def test_cost_numbers_in_ascii_digits_still_pass(client, value):
    assert _post(client, "/v1/cost", dict(COST, requests_per_month=value)).status_code == 200


@pytest.mark.parametrize("value", ["yes", "true", 1, "1", "on"])
def test_cost_batch_must_be_a_json_boolean(client, value):
    r = _post(client, "/v1/cost", dict(COST, batch=value))
    assert r.status_code == 422, r.text
    assert "batch" in r.text


def _count_tokens(client, control):
    block = {"type": "text", "text": "hello", "cache_control": control}
    return _post(client, "/v1/messages/count_tokens",
                 {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": [block]}]})


@pytest.mark.parametrize("control", [{"type": "ephemeral", "ttl": "forever"}, {"type": "ephemeral", "ttl": -1},
                                     {"type": "ephemeral", "ttl": {"a": 1}}, {"type": "persistent"}, "yes"])
def test_anthropic_cache_control_must_be_documented(client, control):
    r = _count_tokens(client, control)
    assert r.status_code == 422, r.text
    assert "messages[0].content[0].cache_control" in r.json()["detail"]


@pytest.mark.parametrize("control", [{"type": "ephemeral"}, {"type": "ephemeral", "ttl": "5m"},
                                     {"type": "ephemeral", "ttl": "1h"}])
def test_anthropic_cache_control_documented_values_pass(client, control):
    assert _count_tokens(client, control).status_code == 200


def test_a_content_length_of_5000_digits_is_too_large_not_an_error():
    # a header's number read as bounded ASCII digits: int() refuses 4,300 digits with a ValueError
    import asyncio

    from analysis.api import body as bodies

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    with pytest.raises(bodies.TooLarge):
        asyncio.run(bodies.read_body(receive, 1_000, b"9" * 5000))
    assert asyncio.run(bodies.read_body(receive, 1_000, b"2")) == b"{}"
