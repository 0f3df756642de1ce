"""Encode throughput (MB/s) of every available tokenizer on a fixed corpus, single thread.

The corpus is the built-in prose, code and multilingual text (always present), repeated to
~4 MB. Each tokenizer's figure is also given as a ratio to tiktoken's o200k_base in the same run.
"""

from __future__ import annotations

import json
from pathlib import Path

from analysis import available_tokenizers, load_tokenizer
from tests.benchmarks.timing import median_time


def corpus_text(target_bytes: int = 4_000_000) -> str:
    from analysis.corpora import load_builtin

    df = load_builtin(["prose", "code", "multilingual"])
    base = "\n\n".join(df["text"])
    reps = max(1, target_bytes // max(1, len(base.encode("utf-8"))))
    return "\n\n".join([base] * reps)


def main(out_dir: Path) -> dict:
    text = corpus_text()
    mb = len(text.encode("utf-8")) / 1e6
    docs = text.split("\n\n")
    rows = []
    for name in available_tokenizers():
        tok = load_tokenizer(name)
        tok.encode(text[:10000])  # warm caches
        single = median_time(lambda _: [tok.encode(d) for d in docs], repeat=1 if tok.family == "ownbpe" else 3)
        batch = median_time(lambda _: tok.encode_batch(docs), repeat=1 if tok.family == "ownbpe" else 3)
        rows.append({"tokenizer": name, "family": tok.family, "mb": round(mb, 2),
                     "mb_per_s_single": round(mb / single, 2), "mb_per_s_batch": round(mb / batch, 2)})
    ref = next((r["mb_per_s_single"] for r in rows if r["tokenizer"] == "o200k_base"), None)
    print(f"corpus: built-in prose+code+multilingual repeated to {mb:.1f} MB, {len(docs)} documents")
    print("note: the corpus repeats, so ownbpe's pre-token cache is warm after the first pass; "
          "bench_ownbpe measures it on non-repeating text")
    print(f"{'tokenizer':16} {'family':9} {'MB/s 1 thread':>14} {'MB/s batch':>11} {'vs o200k':>9}")
    for r in rows:
        r["ratio_vs_o200k_single"] = round(r["mb_per_s_single"] / ref, 3) if ref else None
        print(f"{r['tokenizer']:16} {r['family']:9} {r['mb_per_s_single']:14.2f} {r['mb_per_s_batch']:11.2f} {r['ratio_vs_o200k_single'] or 0:9.2f}")
    (out_dir / "tokenizers.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return {"rows": rows}
