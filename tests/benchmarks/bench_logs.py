"""`cost --logs` against counting its texts, in one run: CPU and wall of each engine over the raw count.

Issue 44's measure. Counting is the floor of pricing a log (each text must be tokenized under each
target's tokenizer), so the figure is a ratio: `tokenprism cost --logs` (a child process; CPU from
`os.wait4`, which includes the pool's workers) over the same texts counted one at a time in one
process with the same tokenizers (`time.process_time()`), both measured in this run because the
machine is shared. Two logs, both generated (`bench_traffic.generate`, OpenAI chat shape: a system
prompt of five, a user message of 8-60 words, a response of 10-120 words, usage on every second
row, tools on 5%):

* "traffic": the traffic bench's log under its four models;
* "short chats": another seed under gpt-4o and gpt-4, the issue's first measurement.

Each command runs on the in-process engine (one core), the local engine (every core) and a
Dask LocalCluster of two workers; the three JSON outputs must be identical. `cluster` in
`TOKENPRISM_BENCH_ENGINES` adds a real cluster already running (`Cluster`: a scheduler and two
workers as processes of their own, started by the bench, their CPU during each run counted). The issue's targets
are CPU at most 1.5x the count and wall at most 0.6x the one-process count (local engine).

    python -m tests.benchmarks logs                       # 20,000 rows (a shared machine's budget)
    TOKENPRISM_BENCH_ROWS=100000 python -m tests.benchmarks logs

The logs are written in time order (as a service writes them), so the prompt-cache simulation
runs chunk by chunk as the partials come back (`cost.logs.fold`). Environment, to run a part:
`TOKENPRISM_BENCH_LOGS=traffic` (or "short chats"), `TOKENPRISM_BENCH_ENGINES=inprocess,local`,
`TOKENPRISM_BENCH_PHASES=0` (no step table), `TOKENPRISM_BENCH_ROUNDS=3` (the count and every run
three times, interleaved, each ratio taken within its round; the medians are reported), `TOKENPRISM_BENCH_WORKERS=1,2` (the local engine
also at these worker counts, for the scaling), `TOKENPRISM_BENCH_UNFOLDED=1` (each engine also
without the fold, every row kept to the end as before: the memory it saves).

Peak RSS is the child's `ru_maxrss` from `os.wait4`, the largest of the child and its waited-for
workers. Each child is started from a small launcher process (`_launch`), not forked from this
one, so the bench's own size (its step tables, the counted texts) does not count in it.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from tests.benchmarks.bench_traffic import MODELS as TRAFFIC_MODELS, generate

ROWS = int(os.environ.get("TOKENPRISM_BENCH_ROWS", "20000"))
LOGS = {"traffic": (TRAFFIC_MODELS, 7), "short chats": ("gpt-4o,gpt-4", 11)}
LOGS = {k: v for k, v in LOGS.items() if k in os.environ.get("TOKENPRISM_BENCH_LOGS", ",".join(LOGS)).split(",")}
ENGINES = tuple(os.environ.get("TOKENPRISM_BENCH_ENGINES", "inprocess,local,dask").split(","))
PHASES = os.environ.get("TOKENPRISM_BENCH_PHASES", "1") != "0"
WORKERS = tuple(int(w) for w in os.environ.get("TOKENPRISM_BENCH_WORKERS", "").split(",") if w)
UNFOLDED = os.environ.get("TOKENPRISM_BENCH_UNFOLDED", "0") == "1"
ROUNDS = int(os.environ.get("TOKENPRISM_BENCH_ROUNDS", "1"))
ON = "2026-03-15"
TARGET_CPU, TARGET_WALL = 1.5, 0.6


_LAUNCH = """
import os, resource, subprocess, sys, time
unfolded, cmd = sys.argv[1] == "1", sys.argv[2:]
if unfolded:  # the CLI with every row kept to the end, as before the fold
    cmd = [cmd[0], "-c", "import sys; import analysis.engine.run as r; r._fold = lambda *a: None; "
           "from analysis.cli import main; sys.exit(main(sys.argv[1:]))"] + cmd[3:]
