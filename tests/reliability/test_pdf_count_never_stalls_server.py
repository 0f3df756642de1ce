"""A hostile PDF neither stalls its request nor the server (finding 1 of the fifth audit).

The old page-count regex scanned to the end of the file for each `/Type/Pages` that no `>`
followed, holding the GIL: a 240 KB PDF took 26 s, and /healthz sent meanwhile waited as long.
Here a request body of about 3.2 MB (under the 4 MB default limit) carries such a PDF as an
Anthropic `document`, to a real `tokenprism serve` on a free loopback port: its answer comes in
under a second of the server's time, and /healthz, asked while it is counted, in under 100 ms.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.request

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from tests.analysis.api.server import serve  # noqa: E402

pytestmark = pytest.mark.slow

BODY_BYTES = 3_200_000


def _hostile_body() -> bytes:
    pdf = b"%PDF-1.4\n" + b"/Type/Pages " * (BODY_BYTES * 3 // 4 // 12)
    doc = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                          "data": base64.b64encode(pdf).decode()}}
    body = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": [doc, {"type": "text", "text": "hi"}]}]}
    return json.dumps(body).encode()


def _post(url: str, data: bytes) -> tuple[int, float]:
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            r.read()
            return r.status, time.perf_counter() - t0
    except urllib.error.HTTPError as e:
        return e.code, time.perf_counter() - t0


def _get(url: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as r:
        r.read()
        return r.status, time.perf_counter() - t0


def test_hostile_pdf_answers_in_a_second_and_healthz_meanwhile_in_100ms():
    body = _hostile_body()
    assert 3_000_000 < len(body) < 4_000_000
    with serve("--tokenizers", "o200k_base") as (url, proc, _):
        _get(url + "/healthz")  # warm: the first request of a process pays for imports
        _post(url + "/v1/messages/count_tokens", _hostile_body()[:2_000] and json.dumps(
            {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "warm"}]}).encode())
        answers: list[tuple[int, float]] = []
        worker = threading.Thread(target=lambda: answers.append(_post(url + "/v1/messages/count_tokens", body)))
        worker.start()
        time.sleep(0.3)  # the body is being sent and counted
        healthz = [_get(url + "/healthz") for _ in range(3)]
        worker.join(120)
        assert not worker.is_alive(), "the hostile PDF's request did not answer in 120 s"
    status, seconds = answers[0]
    assert status == 200, status
    # the whole round trip of a 3.2 MB body to a loopback server: sending, parsing, counting
    assert seconds < 1.0, f"the hostile PDF took {seconds:.2f} s"
    assert all(s == 200 for s, _ in healthz)
    assert max(t for _, t in healthz) < 0.1, f"/healthz took {[round(t, 3) for _, t in healthz]} s meanwhile"
