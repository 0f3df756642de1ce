"""Prices: genai-prices as the source (checked against its own API), dates, tiers, overrides."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import genai_prices
import pytest

from analysis.cost import Price, Rate, get_price, list_prices, load_overrides, price_source
from analysis.cost.prices import split_ref

NOON = time(12, tzinfo=UTC)


def genai_model_price(ref: str, when: datetime, provider_id: str | None = None):
    """The oracle: the ModelPrice genai-prices' public calc_price resolves for that instant."""
    return genai_prices.calc_price(genai_prices.Usage(), ref, provider_id=provider_id, genai_request_timestamp=when).model_price


def base(v):
    return None if v is None else v if isinstance(v, Decimal) else v.base


def assert_same(price: Price, mp) -> None:
    assert (price.input and price.input.base) == base(getattr(mp, "input_mtok", None))
    assert (price.output and price.output.base) == base(getattr(mp, "output_mtok", None))
    assert (price.cached_input and price.cached_input.base) == base(getattr(mp, "cache_read_mtok", None))


def test_importing_analysis_does_not_import_genai_prices():
    code = ("import sys, analysis, analysis.cost.prices.lookup, analysis.models.genai, analysis.cost, analysis.models, analysis.plots.cost, "
            "analysis.cli.cost\nfrom analysis.cli import build_parser\nbuild_parser()\n"
            "analysis.load_tokenizer('o200k_base').encode('x')\n"
            "from analysis.models import rule_for\nrule_for(('gpt-4o',))\n"
            "assert 'genai_prices' not in sys.modules, 'genai_prices imported eagerly'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("ref", ["gpt-4o", "gpt-4o-mini", "claude-haiku-4-5", "gemini-2.5-flash", "deepseek-chat",
                                 "groq:llama-3.3-70b-versatile", "mistral-small-latest"])
def test_price_is_what_genai_prices_says_at_noon(ref):
    day = date(2026, 1, 15)
    provider, _, model = ref.rpartition(":")
    price = get_price(ref, on=datetime.combine(day, NOON))
    assert_same(price, genai_model_price(model, datetime.combine(day, NOON), provider or None))
    assert price.source == f"genai-prices {genai_prices.__version__}"
    assert price.as_of == day


def test_dated_price_changes_follow_the_day():
    # find a model of a model maker's API with a dated change in the past (no hand-kept prices)
    from genai_prices import data_snapshot

    for provider in data_snapshot.get_snapshot().providers:
        for info in provider.models if provider.id in ("openai", "anthropic", "google") else ():
            if not isinstance(info.prices, list):
                continue
            starts = [c.constraint.start_date for c in info.prices
                      if hasattr(c.constraint, "start_date") and c.constraint.start_date < date(2026, 1, 1)]
            if starts and not any(hasattr(c.constraint, "start_time") for c in info.prices):
                break
        else:
            continue
        break
    else:
        pytest.skip("no dated price change in the price data")
    change = starts[-1]
    for day in (change - timedelta(days=1), change):
        price = get_price(f"{provider.id}:{info.id}", on=day)
        assert_same(price, info.get_prices(datetime.combine(day, NOON)))
        assert price.as_of == day


def test_time_of_day_prices_use_the_highest_of_the_day_and_say_so():
    info = genai_prices.calc_price(genai_prices.Usage(), "deepseek-chat").model
    if not any(hasattr(getattr(c, "constraint", None), "start_time") for c in info.prices if isinstance(info.prices, list)):
        pytest.skip("deepseek-chat is no longer priced by time of day in this genai-prices")
    day = date(2026, 6, 1)
    daily = get_price("deepseek-chat", on=day)
    instants = [datetime.combine(day, time(h, m, tzinfo=UTC)) for h in range(24) for m in (0, 30)]
    by_instant = [get_price("deepseek-chat", on=t).input.base for t in instants]
    assert daily.input.base == max(by_instant) > min(by_instant)
    assert daily.time_of_day
    assert any("time of day" in n for n in daily.notes)
    # an instant gives exactly what genai-prices computes for it
    off_peak = instants[by_instant.index(min(by_instant))]
    assert_same(get_price("deepseek-chat", on=off_peak), genai_model_price("deepseek-chat", off_peak))


def test_tiers_are_kept_and_the_boundary_matches_genai_prices():
    price = get_price("claude-sonnet-4-5", on=date(2026, 1, 15))
    if not price.input.tiers:
        pytest.skip("claude-sonnet-4-5 has no tiers in this genai-prices")
    start, tier_price = price.input.tiers[0]
    assert price.input.for_request(start) == price.input.base  # "more than start" switches tiers
    assert price.input.for_request(start + 1) == tier_price
    assert any("tiered" in n for n in price.notes)


def test_rate_picks_the_highest_tier_reached():
    rate = Rate(Decimal("1"), ((100, Decimal("2")), (1000, Decimal("3"))))
    assert [rate.for_request(n) for n in (0, 100, 101, 1000, 1001)] == [1, 1, 2, 2, 3]


def test_provider_prefix_and_name_matching():
    assert get_price("groq:llama-3.3-70b-versatile").provider == "groq"
    dated = get_price("gpt-4o-2024-08-06")
    assert dated.key == "openai:gpt-4o"
    assert "priced as openai:gpt-4o" in dated.notes[0]
    assert split_ref("ft:gpt-4o:acme", ["openai"]) == (None, "ft:gpt-4o:acme")


def test_unknown_model_lists_the_closest_names():
    with pytest.raises(KeyError) as info:
        get_price("gpt4o")
    message = info.value.args[0]
    assert "unknown model 'gpt4o'" in message
    assert "openai:gpt-4o" in message
    assert "tokenprism models" in message


