"""Two trees of tokenprism, run alternately: the CPU of the same `cost --logs` on today's request-log shape.

As `measure_ab` does for `measure`: on a loaded machine, a bench run of one tree and then another does
not compare, so each round runs tree A then tree B (B first in even rounds), and each ratio is taken
within its round. The log is `bench_traffic.generate`'s (OpenAI chat rows in time order, usage on every
second row, tools on 5%), priced under the traffic bench's four models on the in-process engine (one
core: the least noise), JSON out; the two trees' outputs must be the same. CPU is the child's user +
system time (`RUSAGE_CHILDREN`).

    python -m tests.benchmarks.logs_ab OLD_TREE NEW_TREE [ROWS] [ROUNDS] [SHAPE] [ENGINE]

SHAPE is "traffic" (the default: today's shape above), "chats" (`bench_logs`' "short chats": seed 11 under
gpt-4o and gpt-4) or "shared" (`shared_starts`: long templated
system prompts with a per-user tail, the shape OpenAI's step cuts work on).

ENGINE is the `--engine` of both runs ("inprocess", the default, or "local", the command's own default: a
pool on every core, whose wall time is the figure a user waits for).

OLD_TREE and NEW_TREE are source trees (`git archive COMMIT | tar -x -C DIR`); both run with this
interpreter, each importing its own `analysis` (the tree is the child's working folder). Not part of
`make bench`.
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.bench_traffic import MODELS, generate


def shared_starts(path: Path, rows: int) -> None:
    """`rows` OpenAI chat rows, 20 s apart: one templated system prompt of about 1,650 tokens with a
    per-user tail (40 users), then a question; every row reaches OpenAI's 1,024-token minimum."""
    template = " ".join(f"Policy {k}: answer in the customer's language and cite section {k} of the handbook."
                        for k in range(90))
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for i in range(rows):
            user = i * 7 % 40
            at = 1_773_532_800 + 20 * i  # 2026-03-15, 20 s apart
            row = {"model": "gpt-4o", "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at)),
                   "messages": [{"role": "system", "content": f"{template}\nCustomer {user}, plan {user % 3}."},
                                {"role": "user", "content": f"Where is order {1000 + i}?"}],
                   "response": {"model": "gpt-4o", "choices": [{"message": {"role": "assistant",
                                                                            "content": "On its way."}}]}}
            f.write(json.dumps(row) + "\n")


def run(tree: str, log: Path, env: dict[str, str], engine: str = "inprocess",
        models: str = MODELS) -> tuple[float, float, bytes]:
    cmd = [sys.executable, "-m", "analysis", "cost", "--logs", str(log), "-m", models, "--engine", engine,
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
    shape = argv[4] if len(argv) > 4 else "traffic"
    engine = argv[5] if len(argv) > 5 else "inprocess"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "traffic.jsonl.gz"
        models = MODELS
        if shape == "shared":
            shared_starts(log, rows)
        elif shape == "chats":
            generate(log, rows, 11, in_order=True)
            models = "gpt-4o,gpt-4"
        else:
            generate(log, rows, 7, in_order=True)
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pyc")}  # compiled once, outside the rounds
        trees = {"A": old, "B": new}
        for tree in trees.values():
            run(tree, log, env, engine, models)
        cpu: dict[str, list[float]] = {"A": [], "B": []}
        walls: dict[str, list[float]] = {"A": [], "B": []}
        outs: dict[str, bytes] = {}
        for r in range(rounds):
            for name in ("A", "B") if r % 2 == 0 else ("B", "A"):
                seconds, wall, outs[name] = run(trees[name], log, env, engine, models)
                cpu[name].append(seconds)
                walls[name].append(wall)
                print(f"round {r + 1} {name}: CPU {seconds:.2f} s, wall {wall:.2f} s, load {os.getloadavg()[0]:.1f}",
                      flush=True)
    ratios = [b / a for a, b in zip(cpu["A"], cpu["B"])]
    print(f"B/A CPU per round: {[round(x, 3) for x in ratios]}; median {statistics.median(ratios):.3f}")
    wall_ratios = [b / a for a, b in zip(walls["A"], walls["B"])]
    print(f"B/A wall per round: {[round(x, 3) for x in wall_ratios]}; median {statistics.median(wall_ratios):.3f}")
    same = outs["A"] == outs["B"]
    print(f"outputs identical: {same}")
    if not same:  # a tree before 067e117 writes money as JSON numbers, a later one as 10-place strings
        same = _values(outs["A"]) == _values(outs["B"])
        print(f"outputs equal in value (money compared as decimals): {same}")
    return 0 if same else 1


def _values(out: bytes) -> object:
    """The JSON with every number and numeric string as a normalised decimal string."""
    from decimal import Decimal, InvalidOperation

    def norm(x: object) -> object:
        if isinstance(x, dict):
            return {k: norm(v) for k, v in x.items()}
        if isinstance(x, list):
            return [norm(v) for v in x]
        if isinstance(x, float):
            return str(Decimal(repr(x)).quantize(Decimal("1e-10")).normalize())
        if isinstance(x, str):
            try:
                return str(Decimal(x).normalize())
            except InvalidOperation:
                return x
        return x
    return norm(json.loads(out))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
