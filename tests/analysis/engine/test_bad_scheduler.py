"""A --scheduler address where no Dask scheduler answers is a refusal (exit 2) within
--connect-timeout, naming the address and what answered: a closed port, a real HTTP server (a
`python -m http.server` subprocess, stopped by pid), and a server that greets with bytes that
are not Dask's (as SSH or a database does). Dask alone hung on the HTTP server, and tried to
allocate exabytes for the greeting."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from analysis.cli import main
from analysis.engine.cluster import probe_scheduler
from analysis.engine.base import EngineError
from tests.analysis.engine.test_cluster import _free_port, _stop

TIMEOUT = 2


def _measure(address: str, capsys) -> tuple[int, str, float]:
    start = time.monotonic()
    code = main(["measure", "--builtin", "prose", "-t", "gpt2", "--engine", "dask", "--scheduler", address,
                 "--connect-timeout", str(TIMEOUT), "--no-progress"])
    return code, capsys.readouterr().err, time.monotonic() - start


@pytest.fixture
def http_server() -> Iterator[int]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):  # until it accepts
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        _stop([proc])


@pytest.fixture
def greeter() -> Iterator[int]:
    """A TCP server on a free loopback port that greets every connection as an SSH server does."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
                time.sleep(0.2)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()


def test_an_http_server_is_refused_within_the_timeout(http_server, capsys):
    code, err, took = _measure(f"tcp://127.0.0.1:{http_server}", capsys)
    assert code == 2, err
    assert f"tcp://127.0.0.1:{http_server}" in err and "not a Dask scheduler" in err and "HTTP" in err
    assert "Traceback" not in err and "internal error" not in err
    assert took < TIMEOUT + 20  # a deadline, not a speed: Dask alone waited past 120 s


def test_a_server_that_greets_with_other_bytes_is_refused(greeter, capsys):
    code, err, _ = _measure(f"tcp://127.0.0.1:{greeter}", capsys)
    assert code == 2, err
    assert "b'SSH-2.0-'" in err and "not a Dask scheduler" in err
    assert "MemoryError" not in err


def test_a_closed_port_and_a_malformed_address_are_refused():
    port = _free_port()
    with pytest.raises(EngineError, match=f"no Dask scheduler answers at tcp://127.0.0.1:{port} within 1 s"):
        probe_scheduler(f"tcp://127.0.0.1:{port}", 1)
    with pytest.raises(EngineError, match="tcp://HOST:PORT"):
        probe_scheduler("tcp://127.0.0.1:notaport", 1)
    probe_scheduler("tls://127.0.0.1:1", 1)  # other transports are left to Dask
