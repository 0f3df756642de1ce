"""The bounded reader of a typed number: both bounds checked, a refusal naming the range.

Unlike `cost.to_decimal` (a workload's values), this reads the knobs of a run: worker counts,
time-outs, megabytes, a vocabulary size. The CLI's flags (`cli.numbers.bounded`, as argparse
types) and the dashboard's fields (`dashboards.fields`) read their numbers here, so the same text
gets the same answer on both faces. A value is parsed as a Decimal first, so a typed
1e-999999999 or 1e999999999 is refused by its size instead of rounding to 0 or inf.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from ..errors import BadInput
from ..render import compact_number

# A number above 0 is at least this: 1e-999999999 would read as 0.0, and 5e-324 is a denormal.
SMALLEST = Decimal("1e-9")


def number_reader(low: float, high: float, *, integer: bool = False, unit: str = "") -> Callable[[str], float | int]:
    """A reader of numbers from `low` to `high` (whole numbers with `integer`); BadInput otherwise.

    >>> number_reader(257, 8192, integer=True, unit="tokens")("1e999")
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: must be a whole number from 257 to 8,192 tokens, got '1e999'
    """
    what = f"{'a whole number ' if integer else ''}from {compact_number(low)} to {compact_number(high)}"
    what += f" {unit}" if unit else ""

    def read(text: str) -> float | int:
        shown = text if len(text) <= 40 else text[:37] + "..."
        try:
            d = Decimal(text.strip())
        except InvalidOperation:
            raise BadInput(f"must be {what}, got {shown!r}") from None
        if not d.is_finite() or not Decimal(repr(low)) <= d <= Decimal(repr(high)) or (integer and d != d.to_integral_value()):
            raise BadInput(f"must be {what}, got {shown!r}")
        if 0 < d.copy_abs() < SMALLEST:  # copy_abs: abs() would round 1e-999999999 to 0 in the context
            raise BadInput(f"must be 0 or at least {SMALLEST:f}, got {shown!r}")
        return int(d) if integer else float(d)

    return read
