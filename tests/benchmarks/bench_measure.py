"""Overhead of `analysis.measure` over the raw tokenizer time, on the built-in corpora (target <= 15%).

Raw time is what counting alone costs: every built-in sample counted by every tokenizer
through the same call `measure` makes (`pipeline.token_counts`: the adapter's `count_batch`),
summed over tokenizers. The pipeline time is
`measure(load_builtin(), tokenizers)`: that encoding plus word and byte counts, frame building
and categoricals. For reference, `encode_batch` on every text is timed too. The three are
interleaved and repeated; the best (minimum) time of each is kept, as these machines are
shared and noisy and the minimum is the least disturbed run. With ../shared present, the same
ratios are given for FLORES-200 (5.5 MB, 23 languages, streamed in chunks) under two tokenizers.
The engines at scale (all cores, Dask, streamed aggregates, memory) are in `bench_engine`.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from analysis import available_tokenizers
from analysis.corpora import load_builtin, load_parallel
from analysis.pipeline import as_tokenizers, measure, text_stats, token_counts

TARGET_OVERHEAD = 0.15
FLORES = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "flores200"


def _encode_all(toks, texts, *, batch: bool) -> float:
    t0 = time.perf_counter()
    for tok in toks:
        tok.encode_batch(texts) if batch else token_counts(tok, texts)
    return time.perf_counter() - t0


def _compare(frame, toks, reps: int) -> dict:
    texts = frame["text"].tolist()
    raw, batch, pipe, stats = [], [], [], []
    for _ in range(reps):  # interleaved, so load changes hit every variant alike
        raw.append(_encode_all(toks, texts, batch=False))
        batch.append(_encode_all(toks, texts, batch=True))
        t0 = time.perf_counter()
        measure(frame, toks)
        pipe.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        text_stats(frame["text"])
        stats.append(time.perf_counter() - t0)
    raw_s, pipe_s = min(raw), min(pipe)
    return {"samples": len(texts), "chars": int(frame["text"].str.len().sum()), "tokenizers": [t.name for t in toks],
            "raw_s": round(raw_s, 4), "encode_batch_s": round(min(batch), 4), "measure_s": round(pipe_s, 4),
            "text_stats_s": round(min(stats), 4), "overhead": round(pipe_s / raw_s - 1, 4),
            "overhead_vs_encode_batch": round(pipe_s / min(batch) - 1, 4),
            "overhead_median": round(statistics.median(pipe) / statistics.median(raw) - 1, 4), "reps": reps}


def main(out_dir: Path) -> dict:
    toks = as_tokenizers(available_tokenizers())
    builtin = load_builtin()
    measure(builtin.head(20), toks)  # warm every tokenizer's caches and thread pools
    results = {"builtin": _compare(builtin, toks, reps=7)}
    if FLORES.is_dir():
        flores = load_parallel(FLORES, joined=True)
        results["flores200"] = _compare(flores, as_tokenizers("cl100k_base,o200k_base"), reps=3)
    print(f"{'corpus':10} {'samples':>7} {'MB':>6} {'tokenizers':>10} {'raw s':>7} {'batch s':>7} {'words s':>7} "
          f"{'measure s':>9} {'overhead':>8} {'vs batch':>8}")
    for name, r in results.items():
        print(f"{name:10} {r['samples']:7d} {r['chars'] / 1e6:6.2f} {len(r['tokenizers']):10d} {r['raw_s']:7.3f} "
              f"{r['encode_batch_s']:7.3f} {r['text_stats_s']:7.3f} {r['measure_s']:9.3f} {r['overhead']:8.1%} "
              f"{r['overhead_vs_encode_batch']:8.1%}")
    results["target_overhead"] = TARGET_OVERHEAD
    results["builtin_within_target"] = results["builtin"]["overhead"] <= TARGET_OVERHEAD
    (out_dir / "measure.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":  # pragma: no cover
    out = Path(__file__).resolve().parents[2] / "bench-results"
    out.mkdir(exist_ok=True)
    main(out)
