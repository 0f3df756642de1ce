"""Finding 11 of issue 34 (and 21's metrics folder): `serve --workers 2` at its edges.

* /metrics read the workers' prometheus files while they were written and answered 500 with a
  struct.error, once in 6 starts. A torn file is now read again; one that stays torn is a 503.
* SIGKILL of the supervisor left its workers holding the port for over 10 s.
* The metrics folder a SIGKILLed server leaves is removed by the next start (only ours).
Real servers start in the test on a free loopback port and are stopped by pid.
"""

from __future__ import annotations

import os
import signal
import socket
import struct
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


def _torn(path: Path) -> None:
    # a header that counts 1,000 bytes of entries, in a file of 8 bytes: what a reader sees
    # while the writer grows its file (or just after it created it, before its first write)
    path.write_bytes(struct.pack("i", 1000) + b"\0" * 4)


def test_a_torn_metrics_file_is_read_again(tmp_path, monkeypatch):
    from prometheus_client.values import MultiProcessValue  # noqa: F401 (the mode exists)

    from analysis.api.runtime import Metrics

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    metrics = Metrics()
    torn = tmp_path / "counter_4242.db"
    _torn(torn)
    threading.Timer(0.03, torn.unlink).start()  # the writer finishes (here: the file goes away)
    data, _ = metrics.exposition()
    assert isinstance(data, bytes)


def test_a_file_that_stays_torn_is_a_503_not_a_500(tmp_path, monkeypatch):
    from analysis.api.problems import Problem
    from analysis.api.runtime import Metrics

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    _torn(tmp_path / "counter_4242.db")
    with pytest.raises(Problem) as e:
        Metrics().exposition()
    assert e.value.status == 503


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and ps --ppid")
def test_workers_die_with_a_killed_supervisor_and_metrics_never_500():
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    proc = subprocess.Popen([sys.executable, "-m", "analysis", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--workers", "2", "--tokenizers", "gpt2", "--log-level", "warning"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        statuses = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(statuses) < 60:  # /metrics while the workers start
            try:
                with urllib.request.urlopen(url + "/metrics", timeout=5) as r:
                    statuses.append(r.status)
            except urllib.error.HTTPError as e:
                statuses.append(e.code)
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.02)
        wait_ready(url, proc, 60)
        assert 500 not in statuses, statuses
        workers = [p for p in _children(proc.pid) if "multiprocessing.resource_tracker" not in
                   Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")]
        assert len(workers) >= 2, workers
        metrics_dir = Path(os.environ.get("TMPDIR", tempfile.gettempdir()))
        ours = [d for d in metrics_dir.glob(f".tokenprism-tmp-{proc.pid}-*-metrics")]
        assert len(ours) == 1, ours

        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and (any(map(_alive, workers)) or _listening(port)):
            time.sleep(0.1)
        assert not [w for w in workers if _alive(w)], "workers outlived their supervisor"
        assert not _listening(port)
        assert ours[0].exists()  # a SIGKILL cannot clean up...

        # ...the next start does, and only what a dead server of ours left
        mine = metrics_dir / "tokenprism-metrics-not-ours"
        mine.mkdir(exist_ok=True)
        second = subprocess.Popen([sys.executable, "-m", "analysis", "serve", "--host", "127.0.0.1", "--port",
                                   str(free_port()), "--workers", "2", "--tokenizers", "gpt2", "--log-level", "warning"],
                                  cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and ours[0].exists():
                time.sleep(0.1)
            assert not ours[0].exists()
            assert mine.exists()
        finally:
            second.terminate()
            second.wait(timeout=20)
            mine.rmdir()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        for w in workers:  # what this test started, by pid, if the fix failed
            if _alive(w):
                os.kill(w, signal.SIGKILL)
