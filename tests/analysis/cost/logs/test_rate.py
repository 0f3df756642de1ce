"""`--rate N/day`: the traffic stated once, each model's cache simulation taking its own requests per lifetime."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from analysis.cost.caching import cache_rule
from analysis.cost.targets import parse_rate, plan_traffic
from analysis.cost.shared_prefix import price_shared_prefix
from analysis.errors import BadInput

SYSTEM = "You are the support agent of Acme Parcel. Answer briefly and politely. " * 120
TEXTS = [f"Where is parcel {i}? It was due on day {i % 7}." for i in range(12)]
MODELS = ["gpt-4.1", "deepseek-chat"]
DAY = date(2026, 11, 20)


def _cache(report, model):
    row = report.models.set_index("model").loc[model]
    return int(row["cache_read_tokens"]), int(row["cache_write_tokens"]), str(row["usd_total"])


def test_rate_gives_each_model_its_own_requests_per_lifetime():
    """The same 0.01 requests a second: 3 per 5-minute lifetime on gpt-4.1, 36 per hour on DeepSeek, and
    each model's cache read equals a run with that model's own --requests-per-lifetime."""
    rate = "864/day"
    at_rate = price_shared_prefix(TEXTS, MODELS, system=SYSTEM, rate=rate, output_tokens=20, on=DAY)
    for model in MODELS:
        per_lifetime = Decimal(864) / 86400 * cache_rule(model).ttl_seconds
        alone = price_shared_prefix(TEXTS, [model], system=SYSTEM, requests_per_lifetime=per_lifetime,
                                    output_tokens=20, on=DAY)
        assert _cache(at_rate, model) == _cache(alone, model), model
    assert cache_rule("gpt-4.1").ttl_seconds != cache_rule("deepseek-chat").ttl_seconds


def test_a_rate_spaces_requests_past_a_short_lifetime_but_not_a_long_one():
    """One request every 10 minutes: gpt-4.1's 5-minute cache has expired at each, DeepSeek's hour has not."""
    report = price_shared_prefix(TEXTS, MODELS, system=SYSTEM, rate="6/hour", output_tokens=20, on=DAY)
    assert _cache(report, "gpt-4.1")[0] == 0
    assert _cache(report, "deepseek-chat")[0] > 0
    notes = report.models.set_index("model")["note"]
    assert "spaced 0.5 per cache lifetime of 300 s (--rate: 144 a day" in notes["gpt-4.1"]
    assert "spaced 6 per cache lifetime of 3,600 s (--rate: 144 a day" in notes["deepseek-chat"]


def test_rate_words_and_refusals():
    assert parse_rate("8640/day") == Decimal("0.1") and parse_rate("2/s") == 2 and parse_rate("60 / minute") == 1
    for bad in ("10000", "10/week", "-5/day", "x/day"):
        with pytest.raises(BadInput):
            parse_rate(bad)
    with pytest.raises(BadInput, match="at most one of --rate"):
        plan_traffic("gpt-4o", rate="10/day", requests_per_lifetime=3)
