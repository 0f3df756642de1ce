"""The real `tokenprism serve` process over HTTP: readiness, the CLI's numbers, the Anthropic SDK, fuzzing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from analysis.corpora import load_builtin, sample_text

from .server import REPO, post


def test_served_over_http(live_server):
    status, body = post(live_server + "/v1/count", {"text": "hello", "tokenizers": ["o200k_base"]})
    assert status == 200
    assert body["results"][0]["n_tokens"] == 1
    status, body = post(live_server + "/v1/count", {"text": "hello", "tokenizers": ["nope"]})
    assert status == 404
    assert "o200k_base" in body["detail"]


def test_count_equals_cli_compare_on_builtin_samples(live_server, tmp_path):
    frame = load_builtin()
    texts = [sample_text()] + frame.groupby("category").head(1)["text"].tolist()
    files = []
    for i, t in enumerate(texts):
        files += ["-f", str(tmp_path / f"{i}.txt")]
        (tmp_path / f"{i}.txt").write_bytes(t.encode("utf-8"))
    cli = subprocess.run([sys.executable, "-m", "analysis", "compare", *files, "-t", "o200k_base,cl100k_base",
                          "--format", "json"], cwd=REPO, capture_output=True, text=True, check=True)
    want = json.loads(cli.stdout)
    status, got = post(live_server + "/v1/count", {"texts": texts, "tokenizers": ["o200k_base", "cl100k_base"]})
    assert status == 200
    assert len(got["results"]) == len(want) == 2 * len(texts)
    for g, w in zip(got["results"], want):
        assert (g["tokenizer"], g["n_tokens"], g["n_chars"], g["n_bytes"]) == (w["tokenizer"], w["n_tokens"], w["n_chars"], w["n_bytes"])
        assert g["chars_per_token"] == pytest.approx(w["chars_per_token"], abs=1e-6)
        assert g["n_tokens"] == len(w["ids"])


def test_anthropic_sdk_count_tokens(live_server):
    anthropic = pytest.importorskip("anthropic", reason="the official anthropic SDK is a dev dependency")
    from analysis.requests import input_tokens, parse

    client = anthropic.Anthropic(base_url=live_server, api_key="unused-here", max_retries=0)
    body = {"system": "You are terse.", "messages": [{"role": "user", "content": "How many tokens is this?"}]}
    result = client.messages.count_tokens(model="claude-sonnet-4-5", **body)
    assert result.input_tokens == input_tokens(parse(body, shape="anthropic"), "claude-sonnet-4-5").input_tokens
    extra = result.model_extra or {}
    assert extra.get("exactness") == "estimate"
    assert extra.get("tokenizer") == "o200k_base"


def test_anthropic_sdk_with_a_keyed_server(tmp_path):
    anthropic = pytest.importorskip("anthropic", reason="the official anthropic SDK is a dev dependency")
    from .server import serve

    key = "sdk-key-0123456789abcdef"
    (tmp_path / "keys").write_text(key + "\n", encoding="utf-8")
    with serve("--tokenizers", "o200k_base", "--api-key-file", str(tmp_path / "keys")) as (url, proc, seconds):
        ok = anthropic.Anthropic(base_url=url, api_key=key, max_retries=0)
        assert ok.messages.count_tokens(model="gpt-4o", messages=[{"role": "user", "content": "hi"}]).input_tokens == 1 + 4 + 3
        with pytest.raises(anthropic.AuthenticationError):
            anthropic.Anthropic(base_url=url, api_key="wrong-key-0123456789", max_retries=0).messages.count_tokens(
                model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        status, _ = post(url + "/v1/count", {"text": "x"})
        assert status == 401


def test_cli_refuses_bad_flags_before_starting():
    def run(*args):
        return subprocess.run([sys.executable, "-m", "analysis", "serve", *args], cwd=REPO, capture_output=True,
                              text=True, timeout=60)
    r = run("--tokenizers", "o200k")
    assert r.returncode == 2
    assert "Did you mean o200k_base" in r.stderr
    assert "Traceback" not in r.stderr
    r = run("--api-key-file", "/nonexistent/keys")
    assert r.returncode == 2
    assert "cannot read" in r.stderr


def test_schemathesis_fuzz(live_server):
    """Property-based fuzzing of the OpenAPI schema: no 5xx, every response as documented (bounded budget)."""
    schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is a dev dependency")
    from hypothesis import HealthCheck, Phase, given, settings
    from schemathesis.checks import (
        content_type_conformance, not_a_server_error, response_schema_conformance, status_code_conformance,
    )

    schema = schemathesis.openapi.from_url(live_server + "/openapi.json")
    checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    failures, calls = [], []
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path == "/v1/cost" or operation.path == "/v1/models":
            n = 4  # each answer prices many models: fewer examples, same checks
        else:
            n = 12

        @settings(max_examples=n, deadline=None, phases=[Phase.generate], database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy())
        def run(case):
            calls.append(operation.path)
            try:
                case.call_and_validate(checks=checks)
            except Exception as e:  # collect every operation's first failure
                failures.append(f"{operation.method.upper()} {operation.path}: {e}")
                raise
        try:
            run()
        except Exception:
            pass
    assert not failures, "\n\n".join(failures[:5])
    assert len(set(calls)) >= 10, calls
    request_routes = {"/v1/responses/input_tokens", "/v1beta/models/{model}:countTokens", "/v1/models/{model}:countTokens",
                      "/tokenize", "/v1/messages/count_tokens", "/v1/count"}
    assert request_routes <= set(calls), request_routes - set(calls)
    assert len(calls) >= 60, calls
