"""`tokenprism dashboard`: the command it runs, its help, and a real start on a free port."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from analysis import cli
from analysis.cli import dashboard as cli_dashboard
from tests.dashboards.browser import REPO, free_port


def test_command_runs_the_installed_app_with_this_python():
    cmd = cli_dashboard.streamlit_command(["--server.port", "8600"])
    assert cmd[:4] == [sys.executable, "-m", "dashboards.serve", "run"]  # streamlit's run, tokenizers warming up
    assert Path(cmd[4]).resolve() == (REPO / "dashboards" / "streamlit_app.py").resolve()
    assert cmd[-2:] == ["--server.port", "8600"]


def test_options_pass_through_untouched(monkeypatch):
    seen = {}
    monkeypatch.setattr(os, "execv", lambda path, argv: seen.update(path=path, argv=argv))
    monkeypatch.setattr(subprocess, "call", lambda argv: seen.update(argv=argv) or 0)
    assert cli.main(["dashboard", "--server.port", "8600", "--server.headless", "true"]) == 0
    assert seen["argv"][-4:] == ["--server.port", "8600", "--server.headless", "true"]


def test_help_names_the_port_option(capsys):
    assert cli.main(["dashboard", "--help"]) == 0
    assert "--server.port 8600" in capsys.readouterr().out


def test_dashboard_serves_on_the_port_given(tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    log = open(tmp_path / "log.txt", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "analysis", "dashboard", "--server.port", str(port),
                             "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
                            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "log.txt").read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    assert r.read() == b"ok"
                    break
            except OSError:
                assert time.monotonic() < deadline, "no answer within 60 s"
                time.sleep(0.3)
    finally:
        proc.terminate()  # the process *is* streamlit (exec): nothing is left behind
        assert proc.wait(timeout=15) is not None
        log.close()
