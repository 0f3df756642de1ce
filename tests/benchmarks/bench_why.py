"""The vocabulary audit cold and kept, and `why` answers cold and kept, each as a ratio against a
reference measured in the same interleaved rounds: tiktoken's (or HF tokenizers') own batch encode
of every token's text, the heart of the audit's work.

    python -m tests.benchmarks why
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from analysis import load_tokenizer
from analysis.probes import questions
from analysis.probes.vocabulary import _token_bytes, audit_vocabulary, compute_audit

VOCABS = ("gpt2", "cl100k_base", "o200k_harmony", "qwen2.5", "deepseek-v4")
ROUNDS = 3


def _cpu(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def _reference(tok) -> None:
    """Encode every token's text in one batch: the audit's largest single step."""
    data = _token_bytes(tok, tok.n_vocab, set(tok.special_tokens.values()))
    texts = [b.decode("utf-8", "replace") for b in data if b]
    tok.encode_batch(texts)


def main(out_dir: Path) -> dict:
    results: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TOKENPRISM_DATA_DIR"] = tmp  # cold: nothing kept yet
        for name in VOCABS:
            tok = load_tokenizer(name)
            tok.build()
            cold, ref = [], []
            for _ in range(ROUNDS):  # interleaved: reference, then the audit, each round
                ref.append(_cpu(lambda: _reference(tok)))
                cold.append(_cpu(lambda: compute_audit(tok)))
            audit_vocabulary(tok)  # keep it
            kept = [_cpu(lambda: audit_vocabulary(tok)) for _ in range(ROUNDS)]
            results[name] = {"audit_cold_cpu_s": round(statistics.median(cold), 3),
                             "reference_cpu_s": round(statistics.median(ref), 3),
                             "cold_vs_reference": round(statistics.median(cold) / statistics.median(ref), 2),
                             "kept_cpu_s": round(statistics.median(kept), 3)}
            print(name, results[name], flush=True)
        for key in questions.QUESTIONS:
            names = "gpt2" if key == "magikarp" else "cl100k_base,o200k_base"
            cold = _cpu(lambda: questions.answer(key, names))
            kept = statistics.median(_cpu(lambda: questions.answer(key, names)) for _ in range(ROUNDS))
            results[f"why {key}"] = {"cold_cpu_s": round(cold, 3), "kept_cpu_s": round(kept, 4)}
            print(key, results[f"why {key}"], flush=True)
    (out_dir / "why.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return results
