"""`cost.workloads.estimate` against hand computations from the price data: input, cached and output parts, Decimal-exact."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal

import genai_prices
import pandas as pd
import pytest

from analysis import load_tokenizer
from analysis.cost import (
    DEFAULT_MODELS,
    NoPriceError,
    Workload,
    estimate,
    format_usd,
    request_cost,
)
from analysis.cost import Price, Rate, get_price, list_prices, load_overrides
from analysis.errors import BadInput

DAY = date(2026, 1, 15)
MTOK = Decimal(1_000_000)
PROMPT = ("You are a support assistant for a bicycle shop. The customer asks: my order #4411 arrived with a bent "
          "wheel; can I get a replacement before Saturday? Answer politely and list the next steps.")


def genai_price(ref: str):
    """The ModelPrice genai-prices resolves for DAY at noon (the test's only source of prices)."""
    return genai_prices.calc_price(genai_prices.Usage(), ref,
                                   genai_request_timestamp=datetime.combine(DAY, time(12, tzinfo=UTC))).model_price


def test_flat_price_hand_computation_by_part():
    mp = genai_price("gpt-4o")
    n_text = load_tokenizer("o200k_base").count(PROMPT)
    overhead = 4 * 2 + 3  # OpenAI chat format, 2 messages (models.toml, OpenAI Cookbook)
    w = Workload(requests_per_month=500_000, output_tokens=300, cached_share="0.4", messages_per_request=2)
    row = estimate(PROMPT, ["gpt-4o"], workload=w, on=DAY).models.iloc[0]

    n_in = Decimal(n_text + overhead)
    cached = n_in * Decimal("0.4")
    expect_input = (n_in - cached) * mp.input_mtok / MTOK
    expect_cached = cached * mp.cache_read_mtok / MTOK
    expect_output = Decimal(300) * mp.output_mtok / MTOK
    assert row["prompt_tokens_per_request"] == n_text + overhead
    # input_tokens is the uncached input (issue 42); the cached part is its own column
    whole_cached = int((n_in * Decimal("0.4")).to_integral_value())
    assert row["input_tokens_per_request"] == n_text + overhead - whole_cached
    assert row["cache_read_tokens"] == whole_cached and row["cache_write_tokens"] == 0
    assert row["usd_input_per_request"] == expect_input
    assert row["usd_cached_input_per_request"] == expect_cached
    assert row["usd_output_per_request"] == expect_output
    assert row["usd_per_request"] == expect_input + expect_cached + expect_output
    assert row["usd_per_month"] == (expect_input + expect_cached + expect_output) * 500_000
    assert row["usd_per_mchar_input"] == (expect_input + expect_cached) / len(PROMPT) * MTOK
    assert all(isinstance(row[c], Decimal) for c in ("usd_per_request", "usd_per_month"))


def test_output_ratio_and_no_cached_price():
    price = Price("x", "m", input=Rate(Decimal("1")), output=Rate(Decimal("4")))  # no cached-input price
    rc = request_cost(price, input_tokens=1000, output_tokens=500, cached_share=Decimal("0.5"))
    assert rc.usd_input + rc.usd_cached_input == Decimal(1000) * 1 / MTOK  # cache gives no invented discount
    w = Workload(requests_per_month=10, output_ratio="0.5")
    row = estimate(PROMPT, ["gpt-4o-mini"], workload=w, on=DAY).models.iloc[0]
    assert row["output_tokens_per_request"] == round(row["content_tokens_per_request"] * 0.5)  # content, not the format's
    assert row["format_tokens_per_request"] > 0


def test_model_without_price_is_no_price_never_zero(tmp_path):
    free = [p for p in list_prices(provider="google", on=DAY) if p.input is None]
    if not free:
        pytest.skip("every google model has a price")
    report = estimate(PROMPT, [free[0].key], workload=Workload(requests_per_month=1, output_tokens=1), on=DAY,
                      fallback_tokenizer="o200k_base")
    row = report.models.iloc[0]
    assert row["status"].startswith("no price")
    assert row["usd_per_month"] is None or pd.isna(row["usd_per_month"])
    assert format_usd(None) == "no price"
    with pytest.raises(NoPriceError):
        request_cost(free[0], input_tokens=1, output_tokens=1)


def test_cost_increases_with_tokens():
    w = Workload(requests_per_month=1000, output_tokens=100, cached_share="0.3")
    costs = [estimate(PROMPT * n, ["gpt-4o", "deepseek-chat"], workload=w, on=DAY).models["usd_per_request"].tolist()
             for n in (1, 2, 5)]
    for model_costs in zip(*costs):
        assert list(model_costs) == sorted(model_costs)
        assert len(set(model_costs)) == 3


def test_special_token_strings_are_plain_text():
    text = "before <|endoftext|> after <|im_start|>"
    row = estimate(text, ["gpt-4o"], workload=Workload(requests_per_month=1, output_tokens=0), on=DAY).models.iloc[0]
    assert row["content_tokens_per_request"] == load_tokenizer("o200k_base").count(text) > 4


def test_chars_per_request_scales_tokens():
    w = Workload(requests_per_month=1, output_tokens=0, chars_per_request=1200, messages_per_request=0)
    row = estimate(PROMPT, ["gpt-4o"], workload=w, on=DAY).models.iloc[0]
    n = load_tokenizer("o200k_base").count(PROMPT)
    assert row["content_tokens_per_request"] == round(n * 1200 / len(PROMPT))
    assert row["exactness"] == "estimate"
    assert "text scaled to 1,200 characters" in row["exactness_reason"]
    assert row["chars_per_request"] == 1200


def test_chars_per_request_refuses_empty_texts():
    w = Workload(requests_per_month=1, output_tokens=0, chars_per_request=100)
    with pytest.raises(ValueError, match="cannot scale empty texts"):
        estimate(["", "x"], ["gpt-4o"], workload=w, on=DAY)


def test_corpus_input_gives_a_breakdown_by_category():
    corpus = pd.DataFrame({"id": ["a", "b", "c"], "category": ["prose", "code", "code"],
                           "text": [PROMPT, "def f(x):\n    return x * 2\n", "for i in range(10):\n    print(i)\n"]})
    report = estimate(corpus, ["gpt-4o"], workload=Workload(requests_per_month=100, output_tokens=50), on=DAY)
    cats = report.categories.set_index("category")
    assert sorted(cats.index) == ["code", "prose"]
    assert cats.loc["code", "n_requests"] == 2
    # the model's monthly cost is the mean over requests; categories weight it by their share
    total = report.models.loc[0, "usd_per_month"]
    assert total == (cats.loc["prose", "usd_per_month"] + 2 * cats.loc["code", "usd_per_month"]) / 3
    assert len(report.requests) == 3


def test_labels_and_notes_mark_estimates_and_unknown_overhead():
    report = estimate(PROMPT, ["gpt-4o", "claude-haiku-4-5", "groq:llama-3.3-70b-versatile"],
                      workload=Workload(requests_per_month=10, output_tokens=10), on=DAY)
    m = report.models.set_index("model")
    assert (m.loc["gpt-4o", "exactness"], m.loc["claude-haiku-4-5", "exactness"]) == ("documented", "estimate")
    assert m.loc["claude-haiku-4-5", "tokenizer"] == "~o200k_base"
    assert "proxy" in m.loc["claude-haiku-4-5", "exactness_reason"]
    assert "Cookbook" in m.loc["gpt-4o", "exactness_reason"]
    assert m.loc["groq:llama-3.3-70b-versatile", "status"] == "not fetched: tokenprism vocab fetch llama3"
    assert pd.isna(m.loc["groq:llama-3.3-70b-versatile", "usd_per_month"])
    text = "\n".join(report.notes)
    assert "ESTIMATE: claude-haiku-4-5" in text
    assert "documented: gpt-4o" in text
    assert "overhead" not in text
    assert report.price_source.startswith(f"genai-prices {genai_prices.__version__}")


def test_override_model_without_tokenizer_needs_an_explicit_fallback(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\nacme-1,1,2,quote,2026-01-01\n")
    overrides = load_overrides(path)
    w = Workload(requests_per_month=10, output_tokens=10)
    row = estimate(PROMPT, None, workload=w, overrides=overrides, on=DAY).models.set_index("model").loc["acme-1"]
    assert pd.isna(row["exactness"])  # no count, so no exactness: the status says why
    assert row["status"] == "no tokenizer"
    row = estimate(PROMPT, ["acme-1"], workload=w, overrides=overrides, on=DAY, fallback_tokenizer="cl100k_base").models.iloc[0]
    assert (row["exactness"], row["tokenizer"], row["status"]) == ("estimate", "~cl100k_base", "ok")
    assert "no chat format is known" in row["exactness_reason"]
    assert row["usd_per_month"] == (Decimal(load_tokenizer("cl100k_base").count(PROMPT)) * 1 + 10 * 2) / MTOK * 10


def test_unknown_fallback_tokenizer_is_an_error_listing_names():
    with pytest.raises(KeyError, match="unknown fallback tokenizer 'o200k'.*o200k_base"):
        estimate(PROMPT, ["gpt-4o"], workload=Workload(requests_per_month=1, output_tokens=1), fallback_tokenizer="o200k")


def test_default_models_all_resolve():
    for ref in DEFAULT_MODELS:
        price = get_price(ref, on=DAY)
        assert price.input is not None, ref
        assert price.output is not None, ref


def test_unknown_model_in_estimate_lists_close_names():
    with pytest.raises(KeyError, match="gpt-4o"):
        estimate(PROMPT, ["gpt-4o-mnii"], workload=Workload(requests_per_month=1, output_tokens=1))




def test_a_workload_row_carries_its_bill_by_part():
    # issue 42: input_tokens is the uncached input; parts give each part's tokens, rate, USD and exactness
    w = Workload(requests_per_month=1000, output_tokens=300, cached_share="0.4", reasoning_tokens=500)
    rows = estimate(PROMPT, ["gpt-4o", "o3"], workload=w, on=DAY).models.set_index("model")
    for model in ("gpt-4o", "o3"):
        row = rows.loc[model]
        parts = {p["name"]: p for p in row["parts"]}
        assert sum(Decimal(p["usd_per_request"]) for p in parts.values()) == row["usd_per_request"]
        assert parts["input"]["tokens_per_request"] == row["input_tokens_per_request"]
        assert parts["cache read"]["tokens_per_request"] == row["cached_tokens_per_request"]
        assert row["input_tokens"] + row["cache_read_tokens"] == row["prompt_tokens"]
    o3 = {p["name"]: p for p in rows.loc["o3"]["parts"]}
    assert Decimal(o3["reasoning"]["usd_per_request"]) == 500 * Decimal(o3["reasoning"]["usd_per_mtok"]) / MTOK
    assert {p["name"]: p for p in rows.loc["gpt-4o"]["parts"]}["reasoning"]["tokens_per_request"] == 0


BILL_DAY = date(2026, 12, 1)  # a day genai-prices' flex variants are in force


@pytest.mark.parametrize(("model", "flags", "ctx"), [
    ("gpt-4.1-mini", {"batch": True}, {"processing": "batch"}),
    ("o4-mini", {"service_tier": "flex"}, {"service_tier": "flex"}),
])
def test_a_workload_at_batch_or_tier_prices_equals_calc_price(model, flags, ctx):
    import genai_prices

    w = Workload(requests_per_month=1000, output_tokens=300, **flags)
    row = estimate(PROMPT, [model], workload=w, on=BILL_DAY).models.iloc[0]
    usage = genai_prices.Usage(input_tokens=int(row["prompt_tokens"]), output_tokens=300)
    stamp = datetime.combine(BILL_DAY, datetime.min.time().replace(hour=12), tzinfo=UTC)
    expect = genai_prices.calc_price(usage, model, genai_request_timestamp=stamp, price_context=ctx).total_price
    assert row["usd_per_request"] == expect
    standard = estimate(PROMPT, [model], workload=Workload(requests_per_month=1000, output_tokens=300), on=BILL_DAY)
    assert row["usd_per_request"] < standard.models.iloc[0]["usd_per_request"]


def test_a_model_without_a_batch_price_is_refused():
    with pytest.raises(BadInput, match="no processing batch price for deepseek"):
        estimate(PROMPT, ["deepseek-chat"], workload=Workload(requests_per_month=1, output_tokens=1, batch=True), on=BILL_DAY)


def test_with_count_exactness_words_each_model_by_its_count():
    # gpt-5-mini reasons (its row's own word takes in the reasoning not given); gpt-4o-mini does not.
    # Worded by their counts, each says what `input_tokens` says for the request, and the notes follow.
    from analysis.cost import with_count_exactness
    from analysis.requests import input_tokens, parse

    models = ["openai:gpt-4o-mini", "openai:gpt-5-mini", "mistral:mistral-small-3.2-24b-instruct"]
    report = estimate(PROMPT, models, workload=Workload(requests_per_month=10, output_tokens=5), on=DAY)
    worded = with_count_exactness(report)
    rows, before = worded.models.set_index("model"), report.models.set_index("model")
    for model in models[:2]:
        count = input_tokens(parse(PROMPT), model)
        assert rows.loc[model, "exactness"] == count.exactness
        assert rows.loc[model, "exactness_reason"] == ("" if count.exactness == "exact" else count.reason)
    assert before.loc["openai:gpt-5-mini", "exactness_reason"].startswith("reasoning not included")
    assert not rows.loc["openai:gpt-5-mini", "exactness_reason"].startswith("reasoning not included")
    assert rows.loc["openai:gpt-5-mini", "reasoning"] == "reasoning not included"  # still said, apart
    assert any(n.startswith("REASONING NOT INCLUDED: openai:gpt-5-mini") for n in worded.notes)
    # a model that does not reason (counted or not: mistral-tekken may not be fetched) keeps its row; no money moves
    assert rows.loc[models[2]].equals(before.loc[models[2]])
    pd.testing.assert_frame_equal(worded.models.drop(columns=["exactness", "exactness_reason"]),
                                  report.models.drop(columns=["exactness", "exactness_reason"]))
    assert with_count_exactness(worded).models.equals(worded.models)
