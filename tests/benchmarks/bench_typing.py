"""Counts as you type: a keystroke in Compare's text box to the new counts, against Streamlit's floor.

Compare counts the text as it is typed: the text box sends its value after a pause in typing
(`dashboards.look.LIVE_DELAY_MS`), and the page reruns. Here a 1 KB text is in the box, every
tokenizer the page offers picked (its default: those that count offline here), and each round types
one character and times until the compact counts show all of them for the new text
(`.tp-counts[data-chars=N][data-rows=R]`).

The floor is a bare Streamlit page of one element: the same text box, sent the same way, and one
HTML line carrying its length (`.tp-floor[data-chars=N]`). Both are measured alike:

* served alike: ours with the command `tokenprism dashboard` runs (`analysis.cli.dashboard.
  streamlit_command`: its warm-up and serving options), the floor with the same serving options;
  the rounds start once both servers are quiet (ours has finished its warm-up: no CPU spent for
  `QUIET_S`), as a person types into a page that has been open a moment;
* timed alike, inside the page: from the keystroke's `keydown` to the first DOM change after which
  the element is there (a MutationObserver, `performance.now()`). Playwright's own wait for a
  selector polls at growing intervals (up to 500 ms), too coarse for a figure of a few hundred ms;
  its wall-clock figure is kept in the JSON beside the in-page one.

Rounds alternate the two pages (two servers, one Chromium), so the load of this shared host falls
on both alike. Reported: the medians, their ratio with the pause included (what a person waits: the
target) and without it (the rerun alone: the stricter figure). Target (issue 57): <= 1.3x the floor.
Skipped, saying why, where Chromium or Playwright is missing.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.dashboards import browser

ROUNDS = 15
TARGET = 1.3
QUIET_S = 4.0  # longer than the warm-up's own wait for quiet pages (dashboards.warm.QUIET_S, 2 s)
FLOOR_APP = '''import streamlit as st
from dashboards import look
text = st.text_area("Text", key="text")
look.live_text_area("text")
st.html(look.Html(f'<div class="tp-floor" data-chars="{len(text)}">chars: {len(text)}</div>'))
'''
# Armed before each keystroke: the time of its keydown, and of the first DOM change after which
# `sel` matches (checked on every batch of changes, as the browser makes them).
ARM = """(sel) => {
  const t = window.__tpTyping = {key: null, seen: null};
  document.addEventListener('keydown', e => { if (t.key === null && e.key === 'x') t.key = performance.now(); },
                            {capture: true, once: true});
  const seen = () => { if (t.key !== null && document.querySelector(sel)) { t.seen = performance.now(); return true; } };
  const o = new MutationObserver(() => { if (seen()) o.disconnect(); });
  o.observe(document.documentElement, {childList: true, subtree: true, attributes: true, characterData: true});
}"""


def _text() -> str:
    from analysis.corpora import sample_text

    base = sample_text()
    return (base * (1024 // len(base) + 1))[:1024]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(browser.REPO), os.environ.get("PYTHONPATH")]))}


def _serve(cmd: list[str], port: int, log: Path) -> subprocess.Popen:
    out = open(log, "wb")
    proc = subprocess.Popen(cmd, cwd=browser.REPO, env=_env(), stdout=out, stderr=subprocess.STDOUT)
    out.close()  # the child holds its own copy
    browser.wait_for_health(proc, port, log=log)
    return proc


def _serve_ours(tmp: Path) -> tuple[subprocess.Popen, str]:
    """The dashboard as `tokenprism dashboard` serves it (its warm-up, its serving options)."""
    from analysis.cli.dashboard import streamlit_command

    port = browser.free_port()
    return _serve(streamlit_command(["--server.port", str(port), "--server.headless", "true"]), port,
                  tmp / "ours.log"), f"http://127.0.0.1:{port}"


def _serve_floor(tmp: Path) -> tuple[subprocess.Popen, str]:
    """The one-element page, with the same serving options as ours."""
    from analysis.cli.dashboard import private_defaults, serving_defaults

    app = tmp / "floor_app.py"
    app.write_text(FLOOR_APP, encoding="utf-8")
    port = browser.free_port()
    options = ["--server.port", str(port), "--server.headless", "true"]
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), *private_defaults(options), *serving_defaults(options),
           *options]
    return _serve(cmd, port, tmp / "floor.log"), f"http://127.0.0.1:{port}"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _wait_quiet(proc: subprocess.Popen, quiet: float = QUIET_S, timeout: float = 300.0) -> float:
    """Seconds until the server spent (nearly) no CPU for `quiet` seconds: its warm-up is over."""
    t0 = time.monotonic()
    if not Path(f"/proc/{proc.pid}/stat").exists():  # not Linux: a fixed pause instead
        time.sleep(10 * quiet)
        return time.monotonic() - t0
    while time.monotonic() - t0 < timeout:
        before = _cpu_seconds(proc.pid)
        time.sleep(quiet)
        if _cpu_seconds(proc.pid) - before < 0.02 * quiet:
            break
    return time.monotonic() - t0


def _set_text(page, text: str) -> None:
    area = page.locator(".st-key-text textarea")
    area.wait_for(timeout=120_000)
    area.fill(text)
    area.press("Control+Enter")
    browser.wait_idle(page, 120_000)
    area.click()
    page.keyboard.press("End")
    page.keyboard.press("Control+End")


def _keystroke(page, selector_for) -> tuple[float, float]:
    """(in the page, by Playwright's wait) seconds from typing one character to `selector_for(n_chars)` showing."""
    n = len(page.locator(".st-key-text textarea").input_value()) + 1
    selector = selector_for(n)
    page.evaluate(ARM, selector)
    t0 = time.perf_counter()
    page.keyboard.type("x")
    page.wait_for_selector(selector, state="attached", timeout=120_000)
    wall = time.perf_counter() - t0
    page.wait_for_function("() => window.__tpTyping.seen !== null", timeout=10_000)
    t = page.evaluate("window.__tpTyping")
    browser.wait_idle(page, 120_000)
    return (t["seen"] - t["key"]) / 1000, wall


def main(out_dir: Path) -> dict:
    why = browser.missing()
    if why:
        print(f"skipped: {why}")
        return {"skipped": why}
    from dashboards.look import LIVE_DELAY_MS

    text = _text()
    n_tokenizers = 0  # every tokenizer the page offers (the bundled ones, and those fetched): read from the page
    ours_sel = lambda n: f'.tp-counts[data-chars="{n}"][data-rows="{n_tokenizers}"]'  # noqa: E731
    floor_sel = lambda n: f'.tp-floor[data-chars="{n}"]'  # noqa: E731
    times: dict[str, list[float]] = {"compare": [], "floor": []}
    walls: dict[str, list[float]] = {"compare": [], "floor": []}
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-typing-") as tmp_name:
        tmp = Path(tmp_name)
        procs = []
        try:
            ours_proc, url = _serve_ours(tmp)
            procs.append(ours_proc)
            floor_proc, floor_url = _serve_floor(tmp)
            procs.append(floor_proc)
            with browser.chromium(tmp / "profile") as page:
                floor = page.context.new_page()
                page.goto(url)
                floor.goto(floor_url)
                _set_text(page, text)
                _set_text(floor, text)
                n_tokenizers = int(page.locator(".tp-counts").first.get_attribute("data-rows") or 0)
                waited = _wait_quiet(ours_proc)
                _keystroke(page, ours_sel)  # uncounted: caches and scripts warm
                _keystroke(floor, floor_sel)
                for _ in range(ROUNDS):
                    for key, tab, selector in (("compare", page, ours_sel), ("floor", floor, floor_sel)):
                        tab.bring_to_front()
                        in_page, wall = _keystroke(tab, selector)
                        times[key].append(in_page)
                        walls[key].append(wall)
        finally:
            for proc in procs:
                browser.stop(proc)
    pause = LIVE_DELAY_MS / 1000
    ours, base = statistics.median(times["compare"]), statistics.median(times["floor"])
    result = {"rounds": ROUNDS, "text_chars": len(text), "tokenizers": n_tokenizers, "pause_s": pause,
              "waited_for_quiet_s": round(waited, 1),
              "compare_median_s": round(ours, 3), "floor_median_s": round(base, 3),
              "compare_s": [round(t, 3) for t in times["compare"]], "floor_s": [round(t, 3) for t in times["floor"]],
              "ratio_with_pause": round(ours / base, 2),
              "ratio_without_pause": round((ours - pause) / max(base - pause, 1e-3), 2), "target": TARGET,
              "playwright_wall_median_s": {k: round(statistics.median(v), 3) for k, v in walls.items()}}
    result["met"] = result["ratio_with_pause"] <= TARGET
    print(f"keystroke to new counts, 1 KB over {n_tokenizers} tokenizers: {ours:.3f} s (median of {ROUNDS}, in the page)")
    print(f"floor (one-element page, same box):            {base:.3f} s")
    print(f"ratio {result['ratio_with_pause']:.2f}x with the {LIVE_DELAY_MS} ms pause, "
          f"{result['ratio_without_pause']:.2f}x without it (target {TARGET}x)")
    (out_dir / "typing.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else browser.REPO / "bench-results"
    out.mkdir(exist_ok=True)
    main(out)
