"""`tokenprism dashboard`: the command it runs, its help, and a real start on a free port."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from analysis import cli
from analysis.cli import dashboard as cli_dashboard
from analysis.tokenizers.folder import DASHBOARD_ENV
from tests.dashboards.browser import REPO, free_port


def _magic_expressions(path: Path) -> list[int]:
    """Lines of `path` that Streamlit's magic would write to the page: bare expressions other than
    calls and strings (a docstring; a call's value is written only as a file's last line, off by default)."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Call)
            and not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))]


def test_the_pages_use_no_magic_so_serving_turns_it_off(tmp_path):
    assert ["--runner.magicEnabled", "false"] == cli_dashboard.serving_defaults([])[-2:]
    scripts = [REPO / "dashboards" / "streamlit_app.py", *sorted((REPO / "dashboards" / "app_pages").glob("*.py"))]
    assert len(scripts) > 5
    assert {p.name: _magic_expressions(p) for p in scripts} == {p.name: [] for p in scripts}
    # the check finds what magic would show, and only that
    probe = tmp_path / "page.py"
    probe.write_text('"""A page."""\nimport streamlit as st\nx = 1\nx\nst.write(x)\nif x:\n    x, 2\n')
    assert _magic_expressions(probe) == [4, 7]


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


@pytest.mark.parametrize("ours", [[], ["--tokenizer-dir", "."]], ids=["streamlit-options", "tokenizer-dir"])
def test_dashboard_serves_on_the_port_given(tmp_path, ours):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop(DASHBOARD_ENV, None)
    log = open(tmp_path / "log.txt", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "analysis", "dashboard", *ours, "--server.port", str(port),
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
        if ours and Path(f"/proc/{proc.pid}/environ").exists():  # the server (exec'd) has the folder, absolute
            environ = Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\0")
            assert f"{DASHBOARD_ENV}={os.path.realpath(tmp_path)}".encode() in environ
    finally:
        proc.terminate()  # the process *is* streamlit (exec): nothing is left behind
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("the dashboard did not stop within 15 s of SIGTERM") from None
        log.close()
