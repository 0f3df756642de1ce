"""How much CPU the garbage collector takes in one `cost --logs` run, summed over the command's processes.

`engine.heap.quiet_collector` (frozen start-up heap, rarer young collections) is kept only where it pays.
An interleaved A/B of whole runs moves by ±10% on a loaded 2-core host, more than the collector's share,
so this measures that share directly: the child runs with `gcprobe/` on PYTHONPATH, whose
`sitecustomize` times every collection per generation in every process (the driver and a pool's
forked workers).

    python -m tests.benchmarks.gc_probe TREE [ROWS] [ENGINE]

TREE is a source tree of tokenprism (`git archive COMMIT | tar -x -C DIR`); the log is `bench_traffic`'s
short chats (seed 11) under gpt-4o and gpt-4. Compare a tree with `quiet_collector` and one where it is
a bare `yield`. Not part of `make bench`.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.benchmarks.bench_traffic import generate

PROBE = Path(__file__).with_name("gcprobe")


def main(argv: list[str]) -> int:
    tree = argv[0]
    rows = int(argv[1]) if len(argv) > 1 else 100_000
    engine = argv[2] if len(argv) > 2 else "inprocess"
    with tempfile.TemporaryDirectory() as tmp:
        log, out = Path(tmp) / "chats.jsonl.gz", Path(tmp) / "gc"
        out.mkdir()
        generate(log, rows, 11, in_order=True)
        env = {**os.environ, "GCPROBE_DIR": str(out), "PYTHONPATH": str(PROBE)}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "analysis", "cost", "--logs", str(log), "-m", "gpt-4o,gpt-4",
                        "--engine", engine, "--format", "json", "--on", "2026-03-15"],
                       cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        totals = [0.0] * 6
        files = list(out.iterdir())
        for f in files:
            for i, value in enumerate(f.read_text().split()):
                totals[i] += float(value)
        gc_cpu = sum(totals[:3])
        print(f"{tree} {engine} {rows:,} rows: run CPU {cpu:.2f} s; collector CPU {gc_cpu:.2f} s "
              f"({gc_cpu / cpu:.1%}): generations 0/1/2 {totals[0]:.2f}/{totals[1]:.2f}/{totals[2]:.2f} s, "
              f"{int(totals[3])}/{int(totals[4])}/{int(totals[5])} collections, {len(files)} process(es) reporting")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
