"""The one arithmetic of a dollar: what a target would pay for its parts (uncached input, cache read,
cache writes of 5 minutes and 1 hour, visible output, reasoning) at its `Rates`.

Unlike `usage` (what a log billed, priced as billed by genai-prices row by row) and `billed_sum` (the
same, many rows at once), this module prices parts that were counted or *estimated* for a model
(a recount, a simulated cache, carried reasoning). Its three nouns: the `Rates` of one price tier
(`rates_for`: a price, a day, a tier by input size, a batch/service-tier context), the parts, and
`usd(parts, rates)`, the only multiplication of tokens by a price in the code; a workload, a
re-targeted log and the whole bill of a log all call it, in sums: one set of rates per price tier,
so a month of rows is a few multiplications. The rates of a genai-prices price are not read from
genai-prices' fields by hand: each is genai-prices' own `ModelPrice.calc_price` of a probe usage
inside the tier (its price is linear in each part), so a sum priced here equals the sum of
`calc_price` over the rows, cent for cent, with the same variant (`price_context`: batch, a
service tier). A price from the user's file has no such rates: its cache writes pay its
`cache_write` rate (1 hour as 5 minutes, said so), or the input rate.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import numpy as np

from ..errors import BadInput
from ..models import genai
from .prices import MTOK, Price
from .usage import price_context

__all__ = ["PARTS", "NoPriceError", "RequestCost", "Rates", "rates_by_tier", "rates_for", "request_cost",
           "request_usd", "shown_rates", "table_rates", "usd", "usd_by_part", "usd_per_row", "usd_rows"]

# The billed parts of a request, in the order every face lists them.
PARTS = ("input", "cache_read", "cache_write_5m", "cache_write_1h", "output", "reasoning")


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per million tokens of each part in one price tier, and the fee per request."""

    input: Decimal
    cache_read: Decimal
    cache_write_5m: Decimal
    cache_write_1h: Decimal
    output: Decimal | None
    reasoning: Decimal | None
    per_request: Decimal
    source: str

    def rate(self, part: str) -> Decimal | None:
        return getattr(self, part)


def _probe(model_price: object, rep: int) -> Rates:
    """Each part's rate in the tier of a `rep`-token prompt, as genai-prices' calc_price charges it."""
    def usd(**parts: int) -> Decimal:
        return genai.price_of(model_price, **parts)

    fee = usd(input_tokens=0)
    base = usd(input_tokens=rep)

    def per_mtok(total: Decimal, minus: Decimal) -> Decimal:
        rate = ((total - minus) * MTOK / rep).normalize()
        return rate.quantize(Decimal(1)) if rate.as_tuple().exponent > 0 else rate  # type: ignore[operator]

    out = per_mtok(usd(input_tokens=rep, output_tokens=rep), base)
    return Rates(
        input=per_mtok(base, fee),
        cache_read=per_mtok(usd(input_tokens=rep, cache_read_tokens=rep), fee),
        cache_write_5m=per_mtok(usd(input_tokens=rep, cache_write_tokens=rep), fee),
        cache_write_1h=per_mtok(usd(input_tokens=rep, cache_write_tokens=rep, cache_write_1h_tokens=rep), fee),
        output=out,
        reasoning=per_mtok(usd(input_tokens=rep, output_tokens=rep, output_reasoning_tokens=rep), base),
        per_request=fee, source="genai-prices calc_price")


def _tier_sizes(price: Price) -> tuple[int, ...]:
    """A prompt size inside each tier of `price` (1, then one past each tier's start): the tiers of
    `targets.Target.starts`, which keys the sums by them."""
    rates = (price.input, price.cached_input, price.output)
    starts = sorted({s for r in rates if r is not None for s, _ in r.tiers})
    return (1, *(s + 1 for s in starts))


@functools.lru_cache(maxsize=512)
def rates_by_tier(price: Price, on: date, *, batch: bool = False, service_tier: str | None = None
               ) -> tuple[Rates, ...]:
    """The part rates of `price` on `on`, one `Rates` per tier (the tiers of `Target.starts`).

    Raises:
        BadInput: `batch` or `service_tier` for a model genai-prices has no such price for.

    >>> from analysis.cost.prices import get_price
    >>> r = rates_by_tier(get_price("claude-sonnet-4-5", on=date(2026, 12, 1)), date(2026, 12, 1))[0]
    >>> (r.input, r.cache_read, r.cache_write_5m, r.cache_write_1h, r.output)
    (Decimal('3'), Decimal('0.3'), Decimal('3.75'), Decimal('6'), Decimal('15'))
    """
    sizes = _tier_sizes(price)
    context = price_context(batch=batch, service_tier=service_tier)
    if price.source.startswith("genai-prices"):
        from .prices.lookup import model_price_on

        model_price = model_price_on(price, on, context)
        return tuple(_probe(model_price, n) for n in sizes)
    if context:
        from .prices.lookup import model_price_on

        model_price_on(price, on, context)  # raises: a price file has no variants
    out = []
    for n in sizes:
        r_in = price.input.for_request(n) if price.input is not None else Decimal(0)
        write = price.cache_write.for_request(n) if price.cache_write is not None else r_in
        r_out = price.output.for_request(n) if price.output is not None else None
        out.append(Rates(r_in, price.cached_input.for_request(n) if price.cached_input is not None else r_in,
                             write, write, r_out, r_out, price.per_request or Decimal(0),
                             f"{price.source}: a 1-hour cache write is priced as a 5-minute one"))
    return tuple(out)


