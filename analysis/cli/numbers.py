"""argparse types for the numbers a flag takes: each has both bounds, and a refusal names the range.

Unlike `cost.to_decimal` (a workload's values, shared with the dashboard), these are the knobs of
a run: worker counts, time-outs, megabytes. A value is parsed as a Decimal first, so a typed
1e-999999999 or 1e999999999 is refused by its size instead of rounding to 0 or inf.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..textio.numbers import SMALLEST as SMALLEST, number_reader


def bounded(low: float, high: float, *, integer: bool = False, unit: str = "") -> Callable[[str], float | int]:
    """An argparse type accepting numbers from `low` to `high` (whole numbers with `integer`);
    a number above 0 is at least `SMALLEST`. The reading is `textio.numbers.number_reader`'s,
    shared with the dashboard.

    >>> bounded(1, 64, integer=True)("8")
    8
    >>> bounded(0, 100)("1e-999999999")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be 0 or at least 0.000000001, got '1e-999999999'
    >>> bounded(0.1, 3600, unit="seconds")("1e-320")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be from 0.1 to 3,600 seconds, got '1e-320'
    """
    read = number_reader(low, high, integer=integer, unit=unit)

    def parse(text: str) -> float | int:
        try:
            return read(text)
        except ValueError as e:  # BadInput: argparse names the flag before it
            raise argparse.ArgumentTypeError(str(e)) from None

    parse.__name__ = "number"
    return parse


WORKERS = bounded(1, 4096, integer=True, unit="processes")
TIMEOUT = bounded(0.1, 3600, unit="seconds")
MEGABYTES = bounded(0.001, 10_000_000, unit="MB")
PERCENT = bounded(0, 1_000_000, unit="percent")
