"""Measuring against tokenizing: the CPU and wall of `tokenprism measure` over raw tokenizer passes.

The question is how much work measuring adds to tokenizing. Every figure is a ratio against
the **raw passes**, measured in the same run: the texts already in memory, one thread, each
tokenizer's own count path (`Tokenizer.count`, text by text), every tokenizer in turn. CPU is
user + system time of the whole process tree (the CLI, its pool workers or its Dask cluster),
read from `RUSAGE_CHILDREN` around each run; wall is the run's elapsed time. The targets:

* CPU <= 1.15 x the raw passes;
* wall <= (1.15 / cores + 0.05) x the raw passes (0.63 on two cores);
* a Dask LocalCluster of two workers >= 0.85 x the local engine's speed, with the same numbers.

The data is generated here: the Python standard library's own source (the `.py` files that
are strict UTF-8) plus the FLORES-200 sample in ../shared/corpora/flores200 (left out, with the
reason in the JSON, when it is absent), shuffled with a fixed seed and cut at the size asked
for, and JSON Lines of short rows (lines of the same files, at most 120 characters). The whole
library plus FLORES is about 40 MB; the default is smaller, so that a loaded machine runs the
bench in a few minutes:

    python -m tests.benchmarks measure                                   # 8 MB, 200,000 rows
    TOKENPRISM_BENCH_MEASURE_MB=40 TOKENPRISM_BENCH_MEASURE_ROWS=1000000 python -m tests.benchmarks measure

The raw passes run before and after the measuring runs (their mean is the reference; both are
in the JSON, so a machine whose speed changed shows). `TOKENPRISM_BENCH_MEASURE_ONLY=folder`
or `=jsonl` runs one input; `TOKENPRISM_BENCH_MEASURE_BREAKDOWN=1` adds (and `_ONLY=breakdown` runs only) the CPU of each part
of a per-row run (reading, tokenizing, each metric, pickling, output, start-up), each timed on
its own in one process, with tasks of 65,536 rows (the driver's parts, then a worker's). Every run
first warms a cache of compiled modules and records the start-up (`warm_up`). The built-in corpora's in-process overhead (`analysis.measure`
against `token_counts`) follows, as before. The engines at scale are in `bench_engine`.
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from analysis.atomic import atomic_write, write_bytes, write_text

MB = float(os.environ.get("TOKENPRISM_BENCH_MEASURE_MB", "8"))
ROWS = int(os.environ.get("TOKENPRISM_BENCH_MEASURE_ROWS", "200000"))
ONLY = os.environ.get("TOKENPRISM_BENCH_MEASURE_ONLY", "")
BREAKDOWN = os.environ.get("TOKENPRISM_BENCH_MEASURE_BREAKDOWN", "") == "1"
TOKS = ("o200k_base", "cl100k_base")
TARGET_CPU = 1.15
TARGET_OVERHEAD = 0.15
# ../shared beside the repository, as the tests find it; TOKENPRISM_SHARED names another place (a worktree)
SHARED = Path(os.environ.get("TOKENPRISM_SHARED") or Path(__file__).resolve().parents[2].parent / "shared")
FLORES = SHARED / "corpora" / "flores200"
ROW_CHARS = 120


# -- data -------------------------------------------------------------------------------------
def _sources() -> tuple[list[tuple[str, bytes]], str | None]:
    """(name, bytes) of every stdlib .py file and FLORES file that is strict UTF-8; why FLORES is missing."""
    lib = Path(sysconfig.get_paths()["stdlib"])
    paths = sorted(p for p in lib.rglob("*.py") if "site-packages" not in p.parts and p.is_file())
    missing = None
    if FLORES.is_dir():
        paths += sorted(p for p in FLORES.glob("*/*_*") if p.is_file())
    else:
        missing = f"{FLORES} is absent: the data is the standard library's source only"
    out = []
    for p in paths:
        data = p.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:  # a handful of stdlib test files declare another encoding
            continue
        out.append((p.name if p.suffix == ".py" else f"{p.name}.txt", data))
    return out, missing


def corpus_folder(folder: Path, mb: float, sources: list[tuple[str, bytes]]) -> dict:
    """`folder` filled with source files (shuffled, fixed seed) up to about `mb` MB."""
    items = list(sources)
    random.Random(33).shuffle(items)
    folder.mkdir(parents=True, exist_ok=True)
    size = n = 0
    for name, data in items:
        if size >= mb * 1e6:
            break
        write_bytes(folder / f"{n:05d}-{name}", data)
        size += len(data)
        n += 1
    return {"files": n, "mb": size / 1e6}


def short_rows(path: Path, n_rows: int, sources: list[tuple[str, bytes]]) -> Path:
    """`n_rows` JSON lines {"text": ...}: lines of the sources, stripped, at most `ROW_CHARS` characters."""
    lines = [line.strip()[:ROW_CHARS] for _, data in sources for line in data.decode("utf-8").splitlines()]
    lines = [line for line in lines if line]
    rng = random.Random(34)
    with atomic_write(path) as f:
        for _ in range(n_rows):
            f.write(json.dumps({"text": rng.choice(lines)}, ensure_ascii=False) + "\n")
    return path


# -- runs -------------------------------------------------------------------------------------
# The runs' environment. An installed package has its modules compiled (pip writes the .pyc files);
# a machine with PYTHONDONTWRITEBYTECODE set would compile every module again in every run (about
# 0.1 s of CPU each time). The runs share a cache of compiled modules of their own instead, in the
# bench's temporary folder (`PYTHONPYCACHEPREFIX`), filled by a warm-up run (`warm_up`) and
# deleted with the folder: nothing is written beside the sources.
RUN_ENV: dict[str, str] = {}


def _run_env(tmp: Path) -> None:
    RUN_ENV.clear()
    RUN_ENV.update(PYTHONPYCACHEPREFIX=str(tmp / "pycache"), PYTHONDONTWRITEBYTECODE="")  # empty: unset, for Python


def _tree(argv: list[str], env: dict[str, str] | None = None) -> dict:
    """Run argv; its wall time and the CPU seconds of its whole process tree (every descendant reaped)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, env={**os.environ, **RUN_ENV, **(env or {})})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise RuntimeError(f"benchmark run failed ({' '.join(argv[2:])}):\n{proc.stderr[-3000:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall_s": wall, "cpu_s": cpu, "stdout": proc.stdout, "stderr": proc.stderr}


