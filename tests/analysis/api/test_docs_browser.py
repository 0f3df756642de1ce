"""/docs renders offline: headless Chromium opens it on the real server and no request leaves 127.0.0.1."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("TOKENPRISM_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-quic", "--no-first-run", "--disable-sync", "--disable-dev-shm-usage"]


def _missing() -> str | None:
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        return f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (a dev dependency; `playwright install` is never needed)"
    return None


@pytest.mark.skipif(_missing() is not None, reason=_missing() or "")
def test_docs_page_renders_from_this_machine_only(live_server):
    from playwright.sync_api import sync_playwright

    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page()
            page.on("request", lambda r: requests.append(r.url))
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(live_server + "/docs", wait_until="networkidle", timeout=30_000)
            page.wait_for_selector(".opblock", timeout=30_000)  # the operations are drawn
            paths = page.locator(".opblock-summary-path").all_inner_texts()
        finally:
            browser.close()
    assert not errors, errors
    assert any("/v1/count" in p for p in paths), paths
    assert any("count_tokens" in p for p in paths), paths
    outside = [u for u in requests if not u.startswith(live_server + "/") and not u.startswith("data:")]
    assert not outside, f"requests left 127.0.0.1: {outside}"
    assert any(u.endswith("/openapi.json") for u in requests)
    assert any(u.endswith("swagger-ui-bundle.js") for u in requests)
