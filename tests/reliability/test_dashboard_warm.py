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
    assert all(name in registry.LOADED for name in status["tokenizers"])
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


def _record_steps(monkeypatch, names=("a", "b")) -> list[str]:
    """Replace the warm-up's steps by ones that record when they run: imports (light), then tokenizers."""
    ran: list[str] = []

    def fake_steps():
        yield warm.LIGHT[0][0], lambda: ran.append("imports")
        for name in names:
            yield f"tokenizer {name}", lambda name=name: ran.append(name)

    monkeypatch.setattr(warm, "steps", fake_steps)
    monkeypatch.setattr(warm, "status", {})
    return ran


def test_no_step_runs_while_a_page_script_runs(monkeypatch):
    ran = _record_steps(monkeypatch)
    with warm.page_run():
        thread = threading.Thread(target=warm.warm, kwargs={"step_wait": 30})
        thread.start()
        thread.join(0.5)
        assert ran == []  # the page has the interpreter to itself
        assert warm.pages_running() == 1
    thread.join(30)
    assert ran == ["imports", "a", "b"]
    assert warm.status["tokenizers"] == ["a", "b"]
    assert warm.pages_running() == 0


def test_a_page_ending_in_error_still_lets_the_warm_up_go_on(monkeypatch):
    ran = _record_steps(monkeypatch)
    with pytest.raises(RuntimeError), warm.page_run():
        raise RuntimeError("st.stop() and reruns end a script with an exception")
    assert warm.pages_running() == 0
    warm.warm(step_wait=30)
    assert ran == ["imports", "a", "b"]


def test_builds_wait_for_the_first_page_and_a_quiet_server_imports_do_not(monkeypatch):
    import time

    ran = _record_steps(monkeypatch)
    monkeypatch.setattr(warm, "first_page_done", threading.Event())
    thread = threading.Thread(target=warm.warm, kwargs={"step_wait": 30, "grace": 30, "quiet": 0.6})
    thread.start()
    thread.join(0.5)
    assert ran == ["imports"]  # no page served yet: imports only, no build
    with warm.page_run():
        pass
    ended = time.monotonic()
    thread.join(30)
    assert ran == ["imports", "a", "b"]
    assert time.monotonic() - ended >= 0.6  # the first build waited for the server to be quiet


def test_the_real_steps_follow_the_compare_page():
    names = [n for n in available_tokenizers() if n not in vocabulary_problems()]
    what = [w for w, _ in warm.steps()]
    light = len(warm.LIGHT_STEPS)
    assert set(what[:light]) == warm.LIGHT_STEPS and what.index("the Compare page's modules") < what.index(
        "the Explore page's modules")  # the default page's first
    assert what[light : light + len(names)] == [f"tokenizer {n}" for n in names]  # one at a time, in the page's order
    assert what[light + len(names)] == "special-token regexes and the default drawing"
    assert what[light + 1 + len(names) :] == [f"engine {n}" for n in names]  # then what a long paste would wait for


def test_the_server_and_the_app_entrypoint_import_nothing_heavy_before_the_warm_up():
    """What runs before streamlit listens (`dashboards.serve`) and before every page (the app's own
    imports) pulls in no pandas, numpy, altair or tokenizer engine: the health check and each page's
    first element do not wait for them."""
    import json
    import subprocess

    heavy = ["pandas", "numpy", "altair", "pyarrow", "matplotlib", "tiktoken", "tokenizers", "regex"]
    code = ("import json, sys; import dashboards.serve, dashboards.warm, dashboards.look, analysis.tokenizers.fetch; "
            f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == []
    # the entrypoint imports those modules and nothing else of ours
    from pathlib import Path

    app = (Path(warm.__file__).parent / "streamlit_app.py").read_text(encoding="utf-8")
    ours = sorted(line for line in app.splitlines() if line.startswith(("from analysis", "from dashboards", "import analysis",
                                                                        "import dashboards")))
    assert ours == ["from analysis.tokenizers.fetch import vocabulary_problems", "from dashboards import warm",
                    "from dashboards.look import inject_css"]