# The raw passes: texts read into memory before the clock starts, then each tokenizer's own count
# path, text by text, on one thread (the adapter's threads off); tiktoken's encode_ordinary too.
_RAW = r"""
import json, os, sys, time
from pathlib import Path
os.environ["TOKENPRISM_ENCODE_THREADS"] = "1"
from analysis import load_tokenizer
a = json.loads(sys.argv[1])
from analysis.tokenizers import build_engines
toks = [load_tokenizer(t) for t in a["toks"]]
build_engines(toks)  # tiktoken's engines, before the clock: a load no longer builds them (tokenizers.cold)
path = Path(a["path"])
if a["column"]:
    texts = [json.loads(line)[a["column"]] for line in open(path, encoding="utf-8")]
else:
    texts = [p.read_text(encoding="utf-8") for p in sorted(path.iterdir())]
t0 = time.process_time()
total = sum(tok.count(text) for tok in toks for text in texts)
count = time.process_time() - t0
t0 = time.process_time()
for tok in toks:
    for text in texts:
        tok._enc.encode_ordinary(text)
print(json.dumps({"raw_cpu_s": count, "encode_ordinary_cpu_s": time.process_time() - t0, "n_tokens": total,
                  "n_texts": len(texts)}))
"""


def raw_passes(path: Path, column: str | None) -> dict:
    r = _tree([sys.executable, "-c", _RAW, json.dumps({"path": str(path), "column": column, "toks": list(TOKS)})])
    return json.loads(r["stdout"].strip().splitlines()[-1])


def measure_run(path: Path, engine: str, *, out: Path | None, column: str | None, workers: int | None = None,
                metrics: str = "") -> dict:
    """`tokenprism measure PATH -t TOKS --engine ENGINE [--out DIR/] [--metrics M]`, as a user runs it."""
    argv = [sys.executable, "-m", "analysis", "measure", str(path), "-t", ",".join(TOKS), "--engine", engine,
            "--by", "category", "--format", "csv", "--no-progress"]
    argv += ["--column", column] if column else []
    argv += ["--workers", str(workers)] if workers else []
    argv += ["--out", f"{out}/"] if out is not None else []
    argv += ["--metrics", metrics] if metrics else []
    r = _tree(argv)
    return {"wall_s": r["wall_s"], "cpu_s": r["cpu_s"], "summary_csv": r["stdout"]}


