"""Run the real `tokenprism serve` in a child process on a free loopback port (tests and the benchmark).

The process is started here and stopped here, by its own pid: terminate, then kill if it
does not stop within a few seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, proc: subprocess.Popen, timeout: float, headers: dict | None = None) -> float:
    """Poll /readyz until 200; return the seconds it took. Raises if the process dies or time runs out."""
    t0 = time.monotonic()
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"tokenprism serve exited with status {proc.returncode} before it was ready")
        try:
            with urllib.request.urlopen(urllib.request.Request(url + "/readyz", headers=headers or {}), timeout=2) as r:
                if r.status == 200:
                    return time.monotonic() - t0
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(f"{url}/readyz not ready after {timeout:.0f} s")
        time.sleep(0.05)


def wait_engines(url: str, timeout: float = 60.0) -> float:
    """Poll /readyz until its engines are built (`engines_built`); return the seconds it took.

    A server is ready before its engines are (short texts are encoded from the rank tables, the
    engines are built next, in the background): a test that measures the process's memory waits
    for that build, or it measures the build.
    """
    t0 = time.monotonic()
    while True:
        with urllib.request.urlopen(url + "/readyz", timeout=5) as r:
            if json.loads(r.read()).get("engines_built"):
                return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(f"{url}/readyz: the engines were not built after {timeout:.0f} s")
        time.sleep(0.05)


@contextlib.contextmanager
def serve(*extra: str, env: dict | None = None, timeout: float = 60.0, log: Path | None = None):
    """Yield (base URL, process, seconds until /readyz was 200) of a real `tokenprism serve`."""
    port = free_port()
    cmd = [sys.executable, "-m", "analysis", "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", *extra]
    out = open(log, "wb") if log else subprocess.DEVNULL
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=REPO, env=dict(os.environ, **(env or {})), stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, proc, timeout)
        yield url, proc, time.monotonic() - t0
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if log:
            out.close()


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())