def rates_for(price: Price, on: date, prompt_tokens: int | Decimal, *, batch: bool = False,
              service_tier: str | None = None) -> Rates:
    """The part rates of a request of `prompt_tokens` input tokens (its tier, as `Rate.for_request`
    chooses it: above a tier's start).

    >>> from analysis.cost.prices import get_price
    >>> rates_for(get_price("gpt-4.1-mini", on=date(2026, 12, 1)), date(2026, 12, 1), 500, batch=True).input
    Decimal('0.2')
    """
    sizes = _tier_sizes(price)
    tiers = rates_by_tier(price, on, batch=batch, service_tier=service_tier)
    return tiers[sum(1 for s in sizes[1:] if prompt_tokens >= s)]


class NoPriceError(BadInput):
    """The price data has no price for a part of the request (shown as "no price", never $0)."""


def shown_rates(price: Price, on: date, *, batch: bool = False, service_tier: str | None = None
                ) -> tuple[Decimal | None, Decimal | None, Decimal | None]:
    """(input, cached input, output) $/Mtok of `price`'s first tier as a table shows them: the batch or
    service-tier rates when those are asked for and the price has them, else its standard rates.

    >>> from analysis.cost.prices import get_price
    >>> p = get_price("gpt-4.1-mini", on=date(2026, 12, 1))
    >>> shown_rates(p, date(2026, 12, 1))[0], shown_rates(p, date(2026, 12, 1), batch=True)[0]
    (Decimal('0.4'), Decimal('0.2'))
    """
    standard = (price.input.base if price.input else None, price.cached_input.base if price.cached_input else None,
                price.output.base if price.output else None)
    if not (batch or service_tier) or price.input is None:
        return standard
    try:
        r = rates_for(price, on, 0, batch=batch, service_tier=service_tier)
    except BadInput:  # no such variant (NoPriceError among them): the row's status says so, and it has no cost
        return standard
    return r.input, r.cache_read if price.cached_input is not None else None, r.output


def table_rates(price: Price, input_tokens: Decimal | int) -> Rates:
    """The `Rates` a price's own table charges a request of `input_tokens` input tokens (cached
    included; the tier `Rate.for_request` chooses): the rates of a `Price` as read, for a recount
    at standard prices (`rates_for` gives genai-prices' own, per context).

    Without a cached-input price, cached tokens pay the input price (no discount is invented);
    without an output price, output and reasoning have no rate (`usd` says None for them).

    Raises:
        NoPriceError: the price has no input price.

    >>> from analysis.cost.prices import Rate
    >>> r = table_rates(Price("x", "m", input=Rate(Decimal("3"), ((200_000, Decimal("6")),)), output=None), 250_000)
    >>> r.input, r.cache_read, r.output
    (Decimal('6'), Decimal('6'), None)
    """
    if price.input is None:
        raise NoPriceError(f"{price.key}: no input price in {price.source or 'the price data'}")
    r_in = price.input.for_request(input_tokens)
    r_cached = price.cached_input.for_request(input_tokens) if price.cached_input is not None else r_in
    write = price.cache_write.for_request(input_tokens) if price.cache_write is not None else r_in
    r_out = price.output.for_request(input_tokens) if price.output is not None else None
    return Rates(r_in, r_cached, write, write, r_out, r_out, price.per_request or Decimal(0), price.source)


def usd_by_part(tokens: Mapping[str, Decimal | int], rates: Rates, *, per: Decimal = MTOK
                ) -> dict[str, Decimal | None]:
    """Each part's USD: its tokens times its rate per million, the one multiplication of a dollar
    (None for a part with tokens and no rate: output on a model without an output price). `per=1`
    gives the products before the division by a million (`usd(..., summed=True)`)."""
    out: dict[str, Decimal | None] = {}
    for part, n in tokens.items():
        rate = rates.rate(part)
        if rate is None and n:
            out[part] = None
        else:  # no tokens at no rate: zero, with the places of its tokens
            out[part] = Decimal(n) * (rate if rate is not None else _ZERO) / per
    return out