RUNS = (  # (name, engine, per-row output, workers, --metrics): the default measures characters, bytes, tokens
    ("local_out", "local", True, None, ""),
    ("local_aggregates", "local", False, None, ""),
    ("local_out_metrics", "local", True, None, "words,graphemes,scripts"),  # what every optional metric costs
    ("inprocess_out", "inprocess", True, None, ""),
    ("dask2_aggregates", "dask", False, 2, ""),
)


def warm_up(tmp: Path) -> dict:
    """Each timed run once on a 12-byte file and on a one-line JSON Lines file, so that the cache of
    compiled modules holds every module a run imports (numpy, pyarrow and pandas among them: with
    `PYTHONPYCACHEPREFIX` set, Python compiles even those again into the cache, about 1 s of CPU the
    first time); then the start-up: the CPU of the whole `measure` command (interpreter, imports, both
    tokenizers, the summary) on that file, three times. Inputs this small stay in the CLI's process:
    this is the fixed cost of every run."""
    tiny = tmp / "tiny"
    tiny.mkdir(exist_ok=True)
    write_text(tiny / "a.txt", "hello world!")
    row = tmp / "tiny.jsonl"
    write_text(row, '{"text": "hello world!"}\n')
    for path, column in ((tiny, None), (row, "text")):
        for i, (name, engine, rows, workers, metrics) in enumerate(RUNS):
            out = tmp / f"warm-{column}-{i}" if rows else None
            measure_run(path, engine, out=out, column=column, workers=workers, metrics=metrics)
    cpu = [measure_run(tiny, "local", out=None, column=None)["cpu_s"] for _ in range(3)]
    print(f"start-up: `measure` on a 12-byte file, {min(cpu):.2f}-{max(cpu):.2f} s CPU (3 runs)", flush=True)
    return {"startup_cpu_s": cpu}


def _same_counts(csvs: list[str]) -> bool:
    """Whether every run's summary gives the same counts (the columns they all have: metrics add some)."""
    import io

    import pandas as pd

    frames = [pd.read_csv(io.StringIO(c)) for c in csvs]
    common = [c for c in frames[0].columns if all(c in f.columns for f in frames)]
    return all(f[common].equals(frames[0][common]) for f in frames)


def _input(kind: str, path: Path, column: str | None, tmp: Path, cores: int) -> dict:
    before = raw_passes(path, column)
    runs = {}
    for name, engine, rows, workers, metrics in RUNS:
        if kind == "jsonl" and engine in ("inprocess", "dask"):
            continue  # the per-core bound on short rows is the local engine's
        out = tmp / f"{kind}-{name}" if rows else None
        runs[name] = measure_run(path, engine, out=out, column=column, workers=workers, metrics=metrics)
        print(f"  {kind:6} {name:17} wall {runs[name]['wall_s']:6.1f} s  CPU {runs[name]['cpu_s']:6.1f} s", flush=True)
    after = raw_passes(path, column)
    raw = (before["raw_cpu_s"] + after["raw_cpu_s"]) / 2
    wall_target = TARGET_CPU / cores + 0.05
    for r in runs.values():
        r.update(cpu_ratio=r["cpu_s"] / raw, wall_ratio=r["wall_s"] / raw,
                 cpu_ok=r["cpu_s"] / raw <= TARGET_CPU, wall_ok=r["wall_s"] / raw <= wall_target)
    same = _same_counts([r["summary_csv"] for r in runs.values()])
    res = {"raw_cpu_s": raw, "raw_before_after": [before, after], "wall_target": wall_target, "runs": runs,
           "same_numbers": same}
    if "dask2_aggregates" in runs:
        res["dask2_vs_local"] = runs["local_aggregates"]["wall_s"] / runs["dask2_aggregates"]["wall_s"]
    print(f"  {kind}: raw passes {raw:.1f} s CPU (before {before['raw_cpu_s']:.1f}, after {after['raw_cpu_s']:.1f}; "
          f"tiktoken encode_ordinary {before['encode_ordinary_cpu_s']:.1f}); targets CPU <= {TARGET_CPU}x, "
          f"wall <= {wall_target:.2f}x; same numbers on every run: {same}")
    for name, r in runs.items():
        print(f"  {kind:6} {name:17} CPU {r['cpu_ratio']:5.2f}x {'ok' if r['cpu_ok'] else 'OVER'}  "
              f"wall {r['wall_ratio']:5.2f}x {'ok' if r['wall_ok'] else 'OVER'}")
    if "dask2_vs_local" in res:
        print(f"  {kind}: Dask LocalCluster (2 workers) / local speed {res['dask2_vs_local']:.2f} (target >= 0.85)")
    for r in runs.values():
        r.pop("summary_csv")
    return res


