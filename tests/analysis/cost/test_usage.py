"""Usage read and billed as genai-prices reads and bills it, per provider shape (issue 42)."""

from datetime import UTC, datetime
from decimal import Decimal

import genai_prices
import pytest
from genai_prices import extract_usage

from analysis.cost.bill import rates_for, usd_by_part
from analysis.cost.prices import get_price
from analysis.cost.usage import LoggedBill, as_billed, read_usage
from analysis.errors import BadInput

WHEN = datetime(2026, 11, 2, 12, tzinfo=UTC)


def _sonnet_rows(ttl: str) -> list[dict]:
    """The issue's two Claude Sonnet 4.5 rows: a cache write (1h or 5m), then a cache read."""
    bucket = f"ephemeral_{ttl}_input_tokens"
    other = "ephemeral_5m_input_tokens" if ttl == "1h" else "ephemeral_1h_input_tokens"
    return [
        {"model": "claude-sonnet-4-5-20250929",
         "usage": {"input_tokens": 50, "output_tokens": 650, "cache_creation_input_tokens": 2000,
                   "cache_read_input_tokens": 0, "cache_creation": {bucket: 2000, other: 0}}},
        {"model": "claude-sonnet-4-5-20250929",
         "usage": {"input_tokens": 45, "output_tokens": 650, "cache_creation_input_tokens": 0,
                   "cache_read_input_tokens": 2000}},
    ]


def _reference(rows: list[dict], provider: str, flavor: str = "default", **ctx) -> Decimal:
    total = Decimal(0)
    for row in rows:
        e = extract_usage(row, provider_id=provider, api_flavor=flavor)
        total += e.calc_price(genai_request_timestamp=WHEN, price_context=ctx or None).total_price
    return total


def test_sonnet_one_hour_cache_write_is_billed_at_twice_input():
    rows = _sonnet_rows("1h")
    ours = sum(as_billed(read_usage(r, "anthropic"), r["model"], when=WHEN) for r in rows)
    assert ours == Decimal("0.032385")
    assert ours == _reference(rows, "anthropic")
    first = read_usage(rows[0], "anthropic")
    assert (first.input_tokens, first.cache_write_1h_tokens, first.cache_write_5m_tokens) == (50, 2000, 0)
    second = read_usage(rows[1], "anthropic")
    assert (second.input_tokens, second.cache_read_tokens) == (45, 2000)


def test_sonnet_five_minute_write_is_one_and_a_quarter_input():
    rows = _sonnet_rows("5m")
    ours = sum(as_billed(read_usage(r, "anthropic"), r["model"], when=WHEN) for r in rows)
    assert ours == _reference(rows, "anthropic")
    # 2,000 written tokens at 1.25 x $3 instead of 2 x $3 per Mtok
    assert Decimal("0.032385") - ours == Decimal(2000) * (Decimal(6) - Decimal("3.75")) / 1_000_000


def test_parts_add_up_to_the_bill_and_name_each_bucket():
    row = _sonnet_rows("1h")[0]
    u = read_usage(row, "anthropic")
    assert _parts(u) == {"input": 50, "cache_write_1h": 2000, "output": 650}
    # the billed parts at the target's rates (`bill`, the one arithmetic) add up to genai-prices' bill
    rates = rates_for(get_price(row["model"], on=WHEN), WHEN.date(), u.prompt_tokens)
    by_part = usd_by_part(_parts(u), rates)
    assert sum(v for v in by_part.values() if v is not None) + rates.per_request == as_billed(u, row["model"], when=WHEN)
    assert rates.cache_write_1h == Decimal(6)


def _parts(u: LoggedBill) -> dict[str, int]:
    """A logged usage's parts with tokens, by `bill.PARTS` name."""
    parts = {"input": u.input_tokens, "cache_read": u.cache_read_tokens, "cache_write_5m": u.cache_write_5m_tokens,
             "cache_write_1h": u.cache_write_1h_tokens, "output": u.output_tokens, "reasoning": u.reasoning_tokens or 0}
    return {k: v for k, v in parts.items() if v}


def _o4_mini_rows() -> list[dict]:
    """The issue's o4-mini log: 7 visible tokens per answer, 900 output of which 850 reasoning."""
    return [{"model": "o4-mini", "choices": [{"message": {"role": "assistant", "content": "The answer is 42."}}],
             "usage": {"prompt_tokens": 550 + i, "completion_tokens": 900, "total_tokens": 1450 + i,
                       "prompt_tokens_details": {"cached_tokens": 0},
                       "completion_tokens_details": {"reasoning_tokens": 850}}} for i in range(4)]


