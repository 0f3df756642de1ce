"""The garbage collector held quiet for the length of one bulk run (pricing a log), then restored.

Unlike `api.runtime` (a server that freezes its vocabularies once and keeps Python's collector
otherwise as it is), this module serves a run that makes millions of short-lived containers (each
row's parsed JSON, its request, its counts) beside millions of long-lived objects loaded before it
(vocabularies, price data, formats). With Python's defaults, a young collection runs every 700
new containers, and every full collection walks the whole long-lived heap again. Here:

* what is loaded when the run starts is frozen (`gc.freeze`): moved out of the collector's reach,
  so no collection walks it (and forked workers share its pages instead of copying them);
* young collections run every `YOUNG` new containers, and the older generations' ratios are
  raised to match, so a chunk's rows, alive until the chunk is priced, are not walked again and
  again while they are.

Cyclic garbage is still collected, only in fewer, larger passes. On leaving, the thresholds are
restored and the frozen objects given back to the collector, so a host process (a test, a
notebook) keeps its own settings. Workers forked during the run inherit both settings.

It stays because it pays in the collector's own CPU, measured per collection in every process of a
run (`python -m tests.benchmarks.gc_probe`; the figures are in docs/performance.md, issue 54): a
whole-run A/B moves by more than the collector's share on a shared host.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 20_000  # new containers between young collections (Python's default: 700)
OLDER = 20  # young collections per middle one, and middle ones per full one (defaults: 10 and 10)


@contextmanager
def quiet_collector() -> Iterator[None]:
    """Freeze what is alive now and collect less often until the block ends; then restore both.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> with quiet_collector():
    ...     gc.get_threshold() == (YOUNG, OLDER, OLDER), gc.get_freeze_count() > 0
    (True, True)
    >>> gc.get_threshold() == before
    True
    """
    thresholds = gc.get_threshold()
    gc.collect()  # what is garbage already is not frozen with the rest
    gc.freeze()
    gc.set_threshold(YOUNG, OLDER, OLDER)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
