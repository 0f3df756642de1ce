"""Screenshots of every dashboard page for the README: `python -m tests.dashboards.screenshots [OUT_DIR]`.

Serves the app with `streamlit run`, opens each page (and each tab) in headless Chromium and
saves a PNG the height of the page content. Default OUT_DIR: docs/screenshots.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.dashboards import browser

# (file name, url path with its query, tab or segmented-control label to click, or None)
SHOTS = [
    ("compare", "", None),
    ("explore", "explore", None),
    ("explore-languages", "explore?ex_section=2+%C2%B7+Languages", None),
    ("explore-numbers", "explore", "3 · Numbers"),
    ("explore-boundaries", "explore", "5 · Boundaries"),
    ("why-digits", "why?why_number=31415926535", None),
    ("why-trailing-spaces", "why", "Trailing spaces"),
    ("why-merge-trace", "why", "Merge trace"),
    ("cost", "cost", None),
    ("bpe-lab-steps", "bpe_lab", None),
    ("bpe-lab-train", "bpe_lab", "ownbpe vs Hugging Face"),
]
# (file name, url path with its query): a chart with its tooltip showing
TOOLTIP_SHOTS = [
    ("why-chart-tooltip", "why?why_number=31415926535"),
]
WIDTH = 1400


def shoot(page, url: str, out: Path, path: str, tab: str | None) -> Path:
    page.set_viewport_size({"width": WIDTH, "height": 1000})
    page.goto(f"{url}/{path}")
    page.locator('[data-testid="stMainBlockContainer"]').wait_for(timeout=120_000)
    browser.wait_idle(page, 180_000)
    if tab:
        target = page.get_by_role("tab", name=tab)
        if not target.count():
            target = page.get_by_role("radio", name=tab, exact=True)  # a segmented control
        target.first.click()
        browser.wait_idle(page, 180_000)
    page.wait_for_timeout(1500)  # charts and tables finish drawing
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMainBlockContainer\"]').scrollHeight")
    page.set_viewport_size({"width": WIDTH, "height": min(int(height) + 80, 6000)})
    page.wait_for_timeout(800)
    page.screenshot(path=str(out))
    _shrink(out)
    return out


def shoot_tooltip(page, url: str, out: Path, path: str) -> Path:
    """The first chart of a page with the mouse over a mark: its tooltip with the exact values."""
    page.set_viewport_size({"width": WIDTH, "height": 1000})
    page.goto(f"{url}/{path}")
    chart = page.locator('[data-testid="stVegaLiteChart"]').first
    chart.wait_for(timeout=120_000)
    browser.wait_idle(page, 180_000)
    chart.scroll_into_view_if_needed()
    page.wait_for_timeout(800)
    box = chart.locator("canvas, svg").first.bounding_box()
    tooltip = page.locator("#vg-tooltip-element")
    points = [(fx, y) for fx in (0.3, 0.4, 0.2) for y in range(int(box["y"]) + 4, int(box["y"] + box["height"]) - 4, 6)]
    for fx, y in points:
        page.mouse.move(box["x"] + box["width"] * fx, y)
        if tooltip.count() and "visible" in (tooltip.get_attribute("class") or ""):
            break
    page.wait_for_timeout(300)
    margin = 40
    page.screenshot(path=str(out), clip={"x": max(box["x"] - margin, 0), "y": max(box["y"] - margin, 0),
                                         "width": box["width"] + 2 * margin + 200, "height": box["height"] + 2 * margin})
    _shrink(out)
    return out


def _shrink(path: Path) -> None:
    """Re-save with a 256-colour palette: a third of the size, no visible loss on UI screenshots."""
    from PIL import Image  # a matplotlib dependency

    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    small.save(path, optimize=True)


def main(out_dir: Path, only: list[str] | None = None) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    reason = browser.missing()
    if reason:
        raise SystemExit(f"cannot take screenshots: {reason}")
    saved = []
    with tempfile.TemporaryDirectory() as tmp, browser.serve(log=Path(tmp) / "streamlit.log") as url, \
            browser.chromium(Path(tmp) / "profile", width=WIDTH) as page:
        for name, path, tab in SHOTS:
            if only and name not in only:
                continue
            saved.append(shoot(page, url, out_dir / f"{name}.png", path, tab))
            print(saved[-1], file=sys.stderr)
        for name, path in TOOLTIP_SHOTS:
            if only and name not in only:
                continue
            saved.append(shoot_tooltip(page, url, out_dir / f"{name}.png", path))
            print(saved[-1], file=sys.stderr)
    return saved


if __name__ == "__main__":
    args = sys.argv[1:]
    out = Path(args[0]) if args and not args[0].isidentifier() and "/" in args[0] else browser.REPO / "docs" / "screenshots"
    names = [a for a in args if a in {s[0] for s in [*SHOTS, *TOOLTIP_SHOTS]}]
    main(out, names or None)
