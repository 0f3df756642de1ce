"""The one multiplication of cost: tokens times the rates a price charges, in `Decimal` USD.

Unlike `prices` (what a model charges and who says so) and the callers that decide which
tokens a request has (`workloads`: texts under an assumed workload; `logs`: logged traffic),
this module only answers "which rates apply to a request of this size" (`tier_rates`) and
"what do these tokens cost at those rates" (`request_cost`). Both the workload estimate and
the pricing of logs choose their rates here, so a tier or a missing cached-input price means
the same thing everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .prices import MTOK, Price
from ..errors import BadInput


class NoPriceError(BadInput):
    """The price data has no price for a part of the request (shown as "no price", never $0)."""


def tier_rates(price: Price, input_tokens: Decimal | int) -> tuple[Decimal, Decimal, Decimal]:
    """(input, cached input, output) USD per million tokens for a request with `input_tokens` input tokens.

    The tier of a tiered price is chosen from the request's input tokens (cached included).
    Without a cached-input price, cached tokens pay the input price (no discount is invented);
    without an output price the output rate is 0, and the caller decides whether that is "no price".

    Raises:
        NoPriceError: the price has no input price.

    >>> from analysis.cost.prices import Rate
    >>> tier_rates(Price("x", "m", input=Rate(Decimal("3"), ((200_000, Decimal("6")),)), output=None), 250_000)
    (Decimal('6'), Decimal('6'), Decimal('0'))
    """
    if price.input is None:
        raise NoPriceError(f"{price.key}: no input price in {price.source or 'the price data'}")
    rate_in = price.input.for_request(input_tokens)
    rate_cached = price.cached_input.for_request(input_tokens) if price.cached_input is not None else rate_in
    rate_out = price.output.for_request(input_tokens) if price.output is not None else Decimal(0)
    return rate_in, rate_cached, rate_out


@dataclass(frozen=True, slots=True)
class RequestCost:
    """One request's tokens and dollars; input_tokens include the cached ones."""

    input_tokens: Decimal
    cached_tokens: Decimal
    output_tokens: Decimal
    usd_input: Decimal  # the uncached part
    usd_cached_input: Decimal
    usd_output: Decimal
    usd_fee: Decimal

    @property
    def usd_total(self) -> Decimal:
        return self.usd_input + self.usd_cached_input + self.usd_output + self.usd_fee


def request_cost(price: Price, *, input_tokens: Decimal | int, output_tokens: Decimal | int,
                 cached_share: Decimal = Decimal(0)) -> RequestCost:
    """Cost of one request: uncached input, cached input and output priced separately (see `tier_rates`).

    Raises:
        NoPriceError: the price has no input price, or no output price while output_tokens > 0.

    >>> from analysis.cost.prices import Rate
    >>> p = Price("x", "m", input=Rate(Decimal("2")), output=Rate(Decimal("8")), cached_input=Rate(Decimal("0.5")))
    >>> request_cost(p, input_tokens=1000, output_tokens=100, cached_share=Decimal("0.4")).usd_total
    Decimal('0.0022')
    """
    n_in, n_out = Decimal(input_tokens), Decimal(output_tokens)
    if price.input is None:
        raise NoPriceError(f"{price.key}: no input price in {price.source or 'the price data'}")
    if price.output is None and n_out > 0:
        raise NoPriceError(f"{price.key}: no output price in {price.source or 'the price data'}")
    cached = n_in * cached_share
    rate_in, rate_cached, rate_out = tier_rates(price, n_in)
    return RequestCost(n_in, cached, n_out, (n_in - cached) * rate_in / MTOK, cached * rate_cached / MTOK,
                       n_out * rate_out / MTOK, price.per_request or Decimal(0))
