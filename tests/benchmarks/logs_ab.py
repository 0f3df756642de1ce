"""Two trees of tokenprism, run alternately: the CPU of the same `cost --logs` on today's request-log shape.

As `measure_ab` does for `measure`: on a loaded machine, a bench run of one tree and then another does
not compare, so each round runs tree A then tree B (B first in even rounds), and each ratio is taken
within its round. The log is `bench_traffic.generate`'s (OpenAI chat rows in time order, usage on every
second row, tools on 5%), priced under the traffic bench's four models on the in-process engine (one
core: the least noise), JSON out; the two trees' outputs must be the same. CPU is the child's user +
system time (`RUSAGE_CHILDREN`).

    python -m tests.benchmarks.logs_ab OLD_TREE NEW_TREE [ROWS] [ROUNDS]

OLD_TREE and NEW_TREE are source trees (`git archive COMMIT | tar -x -C DIR`); both run with this
interpreter, each importing its own `analysis` (the tree is the child's working folder). Not part of
`make bench`.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_traffic import MODELS, generate


def run(tree: str, log: Path, env: dict[str, str]) -> tuple[float, float, bytes]:
    cmd = [sys.executable, "-m", "analysis", "cost", "--logs", str(log), "-m", MODELS, "--engine", "inprocess",
           "--format", "json", "--on", "2026-03-15"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=tree, capture_output=True, env=env, check=True).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall, out


def main(argv: list[str]) -> int:
    old, new = argv[0], argv[1]
    rows = int(argv[2]) if len(argv) > 2 else 20_000
    rounds = int(argv[3]) if len(argv) > 3 else 3
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "traffic.jsonl.gz"
        generate(log, rows, 7, in_order=True)
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pyc")}  # compiled once, outside the rounds
        trees = {"A": old, "B": new}
        for tree in trees.values():
            run(tree, log, env)
        cpu: dict[str, list[float]] = {"A": [], "B": []}
        outs: dict[str, bytes] = {}
        for r in range(rounds):
            for name in ("A", "B") if r % 2 == 0 else ("B", "A"):
                seconds, wall, outs[name] = run(trees[name], log, env)
                cpu[name].append(seconds)
                print(f"round {r + 1} {name}: CPU {seconds:.2f} s, wall {wall:.2f} s, load {os.getloadavg()[0]:.1f}",
                      flush=True)
    ratios = [b / a for a, b in zip(cpu["A"], cpu["B"])]
    print(f"B/A CPU per round: {[round(x, 3) for x in ratios]}; median {statistics.median(ratios):.3f}")
    print(f"outputs identical: {outs['A'] == outs['B']}")
    return 0 if outs["A"] == outs["B"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