def pipeline_vs_raw(out_dir: Path) -> dict:
    cores = os.cpu_count() or 1
    res: dict = {"cores": cores, "tokenizers": list(TOKS), "target_cpu": TARGET_CPU,
                 "load": os.getloadavg() if hasattr(os, "getloadavg") else None}
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-measure-") as tmp_name:
        tmp = Path(tmp_name)
        _run_env(tmp)
        res.update(warm_up(tmp))
        sources, missing = _sources()
        res["flores"] = missing or "included"
        if missing:
            print(f"FLORES-200 left out: {missing}")
        if ONLY in ("", "folder", "breakdown"):
            res["folder"] = corpus_folder(tmp / "folder", MB, sources)
            print(f"folder: {res['folder']['files']} files, {res['folder']['mb']:.1f} MB x {len(TOKS)} tokenizers",
                  flush=True)
            if ONLY != "breakdown":
                res["folder"].update(_input("folder", tmp / "folder", None, tmp, cores))
            if BREAKDOWN or ONLY == "breakdown":
                res["folder"]["breakdown"] = {n: breakdown(tmp / "folder", None, tmp, n) for n in (1 << 16,)}
        if ONLY in ("", "jsonl", "breakdown"):
            rows = short_rows(tmp / "rows.jsonl", ROWS, sources)
            res["jsonl"] = {"rows": ROWS, "mb": rows.stat().st_size / 1e6}
            print(f"jsonl: {ROWS:,} short rows, {res['jsonl']['mb']:.1f} MB", flush=True)
            if ONLY != "breakdown":
                res["jsonl"].update(_input("jsonl", rows, "text", tmp, cores))
            if BREAKDOWN or ONLY == "breakdown":
                res["jsonl"]["breakdown"] = {n: breakdown(rows, "text", tmp, n) for n in (1 << 16,)}
    return res


# -- where the time goes ------------------------------------------------------------------------
# One process does each part of a `measure --out` run on its own, timed with process_time: what
# the run's tree spends on each, whichever process spends it. Start-up is a fresh interpreter
# importing the package and loading the tokenizers (what a spawned worker pays, and the CLI).
_BREAKDOWN = r"""
import json, os, pickle, sys, time
os.environ["TOKENPRISM_ENCODE_THREADS"] = "1"
a = json.loads(sys.argv[1])
t0 = time.process_time()
from analysis.engine.base import worker_tokenizers
from analysis.engine.read import iter_corpus_chunks
from analysis.engine.run import coalesce_chunks
from analysis.engine.output import PartitionedParquet, rows_table
from analysis.pipeline import UniqueIds, chunk_counts, counts_sums, resolve_scripts, text_stats
from analysis.pipeline.metrics import count_graphemes
imports = time.process_time() - t0
t0 = time.process_time()
toks = worker_tokenizers(a["toks"])
load = time.process_time() - t0
names = [t.name for t in toks]
from analysis.corpora.sample import detect_script
cpu = {"imports": imports, "tokenizer_load": load}
def timed(key, fn):
    t0 = time.process_time(); out = fn(); cpu[key] = cpu.get(key, 0.0) + time.process_time() - t0; return out
# the driver: read, check the ids, resolve the scripts nobody asked for, keep the labels, send the texts
chunks = timed("read_decode", lambda: list(coalesce_chunks(iter_corpus_chunks([a["path"]], column=a["column"],
                                                                            chunk_samples=a["task_rows"]),
                                                         4_000_000, a["task_rows"])))
ids = UniqueIds()
timed("driver_ids_labels", lambda: [ids.add(c["sample_id"]) for c in chunks])
chunks = timed("driver_ids_labels", lambda: [resolve_scripts(c, False) for c in chunks])
texts = [t for c in chunks for t in c["text"].tolist()]
# a worker: tokenize and size
timed("tokenize", lambda: [tok.count_batch(c["text"].tolist()) for c in chunks for tok in toks])
timed("sizes_chars_bytes", lambda: [text_stats(c["text"], ()) for c in chunks])
timed("metric_words_bytes", lambda: [text_stats(c["text"], ("words",)) for c in chunks])
timed("metric_graphemes", lambda: [count_graphemes(c["text"].tolist()) for c in chunks])
timed("metric_scripts", lambda: [detect_script(t) for t in texts])
t0 = time.process_time(); results = [chunk_counts(c[["text"]], toks, metrics=()) for c in chunks]  # what travels
whole = time.process_time() - t0
timed("ipc_pickle", lambda: [pickle.loads(pickle.dumps(x)) for x in (*(c[["text"]] for c in chunks), *results)])
# the driver again: rows to Parquet, sums
writer = PartitionedParquet(a["out"])
timed("output", lambda: [writer.write(rows_table(c, r, names)) for c, r in zip(chunks, results)])
writer.abort()
timed("sums", lambda: [counts_sums(c[["category"]], r.sizes, r.tokens, names, ["category", "tokenizer"])
                      for c, r in zip(chunks, results)])
cpu["task_other"] = max(0.0, whole - cpu["tokenize"] - cpu["sizes_chars_bytes"])
print(json.dumps(cpu))
"""