t0 = time.perf_counter()
proc = subprocess.Popen(cmd)
_, status, usage = os.wait4(proc.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, time.perf_counter() - t0,
      usage.ru_maxrss, file=sys.stderr)
"""


# The children's environment. An installed package has its modules compiled (pip writes the .pyc
# files); on a machine with PYTHONDONTWRITEBYTECODE set, every run would compile our modules again
# (about 0.2 CPU s a run, measured 2026-12-07), which a user's run does not pay. As in
# `bench_measure`, the runs share a cache of compiled modules in the bench's temporary folder
# (`PYTHONPYCACHEPREFIX`), filled by `warm_up`: nothing is written beside the sources.
RUN_ENV: dict[str, str] = {}


def warm_up(folder: Path, models: str) -> list[float]:
    """Fill the compiled-module cache (one run per engine on a 10-row log, so Dask's modules too), then
    the start-up: the CPU of the whole in-process command on that log, three times (the fixed cost
    of every run: interpreter, imports, tokenizers, the report)."""
    RUN_ENV.update(PYTHONPYCACHEPREFIX=str(folder / "pycache"), PYTHONDONTWRITEBYTECODE="")  # empty: unset
    tiny = folder / "tiny.jsonl.gz"
    generate(tiny, 10, seed=3, in_order=True)
    for engine in ENGINES:
        run_cost(tiny, models, engine, folder / "warm.json")
    return [run_cost(tiny, models, "inprocess", folder / "warm.json")["cpu_s"] for _ in range(3)]


class Cluster:
    """A real Dask cluster for the "cluster" runs: `dask scheduler` and two `dask worker` processes
    (one thread each, no nanny) on a free loopback port, started here and stopped by their pids.
    Unlike the "dask" runs (a LocalCluster the command starts itself, its start-up in its wall
    time), the cluster is up before the command runs, as a cluster someone runs is; the CPU its
    processes spend during a run is added to the command's (`cpu_of`)."""

    def __init__(self, folder: Path) -> None:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self.address = f"tcp://127.0.0.1:{port}"
        dask = str(Path(sys.executable).parent / "dask")
        env = {**os.environ, **RUN_ENV, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
        logs = [open(folder / f"cluster-{i}.log", "wb") for i in range(3)]
        self.procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                       stdout=logs[0], stderr=subprocess.STDOUT, env=env)]
        self.procs += [subprocess.Popen([dask, "worker", self.address, "--host", "127.0.0.1", "--nthreads", "1",
                                         "--no-nanny", "--no-dashboard", "--name", f"w{i}"],
                                        stdout=logs[i], stderr=subprocess.STDOUT, env=env) for i in (1, 2)]
        from dask.distributed import Client

        with Client(self.address, timeout=60) as client:
            client.wait_for_workers(2, timeout=90)

    def pause(self) -> None:
        """Stop the cluster's processes (SIGSTOP) while other runs and the count are measured: idle,
        its event loops and monitors take about 6% of a core (measured 2026-12-07: 0.86 CPU s in 15 s),
        which the other runs would share the machine with. Well within Dask's worker time-to-live
        (5 minutes), so the workers are still the scheduler's when they go on (`resume`)."""
        for proc in self.procs:
            os.kill(proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        for proc in self.procs:
            os.kill(proc.pid, signal.SIGCONT)

    def cpu(self) -> float:
        """CPU seconds the scheduler and the workers have spent so far."""
        import psutil

        return sum(sum(psutil.Process(p.pid).cpu_times()[:2]) for p in self.procs)

    def stop(self) -> None:
        self.resume()  # a stopped process cannot act on SIGTERM
        for proc in self.procs[1:] + self.procs[:1]:  # workers first, then the scheduler
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


CLUSTER: list[Cluster] = []  # the one running, while a log's runs need it


def run_cost(log: Path, models: str, engine: str, out: Path, *, workers: int | None = None,
             unfolded: bool = False) -> dict:
    """`tokenprism cost --logs` in a child process: CPU (its workers included), wall, peak RSS.

    The child is started by a small launcher (a fresh interpreter that imports nothing of ours),
    so its peak RSS is its own, not this process's size at a fork."""
    cmd = [sys.executable, "-m", "analysis", "cost", "--logs", str(log), "-m", models, "--engine", engine,
           "--format", "json", "--on", ON]
    cluster_cpu = 0.0
    if engine == "cluster":  # a cluster already running: its processes' CPU during the run is added below
        cmd[cmd.index("cluster")] = "dask"
        cmd += ["--scheduler", CLUSTER[0].address]
        CLUSTER[0].resume()
        cluster_cpu = -CLUSTER[0].cpu()
    elif engine == "dask":
        cmd += ["--workers", str(workers or 2)]  # a LocalCluster: a scheduler and two worker processes
    elif workers is not None:
        cmd += ["--workers", str(workers)]
    with open(out, "wb") as fh, open(out.with_suffix(".err"), "wb") as err:
        subprocess.run([sys.executable, "-c", _LAUNCH, "1" if unfolded else "0", *cmd], stdout=fh, stderr=err,
                       check=True, env={**os.environ, **RUN_ENV})
    last = out.with_suffix(".err").read_text().strip().splitlines()[-1].split()
    code, cpu, wall, rss = int(last[0]), float(last[1]), float(last[2]), int(last[3])
    if engine == "cluster":
        cpu += cluster_cpu + CLUSTER[0].cpu()
        CLUSTER[0].pause()
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.with_suffix('.err').read_text()[-500:]}")
    return {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "peak_rss_mb": round(rss / 1024, 1),
            "load_1min": round(os.getloadavg()[0], 1)}


