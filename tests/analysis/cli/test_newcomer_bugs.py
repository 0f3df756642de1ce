"""Regression tests for what a newcomer's walk through the CLI found (issue 56): each bug as it
showed, and the fix held."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import pytest

from analysis.cost.bill import rates_by_tier
from analysis.cost.prices import get_price

from .examples import run_in_examples


run = run_in_examples


def _model(capsys, argv: list[str]) -> dict:
    code, out, _ = run(capsys, [*argv, "--format", "json"])
    assert code == 0
    return json.loads(out)["models"][0]


def test_cached_share_0_means_no_cache(capsys):
    # it was ignored: the simulated cache still ran (22% low, and "estimate" where 0.0001 is "documented")
    log = ["cost", "--logs", "support.jsonl", "-m", "gpt-4o"]
    simulated = _model(capsys, log)
    none = _model(capsys, [*log, "--cached-share", "0"])
    tiny = _model(capsys, [*log, "--cached-share", "0.0001"])
    assert none["cache_read_tokens"] == 0 and Decimal(none["usd_total"]) > Decimal(simulated["usd_total"])
    assert none["exactness"] == tiny["exactness"] == "documented" != simulated["exactness"]
    assert abs(Decimal(none["usd_total"]) - Decimal(tiny["usd_total"])) < Decimal("0.0001")


@pytest.mark.parametrize("flag,rate", [(["--batch"], "batch"), (["--service-tier", "priority"], "priority")])
def test_batch_and_a_service_tier_price_one_request(flag, rate, capsys):
    # they exited 2 with "give --requests-per-month N"
    argv = ["cost", "Summarise this contract.", "-m", "gpt-4o", "--output-tokens", "300"]
    code, out, err = run(capsys, [*argv, *flag, "--format", "json"])
    assert code == 0, err
    (row,) = json.loads(out)["per_request"]
    code, out, _ = run(capsys, [*argv, "--format", "json"])
    (standard,) = json.loads(out)["per_request"]
    today = date.today()
    r = rates_by_tier(get_price("gpt-4o", on=today), today, batch=rate == "batch",
                   service_tier=None if rate == "batch" else rate)[0]
    s = rates_by_tier(get_price("gpt-4o", on=today), today)[0]
    assert Decimal(row["usd_input"]) == Decimal(standard["usd_input"]) * r.input / s.input


def test_per_mtok_figures_are_the_price_tables(capsys):
    # with reasoning tokens they read 15.000000000000000048: dollars divided by tokens
    row = _model(capsys, ["cost", "Prove it.", "-m", "claude-sonnet-4-5", "--output-tokens", "300",
                          "--requests-per-month", "1000", "--reasoning-tokens", "777"])
    rates = {p["name"]: p["usd_per_mtok"] for p in row["parts"]}
    assert rates["output"] == rates["reasoning"] == row["usd_per_mtok_output"] == "15.0000000000"
    assert rates["input"] == row["usd_per_mtok_input"] == "3.0000000000"
    # with --batch the columns are the batch price's, as the bill is
    batch = _model(capsys, ["cost", "Prove it.", "-m", "o3", "--output-tokens", "300", "--requests-per-month",
                            "1000", "--batch"])
    today = date.today()
    r = rates_by_tier(get_price("o3", on=today), today, batch=True)[0]
    assert Decimal(batch["usd_per_mtok_input"]) == r.input and Decimal(batch["usd_per_mtok_output"]) == r.output
    assert {p["name"]: Decimal(p["usd_per_mtok"]) for p in batch["parts"]}["output"] == r.output


def test_a_model_without_a_tokenizer_reads_no_tokenizer_and_the_readme_example_is_priced(capsys, tmp_path):
    bare = tmp_path / "bare.csv"
    bare.write_text("model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\nmy-model,1,4,ours,2026-06-01\n")
    argv = ["-f", "prompt.txt", "-m", "my-model,gpt-4o", "--on", "2026-06-01", "--requests-per-month", "10",
            "--output-tokens", "5"]
    code, out, _ = run(capsys, ["cost", *argv, "--prices", str(bare)])
    assert code == 0 and "NaN" not in out
    line = next(x for x in out.splitlines() if x.startswith("my-model "))
    assert "no tokenizer" in line
    code, out, _ = run(capsys, ["cost", *argv, "--prices", "my-prices.csv"])  # the README's file: priced
    line = next(x for x in out.splitlines() if x.startswith("my-model "))
    assert code == 0 and "$" in line and line.rstrip().endswith("ok") and "NaN" not in out


def test_a_proxy_is_marked_in_count_budget_and_count_json(capsys):
    code, out, _ = run(capsys, ["count", "--budget", "prompt-budget.toml"])
    claude = [x for x in out.splitlines() if " claude-sonnet-4-5 " in x]
    assert code == 0 and claude and all("~o200k_base" in x for x in claude)
    code, out, _ = run(capsys, ["count", "hi", "-m", "gpt-4o,claude-sonnet-4-5", "--format", "json"])
    assert [r["tokenizer"] for r in json.loads(out)] == ["o200k_base", "~o200k_base"]
