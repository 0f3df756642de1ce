"""SIGKILL of `serve --workers 2` while a request is being counted (issue 45's untried list).

The supervisor is killed with requests in flight; its workers must end too (each asks Linux for
SIGTERM when its parent dies, `api.lifeline`), the port must be free, the clients must get an
answer or a closed connection (never a hang), and no process or temporary file of that server
may remain but the metrics folder, which the next start removes (`test_service_workers`).
A real server on a free loopback port, stopped by pid; four requests to 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from tests.analysis.api.server import REPO, free_port, wait_ready  # noqa: E402
from tests.reliability.test_service_workers import _alive, _children  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        found += kids
        todo += kids
    return found


def test_sigkill_mid_request_leaves_nothing_behind():
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    proc = subprocess.Popen([sys.executable, "-m", "analysis", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--workers", "2", "--tokenizers", "o200k_base", "--log-level", "warning",
                             "--max-text-chars", "20000000", "--max-body-bytes", "30000000"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tree: list[int] = []
    try:
        wait_ready(url, proc, 90)
        tree = _descendants(proc.pid)
        assert len(tree) >= 2, tree
        body = json.dumps({"texts": ["many words of text " * 600_000], "tokenizers": ["o200k_base"]}).encode()
        outcomes: list[str] = []

        def ask() -> None:
            req = urllib.request.Request(url + "/v1/count", data=body, headers={"content-type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    outcomes.append(f"answered {r.status}")
            except (urllib.error.URLError, ConnectionError, OSError) as e:
                outcomes.append(f"closed ({type(e).__name__})")

        clients = [threading.Thread(target=ask) for _ in range(4)]
        for c in clients:
            c.start()
        time.sleep(1.0)  # the bodies are in and being counted
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        for c in clients:
            c.join(70)
        assert not any(c.is_alive() for c in clients), "a client still waits on a dead server"
        assert len(outcomes) == 4, outcomes
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(map(_alive, tree)):
            time.sleep(0.1)
        assert not [p for p in tree if _alive(p)], "processes outlived their supervisor"
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0, "the port is still held"
        left = [p.name for p in Path(tempfile.gettempdir()).iterdir() if f"-{proc.pid}-" in p.name]
        assert all(name.endswith("-metrics") for name in left), left  # only what the next start removes
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        for p in tree:  # what this test started, by pid, if the fix failed
            if _alive(p):
                os.kill(p, signal.SIGKILL)
        for p in Path(tempfile.gettempdir()).glob(f".tokenprism-tmp-{proc.pid}-*-metrics"):
            import shutil

            shutil.rmtree(p, ignore_errors=True)
