"""One real-browser test: `streamlit run` plus headless Chromium, paste text on Compare.

AppTest (the other tests here) runs the scripts without a browser; this one checks what a user
gets: the page loads, the pasted text is counted, the counts table and the drawn tokens appear.
It needs Debian's `chromium` and the `playwright` package; without them it is skipped, except
under CI (CI set), where it fails so a broken setup is not mistaken for a pass.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analysis import load_tokenizer
from tests.dashboards import browser

TEXT = "Tokenizers cut text into pieces: 2024 costs one token, ２０２４ more.\n    indented()  \n"


@pytest.fixture
def page_and_url(tmp_path):
    reason = browser.missing()
    if reason:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but the browser test cannot run: {reason}")
        pytest.skip(reason)
    with browser.serve(log=tmp_path / "streamlit.log") as url, browser.chromium(tmp_path / "profile", height=1600) as page:
        yield page, url


def test_paste_on_compare_shows_counts_and_tokens(page_and_url, tmp_path):
    page, url = page_and_url
    page.goto(url)
    area = page.locator('[data-testid="stTextArea"] textarea')
    area.wait_for(timeout=90_000)
    area.fill(TEXT)
    area.press("Control+Enter")  # a text area sends its value on Ctrl+Enter (or on blur)

    n = len(load_tokenizer("o200k_base").encode(TEXT))
    page.get_by_text(f"o200k_base · {n} tokens").wait_for(timeout=90_000)
    browser.wait_idle(page)

    table = page.locator('[data-testid="stTable"]').first
    header = [c.inner_text().strip() for c in table.locator("thead th").all()]
    rows = {}
    for r in table.locator("tbody tr").all():
        cells = [c.inner_text().strip() for c in r.locator("td, th").all()]
        rows[cells[0]] = dict(zip(header, cells))
    assert rows["o200k_base"]["n_tokens"] == str(n), rows
    assert rows["cl100k_base"]["n_tokens"] == str(len(load_tokenizer("cl100k_base").encode(TEXT))), rows

    drawing = page.locator("div.tp-text").first
    spans = drawing.locator("span.tp-tok")
    assert spans.count() == n
    assert spans.first.get_attribute("title").startswith("id ")  # hover shows id and bytes
    assert "·" in drawing.inner_text()  # spaces made visible

    out = Path(os.environ.get("TOKENPRISM_SCREENSHOT_DIR", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    shot = out / "browser-compare.png"
    page.screenshot(path=str(shot))
    assert shot.stat().st_size > 10_000
