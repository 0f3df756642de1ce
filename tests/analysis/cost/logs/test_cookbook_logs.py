"""Known answers through `cost --logs`: the OpenAI Cookbook's API-verified prompts, recounted to the token.

The Cookbook ("How to count tokens with tiktoken") publishes the `prompt_tokens` the API billed
for its example prompts (with `name` fields, and with a function definition). Written as a log
whose rows carry that usage, each row's recount on the model that served it must equal it: the
old recount missed the names (11% under) and counted the tool as JSON text (about 40% over).
"""

from __future__ import annotations

import json

import pytest

from analysis.cli import main
from analysis.cost import plan_traffic, price_records, read_log_records, summarise
from tests.analysis.requests.cookbook import VERIFIED


@pytest.fixture
def cookbook_log(tmp_path):
    path = tmp_path / "cookbook.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for model, body, billed, _ in VERIFIED:
            f.write(json.dumps({"model": model, **body, "response": "ok",
                                "usage": {"prompt_tokens": billed, "completion_tokens": 1}}) + "\n")
    return path


def test_every_verified_prompt_recounts_to_the_billed_tokens(cookbook_log):
    records, log_report = read_log_records(cookbook_log)
    plan = plan_traffic(["gpt-4o"])
    report = summarise(price_records(records, plan), plan, log_report)
    rows = report.calibration_rows
    assert len(rows) == min(10, len(VERIFIED))  # the rows kept are those that differ most: none differ
    assert (rows["input_ours"] == rows["input_logged"]).all()
    assert (report.calibration["input_worst_error"] == 0.0).all()
    assert report.calibration["n_rows"].sum() == len(VERIFIED)


@pytest.mark.parametrize(("model", "body", "billed", "revision"), VERIFIED,
                         ids=[f"{m}-{r.split(' ')[0]}-{'tools' if 'tools' in b else 'names'}" for m, b, _, r in VERIFIED])
def test_one_row_log_on_its_model(tmp_path, capsys, model, body, billed, revision):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"model": model, **body, "response": "ok",
                                "usage": {"prompt_tokens": billed, "completion_tokens": 1}}) + "\n")
    assert main(["cost", "--logs", str(path), "-m", model, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (row,) = data["models"]
    assert row["input_tokens"] == billed  # the billed count, not 11% under
    assert row["exactness"] == "documented"
    # priced on the same model at the same price, the recount and the bill are the same money
    assert data["usd_as_billed"] == data["usd_recounted_billed"] == row["usd_total"]
