"""ownbpe's training at the CS336 assignment's scale, against HF `tokenizers`' BpeTrainer (issue 61).

Unlike `bench_ownbpe` (10-20 MB of real prose and code, repeated when short), the corpora here
are drawn by `scale_corpus`: seeded, several languages and code, Zipf-distributed words whose
distinct pre-tokens keep growing with the size, `<|endoftext|>` between documents.

* 10, 50, 200 MB and 1 GB at a 10,000-token vocabulary, and 200 MB at 32,000;
* each run a fresh process: wall time, CPU time (the process and its workers, from
  `getrusage`) and peak memory (the PSS of the process and its workers, sampled every 20 ms;
  `ru_maxrss` is no use: it takes the largest single process and keeps the parent's peak);
* the two trainers in interleaved rounds (ownbpe first in even rounds, HF first in odd ones), so
  both see the same phases of a shared machine; each figure is quoted as ownbpe / HF;
* HF gets the same split (its ByteLevel pre-tokenizer is the GPT-2 pattern) and the special
  token added before training, so the text is split there as ownbpe splits it;
* ownbpe's time is split into counting the pre-tokens (reading, splitting, counting on every
  core) and learning the merges (building the words and pair index, then the loop).

Targets (issue 61): 200 MB @ 10k, wall <= 1.5x HF's and peak memory <= 1x; 1 GB @ 10k under 8 GB.

    python -m tests.benchmarks ownbpe_scale                                    # all, ~1 hour on 2 loaded cores
    OWNBPE_SCALE_RUNS=10,50 python -m tests.benchmarks ownbpe_scale            # sizes in MB (vocabulary 10,000)
    OWNBPE_SCALE_RUNS=200@32000 OWNBPE_SCALE_ROUNDS=2 python -m tests.benchmarks ownbpe_scale

The corpora are written once to `$TOKENPRISM_BENCH_DATA` (default: the temporary folder), never
to the repository; their sha256 is printed and recorded in `bench-results/ownbpe_scale.json`.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import resource
import subprocess
import time
from pathlib import Path

from tests.benchmarks.bench_ownbpe import _PeakMemory
from tests.benchmarks.scale_corpus import SPECIAL, corpus_paths

REPO = Path(__file__).resolve().parents[2]
DEFAULT_RUNS = "10,50,200,1000,200@32000"
TARGETS = {(200, 10_000): {"time_ratio": 1.5, "memory_ratio": 1.0}}
PEAK_LIMIT_MB = {(1000, 10_000): 8000}


def parse_runs(spec: str) -> list[tuple[int, int]]:
    """'10,50,200@32000' -> [(10, 10000), (50, 10000), (200, 32000)]: sizes in MB, vocabulary after @."""
    runs = []
    for item in filter(None, (s.strip() for s in spec.split(","))):
        size, _, vocab = item.partition("@")
        try:
            runs.append((int(size), int(vocab or 10_000)))
        except ValueError:
            raise SystemExit(f"OWNBPE_SCALE_RUNS: {item!r} is not SIZE_MB or SIZE_MB@VOCAB (e.g. 200@32000)") from None
    return runs


def _cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (the pool's workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def train_ownbpe(path: str, vocab_size: int) -> dict:
    import ownbpe
    from ownbpe import count

    t0, c0 = time.perf_counter(), _cpu_s()
    counts = count.count_file(path, [SPECIAL], ownbpe.GPT2_PATTERN)
    n_pretokens = len(counts)
    t1, c1 = time.perf_counter(), _cpu_s()
    _, merges = ownbpe.train_bpe_from_counts(counts, vocab_size, [SPECIAL])
    t2, c2 = time.perf_counter(), _cpu_s()
    return {"wall_s": t2 - t0, "cpu_s": c2 - c0, "count_s": t1 - t0, "count_cpu_s": c1 - c0, "merge_s": t2 - t1,
            "n_pretokens": n_pretokens, "n_merges": len(merges)}


def train_hf(path: str, vocab_size: int) -> dict:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    t0, c0 = time.perf_counter(), _cpu_s()
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)  # the GPT-2 pattern, then bytes
    tok.add_special_tokens([SPECIAL])  # the text is split at it while training, as ownbpe splits it
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[SPECIAL], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train([path], trainer)
    return {"wall_s": time.perf_counter() - t0, "cpu_s": _cpu_s() - c0, "n_vocab": tok.get_vocab_size()}


_TRAINERS = {"ownbpe": train_ownbpe, "hf": train_hf}


def _child(queue, name: str, path: str, vocab_size: int) -> None:
    with _PeakMemory() as memory:
        result = _TRAINERS[name](path, vocab_size)
    result.update(base_mb=memory.base, peak_mb=memory.peak)
    queue.put(result)


def isolated(name: str, path: str, vocab_size: int) -> dict:
    """One training run in a fresh (spawned) process."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue, name, path, vocab_size))
    proc.start()
    result = queue.get()
    proc.join()
    return result


