"""What the prompt-cache simulation costs in CPU: `price_records` + `summarise` on the traffic bench's log
(`bench_traffic.generate`, 20,000 rows, its four models), with each model's cache simulated and with it off
(`cached_share` 0.000001, which replaces the simulation), alternated, best of 3 each.

Issue 42's target: at most 10% more CPU with the simulation on. The figure is the ratio on / off of one run.

    python -m tests.benchmarks cache_cpu
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from datetime import date
from pathlib import Path

ROWS = int(os.environ.get("TOKENPRISM_BENCH_CACHE_ROWS", "20000"))


def main(out_dir: Path) -> dict:
    from analysis.cost import plan_traffic, price_records, read_log_records, summarise
    from tests.benchmarks.bench_traffic import MODELS, generate

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "traffic.jsonl.gz"
        generate(path, ROWS)
        records, _ = read_log_records(str(path))
    best: dict[str, float] = {}
    for _ in range(3):
        for name, share in (("on", 0), ("off", "0.000001")):
            plan = plan_traffic(MODELS, cached_share=share, on=date(2026, 12, 1))
            start = time.process_time()
            summarise(price_records(records, plan), plan)
            best[name] = min(best.get(name, float("inf")), time.process_time() - start)
    result = {"rows": ROWS, "models": MODELS, "cpu_s_on": round(best["on"], 2), "cpu_s_off": round(best["off"], 2),
              "on_over_off": round(best["on"] / best["off"], 3), "cpus": os.cpu_count()}
    print(f"{ROWS:,} rows x {MODELS}: simulation on {best['on']:.2f} s, off {best['off']:.2f} s CPU: "
          f"{best['on'] / best['off'] - 1:+.1%}")
    (out_dir / "cache_cpu.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
