"""Findings 1, 8 and 19 of issue 34: what the service does with a request before it trusts it.

A real `tokenprism serve` (free loopback port, stopped by pid) gets raw bytes over a socket:
request smuggling-style headers (Content-Length and Transfer-Encoding at once, a Content-Length
that lies), a body far over the limit with no key, a trailing slash with a foreign Host. The
body sizes are bounded (a few MB) so the test stays fast; the server's RSS must stay flat.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from tests.analysis.api.server import serve, wait_engines  # noqa: E402

KEY = "reliability-key-0123456789"
LIMIT = 100_000
BOMB = 8 * 1024 * 1024  # 80 times the limit: enough to see RSS move if it were held


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _raw(url: str, head: str, body_chunks=(), timeout: float = 20.0) -> tuple[int, dict, bytes]:
    """Send `head` then `body_chunks` on one connection; (status, headers, body) of the answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(head.replace("\n", "\r\n").encode() + b"\r\n")
        try:
            for chunk in body_chunks:
                s.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before the whole body: that is the point
        data = b""
        try:
            while True:
                got = s.recv(65536)
                if not got:
                    break
                data += got
                if b"\r\n\r\n" in data:
                    head_part, _, rest = data.partition(b"\r\n\r\n")
                    length = [int(v) for k, _, v in (h.partition(b":") for h in head_part.split(b"\r\n")[1:])
                              if k.strip().lower() == b"content-length"]
                    if length and len(rest) >= length[0]:
                        break
        except (ConnectionResetError, TimeoutError):
            pass
    head_part, _, rest = data.partition(b"\r\n\r\n")
    lines = head_part.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
    return int(lines[0].split()[1]), headers, rest


def _chunked(total: int, piece: int = 64 * 1024):
    """A chunked JSON body of `total` bytes: one long text (parsed, it would be a 422 or a count)."""
    yield b'9\r\n{"text":"\r\n'
    sent = 0
    while sent < total:
        n = min(piece, total - sent)
        yield f"{n:x}\r\n".encode() + b"a" * n + b"\r\n"
        sent += n
    yield b"0\r\n\r\n"


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory):
    keys = tmp_path_factory.mktemp("keys") / "keys"
    keys.write_text(KEY + "\n")
    with serve("--tokenizers", "gpt2", "--api-key-file", str(keys), "--max-body-bytes", str(LIMIT),
               env={"TOKENPRISM_API_KEY": ""}) as (url, proc, _):
        wait_engines(url)  # the RSS measured below is then the bodies', not the engine build's
        yield url, proc


@pytest.mark.parametrize("key", [None, KEY], ids=["no-key", "key"])
def test_content_length_with_chunked_cannot_bypass_the_limit(keyed_server, key):
    # finding 1: Content-Length says 10 and Transfer-Encoding says chunked; 8 MB follow
    url, proc = keyed_server
    before = _rss_kb(proc.pid)
    auth = f"x-api-key: {key}\n" if key else ""
    for _ in range(3):
        status, _, body = _raw(url, f"POST /v1/count HTTP/1.1\nHost: x\n{auth}Content-Type: application/json\n"
                                    "Content-Length: 10\nTransfer-Encoding: chunked\n", _chunked(BOMB))
        # refused before any parse: 401 without a key, 413 with one; never a parsed body's 400 or 422
        assert status == (401 if key is None else 413), (status, body[:200])
    grown = _rss_kb(proc.pid) - before
    assert grown < BOMB // 2048, f"RSS grew by {grown} kB after three 8 MB bodies"


def test_a_lying_content_length_cannot_bypass_the_limit(keyed_server):
    url, proc = keyed_server
    before = _rss_kb(proc.pid)
    status, _, body = _raw(url, f"POST /v1/count HTTP/1.1\nHost: x\nx-api-key: {KEY}\nContent-Type: application/json\n"
                                "Transfer-Encoding: chunked\n", _chunked(BOMB))
    assert status == 413, body[:200]
    assert json.loads(body)["type"].endswith("content-too-large")
    assert _rss_kb(proc.pid) - before < BOMB // 2048


