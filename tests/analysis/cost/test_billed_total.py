"""The bill of many rows priced as sums (`as_billed_total`) is the sum of genai-prices' price per row,
digit for digit: the same value and the same places after the point (issue 44)."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import genai_prices
import pytest
from genai_prices import extract_usage

from analysis.cost import usage as usage_mod
from analysis.cost.billed_sum import as_billed_total
from analysis.cost.usage import InvalidUsage, as_billed, read_usage

START = datetime(2026, 1, 1, tzinfo=UTC)
# (model, provider, usage shape): per-token prices, cache writes of both lifetimes, batch and flex
# variants, Gemini's tier at 200,000 input tokens, prices that change with the date or the hour
# (deepseek), and a per-request price (perplexity)
MODELS = [("gpt-4o", "openai", "openai-chat"), ("gpt-5-mini", "openai", "openai-responses"),
          ("gpt-4.1", "openai", "openai-chat"), ("o4-mini", "openai", "openai-chat"),
          ("claude-sonnet-4-5", "anthropic", "anthropic"), ("claude-opus-4-1", "anthropic", "anthropic"),
          ("gemini-2.5-pro", "google", "gemini"), ("gemini-2.5-flash", "google", "gemini"),
          ("deepseek-chat", "deepseek", "openai-chat"), ("sonar-pro", "perplexity", "openai-chat")]


def _usage(rng: random.Random, shape: str) -> dict:
    n = rng.choice([0, 1, 7, 40, 41, 125, 1000, 1024, 3333, 199_999, 200_000, 200_001, 250_000])
    out = rng.choice([0, 1, 9, 10, 64, 300, 1111])
    if shape == "openai-chat":
        u: dict = {"prompt_tokens": n, "completion_tokens": out}
        if rng.random() < 0.6:
            u["prompt_tokens_details"] = {"cached_tokens": rng.choice([0, n // 2, n])}
        if rng.random() < 0.5:
            u["completion_tokens_details"] = {"reasoning_tokens": rng.choice([0, out // 3, out])}
        return u
    if shape == "openai-responses":
        return {"input_tokens": n, "output_tokens": out, "input_tokens_details": {"cached_tokens": rng.choice([0, n // 4])},
                "output_tokens_details": {"reasoning_tokens": rng.choice([0, out // 2])}}
    if shape == "anthropic":
        w5, w1 = rng.choice([0, 512, 2048]), rng.choice([0, 0, 4096, 333])
        u = {"input_tokens": n, "output_tokens": out, "cache_read_input_tokens": rng.choice([0, 1500, 77])}
        if w5 or w1 or rng.random() < 0.3:
            u["cache_creation_input_tokens"] = w5 + w1
        if w1 or rng.random() < 0.3:
            u["cache_creation"] = {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1}
        return u
    meta = {"promptTokenCount": n, "candidatesTokenCount": out}
    if rng.random() < 0.5:
        meta["cachedContentTokenCount"] = rng.choice([0, n // 3])
    if rng.random() < 0.5:
        meta["thoughtsTokenCount"] = rng.choice([0, 77, 1000])
    return meta


@pytest.mark.parametrize("model,provider,shape", MODELS)
def test_summed_bill_equals_the_sum_row_by_row(model, provider, shape, monkeypatch, run):
    rng = random.Random(sum(map(ord, model)))
    rows = []
    for _ in range(300):
        usage = read_usage(_usage(rng, shape), shape)
        when = START + timedelta(minutes=rng.randrange(60 * 24 * 330)) if rng.random() < 0.9 else None
        batch = shape == "openai-chat" and rng.random() < 0.3
        tier = rng.choice([None, None, "flex", "priority"]) if provider == "openai" else None
        rows.append((usage, when, batch, tier))
    calls = []
    real = genai_prices.calc_price
    monkeypatch.setattr(genai_prices, "calc_price", lambda *a, **k: calls.append(1) or real(*a, **k))
    ours, unpriced = as_billed_total(rows, model, provider=provider)
    assert len(calls) < len(rows) / 2  # priced as sums, not row by row
    theirs = sum((as_billed(u, model, provider=provider, when=w, batch=b, service_tier=t) for u, w, b, t in rows),
                 Decimal(0))
    assert unpriced == 0
    assert str(ours) == str(theirs)  # the value and its places, which the reports print


def test_row_by_row_is_genai_prices_own():
    # the reference above is `as_billed`: genai-prices' calc_price of each row (see test_price_memo)
    u = {"prompt_tokens": 1200, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 1024}}
    at = START + timedelta(days=40)
    direct = genai_prices.calc_price(extract_usage({"usage": u}, provider_id="openai", api_flavor="chat").usage,
                                     "gpt-4o", provider_id="openai", genai_request_timestamp=at).total_price
    rows = [(read_usage(u, "openai-chat"), at, False, None)] * 3
    assert as_billed_total(rows, "gpt-4o", provider="openai") == (direct * 3, 0)
    assert str(as_billed_total(rows, "gpt-4o", provider="openai")[0]) == str(Decimal(0) + direct + direct + direct)


def test_a_usage_whose_parts_contradict_is_refused_when_read():
    # genai-prices refuses to price more cache reads than input tokens; summed with a good row the bad one
    # would hide, and priced alone its uncached input would be negative: the usage is refused as it is read
    with pytest.raises(InvalidUsage, match="4,096 cache-read and 0 cache-write tokens, more than its 41 input"):
        read_usage({"promptTokenCount": 41, "candidatesTokenCount": 3, "cachedContentTokenCount": 4096}, "gemini")
    with pytest.raises(InvalidUsage, match="90 reasoning tokens, more than its 10 output"):
        read_usage({"prompt_tokens": 5, "completion_tokens": 10,
                    "completion_tokens_details": {"reasoning_tokens": 90}}, "openai-chat")


def test_a_log_row_with_a_contradicting_usage_exits_2_naming_it(tmp_path, capsys):
    from analysis.cli import main

    row = {"timestamp": "2026-11-02T09:00:00Z", "contents": [{"role": "user", "parts": [{"text": "hello"}]}],
           "response": {"modelVersion": "gemini-2.5-flash",
                        "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}}],
                        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2,
                                          "cachedContentTokenCount": 50}}}
    good = dict(row, response=dict(row["response"], usageMetadata={"promptTokenCount": 10, "candidatesTokenCount": 2}))
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(good) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    assert main(["cost", "--logs", str(log), "-m", "gpt-4o"]) == 2
    err = capsys.readouterr().err
    assert f"{log}:2: its usage says 50 cache-read" in err and "--errors skip" in err and "Traceback" not in err
    assert main(["cost", "--logs", str(log), "-m", "gpt-4o", "--errors", "skip", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_rows"] == 1 and data["served"][0]["usd_as_billed"] is not None


def test_an_unknown_model_leaves_rows_unpriced():
    u = read_usage({"prompt_tokens": 5, "completion_tokens": 1}, "openai-chat")
    assert as_billed_total([(u, START, False, None)] * 2, "no-such-model-xyz") == (Decimal(0), 2)


def test_prices_in_force_per_day_are_genai_prices_own_per_timestamp(run):
    # a model whose dated prices are all start dates is looked up once per UTC day: the flags must be
    # those of each timestamp, whatever its zone (one that crosses midnight in UTC) or none (taken as UTC)
    from datetime import timezone

    from analysis.models.genai import model_info
    from analysis.cost.usage import _prices_in_force

    info = model_info("gpt-4o", "openai")
    constraints = [v.constraint for v in info.price_variants or () if v.constraint is not None]
    assert constraints  # the case this test is about
    dates = sorted({c.start_date for c in constraints if hasattr(c, "start_date")})
    tokyo = timezone(timedelta(hours=9))
    instants = []
    for d in dates:
        midnight = datetime(d.year, d.month, d.day, tzinfo=UTC)
        for dt in (midnight - timedelta(seconds=1), midnight, midnight + timedelta(hours=3)):
            instants += [dt, dt.astimezone(tokyo), dt.replace(tzinfo=None)]
    for at in instants + instants[::-1]:  # each day seen first from either side of its midnight
        assert _prices_in_force("gpt-4o", "openai", at) == tuple(c.active(at) for c in constraints), at


def test_the_places_of_a_summed_bill_are_those_of_its_most_precise_row():
    # the rows' places are looked at until one needs the most any row can: rows needing fewer first,
    # then one that needs more, must still give the sum row by row's places
    rows = [(read_usage({"prompt_tokens": 1000 * k, "completion_tokens": 100}, "openai-chat"), START, False, None)
            for k in range(1, 6)]
    rows.append((read_usage({"prompt_tokens": 7, "completion_tokens": 3}, "openai-chat"), START, False, None))
    for group in (rows, rows[:-1], rows[::-1]):
        theirs = sum((as_billed(u, "gpt-4o", provider="openai", when=w) for u, w, _, _ in group), Decimal(0))
        assert str(as_billed_total(group, "gpt-4o", provider="openai")[0]) == str(theirs)


def test_a_kept_linear_form_is_the_usage_objects_own(run):
    # the forms are kept by object: another object at a kept id (a freed one's reused) is taken apart anew
    from analysis.cost.billed_sum import _kept_linear_form, _linear_form

    a = read_usage({"prompt_tokens": 11, "completion_tokens": 2}, "openai-chat")
    b = read_usage({"prompt_tokens": 12, "completion_tokens": 3}, "openai-chat")
    run.objects("billed_sum.forms")._kept[id(b)] = (a, _linear_form(a))  # as if `a` had been kept where `b` now lives
    assert _kept_linear_form(b) == _linear_form(b) != _linear_form(a)
    assert _kept_linear_form(b) == _linear_form(b)
