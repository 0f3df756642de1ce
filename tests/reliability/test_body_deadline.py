"""Issue 45, finding 10: a chunked body whose chunk-size line is huge held a keyed connection.

`Transfer-Encoding: chunked` with a chunk-size line of `ffffffffffffffff` announces more bytes
than will ever come; the body limit counts only the bytes that arrive, so a client that sends a
few and stops held the connection (and the request waiting in the app) until it gave up. Each
body now has a deadline from the end of its head (`serve --body-timeout`). A real server on a
free loopback port, stopped by pid; a handful of connections to 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import socket
import time

import pytest

pytestmark = pytest.mark.slow  # a real server, and deadlines to wait out (about 6 s)
pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from tests.analysis.api.server import serve  # noqa: E402

KEY = "k" * 32
BODY_TIMEOUT = 1.0


@pytest.fixture(scope="module")
def server():
    with serve("-t", "o200k_base", "--body-timeout", str(BODY_TIMEOUT), env={"TOKENPRISM_API_KEY": KEY}) as (url, proc, _):
        yield int(url.rsplit(":", 1)[1]), proc


def _head(length_or_chunked: str) -> bytes:
    return (f"POST /v1/count HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: {KEY}\r\n"
            f"content-type: application/json\r\n{length_or_chunked}\r\n\r\n").encode()


def _held_for(port: int, request: bytes, *, wait: float) -> tuple[float, bytes]:
    """(seconds until the server closed the connection, what it sent), or (`wait`, ...) if it held it."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(request)
        t0, got = time.monotonic(), b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except TimeoutError:
            return wait, got
        return time.monotonic() - t0, got


def test_a_huge_chunk_size_does_not_hold_a_keyed_connection(server):
    port, proc = server
    request = _head("transfer-encoding: chunked") + b"ffffffffffffffff\r\n" + b'{"texts": ["hi'
    held, _ = _held_for(port, request, wait=BODY_TIMEOUT + 8)
    assert held < BODY_TIMEOUT + 4, f"held {held:.1f} s"  # before: until the client gave up


def test_a_body_that_stops_short_of_its_length_is_cut_too(server):
    port, _ = server
    held, _ = _held_for(port, _head("content-length: 1000") + b'{"texts"', wait=BODY_TIMEOUT + 8)
    assert held < BODY_TIMEOUT + 4, f"held {held:.1f} s"


def test_a_whole_body_in_pieces_within_the_deadline_is_answered(server):
    port, proc = server
    body = json.dumps({"texts": ["hello world"], "tokenizers": ["o200k_base"]}).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(_head(f"content-length: {len(body)}"))
        for i in range(0, len(body), 10):
            s.sendall(body[i:i + 10])
            time.sleep(0.02)
        answer = s.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    before = len(os.listdir(f"/proc/{proc.pid}/fd"))
    late = [socket.create_connection(("127.0.0.1", port), timeout=BODY_TIMEOUT + 8) for _ in range(20)]
    try:
        for s in late:
            s.sendall(_head("transfer-encoding: chunked") + b"ffffffff\r\nx")
        time.sleep(0.3)
        assert len(os.listdir(f"/proc/{proc.pid}/fd")) >= before + 15  # the server holds them for now
        t0 = time.monotonic()
        for s in late:
            assert s.recv(65536) == b""  # closed by the server (a timeout here raises)
        assert time.monotonic() - t0 < BODY_TIMEOUT + 4
    finally:
        for s in late:
            s.close()
    time.sleep(0.2)
    assert len(os.listdir(f"/proc/{proc.pid}/fd")) <= before + 2  # late bodies leave no descriptor behind
