"""Every endpoint and every error path of the service, in process (FastAPI's TestClient)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from analysis import load_tokenizer
from analysis.requests import input_tokens, parse
from analysis.compare import compare

PROBLEM = "application/problem+json"


def problem(r, status: int) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    body = r.json()
    assert body["status"] == status
    assert body["type"].startswith("urn:tokenprism:problem:")
    assert body["detail"]
    return body


# -- operations ----------------------------------------------------------------------------------
def test_health_and_ready(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready"
    assert ready["tokenizers"][0] == "o200k_base"
    assert ready["seconds_to_ready"] >= 0


def test_readyz_is_503_while_loading():
    from fastapi.testclient import TestClient

    from analysis.api.app import create_app
    from analysis.api.runtime import Runtime
    from analysis.api.settings import Settings

    app = create_app(Settings(tokenizers=("o200k_base",)))
    app.state.runtime._load = _never_loads.__get__(app.state.runtime, Runtime)  # loading never finishes
    with TestClient(app) as c:
        body = problem(c.get("/readyz"), 503)
        assert "still loading" in body["detail"]
        r = c.post("/v1/count", json={"text": "x"})
        assert problem(r, 503)
        assert r.headers["retry-after"] == "1"
        assert c.get("/healthz").status_code == 200


async def _never_loads(self):
    import asyncio

    await asyncio.sleep(3600)


def test_metrics_count_requests_and_tokens(client):
    client.post("/v1/count", json={"text": "hello world", "tokenizers": ["gpt2"]})
    text = client.get("/metrics").text
    assert 'tokenprism_http_requests_total{method="POST",route="/v1/count",status="200"}' in text
    assert 'tokenprism_tokens_counted_total{tokenizer="gpt2"}' in text
    assert "tokenprism_http_request_duration_seconds_bucket" in text
    assert "tokenprism_ready 1.0" in text


def test_openapi_and_offline_docs(client):
    schema = client.get("/openapi.json").json()
    for path in ("/v1/count", "/v1/tokenize", "/v1/detokenize", "/v1/explain", "/v1/models", "/v1/cost",
                 "/v1/tokenizers", "/tokenize", "/detokenize", "/v1/messages/count_tokens", "/healthz", "/readyz"):
        assert path in schema["paths"], path
    page = client.get("/docs").text
    assert "https://" not in page
    assert "http://" not in page
    for asset in ("swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png"):
        assert f"docs/assets/{asset}" in page
        r = client.get(f"/docs/assets/{asset}")
        assert r.status_code == 200
        assert len(r.content) > 500
    problem(client.get("/docs/assets/..%2Fsecret"), 404)
    problem(client.get("/docs/assets/index.html"), 404)


def test_unknown_route_and_method(client):
    assert "no endpoint" in problem(client.get("/v2/count"), 404)["detail"]
    assert "not allowed" in problem(client.get("/v1/count"), 405)["detail"]


# -- count ---------------------------------------------------------------------------------------
def test_count_matches_compare(client):
    text = "Hello, wörld! 12345 \n\tdef f(x): return x"
    rows = client.post("/v1/count", json={"text": text, "tokenizers": ["o200k_base", "deepseek-v4", "ownbpe"]}).json()["results"]
    expected = compare(text, [load_tokenizer(n) for n in ("o200k_base", "deepseek-v4", "ownbpe")])
    assert [r["n_tokens"] for r in rows] == expected["n_tokens"].tolist()
    assert [r["chars_per_token"] for r in rows] == expected["chars_per_token"].tolist()
    assert rows[0]["n_bytes"] == len(text.encode())
    assert rows[0]["n_chars"] == len(text)


def test_count_batch_and_defaults(client):
    body = client.post("/v1/count", json={"texts": ["a b c", "", "xyz"]}).json()
    assert body["n_texts"] == 3
    assert len(body["results"]) == 3 * 5
    empty = [r for r in body["results"] if r["text_index"] == 1]
    assert all(r["n_tokens"] == 0 and r["chars_per_token"] is None for r in empty)


def test_count_accepts_curl_form_content_type(client):
    r = client.post("/v1/count", content=b'{"text":"hello","tokenizers":["o200k_base"]}',
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 200
    assert r.json()["results"][0]["n_tokens"] == 1


def test_count_errors(client):
    body = problem(client.post("/v1/count", json={"text": "x", "tokenizers": ["o200k"]}), 404)
    assert "o200k_base" in body["detail"]
    assert "o200k_base" in body["valid"]
    assert "not loaded" in problem(client.post("/v1/count", json={"text": "x", "tokenizers": ["qwen2.5"]}), 404)["detail"]
    assert "exactly one" in problem(client.post("/v1/count", json={"text": "x", "texts": ["y"]}), 422)["detail"]
    assert "exactly one" in problem(client.post("/v1/count", json={}), 422)["detail"]
    problem(client.post("/v1/count", json={"texts": []}), 422)
    problem(client.post("/v1/count", json={"text": "x", "tokenizers": []}), 422)
    assert "limit is 5" in problem(client.post("/v1/count", json={"texts": ["a"] * 6}), 422)["detail"]
    assert "limit is 3" in problem(client.post("/v1/count", json={"text": "a", "tokenizers": ["gpt2"] * 4}), 422)["detail"]
    assert "--max-text-chars" in problem(client.post("/v1/count", json={"text": "a" * 50_001}), 422)["detail"]
    body = problem(client.post("/v1/count", json={"text": 5}), 422)
    assert body["errors"][0]["field"] == "text"
    assert "5" not in body["detail"].split("(")[0]  # the input is never echoed
    problem(client.post("/v1/count", json={"text": "x", "typo": 1}), 422)
    problem(client.post("/v1/count", content=b"{not json", headers={"content-type": "application/json"}), 422)


def test_body_limit_is_413(client):
    big = {"text": "a" * 250_000}
    body = problem(client.post("/v1/count", json=big), 413)
    assert "--max-body-bytes" in body["detail"]

    def chunks():  # no Content-Length: the limit still holds while the body streams
        yield b'{"text": "'
        for _ in range(30):
            yield b"a" * 10_000
        yield b'"}'
    problem(client.post("/v1/count", content=chunks(), headers={"content-type": "application/json"}), 413)


def test_lone_surrogates_do_not_fail(client):
    r = client.post("/v1/count", content=b'{"text": "a\\ud800b", "tokenizers": ["o200k_base"]}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 200
    assert r.json()["results"][0]["n_tokens"] >= 2


# -- tokenize, detokenize, explain ---------------------------------------------------------------
def test_tokenize_with_pieces(client):
    r = client.post("/v1/tokenize", json={"text": "héllo🤗", "tokenizer": "gpt2", "pieces": True}).json()
    tok = load_tokenizer("gpt2")
    assert r["ids"] == tok.encode("héllo🤗")
    assert r["n_tokens"] == len(r["ids"])
    assert [p["id"] for p in r["pieces"]] == r["ids"]
    assert any(p["partial"] for p in r["pieces"])  # the emoji's bytes are split across tokens
    assert bytes.fromhex("".join(p["bytes_hex"] for p in r["pieces"])) == "héllo🤗".encode()
    plain = client.post("/v1/tokenize", json={"text": "hello"}).json()
    assert plain == {"tokenizer": "o200k_base", "n_tokens": 1, "ids": [24912]}


def test_detokenize(client):
    assert client.post("/v1/detokenize", json={"ids": [24912, 2375]}).json()["text"] == "hello world"
    ids = load_tokenizer("gpt2").encode("🙂")
    half = client.post("/v1/detokenize", json={"ids": ids[:1], "tokenizer": "gpt2"}).json()
    assert half["complete_utf8"] is False
    assert "\ufffd" in half["text"]
    assert "not a token id" in problem(client.post("/v1/detokenize", json={"ids": [-1]}), 422)["detail"]
    problem(client.post("/v1/detokenize", json={"ids": [199998]}), 422)  # a hole in o200k's ids
    assert "--max-ids" in problem(client.post("/v1/detokenize", json={"ids": [1] * 101}), 422)["detail"]
    problem(client.post("/v1/detokenize", json={"ids": ["a"]}), 422)


def test_explain(client):
    r = client.post("/v1/explain", json={"text": "hello world", "tokenizer": "cl100k_base"}).json()
    assert r["n_tokens"] == 2
    assert [p["ids"] for p in r["pieces"]] == [[15339], [1917]]
    assert r["pieces"][0]["merges"][-1]["result"] == "hello"
    assert "rank table" in problem(client.post("/v1/explain", json={"text": "x", "tokenizer": "deepseek-v4"}), 422)["detail"]
    assert "--max-explain-chars" in problem(client.post("/v1/explain", json={"text": "a" * 201}), 422)["detail"]


def test_tokenizers_list(client):
    names = [t["name"] for t in client.get("/v1/tokenizers").json()["tokenizers"]]
    assert names == ["o200k_base", "cl100k_base", "gpt2", "deepseek-v4", "ownbpe"]


# -- models and cost -----------------------------------------------------------------------------
def test_models(client):
    rows = client.get("/v1/models", params={"contains": "claude-sonnet-4-5"}).json()["models"]
    claude = [r for r in rows if r["model"] == "anthropic:claude-sonnet-4-5"][0]
    assert claude["exactness"] == "estimate"
    assert claude["tokenizer"] == "~o200k_base"
    assert "estimate" in claude["note"]
    assert isinstance(claude["usd_per_mtok_input"], str)  # money as a decimal string
    assert "did you mean openai" in problem(client.get("/v1/models", params={"provider": "opneai"}), 404)["detail"]
    problem(client.get("/v1/models", params={"exactness": "maybe"}), 422)
    problem(client.get("/v1/models", params={"contains": "no-such-model-anywhere"}), 422)


def test_cost_matches_the_cli_shape(client):
    from datetime import date

    from analysis.cost import Workload, estimate
    from analysis.report.cost import report_json

    body = {"text": "Summarise this.", "models": ["gpt-4o", "claude-sonnet-4-5"], "requests_per_month": "1000",
            "output_tokens": 10, "on": "2025-06-01"}
    got = client.post("/v1/cost", json=body).json()
    want = report_json(estimate("Summarise this.", ["gpt-4o", "claude-sonnet-4-5"],
                                workload=Workload(requests_per_month="1000", output_tokens=10), on=date(2025, 6, 1)))
    assert got == want
    assert any(n.startswith("ESTIMATE") for n in got["notes"])


def test_cost_errors(client):
    base = {"text": "x", "requests_per_month": 10, "output_tokens": 1}
    assert "Closest" in problem(client.post("/v1/cost", json={**base, "models": ["gpt-4oo"]}), 404)["detail"]
    assert "exactly one of output_tokens" in problem(client.post("/v1/cost", json={**base, "output_ratio": 1}), 422)["detail"]
    assert "non-negative" in problem(client.post("/v1/cost", json={**base, "requests_per_month": -1}), 422)["detail"]
    problem(client.post("/v1/cost", json={**base, "cached_share": 2}), 422)
    assert "--max-models" in problem(client.post("/v1/cost", json={**base, "models": ["gpt-4o"] * 4}), 422)["detail"]
    problem(client.post("/v1/cost", json={**base, "models": []}), 422)
    problem(client.post("/v1/cost", json={**base, "requests_per_month": "NaN"}), 422)


@pytest.mark.slow  # two pricings with the cache simulation and a CLI run
def test_cost_of_a_shared_prefix_is_the_clis_and_says_reasoning_not_included(client, capsys):
    # issue 42: a system prompt and requests per cache lifetime price each model's cache by its own rule, the
    # same document as `tokenprism cost TEXT --system S --format json`
    import json

    from analysis.cli import main

    system = "You are a careful support agent; cite the policy section you rely on. " * 150
    body = {"text": "Where is parcel 7?", "system": system, "requests_per_lifetime": "10", "cache_breakpoints": "auto",
            "models": ["gpt-4.1", "o3"], "requests_per_month": 1000, "output_tokens": 50, "on": "2026-12-01"}
    got = client.post("/v1/cost", json=body).json()
    assert main(["cost", "Where is parcel 7?", "--system", system, "--requests-per-lifetime", "10",
                 "--cache-breakpoints", "auto", "-m", "gpt-4.1,o3", "--requests-per-month", "1000", "--output-tokens",
                 "50", "--on", "2026-12-01", "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert got["models"] == cli["models"]
    rows = {m["model"]: m for m in got["models"]}
    assert rows["gpt-4.1"]["cache_read_tokens"] >= 1024 and "documented" in rows["gpt-4.1"]["cache_rule"]
    assert rows["o3"]["reasoning_source"] == "reasoning not included"
    assert "reasoning not included" in rows["o3"]["exactness_reason"]
    tools = [{"type": "function", "function": {"name": "track", "parameters": {"type": "object"}}}]
    with_tools = client.post("/v1/cost", json={**body, "tools": tools}).json()
    assert {m["model"]: m for m in with_tools["models"]}["gpt-4.1"]["prompt_tokens"] > rows["gpt-4.1"]["prompt_tokens"]
    base = {"text": "x", "requests_per_month": 10, "output_tokens": 1}
    assert "give a system prompt" in problem(client.post("/v1/cost", json={**base, "requests_per_lifetime": 2}), 422)["detail"]
    assert "above 0" in problem(client.post("/v1/cost", json={**base, "system": "s", "requests_per_lifetime": 0}),
                                422)["detail"]
    assert "at most" in problem(client.post("/v1/cost", json={**base, "system": "s", "requests_per_lifetime": "1e10"}),
                                422)["detail"]
    assert "leave them out" in problem(client.post("/v1/cost", json={**base, "system": "s", "messages_per_request": 3}),
                                       422)["detail"]
    problem(client.post("/v1/cost", json={**base, "system": "s", "tools": [{"type": "nonsense"}]}), 404)


# -- compatible shapes ---------------------------------------------------------------------------
def test_vllm_tokenize_and_detokenize(client):
    r = client.post("/tokenize", json={"model": "gpt-4o", "prompt": "hello world", "return_token_strs": True}).json()
    assert r["tokens"] == [24912, 2375]
    assert r["count"] == 2
    assert r["token_strs"] == ["hello", " world"]
    assert r["exactness"] == "exact"
    assert r["max_model_len"] == 128000
    by_name = client.post("/tokenize", json={"model": "cl100k_base", "prompt": "hello world"}).json()
    assert by_name["tokens"] == [15339, 1917]
    assert by_name["max_model_len"] is None
    claude = client.post("/tokenize", json={"model": "claude-sonnet-4-5", "prompt": "hi"}).json()
    assert claude["exactness"] == "estimate"
    assert claude["tokenizer"] == "~o200k_base"  # a proxy, marked as on every face (issue 56)
    assert client.post("/detokenize", json={"model": "gpt-4o", "tokens": [24912]}).json()["prompt"] == "hello"
    assert "did you mean gpt-4o" in problem(client.post("/tokenize", json={"model": "gtp-4o", "prompt": "x"}), 404)["detail"]
    # a misspelt id is refused although the model map's glob "gpt-4o*" would match it
    typo = problem(client.post("/tokenize", json={"model": "gpt-4oo", "prompt": "x"}), 404)
    assert "gpt-4o" in typo["valid"]
    assert "did you mean gpt-4o" in typo["detail"]
    assert "empty" in problem(client.post("/tokenize", json={"model": " ", "prompt": "x"}), 422)["detail"]
    assert "vocab fetch" in problem(client.post("/tokenize", json={"model": "llama-3.3-70b", "prompt": "x"}), 404)["detail"]
    assert "does not load" in problem(client.post("/tokenize", json={"model": "qwen3-32b", "prompt": "x"}), 404)["detail"]
    problem(client.post("/detokenize", json={"model": "gpt-4o", "tokens": [10**9]}), 422)
    problem(client.post("/tokenize", json={"model": "gpt-4o"}), 422)


def test_anthropic_count_tokens(client):
    body = {"model": "claude-sonnet-4-5", "system": "Be brief.",
            "messages": [{"role": "user", "content": "Hello there"},
                         {"role": "assistant", "content": [{"type": "text", "text": "Hi!"}]}]}
    r = client.post("/v1/messages/count_tokens", json=body, headers={"anthropic-version": "2023-06-01"}).json()
    expected = input_tokens(parse(body, shape="anthropic"), "claude-sonnet-4-5")  # the one request counter
    assert r["input_tokens"] == expected.input_tokens
    assert r["input_tokens"] > sum(load_tokenizer("o200k_base").count(t) for t in ("Be brief.", "Hello there", "Hi!"))
    assert r["exactness"] == "estimate"
    assert "proxy" in r["exactness_reason"] and r["note"] == r["exactness_reason"]
    gpt = client.post("/v1/messages/count_tokens", json={**body, "model": "gpt-4o"}).json()
    assert gpt["exactness"] in ("documented", "estimate")  # a system prompt apart is beyond the Cookbook's rules
    assert gpt["input_tokens"] == input_tokens(parse(body, shape="anthropic"), "gpt-4o").input_tokens
    image = {"model": "gpt-4o", "messages": [{"role": "user", "content": [{"type": "image", "source": {}}]}]}
    imaged = client.post("/v1/messages/count_tokens", json=image).json()
    assert imaged["exactness"] == "estimate" and "image (unsized) not counted" in imaged["exactness_reason"]
    many = {"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}] * 6}
    assert "--max-messages" in problem(client.post("/v1/messages/count_tokens", json=many), 422)["detail"]
    problem(client.post("/v1/messages/count_tokens", json={"model": "nope-model-zz", "messages": [{"role": "user", "content": "x"}]}), 404)
    sonet = problem(client.post("/v1/messages/count_tokens", json={**body, "model": "claude-sonet-4-5"}), 404)
    assert "claude-sonnet-4-5" in sonet["valid"]
    wizard = {**body, "messages": [{"role": "wizard", "content": "hi"}]}
    assert "unknown role 'wizard'" in problem(client.post("/v1/messages/count_tokens", json=wizard), 422)["detail"]
    video = {**body, "messages": [{"role": "user", "content": [{"type": "video"}]}]}
    assert "unknown content type 'video'" in problem(client.post("/v1/messages/count_tokens", json=video), 422)["detail"]


def test_readyz_says_when_the_engines_are_built():
    """Ready comes first (short texts are encoded from the rank tables); the engines follow."""
    from tests.analysis.api.server import serve, wait_engines

    with serve("--tokenizers", "o200k_base,deepseek-v4") as (url, _, _):
        wait_engines(url)
        import json
        import urllib.request

        with urllib.request.urlopen(url + "/readyz", timeout=5) as r:
            ready = json.loads(r.read())
        assert ready["engines_built"] is True and ready["tokenizers"] == ["o200k_base", "deepseek-v4"]


def test_cost_says_reasoning_not_included_on_a_reasoning_model(client):
    base = {"text": "Prove it.", "models": ["o3", "gpt-4.1"], "requests_per_month": 100, "output_tokens": 300}
    got = client.post("/v1/cost", json=base).json()
    rows = {m["model"]: m for m in got["models"]}
    assert rows["o3"]["reasoning"] == "reasoning not included" and rows["gpt-4.1"]["reasoning"] == ""
    assert any(n.startswith("REASONING NOT INCLUDED: o3") for n in got["notes"])
    given = {m["model"]: m for m in client.post("/v1/cost", json={**base, "reasoning_tokens": 2000}).json()["models"]}
    assert given["o3"]["reasoning"] == "" and given["o3"]["reasoning_tokens"] == 2000
    assert Decimal(given["o3"]["usd_per_request"]) > Decimal(rows["o3"]["usd_per_request"])
    problem(client.post("/v1/cost", json={**base, "reasoning_tokens": 1, "reasoning_ratio": 1}), 422)


def test_cost_prices_a_batch_workload_by_part_and_refuses_a_model_without_one(client):
    # issue 42: batch prices through genai-prices' price_context, parts per model row, input_tokens uncached
    base = {"text": "Summarise this contract.", "models": ["gpt-4.1-mini"], "requests_per_month": 100,
            "output_tokens": 300, "on": "2026-12-01"}
    standard = client.post("/v1/cost", json=base).json()["models"][0]
    batch = client.post("/v1/cost", json={**base, "batch": True}).json()["models"][0]
    assert Decimal(batch["usd_per_request"]) * 2 == Decimal(standard["usd_per_request"])  # gpt-4.1-mini batch: half price
    assert sum(Decimal(p["usd_per_request"]) for p in batch["parts"]) == Decimal(batch["usd_per_request"])
    assert batch["input_tokens"] + batch["cache_read_tokens"] == batch["prompt_tokens"]
    refused = problem(client.post("/v1/cost", json={**base, "models": ["deepseek-chat"], "batch": True}), 422)
    assert "no processing batch price for deepseek" in refused["detail"]
