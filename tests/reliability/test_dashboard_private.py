"""Finding 5: `tokenprism dashboard` stays on this machine.

It listens on 127.0.0.1 unless given an address, sends no usage statistics and never looks up
the external IP. The server runs with a `sitecustomize` that records every socket connect and
DNS lookup it makes; the test fails on any destination that is not loopback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from analysis.cli.dashboard import private_defaults
from tests.dashboards.browser import REPO, free_port

# Written into a temporary folder on PYTHONPATH: Python imports it at start-up, before streamlit.
SPY = r'''
import json, os, socket
_LOG = os.environ["TOKENPRISM_SOCKET_LOG"]

def _note(kind, addr):
    with open(_LOG, "a") as f:
        f.write(json.dumps([kind, repr(addr)]) + "\n")

_connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

def connect(self, addr):
    _note("connect", addr)
    return _connect(self, addr)

def connect_ex(self, addr):
    _note("connect", addr)
    return _connect_ex(self, addr)

def getaddrinfo(host, *args, **kw):
    _note("dns", host)
    return _getaddrinfo(host, *args, **kw)

socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
'''

LOOPBACK = ("127.0.0.1", "localhost", "::1", "0.0.0.0", "None", "''")


def _listening(port: int) -> list[str]:
    """Local addresses listening on `port` (hex as in /proc/net/tcp*)."""
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:
                    out.append(local.rsplit(":", 1)[0])
    return out


def test_defaults_bind_loopback_and_turn_off_usage_stats_and_ip_lookup():
    assert private_defaults([]) == ["--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
    assert "--server.address" not in private_defaults(["--server.address", "192.168.1.5"])
    assert private_defaults(["--server.address", "0.0.0.0"])[-2:] == ["--browser.serverAddress", "localhost"]
    assert private_defaults(["--browser.gatherUsageStats=true"]) == ["--server.address", "127.0.0.1"]


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads listening sockets from Linux /proc/net/tcp")
def test_server_listens_on_loopback_only_and_connects_nowhere(tmp_path):
    (tmp_path / "spy").mkdir()
    (tmp_path / "spy" / "sitecustomize.py").write_text(SPY)
    log = tmp_path / "sockets.jsonl"
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "spy"), str(REPO)]),
               TOKENPRISM_SOCKET_LOG=str(log))
    out = open(tmp_path / "out.txt", "wb")
    # no --server.address and no usage-stats option: the defaults under test
    proc = subprocess.Popen([sys.executable, "-m", "analysis", "dashboard", "--server.port", str(port),
                             "--server.headless", "true", "--server.fileWatcherType", "none"],
                            cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "out.txt").read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    assert r.read() == b"ok"
                    break
            except OSError:
                assert time.monotonic() < deadline, "no answer within 60 s"
                time.sleep(0.3)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:  # the page itself
            assert r.status == 200
        time.sleep(2)  # streamlit prints its URLs (and would look up the external IP) after start
        listening = _listening(port)
        assert listening, listening
        assert all(a in ("0100007F", "0000000000000000FFFF00000100007F") for a in listening), listening
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        out.close()
    printed = (tmp_path / "out.txt").read_text(errors="replace")
    assert "External URL" not in printed, printed
    assert "Network URL" not in printed, printed
    events = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    outside = [e for e in events if not any(h in e[1] for h in LOOPBACK)]
    assert not outside, f"the server reached outside this machine: {outside[:5]}"
