"""What the prompt-cache simulation costs in CPU: `price_records` + `summarise` on the traffic bench's log
(`bench_traffic.generate`, 20,000 rows, its four models), with each model's cache simulated and with it off
(`cached_share` 0.000001, which replaces the simulation), alternated, best of 3 each.

Issue 42's target: at most 10% more CPU with the simulation on. The figure is the ratio on / off of one run.
The same through the CLI as the traffic bench runs it (`cost --logs LOG -m MODELS --format json`, with
`--cached-share 0.000001` for off): the child process's CPU, alternated, best of 3.

    python -m tests.benchmarks cache_cpu
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
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
        cli = _cli(path, MODELS)
    best: dict[str, float] = {}
    for _ in range(3):
        for name, share in (("on", 0), ("off", "0.000001")):
            plan = plan_traffic(MODELS, cached_share=share, on=date(2026, 12, 1))
            start = time.process_time()
            summarise(price_records(records, plan), plan)
            best[name] = min(best.get(name, float("inf")), time.process_time() - start)
    result = {"rows": ROWS, "models": MODELS, "cpu_s_on": round(best["on"], 2), "cpu_s_off": round(best["off"], 2),
              "on_over_off": round(best["on"] / best["off"], 3), "cpus": os.cpu_count(),
              "cli_cpu_s_on": round(cli["on"], 2), "cli_cpu_s_off": round(cli["off"], 2),
              "cli_on_over_off": round(cli["on"] / cli["off"], 3)}
    print(f"{ROWS:,} rows x {MODELS}: simulation on {best['on']:.2f} s, off {best['off']:.2f} s CPU: "
          f"{best['on'] / best['off'] - 1:+.1%}; through the CLI on {cli['on']:.2f} s, off {cli['off']:.2f} s: "
          f"{cli['on'] / cli['off'] - 1:+.1%}")
    (out_dir / "cache_cpu.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def _cli(log: Path, models: str) -> dict[str, float]:
    """The CPU of `cost --logs` in a child process, simulation on and off, alternated, best of 3."""
    best: dict[str, float] = {}
    for _ in range(3):
        for name, extra in (("on", []), ("off", ["--cached-share", "0.000001"])):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-m", "analysis", "cost", "--logs", str(log), "-m", models,
                            "--format", "json", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            best[name] = min(best.get(name, float("inf")), cpu)
    return best
