"""Pricing logged traffic: known answers per model, calibration, chunk purity, and the report."""

from __future__ import annotations

import pickle
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from analysis import load_tokenizer
from analysis.cost import (TrafficPartial, chunked, get_price, plan_traffic, price_chunk, price_records, read_log_records,
                           summarise)
from analysis.models import resolve
from analysis.requests import input_tokens

LOGS = Path(__file__).resolve().parents[3] / "fixtures" / "logs"
MODELS = ["gpt-4o", "gpt-4.1-mini", "claude-sonnet-4-5", "deepseek-chat"]
ON = date(2026, 1, 15)


def _report(path, models=MODELS, **kw):
    records, log_report = read_log_records(path)
    plan = plan_traffic(models, on=ON, **kw)
    return summarise(price_records(records, plan, chunk_rows=2), plan, log_report), records


def _by_hand(records, model: str, output_tokens: int) -> tuple[list[Decimal], int, int]:
    """Each row's $ under `model`: its request counted alone by `input_tokens` (as `tokenprism count`
    counts it), the response with the model's tokenizer."""
    price = get_price(model, on=ON)
    tok = load_tokenizer(resolve(price.model).tokenizer)
    costs, total_in, total_out = [], 0, 0
    for r in records:
        n_in = input_tokens(r.request, model).input_tokens
        n_out = tok.count(r.response) if r.response is not None else output_tokens
        total_in, total_out = total_in + n_in, total_out + n_out
        costs.append((n_in * price.input.base + n_out * price.output.base) / Decimal(1_000_000))
    return costs, total_in, total_out


@pytest.mark.parametrize("model", MODELS)
def test_totals_equal_a_hand_computed_sum_per_model(model):
    report, records = _report(LOGS / "openai_chat.jsonl", output_tokens=40)
    assert len(records) == 3
    row = report.models.set_index("model").loc[model]
    costs, n_in, n_out = _by_hand(records, model, 40)
    assert row["usd_total"] == sum(costs)
    assert row["input_tokens"] == n_in
    assert row["output_tokens"] == n_out
    assert row["n_requests"] == 3
    assert row["usd_per_request_max"] == pytest.approx(float(max(costs)), rel=1e-9)
    assert row["usd_per_request_p50"] == pytest.approx(float(sorted(costs)[1]), rel=1e-9)


def test_every_family_counts_its_chat_format_with_the_count_vocabulary():
    report, records = _report(LOGS / "openai_chat.jsonl", output_tokens=40)
    m = report.models.set_index("model")
    for model in MODELS:
        counts = [input_tokens(r.request, model) for r in records]
        assert m.loc[model, "format_tokens"] == sum(c.format_tokens for c in counts)
        assert m.loc[model, "content_tokens"] == sum(c.content_tokens for c in counts)
        assert m.loc[model, "format_tokens"] > 0  # deepseek's template too, not "unknown, not counted"
    assert m.loc["gpt-4o", "format_tokens"] == 3 * 3 + 4 * (3 + 1)  # 3 requests primed, 4 messages with a role
    assert set(m["exactness"]) <= {"exact", "documented", "estimate"}
    assert m.loc["gpt-4o", "exactness"] == "documented"
    assert m.loc["claude-sonnet-4-5", "exactness"] == "estimate"
    assert "proxy" in m.loc["claude-sonnet-4-5", "exactness_reason"]


def test_logged_usage_matching_our_recount_is_zero_calibration_error():
    report, _ = _report(LOGS / "calibration.jsonl", models=["gpt-4o"])
    rows = report.calibration_rows.set_index("where")
    exact = rows.loc[f"{LOGS / 'calibration.jsonl'}:1"]
    assert exact["input_ours"] == exact["input_logged"] == 26
    assert exact["input_error"] == 0.0
    assert exact["output_error"] == 0.0
    (cal,) = report.calibration.to_dict("records")
    assert cal["served_by"] == "gpt-4o"
    assert cal["n_rows"] == 2


def test_a_row_with_a_tool_definition_is_counted_by_the_cookbook_tool_rules():
    report, records = _report(LOGS / "calibration.jsonl", models=["gpt-4o"])
    tools_row = report.calibration_rows.set_index("where").loc[f"{LOGS / 'calibration.jsonl'}:2"]
    assert tools_row["input_ours"] == input_tokens(records[1].request, "gpt-4o").input_tokens
    assert records[1].request.tools
    assert report.models.loc[0, "exactness"] in ("documented", "estimate")


