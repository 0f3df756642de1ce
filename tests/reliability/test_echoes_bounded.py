"""Echoes are bounded and escaped (findings 6, 7 and 10 of the fifth audit).

6: a problem's `instance` echoed the whole path: `POST /v1/nope` plus 60,000 characters gave a
   401 of 60 KB with keys on, and a 404 of 120 KB (the path in `instance` and in `detail`).
7: Gemini's `mediaResolution` was unchecked and echoed raw (NUL and ESC in the media lines, a
   100,000-character level made a 300 KB table); unknown levels counted silently as the default.
10: a file path with a newline was echoed raw on stderr, where it could forge a line.
All go through `errors.clipped` (cut, control characters escaped) or `shown` (the same, quoted).
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from analysis.api.settings import Settings  # noqa: E402
from tests.analysis.api.conftest import KEY, ready_client  # noqa: E402
from tests.reliability.cli_run import run_cli  # noqa: E402

LONG = "/v1/nope" + "a" * 60_000


@pytest.fixture(scope="module")
def client():
    c = ready_client(Settings(tokenizers=("o200k_base",)))
    yield c
    c.__exit__(None, None, None)


@pytest.fixture(scope="module")
def keyed():
    c = ready_client(Settings(tokenizers=("o200k_base",), api_keys=(KEY,)))
    yield c
    c.__exit__(None, None, None)


def test_unknown_route_answer_stays_small_whatever_the_path(client):
    r = client.post(LONG, json={})
    assert r.status_code == 404 and len(r.content) < 2_000, len(r.content)
    body = r.json()
    assert body["instance"].startswith("/v1/nope") and "60,008 characters" in body["instance"]
    assert "no endpoint at /v1/nope" in body["detail"] and len(body["detail"]) < 300


def test_keyless_refusal_stays_small_whatever_the_path(keyed):
    r = keyed.post(LONG, json={})
    assert r.status_code == 401 and len(r.content) < 2_000, len(r.content)


def test_path_control_characters_are_escaped_in_problems(client):
    r = client.get("/v1/nope%0Aforged%1B%5B31m%00")
    assert r.status_code == 404
    body = r.json()
    for field in ("instance", "detail"):
        assert "\n" not in body[field] and "\x1b" not in body[field] and "\x00" not in body[field], body[field]
    assert "\\x1b" in body["instance"] and "\\x00" in body["instance"]


def _gemini(client, level):
    body = {"generationConfig": {"mediaResolution": level},
            "contents": [{"parts": [{"fileData": {"mimeType": "image/png", "fileUri": "gs://b/a.png"}}]}]}
    return client.post("/v1beta/models/gemini-2.5-flash:countTokens", content=json.dumps(body),
                       headers={"content-type": "application/json"})


@pytest.mark.parametrize("level", ["MEDIA_RESOLUTION_HUGE", "x" * 100_000, "low\x00\x1b[31m", "MEDIA_RESOLUTION_"])
def test_unknown_media_resolution_is_refused_with_the_list(client, level):
    r = _gemini(client, level)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert "MEDIA_RESOLUTION_LOW" in detail and "MEDIA_RESOLUTION_ULTRA_HIGH" in detail
    assert len(r.content) < 2_000 and "\x00" not in detail and "\x1b" not in detail


@pytest.mark.parametrize("level", ["MEDIA_RESOLUTION_LOW", "media_resolution_medium", "MEDIA_RESOLUTION_UNSPECIFIED",
                                   {"level": "MEDIA_RESOLUTION_HIGH"}])
def test_known_media_resolutions_still_count(client, level):
    assert _gemini(client, level).status_code == 200


@pytest.mark.parametrize("flag", ["-f", "--messages"])
def test_a_path_with_a_newline_is_echoed_escaped(tmp_path, capsys, flag):
    path = str(tmp_path / "a\nforged: line.txt")
    code, out, err = run_cli(["count", flag, path, "-m", "gpt-4o"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "a\\nforged: line.txt" in err, err


def test_a_log_path_with_a_newline_is_echoed_escaped(tmp_path, capsys):
    code, out, err = run_cli(["cost", "--logs", str(tmp_path / "a\nforged: b.jsonl")], capsys)
    assert code == 2 and err.count("\n") == 1, err


@pytest.mark.parametrize("detail", ["\x1b[31mred", "x" * 100_000, "ultra"])
def test_an_unknown_openai_image_detail_is_refused_with_the_list(client, detail):
    # the same class as finding 7: OpenAI's `detail` was echoed raw in the media lines
    part = {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": detail}}
    r = client.post("/v1/count", json={"models": ["gpt-4o"], "messages": [{"role": "user", "content": [part]}]})
    assert r.status_code == 422, r.text
    assert "auto, low, high" in r.json()["detail"] and len(r.content) < 2_000 and "\x1b" not in r.text
