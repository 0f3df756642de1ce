"""Numbers as they arrive in text: argparse types for the knobs of a run, and bounded ASCII digits.

Unlike `cost.to_decimal` (a workload's values, shared with the dashboard), these are the knobs of
a run (worker counts, time-outs, megabytes) and the sizes a flag, a header or an offset gives
(`ascii_whole`, `ascii_seconds`). A knob is parsed as a Decimal first, so a typed 1e-999999999 or
1e999999999 is refused by its size instead of rounding to 0 or inf. A size is read only from
ASCII digits, with a limit on their number, so "inf", "nan", "²", "١٠" and "1_000" (which
Python's `int` and `float` take, or which `str.isdigit` calls digits) are refused by name before
any conversion, and no conversion meets the 4,300-digit limit of `int`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, InvalidOperation

from ..errors import BadInput, shown


def compact_number(value: Decimal | float | int, *, digits: int = 15) -> str:
    """A number in at most about 25 characters, whatever it is: plain digits with thousands
    separators when it has a modest exponent and few digits, else scientific notation rounded
    to `digits` significant digits.

    >>> compact_number(Decimal("1e6")), compact_number(Decimal("0.25")), compact_number(1e-320)
    ('1,000,000', '0.25', '1e-320')
    >>> compact_number(Decimal("1e-999999999")), compact_number(Decimal("1." + "0" * 40 + "1"))
    ('1e-999999999', '1')
    """
    d = value if isinstance(value, Decimal) else Decimal(repr(value) if isinstance(value, float) else value)
    if not d.is_finite() or d == 0:
        return str(d) if not d.is_finite() else "0"
    short = d.normalize(Context(prec=digits, Emin=MIN_EMIN, Emax=MAX_EMAX))
    if -9 <= short.adjusted() <= 15:
        return f"{short:,f}"
    return f"{short:e}".replace("e+", "e")


# A number above 0 is at least this: 1e-999999999 would read as 0.0, and 5e-324 is a denormal.
SMALLEST = Decimal("1e-9")


def bounded(low: float, high: float, *, integer: bool = False, unit: str = "") -> Callable[[str], float | int]:
    """An argparse type accepting numbers from `low` to `high` (whole numbers with `integer`);
    a number above 0 is at least `SMALLEST`.

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
    what = f"{'a whole number ' if integer else ''}from {compact_number(low)} to {compact_number(high)}"
    what += f" {unit}" if unit else ""

    def parse(text: str) -> float | int:
        shown = text if len(text) <= 40 else text[:37] + "..."
        try:
            d = Decimal(text.strip())
        except InvalidOperation:
            raise argparse.ArgumentTypeError(f"must be {what}, got {shown!r}") from None
        if not d.is_finite() or not Decimal(repr(low)) <= d <= Decimal(repr(high)) or (integer and d != d.to_integral_value()):
            raise argparse.ArgumentTypeError(f"must be {what}, got {shown!r}")
        if 0 < d.copy_abs() < SMALLEST:  # copy_abs: abs() would round 1e-999999999 to 0 in the context
            raise argparse.ArgumentTypeError(f"must be 0 or at least {SMALLEST:f}, got {shown!r}")
        return int(d) if integer else float(d)

    parse.__name__ = "number"
    return parse


WORKERS = bounded(1, 4096, integer=True, unit="processes")
TIMEOUT = bounded(0.1, 3600, unit="seconds")
MEGABYTES = bounded(0.001, 10_000_000, unit="MB")
PERCENT = bounded(0, 1_000_000, unit="percent")


MAX_DIGITS = 18  # the most digits of a size (below 2**63): none the caps allow needs more
_WHOLE = re.compile(r"[0-9]{1,%d}" % MAX_DIGITS, re.ASCII)
_SECONDS = re.compile(r"([0-9]{1,%d})(?:\.([0-9]{1,9}))?s?" % MAX_DIGITS, re.ASCII)


def _refusal(what: str, text: str, expected: str) -> str:
    return f"{what} must be {expected}, got {shown(text, 40)}"


def ascii_whole(text: str, what: str, *, top: int) -> int:
    """A whole number from 1 to `top` written in ASCII digits (at most `MAX_DIGITS`).

    >>> ascii_whole("1024", "width", top=100_000)
    1024
    >>> ascii_whole("²", "width", top=100_000)
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: width must be a whole number from 1 to 100,000 in ASCII digits, got '²'

    Raises:
        BadInput: anything else, naming `what`, the range and the value (cut to 40 characters).
    """
    expected = f"a whole number from 1 to {top:,} in ASCII digits"
    if not _WHOLE.fullmatch(text):
        raise BadInput(_refusal(what, text, expected))
    n = int(text)
    if not 1 <= n <= top:
        raise BadInput(_refusal(what, text, expected))
    return n


def ascii_seconds(text: str, what: str, *, top: float) -> float:
    """A protobuf Duration in JSON ("12.5s") or plain seconds ("12.5"): ASCII digits, at most
    nine after the point, from 0 to `top`.

    >>> ascii_seconds("12.5s", "endOffset", top=60)
    12.5
    >>> ascii_seconds("infs", "endOffset", top=60)
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: endOffset must be a duration such as "12.5s" from 0 to 60 seconds, got 'infs'

    Raises:
        BadInput: anything else, naming `what`, the range and the value.
    """
    expected = f'a duration such as "12.5s" from 0 to {top:,g} seconds'
    m = _SECONDS.fullmatch(text)
    if not m:
        raise BadInput(_refusal(what, text, expected))
    value = int(m.group(1)) + (int(m.group(2)) / 10 ** len(m.group(2)) if m.group(2) else 0.0)
    if value > top:
        raise BadInput(_refusal(what, text, expected))
    return value