def test_billed_beside_the_recount():
    report, records = _report(LOGS / "calibration.jsonl", models=["gpt-4o"])
    price = get_price("gpt-4o", on=ON)
    billed = sum((r.usage.input_tokens - r.usage.cached_tokens) * price.input.base
                 + r.usage.cached_tokens * price.cached_input.base + (r.usage.output_tokens or 0) * price.output.base
                 for r in records if r.usage) / Decimal(1_000_000)
    assert report.billed_total == billed
    assert report.billed_rows == sum(1 for r in records if r.usage)
    assert report.recounted_billed is not None
    assert report.billed_line().startswith("as billed: $")
    assert "; recounted: $" in report.headlines()[0]


def test_change_against_the_serving_model_and_cost_per_day():
    report, _ = _report(LOGS / "anthropic.jsonl", output_tokens=10)
    m = report.models.set_index("model")
    assert m.loc["claude-sonnet-4-5", "change_vs_served"] == 0.0
    expected = float(m.loc["gpt-4.1-mini", "usd_total"] / m.loc["claude-sonnet-4-5", "usd_total"] - 1)
    assert m.loc["gpt-4.1-mini", "change_vs_served"] == pytest.approx(expected)
    assert report.served_total == m.loc["claude-sonnet-4-5", "usd_total"]
    worded = f"{abs(expected):.0%} {'less' if expected < 0 else 'more'}"
    assert f"on gpt-4.1-mini this traffic would have cost {worded} (" in "\n".join(report.headlines())
    days = report.days[report.days["model"] == "gpt-4o"]
    assert days["day"].tolist() == ["2026-03-01"]
    assert days["usd"].sum() == m.loc["gpt-4o", "usd_total"]
    assert any("1 image(s) in 1 row(s)" in n for n in report.notes)


def test_no_serving_model_means_no_change_and_says_why():
    report, _ = _report(LOGS / "plain.txt", output_tokens=10)
    assert report.models["change_vs_served"].isna().all()
    assert report.headlines() == []
    assert any("no change against the serving model" in n and "no model in the log" in n for n in report.notes)


def test_rows_without_response_need_an_output_size():
    records, _ = read_log_records(LOGS / "plain.txt")
    with pytest.raises(ValueError, match=r"plain.txt:1: no logged response.*--output-tokens N or --output-ratio R"):
        price_chunk(records, plan_traffic(["gpt-4o"], on=ON))
    ratio, _ = _report(LOGS / "plain.txt", models=["gpt-4o"], output_ratio="0.5")
    row = ratio.models.iloc[0]
    # the ratio multiplies the content, not the chat format's tokens
    assert row["output_tokens"] == round(row["content_tokens"] * Decimal("0.5"))
    assert row["format_tokens"] > 0


def test_chunks_are_pure_and_merge_to_the_whole():
    records, _ = read_log_records([LOGS / "openai_chat.jsonl", LOGS / "anthropic.jsonl", LOGS / "calibration.jsonl"])
    plan = plan_traffic(MODELS, on=ON, output_tokens=20, cached_share="0.25")
    whole = summarise(price_chunk(records, plan), plan)
    # same input, same output, and plan, records and partials survive pickling (an engine ships them)
    again = pickle.loads(pickle.dumps(price_chunk(*pickle.loads(pickle.dumps((records, plan))))))
    parts = TrafficPartial()
    for chunk in chunked(records, 3):
        parts.merge(price_chunk(chunk, plan))
    split = summarise(parts, plan)
    assert whole.models["usd_total"].tolist() == split.models["usd_total"].tolist()
    assert whole.models["usd_total"].tolist() == summarise(again, plan).models["usd_total"].tolist()
    assert whole.calibration.equals(split.calibration)
    assert np.allclose(whole.models["usd_per_request_p95"], split.models["usd_per_request_p95"])


def test_cached_share_and_missing_tokenizer_are_stated():
    report, _ = _report(LOGS / "openai_chat.jsonl", models=["gpt-4o", "groq:llama-3.3-70b-versatile"],
                        output_tokens=40, cached_share="0.5")
    full, _ = _report(LOGS / "openai_chat.jsonl", models=["gpt-4o"], output_tokens=40)
    m = report.models.set_index("model")
    assert m.loc["gpt-4o", "usd_total"] < full.models.loc[0, "usd_total"]
    llama = m.loc["groq:llama-3.3-70b-versatile"]
    assert llama["usd_total"] is None
    assert "tokenprism vocab fetch llama3" in llama["status"]
