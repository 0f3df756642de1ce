"""`cost.bill.request_cost` (the one arithmetic, one request) against genai-prices' own calculation:
every model maker's model, below and above its tier."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal

import genai_prices
import pytest

from analysis.cost import find_model, get_price, list_prices, request_cost

DAY = date(2026, 1, 15)
MTOK = Decimal(1_000_000)


def genai_price(ref: str):
    """The ModelPrice genai-prices resolves for DAY at noon (the test's only source of prices)."""
    return genai_prices.calc_price(genai_prices.Usage(), ref,
                                   genai_request_timestamp=datetime.combine(DAY, time(12, tzinfo=UTC))).model_price


def test_request_cost_matches_genai_prices_for_every_model_makers_model():
    """Our per-part arithmetic, summed, equals genai-prices' own calc_price (tiers and fees included)."""
    when = datetime.combine(DAY, time(12, tzinfo=UTC))
    checked = 0
    for price in list_prices(on=when):
        if price.input is None or price.output is None:
            continue
        for n_in, n_out in ((1_000, 200), (250_000, 1_000)):  # below and above the common 200k tier
            cached = Decimal(n_in) * Decimal("0.25")
            ours = request_cost(price, input_tokens=n_in, output_tokens=n_out, cached_share=Decimal("0.25"))
            usage = genai_prices.Usage(input_tokens=n_in, output_tokens=n_out,
                                       cache_read_tokens=int(cached) if price.cached_input else None)
            provider, info = find_model(price.key)
            theirs = info.calc_price(usage, provider, genai_request_timestamp=when)
            assert ours.usd_total == theirs.total_price, (price.key, n_in)
            assert ours.usd_output == theirs.output_price, price.key
            checked += 1
    assert checked > 300


def test_tiered_request_pays_the_tier_on_all_parts():
    price = get_price("claude-sonnet-4-5", on=DAY)
    if not price.input.tiers:
        pytest.skip("no tiers for claude-sonnet-4-5 in this genai-prices")
    mp = genai_price("claude-sonnet-4-5")
    start = price.input.tiers[0][0]
    n_in = start + 1
    rc = request_cost(price, input_tokens=n_in, output_tokens=1000, cached_share=Decimal("0.5"))
    assert rc.usd_input == Decimal(n_in) / 2 * mp.input_mtok.tiers[0].price / MTOK
    assert rc.usd_cached_input == Decimal(n_in) / 2 * mp.cache_read_mtok.tiers[0].price / MTOK
    assert rc.usd_output == 1000 * mp.output_mtok.tiers[0].price / MTOK