def _median(values: list[float]) -> float:
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def machine() -> dict:
    model = ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "")
    except OSError:
        pass
    ram_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    return {"cpus": os.cpu_count(), "cpu_model": model, "ram_gb": round(ram_gb, 1)}


def main(out_dir: Path) -> dict:
    runs = parse_runs(os.environ.get("OWNBPE_SCALE_RUNS", DEFAULT_RUNS))
    rounds = int(os.environ.get("OWNBPE_SCALE_ROUNDS", "0") or 0)  # 0: 3 rounds below 200 MB, 1 from there
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    results: dict = {"machine": machine(), "commit": commit, "load_average_start": os.getloadavg()[0],
                     "runs": [], "corpora": {}}
    print(f"{results['machine']}; commit {commit}; load average {os.getloadavg()[0]:.1f} "
          "(other work on the machine skews wall times: compare the ratios)")
    t0 = time.perf_counter()
    corpora = corpus_paths(sorted({size for size, _ in runs}))
    for size, info in corpora.items():
        results["corpora"][size] = {k: info[k] for k in ("bytes", "sha256", "seed", "version", "wordfreq")}
        print(f"corpus {size} MB: {info['bytes']:,} bytes, sha256 {info['sha256']} ({info['path']})")
    for size, vocab_size in runs:
        path = corpora[size]["path"]
        n_rounds = rounds or (3 if size < 200 else 1)
        own_runs, hf_runs = [], []
        for r in range(n_rounds):
            order = ("ownbpe", "hf") if r % 2 == 0 else ("hf", "ownbpe")
            for name in order:
                got = isolated(name, path, vocab_size)
                (own_runs if name == "ownbpe" else hf_runs).append(got)
                print(f"  {size} MB @ {vocab_size} round {r + 1}/{n_rounds} {name}: wall {got['wall_s']:.1f} s, "
                      f"CPU {got['cpu_s']:.1f} s, peak {got['peak_mb']:.0f} MB"
                      + (f" (count {got['count_s']:.1f} s, merge {got['merge_s']:.1f} s, "
                         f"{got['n_pretokens']:,} distinct pre-tokens)" if name == "ownbpe" else ""), flush=True)
        row = {"mb": size, "bytes": corpora[size]["bytes"], "vocab_size": vocab_size, "rounds": n_rounds,
               "n_pretokens": own_runs[0]["n_pretokens"], "load_average": os.getloadavg()[0]}
        for key in ("wall_s", "cpu_s", "peak_mb"):
            own, hf = _median([x[key] for x in own_runs]), _median([x[key] for x in hf_runs])
            row[f"ownbpe_{key}"], row[f"hf_{key}"] = round(own, 2), round(hf, 2)
            # per-round ratios: the two trainers of one round saw the same load
            ratios = [o[key] / h[key] for o, h in zip(own_runs, hf_runs)]
            row[f"{key.split('_')[0]}_ratio"] = round(_median(ratios), 3)
            row[f"{key.split('_')[0]}_ratio_range"] = [round(min(ratios), 3), round(max(ratios), 3)]
        for key in ("count_s", "count_cpu_s", "merge_s"):
            row[f"ownbpe_{key}"] = round(_median([x[key] for x in own_runs]), 2)
        target = TARGETS.get((size, vocab_size))
        if target:
            row["targets"] = target
            row["ok"] = row["wall_ratio"] <= target["time_ratio"] and row["peak_ratio"] <= target["memory_ratio"]
        limit = PEAK_LIMIT_MB.get((size, vocab_size))
        if limit:
            row["peak_limit_mb"] = limit
            row["ok"] = row["ownbpe_peak_mb"] < limit
        results["runs"].append(row)
        print(f"{size} MB @ {vocab_size}: wall x{row['wall_ratio']} ({row['ownbpe_wall_s']} s vs HF {row['hf_wall_s']} s; "
              f"count {row['ownbpe_count_s']} s, merge {row['ownbpe_merge_s']} s), CPU x{row['cpu_ratio']}, "
              f"peak memory x{row['peak_ratio']} ({row['ownbpe_peak_mb']:.0f} vs {row['hf_peak_mb']:.0f} MB); "
              f"{row['n_pretokens']:,} distinct pre-tokens" + (f"; target met: {row['ok']}" if "ok" in row else ""),
              flush=True)
    results["wall_s"] = round(time.perf_counter() - t0, 1)
    results["load_average_end"] = os.getloadavg()[0]
    (out_dir / "ownbpe_scale.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":
    out = REPO / "bench-results"
    out.mkdir(exist_ok=True)
    main(out)