_ZERO = Decimal(0)


def usd(tokens: Mapping[str, Decimal | int], rates: Rates, requests: int = 0, *, summed: bool = False
        ) -> Decimal | None:
    """The USD of `tokens` (part -> tokens, the parts of `PARTS`) of `requests` requests at `rates`;
    None when a part with tokens has no price (output on a model without an output price).

    The value is the same either way; `summed` adds the parts' products before dividing by a
    million, which gives the sum the places the text-only recount of a log has always printed (a
    Decimal keeps its places, and the reports' four significant digits show them).

    >>> r = Rates(*(Decimal(x) for x in ("3", "0.3", "3.75", "6", "15", "15", "0")), source="")
    >>> usd({"input": 1000, "cache_read": 2000, "output": 100}, r, 2)
    Decimal('0.0051')
    """
    # summed: every part, as written (a part of no tokens still gives the sum its places)
    by_part = usd_by_part(tokens if summed else {k: n for k, n in tokens.items() if n}, rates,
                          per=Decimal(1) if summed else MTOK)
    values = [v for v in by_part.values() if v is not None]
    if len(values) < len(by_part):
        return None
    if summed:
        return sum(values, Decimal(0)) / MTOK + rates.per_request * requests
    total = rates.per_request * requests
    for value in values:
        total += value
    return total


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


def request_usd(rates: Rates, *, input_tokens: Decimal | int, output_tokens: Decimal | int,
                cached_share: Decimal = Decimal(0)) -> RequestCost:
    """One request at `rates`: uncached input, cached input and output priced apart by `usd_by_part`."""
    n_in, n_out = Decimal(input_tokens), Decimal(output_tokens)
    cached = n_in * cached_share
    by_part = usd_by_part({"input": n_in - cached, "cache_read": cached, "output": n_out}, rates)
    usd_in, usd_cached, usd_out = (Decimal(0) if v is None else v for v in by_part.values())
    return RequestCost(n_in, cached, n_out, usd_in, usd_cached, usd_out, rates.per_request)


def request_cost(price: Price, *, input_tokens: Decimal | int, output_tokens: Decimal | int,
                 cached_share: Decimal = Decimal(0)) -> RequestCost:
    """Cost of one request at a price's own table (`table_rates`): uncached input, cached input and output.

    Raises:
        NoPriceError: the price has no input price, or no output price while output_tokens > 0.

    >>> from analysis.cost.prices import Rate
    >>> p = Price("x", "m", input=Rate(Decimal("2")), output=Rate(Decimal("8")), cached_input=Rate(Decimal("0.5")))
    >>> request_cost(p, input_tokens=1000, output_tokens=100, cached_share=Decimal("0.4")).usd_total
    Decimal('0.0022')
    """
    if price.input is None:
        raise NoPriceError(f"{price.key}: no input price in {price.source or 'the price data'}")
    if price.output is None and Decimal(output_tokens) > 0:
        raise NoPriceError(f"{price.key}: no output price in {price.source or 'the price data'}")
    return request_usd(table_rates(price, Decimal(input_tokens)), input_tokens=input_tokens,
                       output_tokens=output_tokens, cached_share=cached_share)


def usd_rows(cols: np.ndarray, tiers: np.ndarray, rates: Sequence[Rates]) -> np.ndarray:
    """Each row's USD as float64, for percentiles only (totals are `usd`'s exact Decimals): `usd` over
    a (rows, 6) array of the `PARTS`' tokens, a row's tier choosing its `Rates`; NaN where a part with
    tokens has no rate."""
    table = np.asarray([[float(x) if (x := r.rate(p)) is not None else np.nan for p in PARTS] + [float(r.per_request)]
                        for r in rates])[tiers]
    with np.errstate(invalid="ignore"):
        return np.where(cols > 0, cols * table[:, :6], 0.0).sum(axis=1) / 1e6 + table[:, 6]


def usd_per_row(n_in: np.ndarray, n_out: np.ndarray, cached_share: float, tier: np.ndarray,
                rates: Sequence[Rates], has_output: bool) -> np.ndarray:
    """Each row's USD as float64, for percentiles only (totals are `usd`'s exact Decimals): `usd`'s
    arithmetic over arrays, a row's tier choosing its `Rates`."""
    table = np.asarray([[float(r.input), float(r.cache_read), float(r.output or 0)] for r in rates])
    r_in, r_cached = table[tier, 0], table[tier, 1]
    r_out = table[tier, 2] if has_output else np.full(len(n_in), np.nan)
    share = cached_share
    usd_ = (n_in * (1 - share) * r_in + n_in * share * r_cached) / 1e6 + np.where(n_out > 0, n_out * r_out / 1e6, 0.0)
    return usd_ + float(rates[0].per_request)
