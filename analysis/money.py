"""Money as people read it: one `Decimal` amount rounded to a string, or "no price".

Unlike `contract` (money for programs: a fixed-point string of every digit), this module formats
one amount for a reader, and is the only place where money is rounded: every computation before
it is exact `Decimal`. It sits below `cost` and `report`, which both show money.
"""

from __future__ import annotations

from decimal import Decimal


def format_usd(value: Decimal | None) -> str:
    """Money for display only: "no price" for None; 2 decimals from $1, 4 significant digits below.

    >>> format_usd(Decimal("1234.5678")), format_usd(Decimal("0.000123456")), format_usd(None)
    ('$1,234.57', '$0.0001235', 'no price')
    >>> format_usd(Decimal("0.000088")), format_usd(Decimal("0.00000012345"))
    ('$0.00008800', '$0.0000001234')
    """
    if value is None or (isinstance(value, float) and value != value):
        return "no price"
    if value == 0:
        return "$0"
    if abs(value) >= 1:
        return f"${value:,.2f}"
    if abs(value) >= Decimal("1e-4"):
        return f"${value:.4g}"
    # plain decimals, never scientific notation: 4 significant digits after the leading zeros
    digits = -Decimal(abs(value)).adjusted() + 3
    return f"${value:.{digits}f}"
