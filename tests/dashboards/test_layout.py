"""The layout holds at 1400 and 390 px (issue 46): every page in headless Chromium, with a screenshot.

At both widths no page pans sideways, and every chart, table and token drawing either fits its
column or scrolls inside it (a heatmap of fixed-size cells, a wide table): nothing is cut off where
it cannot be reached. Screenshots go to the test's temporary folder, or to the folder
$TOKENPRISM_LAYOUT_SHOTS names. Needs Debian's chromium and playwright, as `test_browser.py`
(skipped without them, failed under CI); slow: one `streamlit run` and ten page loads.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.dashboards import browser

pytestmark = pytest.mark.slow

PAGES = [("compare", ""), ("explore", "explore"), ("why", "why?why_number=31415926535"), ("cost", "cost"),
         ("bpe_lab", "bpe_lab")]
WIDTHS = (1400, 390)

# For each drawn element: its content's width, its own, and whether some box from the content up to
# the element scrolls sideways (overflow-x auto or scroll, with more content than room).
_MEASURE = """() => {
  const out = {page: document.scrollingElement.scrollWidth, viewport: window.innerWidth, cut: []};
  const kinds = '[data-testid="stVegaLiteChart"], [data-testid="stTable"], [data-testid="stDataFrame"], .tp-text';
  for (const el of document.querySelectorAll(kinds)) {
    const content = el.querySelector('canvas, svg, table') || el;
    const wide = content.getBoundingClientRect().width, room = el.parentElement.getBoundingClientRect().width;
    if (wide <= room + 2) continue;
    let n = content, scrolls = false;
    while (n && n !== el.parentElement) {
      const x = getComputedStyle(n).overflowX;
      if ((x === 'auto' || x === 'scroll') && n.scrollWidth > n.clientWidth) { scrolls = true; break; }
      n = n.parentElement;
    }
    if (!scrolls) out.cut.push([el.getAttribute('data-testid') || el.className, Math.round(wide), Math.round(room)]);
  }
  return out; }"""


@pytest.fixture(scope="module")
def page_and_url(tmp_path_factory):
    with browser.served_page(tmp_path_factory.mktemp("layout")) as (page, url):
        yield page, url


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = os.environ.get("TOKENPRISM_LAYOUT_SHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("shots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name,path", PAGES, ids=[n for n, _ in PAGES])
def test_the_page_holds_at_this_width(page_and_url, shots, name, path, width):
    page, url = page_and_url
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{url}/{path}")
    page.locator('[data-testid="stMainBlockContainer"]').wait_for(timeout=120_000)
    browser.wait_idle(page, 180_000)
    page.wait_for_timeout(1500)  # charts and tables finish drawing
    measured = page.evaluate(_MEASURE)
    page.screenshot(path=str(shots / f"{name}-{width}.png"))
    assert measured["page"] <= measured["viewport"], f"{name} pans sideways at {width} px: {measured}"
    assert not measured["cut"], f"{name} at {width} px: wider than its column and not scrollable: {measured['cut']}"
