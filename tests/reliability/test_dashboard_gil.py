"""Finding 8 (concurrency): nothing after a script run stops every other session's thread.

Sampling the dashboard server with `py-spy record --gil` while five sessions pasted at once
showed what held the GIL: Streamlit's full garbage collection after every script run (a third of
the samples) and its file watcher (a tenth). `tokenprism dashboard` turns both off by default,
and the warm-up freezes what it leaves alive out of the collector. No timing here (that is
`python -m tests.benchmarks reliability`): the server runs with a `sitecustomize` that records
every `gc.collect` call and the thread that made it, and five protocol sessions (no browser)
paste at once and must each get their own counts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from analysis import load_tokenizer
from analysis.render import highlight_prefix
from tests.dashboards.browser import REPO, free_port, wait_for_health
from tests.dashboards.protocol import Session, paste_at_once, tokens_shown

SPY = r'''
import gc, json, os, threading
_LOG, _collect = os.environ["TOKENPRISM_GC_LOG"], gc.collect

def collect(*args, **kwargs):
    with open(_LOG, "a") as f:
        f.write(json.dumps({"thread": threading.current_thread().name, "args": list(args)}) + "\n")
    return _collect(*args, **kwargs)

gc.collect = collect
'''


def test_the_warm_up_freezes_what_it_leaves_alive():
    code = ("import gc; from dashboards import warm; s = warm.warm(freeze=True); "
            "print(s['error'], gc.get_freeze_count(), len(gc.get_objects()))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    error, frozen, tracked = proc.stdout.split()[-3:]
    assert error == "None"
    # the modules, tokenizers and pandas are out of every later collection; what is left to walk is small
    assert int(frozen) > 50_000, (frozen, tracked)
    assert int(tracked) < int(frozen) // 10, (frozen, tracked)


def _texts() -> list[str]:
    from tests.benchmarks.bench_dashboard import corpus

    return [corpus(n, offset=i * 104_729) for i, n in enumerate((3_000, 9_000, 15_000, 21_000, 27_000))]


def test_script_runs_make_no_full_collection_and_five_sessions_each_get_their_counts(tmp_path):
    (tmp_path / "spy").mkdir()
    (tmp_path / "spy" / "sitecustomize.py").write_text(SPY)
    log = tmp_path / "gc.jsonl"
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "spy"), str(REPO)]), TOKENPRISM_GC_LOG=str(log))
    out = open(tmp_path / "out.txt", "wb")
    # `tokenprism dashboard` with its defaults: the options under test are not passed here
    proc = subprocess.Popen([sys.executable, "-m", "analysis", "dashboard", "--server.port", str(port),
                             "--server.headless", "true"], cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT)
    sessions: list[Session] = []
    try:
        wait_for_health(proc, port, log=tmp_path / "out.txt")
        sessions = [Session(port) for _ in range(5)]
        for s in sessions:
            s.run()
        texts = _texts()
        o200k = load_tokenizer("o200k_base")
        expected = [tokens_shown("o200k_base", len(o200k.encode(highlight_prefix(t)))) for t in texts]
        runs = paste_at_once(sessions, texts)
        for run, exp, text in zip(runs, expected, texts):
            assert run.shows(exp), (exp, [m for m in run.markdown if "tokens" in m][:3])
        # the warm-up goes on once the pages are quiet (dashboards.warm.QUIET_S), and collects once at its end
        deadline = time.monotonic() + 120
        while not (log.exists() and "tokenprism-dashboard-warm-up" in log.read_text()):
            assert time.monotonic() < deadline, "the warm-up did not finish within 120 s of the last paste"
            time.sleep(0.5)
    finally:
        for s in sessions:
            s.close()
        proc.terminate()
        proc.wait(timeout=15)
        out.close()
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    # the warm-up's one collection before it freezes; none from the threads that run the pages
    assert [c["thread"] for c in calls] == ["tokenprism-dashboard-warm-up"], calls
