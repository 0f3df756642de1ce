"""Bounded memory (aggregates-only RSS flat as the corpus grows) and Ctrl-C (no half-written output).

Each run is a fresh process; peak RSS is the process's own VmHWM (`rss.py`: `ru_maxrss` would
report the parent's peak, inherited across fork and exec).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.analysis.engine.gen import text_folder

REPO = Path(__file__).resolve().parents[3]
_CHILD = r"""
import json, sys
from analysis.engine import measure, measure_files
from analysis.engine.read import iter_corpus_chunks
from tests.analysis.engine.rss import ChildPeak, self_peak_mb
with ChildPeak() as workers:
    if sys.argv[3] == "driver":  # this process reads
        # chunks of 1 MB, so that both corpora span several chunks: the peak is a few chunks in flight.
        # `measure` joins the reader's chunks into tasks of `chunk_chars` (4M characters by default,
        # up to 16 MB of str each): held to 1 MB too, or the 10 MB corpus would fit in the window
        # of tasks in flight (two per worker) that the 100 MB one fills, and the peaks would differ
        # by that window, not by the input
        run = measure(iter_corpus_chunks(sys.argv[1], chunk_chars=1 << 20), "gpt2", engine=sys.argv[2], workers=2,
                      by=["category", "tokenizer"], chunk_chars=1 << 20)
    else:  # each worker reads its parts (what `tokenprism measure --by` does)
        run = measure_files(sys.argv[1], "gpt2", engine=sys.argv[2], workers=2, by=["category", "tokenizer"],
                            chunk_chars=1 << 20)
print(json.dumps({"rss_mb": self_peak_mb(), "worker_rss_mb": workers.mb, "n_bytes": run.n_bytes}))
"""


def _peak(folder: Path, engine: str, reader: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(folder), engine, reader], capture_output=True, text=True,
                         check=True, cwd=REPO)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _flat(tmp_path: Path, small_mb: int, big_mb: int, engine: str, reader: str) -> None:
    small = _peak(text_folder(tmp_path / "small", small_mb << 20), engine, reader)
    big = _peak(text_folder(tmp_path / "big", big_mb << 20), engine, reader)
    assert big["n_bytes"] > (big_mb - 1) * small["n_bytes"] / small_mb  # the big run really read more
    # five times the input, not five times the memory: a few chunks in flight, whatever the size
    assert big["rss_mb"] < small["rss_mb"] + 48, (small, big)
    assert big["worker_rss_mb"] < small["worker_rss_mb"] + 48, (small, big)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak memory (VmHWM) from Linux /proc")
@pytest.mark.parametrize("reader", ["driver", "parts"])
def test_aggregates_only_memory_is_flat(tmp_path, reader):
    _flat(tmp_path, 2, 10, "inprocess", reader)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads peak memory (VmHWM) from Linux /proc")
@pytest.mark.parametrize("reader", ["driver", "parts"])
def test_aggregates_only_memory_is_flat_10_vs_100_mb(tmp_path, reader):
    _flat(tmp_path, 10, 100, "local", reader)


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or os.name != "posix",
                    reason="reads process groups from Linux /proc and sends SIGINT to a process group")
def test_ctrl_c_stops_workers_and_leaves_no_output(tmp_path):
    corpus = text_folder(tmp_path / "corpus", 14 << 20)
    out = tmp_path / "out" / "rows"
    proc = subprocess.Popen([sys.executable, "-m", "analysis", "measure", str(corpus), "-t", "gpt2,o200k_base",
                             "--workers", "2", "--out", f"{out}/", "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO, start_new_session=True)
    deadline = time.monotonic() + 120
    while not any(p.name.startswith(".tokenprism-tmp-") and any(p.iterdir())
                  for p in (tmp_path / "out").glob(".*")) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.2)
    assert proc.poll() is None, "the run ended before it could be interrupted; give it a bigger corpus"
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    rc = proc.wait(timeout=60)
    err = proc.stderr.read().decode()
    assert rc == 130, err
    assert "Traceback" not in err, err
    assert not out.exists()
    assert list((tmp_path / "out").iterdir()) == []
    deadline = time.monotonic() + 10  # no worker outlives the run (they are stopped, not orphaned)
    while _group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _group(proc.pid), _group(proc.pid)


def _group(pgid: int) -> list[str]:
    """Command lines of the live processes in process group `pgid` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                found.append((stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:120])
        except (OSError, IndexError, ValueError):
            continue
    return found
