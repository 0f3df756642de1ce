"""API keys: required on every route but /healthz and /readyz, found by walking the app's routes."""

from __future__ import annotations

import base64
import re

import pytest
from fastapi.routing import APIRoute

from analysis.api.security import _matches
from analysis.api.settings import Settings, read_keys

from .conftest import KEY

OPEN = {"/healthz", "/readyz"}


def _concrete(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "swagger-ui.css", path)


def walk(routes) -> list[APIRoute]:
    """Every endpoint of the app, through included routers (FastAPI >= 0.16x keeps an included
    router as one entry holding the original); anything else (a Mount, a bare Route) is
    returned too, so the test sees it and fails on it."""
    out = []
    for r in routes:
        inner = getattr(r, "original_router", None)
        out += walk(inner.routes) if inner is not None else [r]
    return out


def test_every_route_but_the_probes_needs_a_key(keyed_client):
    everything = walk(keyed_client.app.routes)
    routes = [r for r in everything if isinstance(r, APIRoute)]
    assert len(routes) >= 15, everything
    assert len(routes) == len(everything), everything
    for route in routes:
        for method in route.methods:
            r = keyed_client.request(method, _concrete(route.path), json={})
            if route.path in OPEN:
                assert r.status_code == 200, (method, route.path, r.status_code)
            else:
                assert r.status_code == 401, (method, route.path, r.status_code)
                assert r.headers["content-type"].startswith("application/problem+json")
                assert "Bearer" in r.headers["www-authenticate"]
                bad = keyed_client.request(method, _concrete(route.path), json={}, headers={"x-api-key": KEY + "x"})
                assert bad.status_code == 401
                assert "not valid" in bad.json()["detail"]


@pytest.mark.parametrize("headers", [
    {"x-api-key": KEY},
    {"authorization": f"Bearer {KEY}"},
    {"authorization": "Basic " + base64.b64encode(f"anyone:{KEY}".encode()).decode()},
], ids=["x-api-key", "bearer", "basic"])
def test_key_is_accepted_in_each_header(keyed_client, headers):
    r = keyed_client.post("/v1/count", json={"text": "hello"}, headers=headers)
    assert r.status_code == 200
    assert r.json()["results"][0]["n_tokens"] == 1
    assert keyed_client.get("/docs", headers=headers).status_code == 200


def test_constant_time_match_checks_every_key():
    assert _matches("b" * 20, ("a" * 20, "b" * 20))
    assert not _matches("c" * 20, ("a" * 20, "b" * 20))
    assert not _matches("", ("a" * 20,))
    assert not _matches("a" * 19, ("a" * 20,))


def test_keys_from_file_and_environment(tmp_path):
    f = tmp_path / "keys"
    f.write_text("# operators\n" + "k" * 24 + "\n\n", encoding="utf-8")
    s = Settings.from_env({"TOKENPRISM_API_KEY_FILE": str(f), "TOKENPRISM_API_KEY": "e" * 20 + "," + "k" * 24})
    assert s.api_keys == ("k" * 24, "e" * 20)
    f.write_text("short\n", encoding="utf-8")
    with pytest.raises(ValueError, match="shorter than 16"):
        read_keys(f)
    f.write_text("# nothing\n", encoding="utf-8")
    with pytest.raises(ValueError, match="holds no key"):
        read_keys(f)
    with pytest.raises(ValueError, match="cannot read"):
        read_keys(tmp_path / "missing")


def test_no_cors_unless_asked():
    from fastapi.testclient import TestClient

    from analysis.api.app import create_app

    preflight = {"origin": "https://ui.example", "access-control-request-method": "POST"}
    with TestClient(create_app(Settings(tokenizers=("o200k_base",)))) as c:
        assert "access-control-allow-origin" not in c.options("/v1/count", headers=preflight).headers
    with TestClient(create_app(Settings(tokenizers=("o200k_base",), cors_origins=("https://ui.example",)))) as c:
        assert c.options("/v1/count", headers=preflight).headers["access-control-allow-origin"] == "https://ui.example"


def test_cli_limits_repeat_the_service_defaults():
    from dataclasses import fields

    from analysis.api.settings import CONFIG_ENV, Limits
    from analysis.cli import serve

    assert serve.CONFIG_ENV == CONFIG_ENV
    assert {name: default for name, default, _ in serve.LIMITS.values()} == {f.name: f.default for f in fields(Limits)}


def test_non_loopback_without_a_key_warns():
    from analysis.cli.serve import open_warning

    for host in ("127.0.0.1", "::1", "[::1]", "localhost", "127.0.0.2"):
        assert open_warning(host, has_key=False) is None, host
    for host in ("0.0.0.0", "192.168.1.20", "::", "tokenprism.example"):
        assert "WITHOUT an API key" in open_warning(host, has_key=False), host
        assert open_warning(host, has_key=True) is None


def test_request_text_is_never_logged(client, caplog):
    import logging

    secret = "my-private-prompt-4711"
    with caplog.at_level(logging.DEBUG):
        client.post("/v1/count", json={"text": secret})
        client.post("/v1/count", json={"text": secret, "tokenizers": ["nope"]})
        client.post("/v1/count", json={"text": secret, "extra": secret})
        client.post("/v1/messages/count_tokens", json={"model": "gpt-4o", "messages": [{"role": "user", "content": secret}]})
    lines = [r.getMessage() for r in caplog.records]
    assert any("/v1/count" in m and "body=" in m for m in lines)  # sizes and timings are logged
    assert not [m for m in lines if secret in m]
    # and error bodies do not echo it either
    r = client.post("/v1/count", json={"text": secret, "extra": secret})
    assert secret not in r.text
