"""`make bench`: run every `bench_*.py` here (or those named on the command line).

Each module has `main(out_dir) -> dict`; it prints its own table and writes `out_dir/<name>.json`.
Figures are ratios against tiktoken or HF `tokenizers` measured in the same run: these machines
are shared and noisy, so absolute times mean little.

    python -m tests.benchmarks                 # all
    python -m tests.benchmarks tokenizers      # only bench_tokenizers.py
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "bench-results"


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    wanted = argv or names
    unknown = sorted(set(wanted) - set(names))
    if unknown:
        print(f"unknown benchmark(s) {unknown}; available: {names}", file=sys.stderr)
        return 2
    OUT.mkdir(exist_ok=True)
    summary = {}
    for name in wanted:
        print(f"\n=== bench_{name} ===", flush=True)
        t0 = time.perf_counter()
        mod = importlib.import_module(f"tests.benchmarks.bench_{name}")
        summary[name] = {"result": mod.main(OUT), "wall_s": round(time.perf_counter() - t0, 1)}
    (OUT / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"\nfigures written to {OUT}/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
