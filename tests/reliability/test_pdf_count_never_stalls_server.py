"""A hostile PDF neither stalls its request nor the server (finding 1 of the fifth audit).

The old page-count regex scanned to the end of the file for each `/Type/Pages` that no `>`
followed, holding the GIL: a 240 KB PDF took 26 s, and /healthz sent meanwhile waited as long.
Here a request body of about 3.2 MB (under the 4 MB default limit) carries such a PDF as an
Anthropic `document`, to a real `tokenprism serve` on a free loopback port: its answer comes in
under a second of the server's time, and /healthz, asked over and over while it is counted, in
under 100 ms more than it takes alone right before (the host is shared with other work).
"""

from __future__ import annotations

import base64
import json
import threading
import time
import urllib.error
import urllib.request

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from tests.analysis.api.server import serve  # noqa: E402

pytestmark = pytest.mark.slow

BODY_BYTES = 3_200_000


def _body(pdf: bytes) -> bytes:
    doc = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                          "data": base64.b64encode(pdf).decode()}}
    body = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": [doc, {"type": "text", "text": "hi"}]}]}
    return json.dumps(body).encode()


def _hostile_body() -> bytes:
    return _body(b"%PDF-1.4\n" + b"/Type/Pages " * (BODY_BYTES * 3 // 4 // 12))


def _benign_body() -> bytes:
    """A body of the same size whose PDF is a page tree and padding: what any 3.2 MB body costs."""
    head = b"%PDF-1.4\n1 0 obj << /Type /Pages /Kids [] /Count 3 >> endobj\n"
    return _body(head + b"%" + b"x" * (BODY_BYTES * 3 // 4 - len(head) - 1))


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


def _while_counting(url: str, body: bytes) -> tuple[tuple[int, float], list[tuple[int, float]]]:
    """(the count's status and seconds, each /healthz's status and seconds while it was counted)."""
    answers: list[tuple[int, float]] = []
    worker = threading.Thread(target=lambda: answers.append(_post(url + "/v1/messages/count_tokens", body)))
    worker.start()
    healthz = []
    while worker.is_alive() and len(healthz) < 200:  # asked over and over while the PDF is read
        healthz.append(_get(url + "/healthz"))
        time.sleep(0.02)
    worker.join(120)
    assert not worker.is_alive(), "the request did not answer in 120 s"
    return answers[0], healthz


def test_hostile_pdf_answers_in_a_second_and_healthz_meanwhile_in_100ms():
    hostile, benign = _hostile_body(), _benign_body()
    assert 3_000_000 < len(hostile) < 4_000_000 and abs(len(benign) - len(hostile)) < 1_000
    with serve("--tokenizers", "o200k_base") as (url, proc, _):
        _get(url + "/healthz")  # warm: the first request of a process pays for imports
        _post(url + "/v1/messages/count_tokens", json.dumps(
            {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "warm"}]}).encode())
        # The host is shared (other work may hold both cores): a body of the same size with a
        # plain PDF, sent the same way in the same run, is the reference for what load alone costs.
        (ref_status, ref_seconds), ref_healthz = _while_counting(url, benign)
        (status, seconds), healthz = _while_counting(url, hostile)
    assert status == 200 and ref_status == 200, (status, ref_status)
    ref_worst = max((t for _, t in ref_healthz), default=0.0)
    worst = max((t for _, t in healthz), default=0.0)
    # the whole round trip of a 3.2 MB body to a loopback server: sending, parsing, counting
    assert seconds < max(1.0, 2 * ref_seconds), f"the hostile PDF took {seconds:.2f} s (a plain one {ref_seconds:.2f} s)"
    assert all(s == 200 for s, _ in healthz)
    assert worst < max(0.1, 2 * ref_worst), \
        f"/healthz took up to {worst:.3f} s meanwhile (beside a plain PDF of the same size: {ref_worst:.3f} s)"
