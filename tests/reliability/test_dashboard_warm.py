"""Finding 9 (cold start): the dashboard server warms up what the first paste would pay for.

No timing here (the first paste is timed in `python -m tests.benchmarks reliability`): the tests
check that the warm-up runs in its own thread once the server listens (so the health check is
not kept waiting by it), and that it leaves behind what the pages reuse (loaded adapters,
compiled special-token regexes, the pages' imports).
"""

from __future__ import annotations

import sys
import threading

import pytest

from analysis import compare as compare_mod
from analysis.tokenizers import available_tokenizers, registry
from analysis.tokenizers.fetch import vocabulary_problems
from dashboards import serve, warm


def test_warm_up_loads_tokenizers_compiles_the_specials_and_imports_the_pages():
    compare_mod._specials_regex.cache_clear()
    status = warm.warm()
    assert status["error"] is None
    assert status["tokenizers"] == [n for n in available_tokenizers() if n not in vocabulary_problems()]
    assert all(name in registry._cache for name in status["tokenizers"])
    assert "dashboards.shared" in sys.modules
    assert warm.done.is_set()
    # the page's own call now finds every tokenizer's regex compiled (o200k_harmony: 1,090 specials)
    before = compare_mod._specials_regex.cache_info()
    for name in status["tokenizers"]:
        compare_mod._specials_regex(compare_mod.special_token_strings(registry.load_tokenizer(name)))
    after = compare_mod._specials_regex.cache_info()
    assert after.misses == before.misses
    assert after.hits == before.hits + len(status["tokenizers"])


def test_a_failing_warm_up_is_reported_not_raised(monkeypatch):
    import analysis.tokenizers

    def broken(name):
        raise ValueError("corrupt vocabulary: re-run `tokenprism vocab fetch x`")

    monkeypatch.setattr(analysis.tokenizers, "load_tokenizer", broken)
    monkeypatch.setattr(warm, "status", {})
    status = warm.warm()
    assert status["error"] == "ValueError: corrupt vocabulary: re-run `tokenprism vocab fetch x`"
    assert "seconds" in status


def test_the_server_warms_up_in_its_own_thread_once_streamlit_listens(monkeypatch):
    from streamlit.web import cli as streamlit_cli

    listening, warmed = threading.Event(), threading.Event()
    order: list[str] = []

    def fake_wait(seconds):
        assert listening.wait(10), "streamlit never listened"
        order.append("listening")

    def fake_warm(**kwargs):
        order.append(f"warm in {threading.current_thread().name}")
        warmed.set()

    def fake_streamlit():
        order.append(f"streamlit {sys.argv[1]}")
        listening.set()  # the health check answers from here on, before any warm-up work
        assert warmed.wait(10), "the warm-up did not run once the server listened"
        return 0

    monkeypatch.setattr(warm, "_wait_for_listening", fake_wait)
    monkeypatch.setattr(warm, "warm", fake_warm)
    monkeypatch.setattr(streamlit_cli, "main", fake_streamlit)
    monkeypatch.setattr(sys, "argv", ["serve", "run", "app.py"])
    with pytest.raises(SystemExit) as exit_:
        serve.main()
    assert exit_.value.code == 0
    assert order == ["streamlit run", "listening", "warm in tokenprism-dashboard-warm-up"]


def test_waiting_for_the_server_ends_when_its_port_accepts(monkeypatch):
    import socket
    import time

    from streamlit import config, runtime

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        port = server.getsockname()[1]
        monkeypatch.setattr(runtime, "exists", lambda: True)
        options = {"server.port": port, "server.address": "127.0.0.1"}
        monkeypatch.setattr(config, "get_option", lambda key: options[key])
        t0 = time.monotonic()
        threading.Timer(0.3, server.listen).start()  # not listening yet: the wait must poll
        warm._wait_for_listening(20)
        waited = time.monotonic() - t0
    assert 0.25 <= waited < 20
