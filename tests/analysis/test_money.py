"""`cost.display.money`: amounts rounded for people, never a small cost shown as zero."""

from __future__ import annotations

from decimal import Decimal

from analysis.money import format_usd


def test_format_usd_never_hides_small_costs_as_zero():
    assert format_usd(Decimal("0.00001")) != "$0.00"
    assert format_usd(Decimal("1234.567")) == "$1,234.57"
    assert format_usd(Decimal(0)) == "$0"
