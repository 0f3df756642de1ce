"""The one timing helper the benchmarks share."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def median_time(fn: Callable[[int], object], repeat: int = 3) -> float:
    """Median wall time of `repeat` calls; `fn` gets the call's index (0..repeat-1), so a
    benchmark can hand each call a fresh input (e.g. to defeat a cache).

    >>> median_time(lambda i: None, 3) >= 0
    True
    """
    times = []
    for i in range(repeat):
        t0 = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