def text_blocks(log: Path, rows: int = 10_000) -> Iterator[list[str]]:
    """The texts a count must tokenize (system, user, the tools' JSON, the response), a block of
    `rows` log rows at a time, so the reference holds one block, never the whole log's texts."""
    texts: list[str] = []
    with gzip.open(log, "rt", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            row = json.loads(line)
            texts += [m["content"] for m in row["messages"]] + [row["response"]]
            if "tools" in row:
                texts.append(json.dumps(row["tools"]))
            if n % rows == 0:
                yield texts
                texts = []
    if texts:
        yield texts


def count_reference(log: Path, models: str) -> dict:
    """Each text counted once per tokenizer of the models, one text at a time, in this process.

    Only the counting is timed (CPU and wall summed over the blocks): reading and parsing the log
    are not part of the reference. The texts come a block at a time: held whole, 1,000,000 rows'
    texts made the count itself grow faster than the rows (12.9-13.9x for 10x, 2026-12-04)."""
    from analysis import load_tokenizer
    from analysis.cost import plan_traffic

    names = sorted({t.choice.tokenizer for t in plan_traffic(models).targets if t.choice.usable and t.choice.tokenizer})
    toks = [load_tokenizer(n) for n in names]
    for tok in toks:
        tok.count("warm up")
    cpu = wall = 0.0
    for texts in text_blocks(log):
        c0, w0 = time.process_time(), time.perf_counter()
        for tok in toks:
            for text in texts:
                tok.count(text)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
    return {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "tokenizers": names}


def phases(log: Path, models: str) -> dict[str, float]:
    """CPU seconds of each step of `cost --logs` on the in-process path, timed around the steps
    themselves (no profiler): where the time goes beyond the count. The chunk steps are timed by
    wrapping `cost.logs.chunk`'s own functions for the length of this call."""
    from datetime import date

    import orjson

    from analysis.cost import LogReport, iter_log_chunks, plan_traffic, summarise
    from analysis.cost import usage as usage_mod
    from analysis.cost.logs import chunk as chunk_sums, shapes
    from analysis.memo import open_run

    spent: dict[str, float] = {}

    def add(name: str, since: float) -> None:
        spent[name] = spent.get(name, 0.0) + time.process_time() - since

    t0 = time.process_time()
    plan = plan_traffic(models, on=date.fromisoformat(ON))
    for target in plan.targets:
        target.counter()
    add("plan and counters (tokenizers loaded)", t0)
    t0 = time.process_time()
    report = LogReport()
    chunks = list(iter_log_chunks(log, report=report))
    add("reading lines (gzip, UTF-8)", t0)
    t0 = time.process_time()
    rows = [orjson.loads(line) for chunk in chunks for _, line in chunk.lines]
    add("JSON (orjson)", t0)
    bill, shapes._bill = shapes._bill, lambda *a, **k: None  # type: ignore[assignment]
    try:
        t0 = time.process_time()
        for row in rows:
            shapes.parse_row(row, "openai-chat")
        add("request building (parse_row, usage left out)", t0)
    finally:
        shapes._bill = bill  # type: ignore[assignment]
    t0 = time.process_time()
    with open_run() as run:  # a run of its own: the read memo fills from empty
        for row in rows:
            if isinstance(row.get("usage"), dict):
                usage_mod.read_usage(row["usage"], "openai-chat", model=row.get("model"))
        memo = run.memo("usage.read")
    add(f"usage read by genai-prices ({memo.misses:,} distinct of {memo.hits + memo.misses:,})", t0)
    records = [r for chunk in chunks for r in chunk.records()[0]]
    wrapped = {"_recount": "recount (chat format, per row and model)",
               "batch_tokenizers": "tokenizing the requests' texts (one batch per tokenizer)",
               "_as_billed": "as billed (genai-prices calc_price per distinct usage)",
               "trace_chunk": "cache trace: block keys (issue 42)", "block_ends": "cache trace: block ends (issue 42)",
               "_calibrate": "calibration", "_reduce": "sums per day and tier"}
    originals = {name: getattr(chunk_sums, name) for name in wrapped}

    def timed(name: str):  # noqa: ANN202
        def call(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            t = time.process_time()
            try:
                return originals[name](*args, **kwargs)
            finally:
                add(wrapped[name], t)
        return call

    for name in wrapped:
        setattr(chunk_sums, name, timed(name))
    try:
        t0 = time.process_time()
        total = chunk_sums.price_records(records, plan)
        add("price_chunk, all of it", t0)
    finally:
        for name, fn in originals.items():
            setattr(chunk_sums, name, fn)
    inside = sum(v for k, v in spent.items() if k in wrapped.values())
    spent["price_chunk, the rest (mostly the logged responses counted; media, days, per-row costs)"] = \
        spent["price_chunk, all of it"] - inside
    t0 = time.process_time()
    summarise(total, plan, report)
    add("summarise (report, cache simulation, whole bill)", t0)
    return {k: round(v, 2) for k, v in spent.items()}


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 2)


def main(out_dir: Path) -> dict:
    results: dict = {"rows": ROWS, "rounds": ROUNDS, "cpu_count": os.cpu_count(), "logs": {}}
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-logs-") as tmp:
        folder = Path(tmp)
        for name, (models, seed) in LOGS.items():
            log = folder / f"{name.replace(' ', '-')}.jsonl.gz"
            size = generate(log, ROWS, seed=seed, in_order=True)
            if "cluster" in ENGINES:
                RUN_ENV.update(PYTHONPYCACHEPREFIX=str(folder / "pycache"), PYTHONDONTWRITEBYTECODE="")
                CLUSTER[:] = [Cluster(folder)]
                CLUSTER[0].pause()  # running only for its own runs
            start = warm_up(folder, models)
            entry: dict = {"models": models, "log_mb": round(size / 1e6, 1), "startup_cpu_s": start, "rounds": []}
            outputs = set()
            runs = [(engine, None, False) for engine in ENGINES] + [("local", w, False) for w in WORKERS]
            runs += [(engine, None, True) for engine in ENGINES if UNFOLDED and engine != "dask"]
            # Each round measures the count again before its runs, and each run is divided by its own
            # round's count: the machine's speed drifts (a shared host), and a ratio taken within a
            # round cancels most of it. The figures are the medians of the rounds.
            for r in range(ROUNDS):
                ref = count_reference(log, models)
                got: dict = {}
                for engine, workers, unfolded in runs:
                    label = engine + (f" {workers} worker(s)" if workers else "") + (" unfolded" if unfolded else "")
                    out = folder / f"out-{label.replace(' ', '-')}.json"
                    run = run_cost(log, models, engine, out, workers=workers, unfolded=unfolded)
                    run["cpu_over_count"] = round(run["cpu_s"] / ref["cpu_s"], 2)
                    run["wall_over_count"] = round(run["wall_s"] / ref["wall_s"], 2)
                    got[label] = run
                    outputs.add(out.read_bytes())
                    print(f"  ({name}, round {r + 1}, count {ref['cpu_s']} CPU s, {label}: {run})", flush=True)
                entry["rounds"].append({"count": ref, "engines": got})
            entry["identical_outputs"] = len(outputs) == 1
            labels = list(entry["rounds"][0]["engines"])
            entry["count_cpu_s"] = _median([r["count"]["cpu_s"] for r in entry["rounds"]])
            entry["median"] = {label: {key: _median([r["engines"][label][key] for r in entry["rounds"]])
                                       for key in ("cpu_s", "wall_s", "cpu_over_count", "wall_over_count",
                                                   "peak_rss_mb")} for label in labels}
            for dask in ("dask", "cluster"):
                if "local" in labels and dask in labels:
                    entry[f"{dask}_speed_over_local"] = _median([r["engines"]["local"]["wall_s"] / r["engines"][dask]["wall_s"]
                                                                 for r in entry["rounds"]])
            for cluster in CLUSTER:
                cluster.stop()
            CLUSTER.clear()
            results["logs"][name] = entry
            print(f"{name} ({ROWS:,} rows x {models}; {entry['log_mb']} MB JSON; medians of {ROUNDS} round(s)): "
                  f"counting the texts {entry['count_cpu_s']} CPU s; start-up (a 10-row log, in process) "
                  f"{min(start)}-{max(start)} CPU s", flush=True)
            for label, run in entry["median"].items():
                print(f"  {label:>9}: {run['cpu_s']:>6} CPU s = {run['cpu_over_count']}x the count "
                      f"(target {TARGET_CPU}x); {run['wall_s']:>6} s wall = {run['wall_over_count']}x "
                      f"(target {TARGET_WALL}x on the local engine); peak RSS {run['peak_rss_mb']} MB", flush=True)
            speeds = "".join(f"; {label} runs at {entry[f'{label}_speed_over_local']}x the local engine's speed"
                             for label in ("dask", "cluster") if f"{label}_speed_over_local" in entry)
            print(f"  outputs identical on every engine and round: {entry['identical_outputs']}{speeds}", flush=True)
        for name, (models, _) in LOGS.items() if PHASES else ():
            entry = results["logs"][name]
            entry["phases_cpu_s"] = phases(folder / f"{name.replace(' ', '-')}.jsonl.gz", models)
            print(f"{name}: where the in-process CPU goes (this process, timed step by step):")
            for step, cpu in entry["phases_cpu_s"].items():
                print(f"    {cpu:>6} s  {cpu / entry['count_cpu_s']:>5.2f}x the count  {step}")
    (out_dir / "logs.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":  # pragma: no cover
    out = Path(__file__).resolve().parents[2] / "bench-results"
    out.mkdir(exist_ok=True)
    main(out)
