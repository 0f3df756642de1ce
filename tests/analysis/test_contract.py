"""The JSON contract's three writers: whole counts, fixed-point money, finite ratios."""

from decimal import Decimal

import pytest

from analysis.contract import MONEY_PLACES, money, ratio, tokens


def test_money_has_the_fixed_number_of_places() -> None:
    for value in (Decimal("303.25"), Decimal("0.0000000375"), Decimal(0), Decimal("1e-30"), 7):
        text = money(value)
        assert text is not None
        assert len(text.partition(".")[2]) == MONEY_PLACES


def test_money_rounds_half_to_even_and_never_prints_minus_zero() -> None:
    assert money(Decimal("0.00000000005")) == "0.0000000000"
    assert money(Decimal("0.00000000015")) == "0.0000000002"
    assert money(Decimal("-1e-30")) == "0.0000000000"


def test_money_refuses_float() -> None:
    with pytest.raises(TypeError, match="Decimal"):
        money(0.1)  # type: ignore[arg-type]


def test_tokens_are_ints_and_fractions_are_refused() -> None:
    assert type(tokens(13.0)) is int
    assert type(tokens(Decimal(4))) is int
    with pytest.raises(ValueError, match="whole"):
        tokens(2.5)
    with pytest.raises(TypeError):
        tokens("3")
    with pytest.raises(TypeError):
        tokens(True)


def test_ratio_is_a_float_or_null() -> None:
    assert ratio(Decimal("4.25")) == 4.25
    assert ratio(float("inf")) is None
    assert ratio(None) is None
