"""A GGUF tokenizer from a model file against the same vocabulary alone: load time and peak memory.

The model file is the vocabulary's metadata followed by 2 GB of weights (a hole in a sparse file),
as a real model would carry; loading it must cost what the vocabulary costs. Rounds alternate the
two files (the host is shared: ratios, not seconds, are the figures), each load in a fresh child
process that reports its own time and peak RSS. The vocabulary is llama.cpp's
ggml-vocab-llama-bpe.gguf, from the llama-cpp-python sdist in pytest's cache (see
tests/analysis/tokenizers/llamacpp_vocab.py) or $TOKENPRISM_GGUF_VOCAB.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROUNDS = 5
_CHILD = """
import json, resource, sys, time
t = time.perf_counter()
from analysis.tokenizers.gguf_reader import read_metadata
meta = read_metadata(sys.argv[1])
t_read = time.perf_counter() - t
from analysis.tokenizers.gguf_build import build
tok = build(meta)
tok.encode("warm")
print(json.dumps({"read_s": t_read, "load_s": time.perf_counter() - t,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _vocab() -> Path:
    env = os.environ.get("TOKENPRISM_GGUF_VOCAB")
    if env:
        return Path(env)
    from tests.analysis.tokenizers import llamacpp_vocab as lv

    repo = Path(__file__).resolve().parents[2]
    sdist = repo / ".pytest_cache" / "d" / lv.CACHE_KEY / lv.SDIST
    if not sdist.is_file():
        raise SystemExit("no llama.cpp vocabulary: run the network test in tests/analysis/tokenizers/test_gguf.py "
                         "once, or set TOKENPRISM_GGUF_VOCAB=FILE.gguf")
    out = Path(tempfile.mkdtemp(prefix="bench-gguf-"))
    return lv.extract(sdist, out) / "ggml-vocab-llama-bpe.gguf"


def _run(path: Path, data_dir: Path) -> dict:
    env = dict(os.environ, TOKENPRISM_DATA_DIR=str(data_dir))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout)


def main(out_dir: Path) -> dict:
    from analysis.tokenizers.gguf_reader import read_metadata

    vocab = _vocab()
    with tempfile.TemporaryDirectory(prefix="bench-gguf-") as tmp:
        big = Path(tmp) / "model-2gb.gguf"
        meta = read_metadata(vocab)
        with open(vocab, "rb") as src, open(big, "wb") as f:
            f.write(src.read(meta.metadata_bytes))
            f.truncate(2 << 30)
        data = Path(tmp) / "data"
        _run(vocab, data)  # the engine file is written once; every round below reads it
        rows: dict[str, list[dict]] = {"vocab": [], "model_2gb": []}
        for _ in range(ROUNDS):
            rows["vocab"].append(_run(vocab, data))
            rows["model_2gb"].append(_run(big, data))
    med = {k: {m: statistics.median(r[m] for r in v) for m in ("read_s", "load_s", "rss_mb")} for k, v in rows.items()}
    result = {"vocab_bytes": vocab.stat().st_size, "model_bytes": 2 << 30, "rounds": ROUNDS, "median": med,
              "read_ratio": med["model_2gb"]["read_s"] / med["vocab"]["read_s"],
              "load_ratio": med["model_2gb"]["load_s"] / med["vocab"]["load_s"],
              "rss_delta_mb": med["model_2gb"]["rss_mb"] - med["vocab"]["rss_mb"]}
    print(json.dumps(result, indent=2))
    (out_dir / "gguf.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
