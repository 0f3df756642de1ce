"""Helpers for driving the real dashboard: serve it with `streamlit run`, open headless Chromium.

Used by `test_browser.py` and by `python -m tests.dashboards.screenshots`. Chromium is Debian's
`chromium` package (never a browser downloaded by Playwright); Playwright for Python drives it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "dashboards" / "streamlit_app.py"
CHROMIUM = os.environ.get("TOKENPRISM_CHROMIUM", "/usr/bin/chromium")
# Quiet, hermetic Chromium: no GPU, no QUIC, no background fetches or updates.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]


def missing() -> str | None:
    """Why the browser test cannot run here, or None."""
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        return f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed (pip install playwright; no `playwright install` needed)"
    return None


@contextlib.contextmanager
def served_page(tmp: Path, *, height: int = 1000):
    """(page, base URL) of the app served for a test module, in headless Chromium; skipped when the
    browser cannot run here, failed under CI (CI set), so that a broken setup is not a pass."""
    import pytest

    reason = missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the browser test cannot run: {reason}")
        pytest.skip(reason)
    with serve(log=tmp / "streamlit.log") as url, chromium(tmp / "profile", height=height) as page:
        yield page, url


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(*, port: int | None = None, timeout: float = 90.0, log: Path | None = None):
    """Run `streamlit run` on a free localhost port; yield its base URL; stop it afterwards."""
    port = port or free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none"]  # edits elsewhere in the tree must not rerun the page
    out = open(log, "wb") if log else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with status {proc.returncode} before serving (see {log})")
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not answer on {url} within {timeout:.0f} s")
            time.sleep(0.3)
        yield url
    finally:
        stop(proc)
        if log:
            out.close()


def wait_for_health(proc: subprocess.Popen, port: int, *, timeout: float = 90.0, log: Path | None = None) -> None:
    """Return once a server we started answers `/_stcore/health`; fail (with its log) if it exits or stays silent."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}: "
                               + (log.read_text(errors="replace")[-2000:] if log else ""))
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"no answer on port {port} within {timeout:.0f} s") from None
            time.sleep(0.2)


def stop(proc: subprocess.Popen, timeout: float = 15.0) -> None:
    """Stop a server we started: SIGTERM, then SIGKILL if it has not exited within `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def chromium(profile: Path, *, width: int = 1400, height: int = 1000):
    """A headless Chromium page with a fresh profile directory."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # launch_persistent_context is Playwright's way to pass --user-data-dir (a fresh one here)
        ctx = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": width, "height": height}, device_scale_factor=1,
        )
        try:
            yield ctx.pages[0] if ctx.pages else ctx.new_page()
        finally:
            ctx.close()


def wait_idle(page, timeout_ms: int = 60_000) -> None:
    """Wait until Streamlit has finished running the script.

    The app root carries `data-test-script-state` ("initial", "running", "notRunning", ...); a
    short pause first lets a just-sent widget change start its rerun.
    """
    page.wait_for_timeout(400)
    page.wait_for_function(
        """() => { const app = document.querySelector('[data-testid="stApp"]');
                   return app && app.getAttribute('data-test-script-state') === 'notRunning'; }""",
        timeout=timeout_ms)