def breakdown(path: Path, column: str | None, tmp: Path, task_rows: int) -> dict:
    """CPU seconds of each part of a per-row run (see `_BREAKDOWN`), with tasks of `task_rows` rows at most."""
    arg = {"path": str(path), "column": column, "toks": list(TOKS), "out": str(tmp / f"breakdown-{task_rows}"),
           "task_rows": task_rows}
    r = _tree([sys.executable, "-c", _BREAKDOWN, json.dumps(arg)])
    cpu = json.loads(r["stdout"].strip().splitlines()[-1])
    print(f"  breakdown, tasks of {task_rows:,} rows (CPU s): "
          + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items()), flush=True)
    return cpu


# -- the built-in corpora in this process -------------------------------------------------------
def _compare(frame, toks, reps: int) -> dict:
    from analysis.pipeline import measure, token_counts

    texts = frame["text"].tolist()
    raw, pipe = [], []
    for _ in range(reps):  # interleaved, so load changes hit both alike; the minimum is the least disturbed
        t0 = time.perf_counter()
        for tok in toks:
            token_counts(tok, texts)
        raw.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        measure(frame, toks)
        pipe.append(time.perf_counter() - t0)
    return {"samples": len(texts), "raw_s": min(raw), "measure_s": min(pipe), "overhead": min(pipe) / min(raw) - 1,
            "overhead_median": statistics.median(pipe) / statistics.median(raw) - 1, "reps": reps}


def builtin_overhead() -> dict:
    from analysis import available_tokenizers
    from analysis.corpora import load_builtin
    from analysis.pipeline import as_tokenizers, measure

    toks = as_tokenizers(available_tokenizers())
    builtin = load_builtin()
    measure(builtin.head(20), toks)  # warm every tokenizer's caches and thread pools
    r = _compare(builtin, toks, reps=7)
    print(f"built-in corpora in-process, {len(toks)} tokenizers: raw {r['raw_s']:.3f} s, measure {r['measure_s']:.3f} s, "
          f"overhead {r['overhead']:.1%} (target <= {TARGET_OVERHEAD:.0%})")
    return {**r, "tokenizers": len(toks), "target_overhead": TARGET_OVERHEAD}


def main(out_dir: Path) -> dict:
    results = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "pipeline_vs_raw": pipeline_vs_raw(out_dir)}
    if ONLY:  # a part of the bench: its own file, beside the full run's
        write_text(out_dir / f"measure-{ONLY}.json", json.dumps(results, indent=2) + "\n")
        return results
    results["builtin"] = builtin_overhead()
    write_text(out_dir / "measure.json", json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":  # pragma: no cover
    out = Path(__file__).resolve().parents[2] / "bench-results"
    out.mkdir(exist_ok=True)
    main(out)
