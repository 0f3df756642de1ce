"""A fresh dashboard server in headless Chromium, as ratios to the reference of `bench_startup`.

Each round starts `tokenprism dashboard` (the command's own streamlit invocation) with a new data
dir whose rank cache an uncounted first round filled, and times:

* health: from starting the process to `/_stcore/health` answering;
* Compare: from opening `/` to the first row of its counts table (the page's sample text);
* Explore: from opening `/explore` to its first chart, on a server of its own (a first visit);
* the floors: the same for a Streamlit page of one Markdown table, and of one Altair chart,
  their imports done before the server listens: what Streamlit and Chromium take on their own.

The reference script (parse o200k, build a `tiktoken.Encoding`, encode) runs right before each
round; figures are medians over its median. Targets (issue 32): Compare and Explore <= 1.5.
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
import urllib.request
from pathlib import Path

from ownbpe import O200K_PATTERN
from tests.benchmarks.bench_startup import REFERENCE, REPEAT, TEXT, _o200k, _run
from tests.dashboards import browser

TARGETS = {"compare_first_counts": 1.5, "explore_first_chart": 1.5}


def _healthy(proc: subprocess.Popen, port: int, t0: float, timeout: float = 300) -> float:
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return time.perf_counter() - t0
        except OSError:
            if proc.poll() is not None or time.perf_counter() - t0 > timeout:
                raise RuntimeError("the dashboard did not start")
            time.sleep(0.05)


PAGES = {  # figure -> (path, what shows the first result)
    # the compact counts, one row per tokenizer counted so far
    "compare_first_counts": ("/", ".st-key-counts .tp-counts div:not(.tp-head)"),
    "explore_first_chart": ("/explore", '[data-testid="stVegaLiteChart"], .vega-embed'),
}


# What Streamlit and Chromium take on their own: a page of one element, its imports done before
# the server listens (as the warm-up does for ours). figure -> (the app, what shows its element).
FLOORS = {
    "floor_markdown_table": ('import streamlit as st\nst.markdown("| a | b |\\n|---|---|\\n| 1 | 2 |")\n',
                             "table tbody tr"),
    "floor_chart": ('import altair as alt, pandas as pd, streamlit as st\n'
                    'st.altair_chart(alt.Chart(pd.DataFrame({"a": [1, 2], "b": [3, 4]})).mark_bar().encode(x="a", y="b"))\n',
                    PAGES["explore_first_chart"][1]),
}


def _floor_command(app: Path, port: int) -> list[str]:
    from analysis.cli.dashboard import private_defaults, serving_defaults

    options = ["--server.port", str(port), "--server.headless", "true"]
    run = ["streamlit", "run", str(app), *private_defaults(options), *serving_defaults(options), *options]
    return [sys.executable, "-c", f"import sys, altair, pandas; from streamlit.web import cli; sys.argv = {run!r}; "
            "sys.exit(cli.main())"]


def one_round(env: dict, tmp: Path, figure: str) -> dict:
    """A fresh server, its health time, and the time `figure`'s page takes to its first result."""
    from playwright.sync_api import sync_playwright

    from analysis.cli.dashboard import streamlit_command

    port = browser.free_port()
    if figure in FLOORS:
        app = tmp / f"{figure}.py"
        app.write_text(FLOORS[figure][0], encoding="utf-8")
        cmd, (path, shown) = _floor_command(app, port), ("/", FLOORS[figure][1])
    else:
        cmd, (path, shown) = streamlit_command(["--server.port", str(port), "--server.headless", "true"]), PAGES[figure]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        out = {"health": _healthy(proc, port, t0)}
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=browser.CHROMIUM, headless=True, args=browser.CHROMIUM_FLAGS)
            page = b.new_page(viewport={"width": 1400, "height": 1000})
            t1 = time.perf_counter()
            page.goto(f"http://127.0.0.1:{port}{path}")
            page.locator(shown).first.wait_for(timeout=300_000)
            out[figure] = time.perf_counter() - t1
            b.close()
        return out
    finally:
        browser.stop(proc)


def main(out_dir: Path) -> dict:
    why = browser.missing()
    if why:
        print(f"skipped: {why}")
        return {"skipped": why}
    reference = [sys.executable, "-c", REFERENCE, str(_o200k()), O200K_PATTERN, TEXT]
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-dash-") as data:
        env = {**os.environ, "TOKENPRISM_DATA_DIR": data, "PYTHONPYCACHEPREFIX": str(Path(data) / "pycache"),
               "TOKENPRISM_NO_VOCAB_CACHE": "", "PYTHONDONTWRITEBYTECODE": ""}
        tmp = Path(data)
        one_round(env, tmp, "compare_first_counts")  # fills the rank cache and byte-compiles, uncounted
        refs: list[float] = []
        times: dict[str, list[float]] = {"health": [], **{k: [] for k in [*PAGES, *FLOORS]}}
        for _ in range(REPEAT):
            for figure in [*PAGES, *FLOORS]:  # each page on a server of its own, as a reader's first visit
                refs.append(_run(reference, env))
                got = one_round(env, tmp, figure)
                if figure in PAGES:
                    times["health"].append(got["health"])
                times[figure].append(got[figure])
    ref = statistics.median(refs)
    rows = {k: {"median_s": round(statistics.median(t), 3), "ratio": round(statistics.median(t) / ref, 2)}
            for k, t in times.items()}
    for k, target in TARGETS.items():
        rows[k].update(target=target, met=rows[k]["ratio"] <= target)
    result = {"reference_median_s": round(ref, 3), "rounds": REPEAT, "figures": rows}
    print(f"reference: {ref:.3f} s (median of {len(refs)})")
    for k, r in rows.items():
        print(f"{k:<24}{r['median_s']:>9.3f} s{r['ratio']:>7.2f}x" + (f"  target {r['target']}" if "target" in r else ""))
    (out_dir / "dashboard_cold.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