def test_model_served_by_several_hosts_must_name_one():
    with pytest.raises(KeyError, match="several providers") as info:
        get_price("Qwen/Qwen3.6-Plus")
    assert "together:Qwen/Qwen3.6-Plus" in info.value.args[0]


def test_price_source_names_package_and_version():
    src = price_source()
    assert src.version == genai_prices.__version__
    assert src.describe().startswith(f"genai-prices {genai_prices.__version__} (")


def test_list_prices_filters_and_defaults_to_model_makers():
    rows = list_prices(provider="deepseek", on=date(2026, 1, 15))
    assert rows
    assert {p.provider for p in rows} == {"deepseek"}
    makers = {p.provider for p in list_prices(contains="llama-3.3-70b")}
    assert "groq" not in makers  # a host: only with all_providers
    assert "groq" in {p.provider for p in list_prices(contains="llama-3.3-70b", all_providers=True)}


# -- override files ----------------------------------------------------------------------------
CSV_HEADER = "model,provider,usd_per_mtok_input,usd_per_mtok_output,usd_per_mtok_cached_input,source,as_of,tokenizer\n"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_override_adds_and_replaces_models(tmp_path):
    path = write(tmp_path, "prices.csv", CSV_HEADER
                 + "gpt-4o,openai,2.00,8.00,0.50,negotiated contract,2026-02-01,\n"
                 + "acme-1,acme,0.10,0.40,,acme price list,2026-03-01,cl100k_base\n")
    overrides = load_overrides(path)
    replaced = get_price("gpt-4o", overrides=overrides)
    assert (replaced.input.base, replaced.output.base, replaced.cached_input.base) == (Decimal("2.00"), Decimal("8.00"), Decimal("0.50"))
    assert replaced.source == "prices.csv: negotiated contract"
    assert replaced.as_of == date(2026, 2, 1)
    assert get_price("gpt-4o-2024-08-06", overrides=overrides) is replaced  # same model under another name
    added = get_price("acme:acme-1", overrides=overrides)
    assert added.cached_input is None
    assert added.tokenizer == "cl100k_base"
    assert added.exactness == "exact"
    assert any(p.key == "acme:acme-1" for p in list_prices(overrides=overrides))


def test_toml_override_keeps_exact_decimals(tmp_path):
    path = write(tmp_path, "prices.toml", '[[model]]\nmodel = "mine"\nusd_per_mtok_input = 0.1\n'
                 'usd_per_mtok_output = "0.30"\nsource = "quote"\nas_of = 2026-04-01\n')
    (price,) = load_overrides(path)
    assert price.input.base == Decimal("0.1")
    assert price.output.base == Decimal("0.30")
    assert price.as_of == date(2026, 4, 1)


@pytest.mark.parametrize(("row", "where"), [
    pytest.param("x,,abc,1,,s,2026-01-01,", "line 2, column usd_per_mtok_input: 'abc' is not a number", id="not-number"),
    pytest.param("x,,1,-2,,s,2026-01-01,", "line 2, column usd_per_mtok_output", id="negative"),
    pytest.param("x,,1,$2,,s,2026-01-01,", "line 2, column usd_per_mtok_output: '$2' is not a number", id="currency"),
    pytest.param("x,,1,2,NaN,s,2026-01-01,", "line 2, column usd_per_mtok_cached_input", id="nan"),
    pytest.param("x,,1,2,,s,01/02/2026,", "line 2, column as_of", id="date"),
    pytest.param("x,,1,2,,,2026-01-01,", "line 2, column source: missing value", id="source"),
    pytest.param(",,1,2,,s,2026-01-01,", "line 2, column model: missing value", id="model"),
    pytest.param("x,,,2,,s,2026-01-01,", "line 2, column usd_per_mtok_input: missing value", id="missing-price"),
    pytest.param("x,,1,2,,s,2026-01-01,nope", "line 2, column tokenizer: unknown tokenizer", id="tokenizer"),
])
def test_bad_csv_values_name_file_line_and_column(tmp_path, row, where):
    path = write(tmp_path, "bad.csv", CSV_HEADER + row + "\n")
    with pytest.raises(ValueError) as info:
        load_overrides(path)
    assert str(info.value).startswith(f"{path}: {where}")


def test_unknown_column_suggests_the_right_one(tmp_path):
    path = write(tmp_path, "typo.csv", "model,usd_per_mtok_input,usd_per_mtok_outptu,source,as_of\nx,1,2,s,2026-01-01\n")
    with pytest.raises(ValueError, match="column usd_per_mtok_outptu: unknown column \\(did you mean usd_per_mtok_output"):
        load_overrides(path)


def test_duplicate_model_names_both_lines(tmp_path):
    path = write(tmp_path, "dup.csv", CSV_HEADER + "x,,1,2,,s,2026-01-01,\nX,,1,2,,s,2026-01-01,\n")
    with pytest.raises(ValueError, match="line 3, column model: 'X' is listed twice \\(also at line 2\\)"):
        load_overrides(path)


def test_bad_toml_value_names_the_entry(tmp_path):
    path = write(tmp_path, "bad.toml", '[[model]]\nmodel = "a"\nusd_per_mtok_input = 1\nusd_per_mtok_output = 2\n'
                 'source = "s"\nas_of = 2026-01-01\n\n[[model]]\nmodel = "b"\nusd_per_mtok_input = true\n'
                 'usd_per_mtok_output = 2\nsource = "s"\nas_of = 2026-01-01\n')
    with pytest.raises(ValueError, match=r"\[\[model\]\] entry 2 \('b'\), column usd_per_mtok_input: True is not a number"):
        load_overrides(path)


def test_unknown_file_type_is_refused(tmp_path):
    with pytest.raises(ValueError, match="use .csv or .toml"):
        load_overrides(write(tmp_path, "prices.json", "{}"))