def test_no_unauthenticated_request_is_parsed_or_routed(keyed_server):
    # finding 8: before auth, every route, method and path answers the same 401
    url, _ = keyed_server
    answers = set()
    for method, path in [("POST", "/v1/count"), ("POST", "/v1/count/"), ("GET", "/v1/count"),
                         ("DELETE", "/v1/count"), ("GET", "/no-such-route"), ("GET", "/metrics/")]:
        status, headers, body = _raw(url, f"{method} {path} HTTP/1.1\nHost: evil.example\nContent-Type: application/json\n"
                                          "Content-Length: 5\nConnection: close\n", [b'{"a":'])
        assert "location" not in headers
        answers.add((status, json.loads(body)["type"]))
    assert answers == {(401, "urn:tokenprism:problem:missing-api-key")}
    status, _, _ = _raw(url, "GET /readyz HTTP/1.1\nHost: x\nConnection: close\n")
    assert status == 200  # the probes stay open


def test_a_trailing_slash_is_not_redirected_to_the_host_header(keyed_server):
    url, _ = keyed_server
    status, headers, body = _raw(url, f"POST /v1/count/ HTTP/1.1\nHost: evil.example\nx-api-key: {KEY}\n"
                                      "Content-Type: application/json\nContent-Length: 15\nConnection: close\n",
                                 [b'{"text": "hi"}\n'[:15]])
    assert status == 404 and "location" not in headers, (status, headers)


def test_a_body_without_content_type_says_to_send_json(keyed_server):
    # finding 19: it said "body: Input should be a valid dictionary"
    url, _ = keyed_server
    payload = b'{"text": "hello"}'
    status, _, body = _raw(url, f"POST /v1/count HTTP/1.1\nHost: x\nx-api-key: {KEY}\nContent-Length: {len(payload)}\n"
                                "Connection: close\n", [payload])
    assert status == 415
    assert "Content-Type: application/json" in json.loads(body)["detail"]


def test_deeply_nested_json_says_so_with_the_limit(keyed_server):
    # finding 19: 100k-deep JSON said "There was an error parsing the body"
    from analysis.api.body import MAX_JSON_DEPTH

    url, _ = keyed_server
    payload = b'{"text": "a", "x": ' + b"[" * 45_000 + b"]" * 45_000 + b"}"
    status, _, body = _raw(url, f"POST /v1/count HTTP/1.1\nHost: x\nx-api-key: {KEY}\nContent-Type: application/json\n"
                                f"Content-Length: {len(payload)}\nConnection: close\n", [payload])
    assert status == 422
    detail = json.loads(body)["detail"]
    assert "nested too deeply" in detail and str(MAX_JSON_DEPTH) in detail


def test_brackets_inside_strings_and_shallow_lists_are_not_depth():
    from analysis.api.body import MAX_JSON_DEPTH, too_deep

    assert not too_deep(json.dumps({"text": "[" * 10_000, "ids": [[1]] * 5_000}).encode())
    assert not too_deep(json.dumps({"text": '\\"[' * 1_000}).encode())
    assert too_deep(b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1))
    assert not too_deep(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH)


# Request smuggling-style headers (the fault suite's attack kind): every variant is refused
# before a body is parsed; the HTTP parser's own 400 ("Invalid HTTP request") counts as refused.
SMUGGLING = {
    "two-content-lengths": "Content-Length: 10\nContent-Length: 99999999\nTransfer-Encoding: chunked\n",
    "te-then-cl": "Transfer-Encoding: chunked\nContent-Length: 10\n",
    "te-list": "Transfer-Encoding: gzip, chunked\n",
    "cl-negative": "Content-Length: -1\nTransfer-Encoding: chunked\n",
    "cl-not-a-number": "Content-Length: 1e3\nTransfer-Encoding: chunked\n",
    "te-upper": "TRANSFER-ENCODING: CHUNKED\nContent-Length: 3\n",
}


@pytest.mark.parametrize("headers", SMUGGLING.values(), ids=SMUGGLING.keys())
@pytest.mark.parametrize("key", [None, KEY], ids=["no-key", "key"])
def test_smuggling_style_headers_never_reach_the_parser(keyed_server, headers, key):
    url, proc = keyed_server
    before = _rss_kb(proc.pid)
    auth = f"x-api-key: {key}\n" if key else ""
    status, _, body = _raw(url, f"POST /v1/count HTTP/1.1\nHost: x\n{auth}Content-Type: application/json\n{headers}",
                           _chunked(2 * 1024 * 1024))
    assert status in ((401, 400) if key is None else (413, 400)), (status, body[:200])
    if status == 400:
        assert b"tokenprism" not in body  # the HTTP parser's refusal, not a parsed body's
    assert _rss_kb(proc.pid) - before < BOMB // 2048
