"""A target model's whole bill from its parts: uncached input, cache read, cache writes (5 minutes
and 1 hour), visible output and reasoning, each at the rate genai-prices' `calc_price` charges.

Unlike `arithmetic` (input, cached input and output at a `Price`'s three rates, the text-only
recount) and `usage` (one logged response priced as it was billed), this module prices parts
that were *estimated* for a model (a simulated cache, carried reasoning), in sums: one set of
rates per price tier, so a month of rows is a few multiplications. The rates are not read from
genai-prices' fields by hand: each is genai-prices' own `ModelPrice.calc_price` of a probe usage
inside the tier (its price is linear in each part), so a sum priced here equals the sum of
`calc_price` over the rows, cent for cent, with the same variant (`price_context`: batch, a
service tier). A price from the user's file has no such rates: its cache writes pay its
`cache_write` rate (1 hour as 5 minutes, said so), or the input rate.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from .prices import MTOK, Price
from .usage import price_context
from .arithmetic import NoPriceError
from ..errors import BadInput

__all__ = ["PARTS", "PartRates", "part_rates", "parts_usd", "rates_for"]

# The billed parts of a request, in the order every face lists them.
PARTS = ("input", "cache_read", "cache_write_5m", "cache_write_1h", "output", "reasoning")


@dataclass(frozen=True, slots=True)
class PartRates:
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


def _probe(model_price: object, rep: int) -> PartRates:
    """Each part's rate in the tier of a `rep`-token prompt, as genai-prices' calc_price charges it."""
    from genai_prices import Usage

    def usd(**parts: int) -> Decimal:
        return Decimal(model_price.calc_price(Usage(**parts))["total_price"])  # type: ignore[attr-defined]

    fee = usd(input_tokens=0)
    base = usd(input_tokens=rep)

    def per_mtok(total: Decimal, minus: Decimal) -> Decimal:
        rate = ((total - minus) * MTOK / rep).normalize()
        return rate.quantize(Decimal(1)) if rate.as_tuple().exponent > 0 else rate  # type: ignore[operator]

    out = per_mtok(usd(input_tokens=rep, output_tokens=rep), base)
    return PartRates(
        input=per_mtok(base, fee),
        cache_read=per_mtok(usd(input_tokens=rep, cache_read_tokens=rep), fee),
        cache_write_5m=per_mtok(usd(input_tokens=rep, cache_write_tokens=rep), fee),
        cache_write_1h=per_mtok(usd(input_tokens=rep, cache_write_tokens=rep, cache_write_1h_tokens=rep), fee),
        output=out,
        reasoning=per_mtok(usd(input_tokens=rep, output_tokens=rep, output_reasoning_tokens=rep), base),
        per_request=fee, source="genai-prices calc_price")


def _tier_sizes(price: Price) -> tuple[int, ...]:
    """A prompt size inside each tier of `price` (1, then one past each tier's start): the tiers of
    `logs.chunk_sums.Target.starts`, which keys the sums by them."""
    rates = (price.input, price.cached_input, price.output)
    starts = sorted({s for r in rates if r is not None for s, _ in r.tiers})
    return (1, *(s + 1 for s in starts))


@functools.lru_cache(maxsize=512)
def part_rates(price: Price, on: date, *, batch: bool = False, service_tier: str | None = None
               ) -> tuple[PartRates, ...]:
    """The part rates of `price` on `on`, one `PartRates` per tier (the tiers of `Target.starts`).

    Raises:
        BadInput: `batch` or `service_tier` for a model genai-prices has no such price for.

    >>> from analysis.cost.prices import get_price
    >>> r = part_rates(get_price("claude-sonnet-4-5", on=date(2026, 12, 1)), date(2026, 12, 1))[0]
    >>> (r.input, r.cache_read, r.cache_write_5m, r.cache_write_1h, r.output)
    (Decimal('3'), Decimal('0.3'), Decimal('3.75'), Decimal('6'), Decimal('15'))
    """
    sizes = _tier_sizes(price)
    context = price_context(batch=batch, service_tier=service_tier)
    if price.source.startswith("genai-prices"):
        from .prices.genai_prices import model_price_on

        model_price = model_price_on(price, on, context)
        return tuple(_probe(model_price, n) for n in sizes)
    if context:
        from .prices.genai_prices import model_price_on

        model_price_on(price, on, context)  # raises: a price file has no variants
    out = []
    for n in sizes:
        r_in = price.input.for_request(n) if price.input is not None else Decimal(0)
        write = price.cache_write.for_request(n) if price.cache_write is not None else r_in
        r_out = price.output.for_request(n) if price.output is not None else None
        out.append(PartRates(r_in, price.cached_input.for_request(n) if price.cached_input is not None else r_in,
                             write, write, r_out, r_out, price.per_request or Decimal(0),
                             f"{price.source}: a 1-hour cache write is priced as a 5-minute one"))
    return tuple(out)


def rates_for(price: Price, on: date, prompt_tokens: int | Decimal, *, batch: bool = False,
              service_tier: str | None = None) -> PartRates:
    """The part rates of a request of `prompt_tokens` input tokens (its tier, as `Rate.for_request`
    chooses it: above a tier's start).

    >>> from analysis.cost.prices import get_price
    >>> rates_for(get_price("gpt-4.1-mini", on=date(2026, 12, 1)), date(2026, 12, 1), 500, batch=True).input
    Decimal('0.2')
    """
    sizes = _tier_sizes(price)
    tiers = part_rates(price, on, batch=batch, service_tier=service_tier)
    return tiers[sum(1 for s in sizes[1:] if prompt_tokens >= s)]


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
    except (BadInput, NoPriceError):  # no such variant: the row's status says so, and it has no cost
        return standard
    return r.input, r.cache_read if price.cached_input is not None else None, r.output


def parts_usd(rates: PartRates, tokens: Mapping[str, Decimal | int], requests: int) -> Decimal | None:
    """The USD of `tokens` (part -> tokens, the parts of `PARTS`) of `requests` requests at `rates`;
    None when a part with tokens has no price (output on a model without an output price).

    >>> r = PartRates(*(Decimal(x) for x in ("3", "0.3", "3.75", "6", "15", "15", "0")), source="")
    >>> parts_usd(r, {"input": 1000, "cache_read": 2000, "output": 100}, 2)
    Decimal('0.0051')
    """
    total = rates.per_request * requests
    for part, n in tokens.items():
        if not n:
            continue
        rate = rates.rate(part)
        if rate is None:
            return None
        total += Decimal(n) * rate / MTOK
    return total
