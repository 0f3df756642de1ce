"""Warm-up of a freshly started dashboard server: what the first visits would otherwise pay for.

Unlike `analysis.tokenizers.warm_up` (vocabularies only), this runs, once per server process and
in a background thread, what the pages do first, in the order a reader meets it:

* the imports and cached calls of the Compare page (pandas, the price data, streamlit's tables,
  the sample text), then those of Explore (altair, the charts, the checked-in table of the
  built-in corpora, summarised as the page does);
* the tokenizers, one at a time, in the order the Compare page shows them;
* the special-token regexes (one large regex per tokenizer, e.g. the 1,090 special tokens of
  o200k_harmony) and the Compare page's default drawing of its sample text;
* the engines the tokenizers defer to their first long text (tiktoken's: a short text is
  encoded without one), one at a time, so that a long paste does not wait for one.

It starts once the server listens, so the health check answers first. Each step waits while a
page script runs (`page_run`, entered by the app for every run), so a page that starts shares
the interpreter lock with one short step at most; a page needing a tokenizer the warm-up has not
reached loads it itself (the registry builds each one once, whichever thread asks first). The
steps after the imports also wait for the first page to be served and for the pages to be quiet
(`FIRST_PAGE_GRACE_S`, `QUIET_S`): the browser is still fetching the page's scripts from this
process then. The results are thrown away: what stays is the imported modules, the loaded
adapters, their engines and the compiled regexes, all shared by every session. Errors are left
to the page that meets them, which shows them with their fix.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator

THREAD_NAME = "tokenprism-dashboard-warm-up"
# Filled by `warm()`: when it finished, how long it took, and the first error (if any).
status: dict = {}
done = threading.Event()

# How many page scripts are running now, and the condition the warm-up waits on until none is.
_running = 0
_idle = threading.Condition()
# Set when the first page script of the process has ended; when the last one ended.
first_page_done = threading.Event()
_last_end = 0.0
# A tokenizer is built only once no page script has run for this long: after a run, the browser
# fetches the scripts that draw the new elements (the chart library alone is a dozen files), and
# a build holding the interpreter lock would keep the server from sending them (measured: the
# Explore chart's scripts took up to 1.5 s each to arrive while the warm-up built tokenizers).
QUIET_S = 2.0
# A step waits at most this long for the pages to be idle: under constant traffic the warm-up
# still finishes (and freezes the heap, see `freeze_heap`), competing as the pages do.
STEP_WAIT_S = 10.0
# The tokenizers are built only once the first page has been served, or after this long without
# one. Building a tiktoken engine holds the interpreter lock for up to a second at a time (its
# Rust constructor takes a Python dict), and while it does, the server cannot send the
# browser the page's scripts: measured, the first script run started 3 s after the page was
# opened instead of 0.8 s. Imports release the lock every few milliseconds and go first.
FIRST_PAGE_GRACE_S = 5.0


@contextlib.contextmanager
def page_run() -> Iterator[None]:
    """Mark a page script as running while in the block (the app enters it for every run)."""
    global _running, _last_end
    with _idle:
        _running += 1
    try:
        yield
    finally:
        with _idle:
            _running -= 1
            _last_end = time.monotonic()
            _idle.notify_all()
        first_page_done.set()


def pages_running() -> int:
    return _running


def _when_idle(seconds: float, quiet: float = 0.0) -> None:
    """Return once no page script runs and none has ended in the last `quiet` seconds (or after `seconds`)."""
    deadline = time.monotonic() + seconds
    with _idle:
        while (left := deadline - time.monotonic()) > 0:
            if _running:
                _idle.wait(left)
                continue
            calm = _last_end + quiet - time.monotonic()
            if calm <= 0:
                return
            _idle.wait(min(calm, left))  # a run starting meanwhile notifies nobody: the loop looks again


def _streamlit_first_element() -> None:
    """Leave done what the process's first element and first page do once in streamlit.

    The first element inspects the whole call stack (`inspect.stack()` reads the source of every
    frame's file: 0.1-0.2 s on a page's deep stack, measured on the Compare page's first run); an
    element made here, outside any page, is sent nowhere. `st.Page` looks its icon up in a
    module of every Material icon name.
    """
    import streamlit as st
    from streamlit import material_icon_names  # noqa: F401

    st.empty()


def _pandas() -> None:
    import pandas  # noqa: F401  (half a second: one step of its own)


def _compare_modules() -> None:
    from streamlit import dataframe_util, emojis  # noqa: F401  (emojis: the app's page icon is checked)

    from analysis.tokenizers import tiktoken_adapter  # noqa: F401  (tiktoken: the import, not a build)
    from dashboards import chat, links, look, shared  # noqa: F401  (the Compare page's imports)


def _compare_table() -> None:
    import pandas as pd
    from streamlit import dataframe_util

    from dashboards import shared

    dataframe_util.convert_pandas_df_to_arrow_bytes(shared.counts_frame([]))  # as the page sends its table
    shared.styled(pd.DataFrame({"x": [1.5], "n": [1]})).to_html()


def _compare_calls() -> None:
    from analysis.cost import DEFAULT_MODELS
    from analysis.models import resolve
    from dashboards import shared

    for cached in (shared.sample_text, shared.tokenizer_names, shared.model_choices):
        cached()  # the page's own cached calls (the model list reads the price data)
    resolve(DEFAULT_MODELS[0])


def _explore_modules() -> None:
    from analysis.plots import charts  # noqa: F401
    from dashboards import corpus_views  # noqa: F401  (altair, the probes, the BPE lab)


def _explore_table() -> None:
    from analysis.plots import charts
    from dashboards import corpus_views, shared

    # the page's own cached calls, with its arguments: its first visit finds them done
    names = tuple(shared.tokenizer_names())
    summary = corpus_views.summarize(corpus_views.explore_measured(names), ("category", "tokenizer"))
    charts.CHARTS["chars_per_token_by_category"](summary).to_dict()


# The steps that import and read files, each short, and so may run while the first page loads;
# a page that starts meanwhile waits at most for the one under way (it imports the rest itself).
LIGHT = [("streamlit's first element", _streamlit_first_element), ("pandas", _pandas), ("the Compare page's modules", _compare_modules),
         ("the Compare page's table code", _compare_table), ("the Compare page's cached calls", _compare_calls),
         ("the Explore page's modules", _explore_modules), ("the Explore page's table and chart", _explore_table)]
LIGHT_STEPS = frozenset(what for what, _ in LIGHT)


def steps() -> Iterator[tuple[str, Callable[[], object]]]:
    """(what, do it) in the order the warm-up runs them; `warm` waits for idle pages before each.

    First the `LIGHT` steps (the imports and cached calls of the Compare page, then of
    Explore), then the tokenizers in the order the Compare page shows them, the special-token
    regexes and the Compare page's default drawing, and last the tokenizers' engines.
    """
    from analysis.tokenizers import available_tokenizers, load_tokenizer
    from analysis.tokenizers.fetch import vocabulary_problems

    yield from LIGHT
    broken = vocabulary_problems()
    names = [n for n in available_tokenizers() if n not in broken]  # what the Compare page offers and shows
    for name in names:
        yield f"tokenizer {name}", functools.partial(load_tokenizer, name)
    yield "special-token regexes and the default drawing", lambda: _after_loading(names)
    for name in names:  # what a tokenizer defers to its first long text: a long paste finds it built
        yield f"engine {name}", functools.partial(_build_engine, name)


def _build_engine(name: str) -> None:
    from analysis.tokenizers import build_engines, load_tokenizer

    build_engines([load_tokenizer(name)])


def _after_loading(names: list[str]) -> None:
    from analysis.compare import special_strings_in
    from analysis.corpora import sample_text
    from analysis.probes.boundaries import boundary_diff, diff_regions
    from analysis.render import highlight_prefix, html_tokens
    from analysis.tokenizers import load_tokenizer
    from dashboards import shared

    text = sample_text()
    toks = [load_tokenizer(n) for n in names]
    special_strings_in(text, toks)
    prefix = highlight_prefix(text)
    drawn = [load_tokenizer(n).pieces(prefix) for n in shared.default_names(names)]
    for ps, other in zip(drawn, drawn[::-1]):  # as the page draws them: each marked against the other
        html_tokens(prefix, ps, others=[other] if len(drawn) == 2 else [])
    if len(drawn) == 2:
        boundary_diff(*drawn)
        diff_regions(prefix, *drawn)


def warm(*, runtime_wait: float = 0.0, freeze: bool = False, step_wait: float = STEP_WAIT_S,
         grace: float = 0.0, quiet: float = 0.0) -> dict:
    """Do the warm-up now, in this thread; returns `status`.

    `runtime_wait`: seconds to wait for streamlit's runtime before importing the pages' shared
    modules, whose cache decorators look for it (and log a warning when there is none yet).
    `freeze`: then move every object alive to the garbage collector's permanent generation
    (the server process only; see `freeze_heap`). `step_wait`: the longest wait, before each
    step, for the page scripts running to end. `grace`: the longest wait for the first page to
    be served before building tokenizers (`FIRST_PAGE_GRACE_S` on the server); `quiet`: how long
    no page may have run before a tokenizer is built (`QUIET_S` on the server).
    """
    t0 = time.perf_counter()
    done_steps: list[str] = []
    status.update(steps=done_steps, error=None)
    _wait_for_runtime(runtime_wait)
    try:
        for what, step in steps():
            heavy = what not in LIGHT_STEPS  # builds hold the interpreter lock; imports let go of it often
            if heavy:
                first_page_done.wait(grace)
            _when_idle(step_wait, quiet if heavy else 0.0)
            try:
                step()
            except Exception as e:  # noqa: BLE001  (the page that needs the broken part names the problem)
                status["error"] = status["error"] or f"{type(e).__name__}: {e}"
                continue  # one broken vocabulary leaves the others to warm up
            done_steps.append(what)
    except Exception as e:  # noqa: BLE001  (listing the names failed: the pages say why)
        status["error"] = status["error"] or f"{type(e).__name__}: {e}"
    status["tokenizers"] = [w.removeprefix("tokenizer ") for w in done_steps if w.startswith("tokenizer ")]
    if freeze:
        freeze_heap()
    status["seconds"] = time.perf_counter() - t0
    done.set()
    return status


def freeze_heap() -> int:
    """Collect once, then leave everything alive now out of all later collections; returns how many objects.

    Streamlit runs a full collection (`gc.collect(2)`) after every script run, and a full
    collection holds the GIL while it walks every tracked object of the process: here the
    imported modules, the loaded tokenizers and pandas, about 170,000 objects. Five sessions
    answering at once waited for five of those in turn, every other thread stopped meanwhile:
    with py-spy sampling only GIL holders (`py-spy record --gil`) it was the largest single
    share of the server's samples (figures: docs/performance.md). What is alive after the
    warm-up lives as long as the server, so the collector need not look at it again; objects
    made later are collected as before, and reference counting frees frozen objects that fall
    out of use (only cycles among them stay).
    """
    import gc

    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def _wait_for_runtime(seconds: float) -> None:
    from streamlit import runtime

    deadline = time.monotonic() + seconds
    while not runtime.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


def _wait_for_listening(seconds: float) -> None:
    """Return once streamlit's server accepts connections on its port (or after `seconds`).

    Until then the warm-up would compete for the interpreter lock with streamlit's own start-up
    (its imports, its server), and the health check would answer only after both: first the
    server, then everything else.
    """
    import socket

    deadline = time.monotonic() + seconds
    _wait_for_runtime(seconds)
    from streamlit import config

    port = int(config.get_option("server.port") or 8501)
    address = config.get_option("server.address") or "127.0.0.1"
    host = "127.0.0.1" if address in ("0.0.0.0", "::", "") else address
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)


class _NotThisThread(logging.Filter):
    """Drops streamlit's "missing ScriptRunContext" warnings of the warm-up thread.

    The warm-up calls the pages' cached functions outside any page, on purpose: each call would
    otherwise log that it has no page ("can be ignored") on every server start.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return record.threadName != THREAD_NAME


def _warm_after_listening(runtime_wait: float) -> None:
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_NotThisThread())
    _wait_for_listening(runtime_wait)
    warm(freeze=True, grace=FIRST_PAGE_GRACE_S, quiet=QUIET_S)


def start(*, runtime_wait: float = 30.0) -> threading.Thread:
    """Run `warm()` in a daemon thread once the server listens; returns the thread."""
    thread = threading.Thread(target=_warm_after_listening, args=(runtime_wait,), name=THREAD_NAME, daemon=True)
    thread.start()
    return thread
