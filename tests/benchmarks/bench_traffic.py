"""Pricing logged traffic at scale: 1,000,000 generated log rows under 4 models, time and peak memory.

`tokenprism cost --logs` runs in a child process per size (100,000 rows, then 1,000,000), so
each peak RSS and CPU time (from `os.wait4`) is that run's own; CPU seconds are quoted beside
wall time because these machines are shared and wall time depends on the neighbours. Memory should stay nearly flat in the number
of rows: records are reduced to sums chunk by chunk, and the few integers kept per row (the
cache simulation's marks, the percentiles' inputs) are folded as the chunks come back, when the
log is in time order (`cost.logs.fold`; this log's times are random, so it is priced again with
every row kept: see `bench_logs` for logs in time order). The reference time is
the bare tokenizer work (CPU seconds) measured in the same run: `count_batch` over every text of a 100,000-row
sample with each tokenizer the 4 models use, so the ratio says what reading, JSON parsing and
pricing add on top of counting.

The log is generated: chat requests in the OpenAI shape (one of five shared system prompts,
a user message and a logged response of random words, a timestamp over 30 days, usage on half
the rows, tool definitions on 5%), gzip-compressed, in a temporary folder removed afterwards.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODELS = "gpt-4o,gpt-4.1-mini,claude-sonnet-4-5,deepseek-chat"
SIZES = (100_000, 1_000_000)
SYSTEM = [
    "You are a helpful assistant for a parcel delivery company. Answer briefly and politely.",
    "You are a senior Python reviewer. Point out bugs first, then style.",
    "Translate the user's message into French. Keep names unchanged.",
    "You summarise emails in two sentences for busy managers.",
    "You are a support agent for an online bank. Never ask for passwords.",
]
WORDS = ("parcel delivery address refund invoice password account order tracking number monday friday "
         "meeting report contract summary python function error import value list string table "
         "customer payment card transfer balance statement bonjour merci schedule weather paris "
         "please could you tell me why when where how what the a of to and in is it for on").split()
TOOLS = [{"type": "function", "function": {"name": "track_parcel", "description": "Where a parcel is now",
                                           "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}}]


def generate(path: Path, rows: int, seed: int = 7, *, in_order: bool = False) -> int:
    """Write `rows` chat-log rows (gzip JSON Lines); returns the uncompressed size in bytes.

    `in_order`: timestamps that never go back (evenly over the 30 days), as a log written while the
    requests come; otherwise each row's time is random in the 30 days. The other fields are the same."""
    rng = random.Random(seed)
    start = 1772323200  # 2026-03-01 00:00 UTC
    size = 0
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as f:
        for i in range(rows):
            user = " ".join(rng.choices(WORDS, k=rng.randint(8, 60)))
            answer = " ".join(rng.choices(WORDS, k=rng.randint(10, 120)))
            at = rng.randrange(30 * 86400)
            row = {"model": "gpt-4o-mini", "timestamp": start + (i * 30 * 86400 // rows if in_order else at),
                   "messages": [{"role": "system", "content": rng.choice(SYSTEM)}, {"role": "user", "content": user}],
                   "response": answer}
            if i % 20 == 0:
                row["tools"] = TOOLS
            if i % 2 == 0:
                row["usage"] = {"prompt_tokens": 20 + len(user) // 5, "completion_tokens": len(answer) // 5}
            line = json.dumps(row) + "\n"
            size += len(line)
            f.write(line)
    return size


def _run(log: Path, out_dir: Path) -> dict:
    """`tokenprism cost --logs` in a child process: wall time and its own peak RSS."""
    cmd = [sys.executable, "-m", "analysis", "cost", "--logs", str(log), "-m", MODELS, "--format", "json"]
    t0 = time.perf_counter()
    with open(out_dir / "out.json", "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed with status {status}")
    report = json.loads((out_dir / "out.json").read_text())
    return {"wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "rows": report["n_rows"],
            "totals": {m["model"]: m["usd_total"] for m in report["models"]}}


def _reference(log: Path, rows: int) -> float:
    """Seconds the tokenizers alone take on the texts of the first `rows` rows (what pricing must do anyway)."""
    from analysis import load_tokenizer
    from analysis.cost import plan_traffic

    texts = []
    with gzip.open(log, "rt", encoding="utf-8") as f:
        for _, line in zip(range(rows), f):
            row = json.loads(line)
            texts += [m["content"] for m in row["messages"]] + [row["response"]]
            if "tools" in row:
                texts.append(json.dumps(row["tools"]))
    names = sorted({t.choice.tokenizer for t in plan_traffic(MODELS).targets if t.choice.usable})
    toks = [load_tokenizer(n) for n in names]
    for tok in toks:
        tok.count_batch(texts[:100])  # warm up
    t0 = time.process_time()  # CPU seconds of every thread: the machine is shared, wall time is noisy
    for tok in toks:
        for i in range(0, len(texts), 16_384):  # the same batch size order as the pricing chunks
            tok.count_batch(list(dict.fromkeys(texts[i:i + 16_384])))
    return time.process_time() - t0


def main(out_dir: Path) -> dict:
    from analysis.cost import plan_traffic

    plan = plan_traffic(MODELS)
    offline = {t.ref: f"{t.choice.label} ({t.choice.exactness}, {t.choice.status})" for t in plan.targets}
    results: dict = {"models": MODELS, "tokenizers": offline, "cpu_count": os.cpu_count(), "runs": {}}
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-") as tmp:
        folder = Path(tmp)
        for rows in SIZES:
            log = folder / f"log-{rows}.jsonl.gz"
            t0 = time.perf_counter()
            raw = generate(log, rows)
            gen_s = time.perf_counter() - t0
            run = _run(log, folder)
            run.update(log_mb=round(raw / 1e6, 1), log_gz_mb=round(log.stat().st_size / 1e6, 1), generate_s=round(gen_s, 1))
            run["rows_per_cpu_s"] = round(rows / run["cpu_s"])
            results["runs"][rows] = run
            print(f"{rows:>9,} rows ({run['log_mb']} MB JSON, {run['log_gz_mb']} MB gzip): {run['cpu_s']} CPU s "
                  f"({run['wall_s']} s wall), {run['rows_per_cpu_s']:,} rows per CPU second, "
                  f"peak RSS {run['peak_rss_mb']} MB", flush=True)
        ref_rows = SIZES[0]
        ref = _reference(folder / f"log-{ref_rows}.jsonl.gz", ref_rows)
    small, big = results["runs"][SIZES[0]], results["runs"][SIZES[-1]]
    results["reference_tokenizers_cpu_s_per_100k_rows"] = round(ref, 2)
    results["pricing_over_tokenizers"] = round(small["cpu_s"] / ref, 2)
    results["rss_ratio_1m_over_100k"] = round(big["peak_rss_mb"] / small["peak_rss_mb"], 2)
    results["time_ratio_1m_over_100k"] = round(big["cpu_s"] / small["cpu_s"], 2)
    print(f"tokenizers alone on {ref_rows:,} rows' texts: {ref:.1f} CPU s; the whole `cost --logs` run takes "
          f"{results['pricing_over_tokenizers']}x that (process start, reading, JSON, pricing included)")
    print(f"10x the rows: {results['time_ratio_1m_over_100k']}x the CPU time, {results['rss_ratio_1m_over_100k']}x the peak RSS")
    for model, label in offline.items():
        print(f"  {model}: {label}")
    (out_dir / "traffic.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":  # pragma: no cover
    out = Path(__file__).resolve().parents[2] / "bench-results"
    out.mkdir(exist_ok=True)
    main(out)
