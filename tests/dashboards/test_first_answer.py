"""A fresh dashboard server's first Compare run, as the browser receives it (Streamlit's protocol).

AppTest shows only what a run leaves behind; here the messages are read as they arrive, so the
test sees the compact counts fill: the rows so far, in the order picked, sent while the next
tokenizers load. How soon the first row shows in a browser is measured, not tested
(`python -m tests.benchmarks dashboard_cold`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from analysis import available_tokenizers, load_tokenizer
from analysis.corpora import sample_text
from analysis.tokenizers.fetch import vocabulary_problems
from tests.dashboards.browser import REPO, free_port, stop, wait_for_health
from tests.dashboards.protocol import Session


def test_the_first_run_sends_the_counts_one_row_at_a_time(tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    log = open(tmp_path / "log.txt", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "analysis", "dashboard", "--server.port", str(port),
                             "--server.headless", "true"], cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    session = None
    try:
        wait_for_health(proc, port, log=tmp_path / "log.txt")
        session = Session(port, timeout=120)
        run = session.run()
    finally:
        if session is not None:
            session.close()
        stop(proc)
        log.close()
    names = [n for n in available_tokenizers() if n not in vocabulary_problems()]  # all picked by default
    # the compact counts (tokenizer, tokens, chars/tok), sent while the next tokenizers load
    tables = [[(m[1], m[2]) for m in re.finditer(r"<div><span>([^<]+)</span><span>([^<]+)</span>", h)]
              for h in run.html if h.startswith('<div class="tp-counts"')]
    # Streamlit sends only the latest of the deltas to one place that are waiting to be sent, so
    # rows counted in quick succession arrive together; a row that took long arrives alone first.
    sizes = [len(t) for t in tables]
    assert len(tables) >= 2 and sizes == sorted(set(sizes)) and sizes[-1] == len(names), sizes
    assert all(tables[-1][: len(t)] == t for t in tables)  # each one the rows so far, in the final order
    assert [name for name, _ in tables[-1]] == names
    text = sample_text()
    for (name, shown), expected in zip(tables[-1], names):
        assert name == expected and shown == f"{len(load_tokenizer(name).encode(text)):,}"
    assert "Warning" not in (tmp_path / "log.txt").read_text()  # e.g. the warm-up's cached calls outside a page
