"""Pages and charts a person can read (issues 46 and 57), on the rendered page at 1400 x 900 and 390 x 844.

For every page: no page pans sideways, no chart is wider than its column, and a table or token
drawing wider than its column scrolls inside it (nothing is cut off where it cannot be reached). For every Cost bar
chart: at least ~20 px per bar and one label per bar (labels that do not overlap). For every
chart coloured by tokenizer: its legend lists every tokenizer it draws. Charts are read from
the SVG Vega draws (`g.role-axis-label text`, `g.role-legend-label text`, the bars' paths).
Screenshots of each page viewed go to $TOKENPRISM_SCREENSHOT_DIR when set (`docs/screenshots`
for the README; add --runslow for every page at both sizes), else, of a page that fails, to the
test's temporary folder.

Needs Debian's chromium and playwright, as `test_browser.py` (skipped without them, failed under
CI). One `streamlit run`; by default 5 page loads, one view of each kind of check at each size
(`FAST`), so that CI runs them in well under a minute; --runslow loads all 22 (a few minutes).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analysis import available_tokenizers
from tests.dashboards import browser

SIZES = {"wide": (1400, 900), "phone": (390, 844)}
COST_MODELS = ["openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash"]
TWELVE = ["openai:gpt-4o-mini", "openai:gpt-4.1", "openai:gpt-5-mini", "openai:gpt-5.1", "anthropic:claude-haiku-4-5",
          "anthropic:claude-sonnet-4-5", "google:gemini-2.5-flash", "google:gemini-2.5-pro", "deepseek:deepseek-chat",
          "groq:qwen/qwen3-32b", "mistral:mistral-small-3.2-24b-instruct", "groq:llama-3.3-70b-versatile"]


def _cost(models: list[str]) -> str:
    return "cost?" + "&".join(f"cost_models={m}" for m in models)


# (name, path): every page, the Cost page with 3 and 12 models, each Explore section with a chart
PAGES = [
    ("compare", ""),
    ("cost-3", _cost(COST_MODELS)),
    ("cost-12", _cost(TWELVE)),
    ("explore", "explore"),
    ("explore-code", "explore?ex_section=1+%C2%B7+Code"),
    ("explore-languages", "explore?ex_section=2+%C2%B7+Languages"),
    ("explore-numbers", "explore?ex_section=3+%C2%B7+Numbers"),
    ("explore-whitespace", "explore?ex_section=4+%C2%B7+Whitespace"),
    ("explore-boundaries", "explore?ex_section=5+%C2%B7+Boundaries"),
    ("why", "why?why_number=31415926535"),
    ("bpe-lab", "bpe_lab"),
]

# The views run without --runslow: every check above on at least one of them, at each size. Cost with
# 12 models at both sizes (bars, their labels, whole legend labels), Why at 390 px (tables, token
# drawings, a canvas chart, a tokenizer legend, a hidden tab), Compare at 390 px (the landing page:
# token drawings and the counts table at the narrowest width) and Explore's languages at 1400 px (the
# two-tokenizer legend, a long legend title, a chart of 450 bars).
FAST = {("cost-12", "wide"), ("cost-12", "phone"), ("why", "phone"), ("compare", "phone"), ("explore-languages", "wide")}
VIEWS = [pytest.param(name, path, size, id=f"{name}-{size}", marks=() if (name, size) in FAST else pytest.mark.slow)
         for name, path in PAGES for size in SIZES]

# Charts that draw two tokenizers by design (title up to its colon -> the pair)
PAIRS = {"Tokens saved per language": {"o200k_base", "cl100k_base"}}

# Per chart: its width and its column's; for a chart with bars (rect marks) and a discrete y axis,
# the bars' heights and the y labels (their text and boxes); the legend labels; the title.
_CHARTS = """() => {
  const out = {page: document.scrollingElement.scrollWidth, viewport: window.innerWidth, charts: []};
  for (const el of document.querySelectorAll('[data-testid="stVegaLiteChart"]')) {
    const svg = el.querySelector('svg.marks');
    if (!svg) {  // Vega draws a chart of many marks on a canvas (its width is checked), or not at all in a hidden tab
      const c = el.querySelector('canvas.marks');
      out.charts.push({canvas: !!c, hidden: el.getBoundingClientRect().width === 0, title: '', bars: [], yLabels: [],
                       legends: [], width: c ? c.getBoundingClientRect().width : 0,
                       column: el.parentElement.getBoundingClientRect().width});
      continue;
    }
    const box = (e) => { const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
    const texts = (sel) => [...svg.querySelectorAll(sel)].map(t => ({text: t.textContent, box: box(t)}));
    const bars = [...svg.querySelectorAll('g.mark-rect.role-mark path')].map(p => box(p)[3]);
    const title = svg.querySelector('g.role-title-text text');
    out.charts.push({
      width: svg.getBoundingClientRect().width, column: el.parentElement.getBoundingClientRect().width,
      title: title ? title.textContent : '', bars,
      yLabels: texts('g.role-axis[aria-label^="Y-axis"] g.role-axis-label text'),
      legends: [...svg.querySelectorAll('g.role-legend')].map(g => ({
        title: (g.querySelector('g.role-legend-title text') || {textContent: ''}).textContent,
        labels: [...g.querySelectorAll('g.role-legend-label text')].map(t => t.textContent),
        right: Math.max(0, ...[...g.querySelectorAll('g.role-legend-label text')].map(t => t.getBoundingClientRect().right))
               - svg.getBoundingClientRect().right})),
    });
  }
  // A table or token drawing wider than its column must scroll inside it (a wide table), never be cut off
  out.cut = [];
  for (const el of document.querySelectorAll('[data-testid="stTable"], [data-testid="stDataFrame"], .tp-text')) {
    const content = el.querySelector('table, canvas') || el;
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
    with browser.served_page(tmp_path_factory.mktemp("legibility")) as (page, url):
        yield page, url


@pytest.fixture(scope="module")
def shots() -> Path | None:
    """Where a screenshot of every page viewed goes ($TOKENPRISM_SCREENSHOT_DIR), or None."""
    folder = os.environ.get("TOKENPRISM_SCREENSHOT_DIR")
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder)


def _open(page, url: str, path: str, size: tuple[int, int]) -> dict:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{url}/{path}")
    page.locator('[data-testid="stMainBlockContainer"]').wait_for(timeout=120_000)
    browser.wait_idle(page, 240_000)
    # the run's elements in place of the placeholders a page shows while its first run starts
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stSkeleton\"], .stSkeleton')",
                           timeout=240_000)
    browser.wait_idle(page, 240_000)
    page.wait_for_timeout(1500)  # Vega finishes drawing
    return page.evaluate(_CHARTS)


def _overlap(a: list[float], b: list[float]) -> bool:
    """Two label boxes (x, y, w, h) overlap vertically by more than a third of a line."""
    return min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]) > min(a[3], b[3]) / 3


