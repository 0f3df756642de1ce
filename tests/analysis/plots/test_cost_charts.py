"""The Cost page's interactive charts (analysis.plots.cost_charts): exact dollars on hover, units on
the axes, estimates in their own colour, one tick per day, and no model drawn at $0 for want of a price."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from analysis.plots import cost_charts

MODELS = pd.DataFrame({"model": ["a", "b", "c"], "exactness": ["documented", "estimate", "exact"],
                       "status": ["ok", "ok", "no price"],
                       "usd_per_month": [Decimal("12.3456789"), Decimal("3"), None],
                       "usd_total": [Decimal("0.0004"), Decimal("0.0002"), None], "change_vs_served": [0.0, -0.5, None],
                       "usd_per_mchar_input": [Decimal("1.25"), Decimal("0.5"), None], "chars_per_token": [4.1, 3.7, 4.0]})


def test_monthly_bars_carry_the_exact_dollars_and_leave_out_a_model_without_a_price():
    chart = cost_charts.monthly_cost_bar(MODELS)
    spec = chart.to_dict()
    data = chart.data
    assert data["model"].tolist() == ["b", "a"]  # cheapest first; c has no price: not a $0 bar
    assert data.set_index("model").loc["a", "usd_text"] == "$12.35"
    assert spec["encoding"]["x"]["title"] == "USD per month"
    assert spec["encoding"]["color"]["scale"]["range"] == [cost_charts.EXACT, cost_charts.ESTIMATE]
    assert data.set_index("model").loc["b", "kind"].startswith("estimate")
    assert cost_charts.not_drawn(MODELS, "usd_per_month") == ["c (no price)"]


def test_traffic_bars_show_the_change_vs_served():
    data = cost_charts.traffic_total_bar(MODELS).data.set_index("model")
    assert data.loc["b", "vs_served"] == "-50.0%" and data.loc["a", "usd_text"] == "$0.0004"


def test_cost_per_day_ticks_once_a_day_with_a_titled_axis():
    days = pd.DataFrame({"model": ["a", "a", "b", "b"], "day": ["2026-11-01", "2026-11-02"] * 2,
                         "usd": [Decimal("1"), Decimal("2"), Decimal("0.5"), None], "n_requests": [3, 4, 3, 4]})
    chart = cost_charts.traffic_cost_per_day(days)
    x = chart.to_dict()["encoding"]["x"]
    assert x["title"] == "day (UTC)" and x["axis"]["tickCount"] == {"interval": "day", "step": 1}
    assert len(chart.data) == 3  # the day without a cost is not a point at $0


def test_cost_vs_chars_per_token_plots_priced_models_on_a_log_scale():
    chart = cost_charts.cost_vs_chars_per_token(MODELS)
    spec = chart.to_dict()
    assert spec["layer"][0]["encoding"]["y"]["scale"]["type"] == "log"
    (data,) = spec["datasets"].values()
    assert sorted(r["model"] for r in data) == ["a", "b"]
