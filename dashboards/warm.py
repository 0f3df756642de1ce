"""Warm-up of a freshly started dashboard server: everything the first paste would otherwise pay for.

Unlike `analysis.tokenizers.warm_up` (vocabularies only), this runs, once per server process and
in a background thread, what the Compare page does for a text, on the page's own sample text:

* imports the modules the pages need (pandas, altair, the cost tables, plots...: about a
  second of imports that the first script run would otherwise do while the reader waits);
* loads every offered tokenizer, side by side;
* counts, looks for special-token strings (compiling one large regex per tokenizer, e.g. the
  1,090 special tokens of o200k_harmony), draws and diffs token boundaries.

It starts once the server listens, so the health check answers first; the tokenizers load
from the data dir's rank cache (`analysis.tokenizers.rank_cache`), side by side. The results
are thrown away: what stays is the imported modules, the loaded adapters and the compiled
regexes, all shared by every session. Errors are left to the page that meets them,
which shows them with their fix.
"""

from __future__ import annotations

import threading
import time

# Filled by `warm()`: when it finished, how long it took, and the first error (if any).
status: dict = {}
done = threading.Event()


def warm(*, runtime_wait: float = 0.0, freeze: bool = False) -> dict:
    """Do the warm-up now, in this thread; returns `status`.

    `runtime_wait`: seconds to wait for streamlit's runtime before importing the pages' shared
    module, whose cache decorators look for it (and log a warning when there is none yet).
    `freeze`: then move every object alive to the garbage collector's permanent generation
    (the server process only; see `freeze_heap`).
    """
    t0 = time.perf_counter()
    try:
        from analysis.compare import compare, special_strings_in
        from analysis.corpora import sample_text
        from analysis.probes.boundaries import boundary_diff, diff_regions
        from analysis.render import highlight_prefix, html_tokens
        from analysis.tokenizers import available_tokenizers, load_tokenizer, load_tokenizers
        from analysis.tokenizers.fetch import vocabulary_problems

        broken = vocabulary_problems()
        names = [n for n in available_tokenizers() if n not in broken]  # what the Compare page offers
        toks = load_tokenizers(names)
        text = sample_text()
        compare(text, toks)
        special_strings_in(text, toks)
        prefix = highlight_prefix(text)
        _wait_for_runtime(runtime_wait)
        from dashboards import links, shared  # noqa: F401  (the pages' imports: pandas, altair, cost, plots)

        drawn = [load_tokenizer(n).pieces(prefix) for n in shared.default_names(names)]
        for ps, other in zip(drawn, drawn[::-1]):  # as the page draws them: each marked against the other
            html_tokens(prefix, ps, other=other if len(drawn) == 2 else None)
        if len(drawn) == 2:
            boundary_diff(*drawn)
            diff_regions(prefix, *drawn)
        status.update(tokenizers=names, error=None)
    except Exception as e:  # noqa: BLE001  (the page that needs the broken part names the problem)
        status.update(error=f"{type(e).__name__}: {e}")
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


def _warm_after_listening(runtime_wait: float) -> None:
    _wait_for_listening(runtime_wait)
    warm(freeze=True)


def start(*, runtime_wait: float = 30.0) -> threading.Thread:
    """Run `warm()` in a daemon thread once the server listens; returns the thread."""
    thread = threading.Thread(target=_warm_after_listening, args=(runtime_wait,), name="tokenprism-dashboard-warm-up",
                              daemon=True)
    thread.start()
    return thread