def test_the_fast_views_are_pages_of_the_set_at_both_sizes():
    assert len(VIEWS) == len(PAGES) * len(SIZES) == 22
    assert FAST <= {(name, size) for name, _ in PAGES for size in SIZES}
    assert {size for _, size in FAST} == set(SIZES)


@pytest.mark.parametrize("name,path,size", VIEWS)
def test_charts_can_be_read(page_and_url, shots, tmp_path, name, path, size):
    page, url = page_and_url
    measured = _open(page, url, path, SIZES[size])
    if shots:
        _screenshot(page, shots / f"{name}-{size}.png", SIZES[size])
    try:
        _check(measured, name, size)
    except AssertionError:
        _screenshot(page, tmp_path / f"{name}-{size}.png", SIZES[size])  # what failed, to look at
        raise


def _check(measured: dict, name: str, size: str) -> None:
    assert measured["page"] <= measured["viewport"], f"{name} pans sideways at {size}: {measured['page']} px"
    assert not measured["cut"], f"{name} at {size}: wider than its column and not scrollable: {measured['cut']}"
    tokenizers = set(available_tokenizers())
    if name.startswith(("cost", "explore", "why")):
        assert measured["charts"], f"{name} at {size}: no chart drawn"
    if name.startswith("cost"):
        assert any(c.get("bars") for c in measured["charts"]), f"{name}: no bar chart drawn"
    for chart in measured["charts"]:
        assert chart.get("canvas") or chart.get("hidden") or "legends" in chart, f"{name}: a chart was not drawn"
        label = f"{name} at {size}: {chart['title'] or 'a chart'}"
        assert chart["width"] <= chart["column"] + 1, f"{label} is {chart['width']:.0f} px in a {chart['column']:.0f} px column"
        for legend in chart["legends"]:  # drawn whole, within the chart ("exact or documer" was cut at its edge)
            assert legend["right"] <= 1, f"{label}: the legend {legend['title']!r} runs {legend['right']:.0f} px past the chart"
            if legend["title"].startswith("tokenizer"):  # every tokenizer it draws, named
                drawn = PAIRS.get(chart["title"].split(":")[0], tokenizers)
                assert set(legend["labels"]) == drawn, f"{label}: the legend lacks {sorted(drawn - set(legend['labels']))}"
        if name.startswith("cost") and chart["bars"]:
            bars, labels = chart["bars"], chart["yLabels"]
            assert min(bars) >= 18, f"{label}: bars of {min(bars):.0f} px"
            assert len(labels) == len(bars), f"{label}: {len(labels)} labels for {len(bars)} bars"
            boxes = sorted((t["box"] for t in labels), key=lambda b: b[1])
            assert not any(_overlap(a, b) for a, b in zip(boxes, boxes[1:])), f"{label}: labels overlap"
            for legend in chart["legends"]:  # every legend label whole (not "exact or documer")
                assert all(not t.endswith("…") for t in legend["labels"]), legend


def _screenshot(page, out: Path, size: tuple[int, int]) -> None:
    """The whole page (its content's height) at this width; the viewport is set back afterwards."""
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMainBlockContainer\"]').scrollHeight")
    page.set_viewport_size({"width": size[0], "height": min(int(height) + 80, 8000)})
    page.wait_for_timeout(600)
    page.screenshot(path=str(out))
    page.set_viewport_size({"width": size[0], "height": size[1]})
