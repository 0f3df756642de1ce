"""Two trees of tokenprism, run alternately: the CPU and wall of the same `measure` commands on each.

On a loaded machine a bench run of one tree and then another does not compare: the same run's CPU
moved by 15% between two bench runs with the code unchanged (docs/measuring.md). Here each command
runs on tree A, then on tree B (B first in odd rounds), and the lower figure of the rounds is kept.
CPU is user + system time of the command's whole process tree (`RUSAGE_CHILDREN`). Every command's
summary must be the same on both trees; the last line says whether it was.

    python -m tests.benchmarks.measure_ab OLD_TREE NEW_TREE FOLDER ROWS.jsonl [ROUNDS]

OLD_TREE and NEW_TREE are source trees (`git archive COMMIT | tar -x -C DIR`); both run with this
interpreter, a compiled-module cache of their own (in a temporary folder, warmed first) and a rank
cache of their own, so neither rebuilds the other's. FOLDER and ROWS.jsonl are the bench's inputs
(`bench_measure.corpus_folder`, `bench_measure.short_rows`). Not part of `make bench`.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOKS = ["-t", "o200k_base,cl100k_base", "--by", "category", "--format", "csv", "--no-progress"]


def commands(folder: str, rows: str, tiny: str) -> dict[str, list[str]]:
    return {
        "folder_out": [folder, "--engine", "local", "--out", "{out}/"],
        "folder_agg": [folder, "--engine", "local"],
        "rows_out": [rows, "--column", "text", "--engine", "local", "--out", "{out}/"],
        "rows_agg": [rows, "--column", "text", "--engine", "local"],
        "folder_dask": [folder, "--engine", "dask", "--workers", "2"],
        "tiny": [tiny, "--engine", "local"],
    }


def run(tree: Path, args: list[str], env: dict[str, str], scratch: Path) -> tuple[float, float, str]:
    """(CPU s, wall s, summary CSV) of `python -m analysis measure ARGS` in `tree`."""
    out = scratch / f"out-{time.time_ns()}"
    argv = [sys.executable, "-m", "analysis", "measure", *[a.format(out=out) for a in args], *TOKS]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(out, ignore_errors=True)  # the dataset this run wrote, in our scratch folder
    if proc.returncode:
        raise RuntimeError(f"{' '.join(argv[2:])} failed in {tree}:\n{proc.stderr[-2000:]}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall, proc.stdout


def main(argv: list[str]) -> dict:
    old, new, folder, rows = (Path(a).resolve() for a in argv[:4])
    rounds = int(argv[4]) if len(argv) > 4 else 2
    trees = {"old": old, "new": new}
    with tempfile.TemporaryDirectory(prefix="tokenprism-ab-") as tmp:
        scratch = Path(tmp)
        (scratch / "tiny").mkdir()
        (scratch / "tiny" / "a.txt").write_text("hello world!", encoding="utf-8")
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(scratch / "pycache"), "PYTHONDONTWRITEBYTECODE": ""}
        envs = {name: {**env, "TOKENPRISM_DATA_DIR": str(scratch / f"data-{name}")} for name in trees}
        cmds = commands(str(folder), str(rows), str(scratch / "tiny"))
        for name, tree in trees.items():  # fill each tree's module and rank caches
            for warm in ("tiny", "folder_dask"):
                run(tree, [str(scratch / "tiny"), *cmds[warm][1:]], envs[name], scratch)
        got: dict[str, dict[str, list[tuple[float, float]]]] = {n: {c: [] for c in cmds} for n in trees}
        summaries: dict[str, set[str]] = {c: set() for c in cmds}
        for r in range(rounds):
            for case, args in cmds.items():
                for name in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
                    cpu, wall, summary = run(trees[name], args, envs[name], scratch)
                    got[name][case].append((cpu, wall))
                    summaries[case].add(summary)
                    print(f"{name:3} {case:12} CPU {cpu:6.2f} s  wall {wall:6.2f} s  load {os.getloadavg()[0]:.1f}",
                          flush=True)
    best = {n: {c: {"cpu_s": min(x[0] for x in v), "wall_s": min(x[1] for x in v)} for c, v in per.items()}
            for n, per in got.items()}
    same = {c: len(s) == 1 for c, s in summaries.items()}
    print(json.dumps({"best": best, "same_summaries": same}, indent=1))
    return {"best": best, "runs": got, "same_summaries": same}


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
