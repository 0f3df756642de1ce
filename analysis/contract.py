"""The JSON contract: how every face writes a count, an amount of money and a ratio.

Unlike `money` (money as people read it, "$1,234.57"), this module writes values
for programs: the CLI's `--format json|csv`, the API's bodies and the report's data files all
pass their numbers through these three functions, so one value has one type everywhere.

- A token count is a JSON integer, never `13.0`.
- Money is US dollars as a decimal string with exactly `MONEY_PLACES` digits after the point,
  rounded half to even from the exact `Decimal` ("0.0000225000"); no price is `null`. Ten places
  keep one token at the cheapest listed rate (a few cents per million tokens) exact.
- A ratio (characters per token, a share, a premium) is a JSON number; an undefined one
  (NaN, infinite) is `null`.
- An exactness is one of `EXACTNESS`; anything but "exact" comes with its reason.

The exactness words are the one vocabulary of the product (the rules, the resolver, the chat
formats, the API schemas and the price files use these names):

- a request's count (`RequestExactness`, `EXACTNESS`, from most to least exact): "exact"
  (rendered token by token), "documented" (a provider's published rule) or "estimate";
- a model's text (`TextExactness`, `TEXT_EXACTNESS`): "exact" (its own vocabulary), "estimate"
  (a proxy tokenizer) or "none" (no tokenizer). Files and filters written before this
  vocabulary said "approximate" for a proxy; `text_exactness` still reads that word.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from numbers import Integral, Real
from typing import Final, Literal, get_args

MONEY_PLACES: Final = 10
_QUANTUM: Final = Decimal(1).scaleb(-MONEY_PLACES)
RequestExactness = Literal["exact", "documented", "estimate"]
TextExactness = Literal["exact", "estimate", "none"]
EXACTNESS: Final[tuple[RequestExactness, ...]] = get_args(RequestExactness)
TEXT_EXACTNESS: Final[tuple[TextExactness, ...]] = get_args(TextExactness)
OLD_ESTIMATE: Final = "approximate"  # the former word for a proxy's estimate: read, never written


def text_exactness(word: object) -> TextExactness | None:
    """`word` as a `TextExactness` ("approximate" is read as "estimate"), or None when it is none of them.

    >>> text_exactness("approximate"), text_exactness("exact"), text_exactness("exactly")
    ('estimate', 'exact', None)
    """
    word = "estimate" if word == OLD_ESTIMATE else word
    return next((w for w in TEXT_EXACTNESS if w == word), None)


def tokens(value: object) -> int:
    """A token count as an int; refuses a fraction or a non-number rather than rounding it away.

    >>> tokens(13.0), tokens(Decimal("7")), tokens(5)
    (13, 7, 5)
    """
    if isinstance(value, bool):
        raise TypeError(f"a token count is a number, not {value!r}")
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, (float, Decimal)) or isinstance(value, Real):
        as_int = int(float(value)) if not isinstance(value, (float, Decimal)) else int(value)
        if as_int != value:
            raise ValueError(f"a token count must be whole, got {value!r}")
        return as_int
    raise TypeError(f"a token count is a number, not {type(value).__name__} {value!r}")


def money(value: Decimal | int | None) -> str | None:
    """US dollars as a fixed-point string with `MONEY_PLACES` decimals; None stays None.

    >>> money(Decimal("303.25")), money(Decimal("1.354166666666666666666666667")), money(None)
    ('303.2500000000', '1.3541666667', None)
    """
    if value is None:
        return None
    if isinstance(value, float):
        raise TypeError("money is computed in Decimal, never float; pass a Decimal")
    try:
        amount = Decimal(value).quantize(_QUANTUM, rounding=ROUND_HALF_EVEN)
    except InvalidOperation as e:
        raise ValueError(f"not an amount of money: {value!r}") from e
    if amount.is_zero():
        amount = abs(amount)  # never "-0.0000000000"
    return f"{amount:f}"


def ratio(value: float | Decimal | int | None) -> float | None:
    """A ratio as a float; NaN, infinities and None become None (JSON `null`).

    >>> ratio(Decimal("4.25")), ratio(float("nan")), ratio(3)
    (4.25, None, 3.0)
    """
    if value is None:
        return None
    out = float(value)
    return out if math.isfinite(out) else None