def test_o4_mini_reasoning_is_its_own_part_and_billed_as_output():
    rows = _o4_mini_rows()
    usages = [read_usage(r, "openai-chat") for r in rows]
    assert all((u.output_tokens, u.reasoning_tokens) == (50, 850) for u in usages)
    ours = sum(as_billed(u, "o4-mini", when=WHEN) for u in usages)
    assert ours == _reference(rows, "openai", "chat")
    # the reasoning part is most of the bill: what a recount of the visible text misses
    u = usages[0]
    parts = usd_by_part(_parts(u), rates_for(get_price("o4-mini", on=WHEN), WHEN.date(), u.prompt_tokens))
    assert parts["reasoning"] > parts["output"] + parts["input"]


def test_openai_chat_cached_tokens_are_inside_prompt_tokens():
    u = read_usage({"prompt_tokens": 2000, "completion_tokens": 10,
                    "prompt_tokens_details": {"cached_tokens": 1920}}, "openai-chat")
    assert (u.input_tokens, u.cache_read_tokens, u.prompt_tokens) == (80, 1920, 2000)
    assert u.reasoning_tokens is None  # not reported is not zero


@pytest.mark.parametrize("shape, provider, flavor, row, model", [
    ("openai-responses", "openai", "responses",
     {"model": "gpt-5-mini", "usage": {"input_tokens": 3000, "output_tokens": 400,
                                       "input_tokens_details": {"cached_tokens": 2048},
                                       "output_tokens_details": {"reasoning_tokens": 320}}}, "gpt-5-mini"),
    ("gemini", "google", "default",
     {"modelVersion": "gemini-2.5-flash", "usageMetadata": {"promptTokenCount": 5000, "candidatesTokenCount": 200,
                                                            "thoughtsTokenCount": 600, "cachedContentTokenCount": 4096}},
     "gemini-2.5-flash"),
    ("openrouter", "openrouter", "chat",
     {"model": "openai/gpt-4.1-mini", "usage": {"prompt_tokens": 1200, "completion_tokens": 90,
                                                "prompt_tokens_details": {"cached_tokens": 1024}}},
     "openai/gpt-4.1-mini"),
])
def test_each_shape_matches_genai_prices(shape, provider, flavor, row, model):
    u = read_usage(row, shape)
    e = extract_usage(row, provider_id=provider, api_flavor=flavor)
    assert u.prompt_tokens == e.usage.input_tokens
    assert u.output_tokens + (u.reasoning_tokens or 0) == e.usage.output_tokens
    assert as_billed(u, model, provider=provider, when=WHEN) == e.calc_price(genai_request_timestamp=WHEN).total_price


def test_gemini_thoughts_sit_beside_candidates():
    u = read_usage({"promptTokenCount": 5000, "candidatesTokenCount": 200, "thoughtsTokenCount": 600,
                    "cachedContentTokenCount": 4096}, "gemini", model="gemini-2.5-flash")
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens, u.reasoning_tokens) == (904, 4096, 200, 600)


def test_batch_and_flex_use_genai_prices_variants():
    u = LoggedBill(input_tokens=10_000, output_tokens=2_000)
    ref = genai_prices.calc_price(u.to_genai(), "gpt-4.1", genai_request_timestamp=WHEN,
                                  price_context={"processing": "batch"}).total_price
    standard = as_billed(u, "gpt-4.1", when=WHEN)
    assert as_billed(u, "gpt-4.1", when=WHEN, batch=True) == ref < standard
    flex = genai_prices.calc_price(u.to_genai(), "gpt-5-mini", genai_request_timestamp=WHEN,
                                   price_context={"service_tier": "flex"}).total_price
    assert as_billed(u, "gpt-5-mini", when=WHEN, service_tier="flex") == flex < as_billed(u, "gpt-5-mini", when=WHEN)


def test_bad_input_is_named():
    with pytest.raises(BadInput, match="no usage reader"):
        read_usage({}, "cohere")
    with pytest.raises(BadInput, match="no genai-prices price"):
        as_billed(LoggedBill(input_tokens=1), "no-such-model-xyz")
