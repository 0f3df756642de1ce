"""The JSON contract on every cost face: counts are ints, money a 10-place decimal string, ratios numbers.

Each output is produced the way a user gets it (the CLI's --format json|csv and --out files, the
service's /v1/cost, the report data files), loaded back with `json`/`csv`, and its types checked
by column name, so a count that comes out as `9.0` or a ragged `"303.2500000"` fails here.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from analysis.cli import main
from analysis.requests import Request, input_tokens

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
TEXT = "Where is my parcel? It was due on Monday."
MONEY = re.compile(r"^-?\d+\.\d{10}$")
EXACTNESS = {"exact", "documented", "estimate"}


def run(capsys, argv: list[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def check_row(row: dict) -> int:
    """Assert the contract on one JSON row; returns how many typed cells it checked."""
    checked = 0
    for key, value in row.items():
        if value is None:
            continue
        if key.startswith("usd_"):
            assert isinstance(value, str) and MONEY.match(value), (key, value)
        elif key.endswith("_tokens") or key.startswith("n_") or key in ("input_ours", "input_logged", "output_ours",
                                                                          "output_logged", "input_rows", "output_rows"):
            assert isinstance(value, int) and not isinstance(value, bool), (key, value)
        elif key.endswith(("_per_request", "_per_token", "_error")) or key == "change_vs_served":
            assert isinstance(value, float), (key, value)
        elif key == "exactness":
            assert value in EXACTNESS, (key, value)
        else:
            continue
        checked += 1
    return checked


def check_rows(rows: list[dict]) -> None:
    assert rows
    assert sum(check_row(r) for r in rows) >= len(rows)  # every row has typed cells, and they were checked


def check_csv(text: str) -> None:
    """In a CSV, a count column holds digits only and money 10 decimals."""
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows
    for row in rows:
        for key, value in row.items():
            if not value:
                continue
            if key.startswith("usd_"):
                assert MONEY.match(value), (key, value)
            elif key.endswith("_tokens") or key.startswith("n_"):
                assert re.fullmatch(r"\d+", value), (key, value)


def test_quick_price_json_and_csv(capsys):
    argv = ["cost", TEXT, "-m", "gpt-4o,claude-sonnet-4-5", "--output-tokens", "10"]
    data = json.loads(run(capsys, argv + ["--format", "json"]))
    check_rows(data["per_request"])
    for row in data["per_request"]:  # the same number as `tokenprism count`
        assert row["input_tokens"] == input_tokens(Request.from_text(TEXT), row["model"]).input_tokens
        assert row["input_tokens"] == row["content_tokens"] + row["format_tokens"]
    check_csv(run(capsys, argv + ["--format", "csv"]))


def test_workload_json_csv_and_report_folder(capsys, tmp_path):
    argv = ["cost", TEXT, "-m", "gpt-4o,claude-haiku-4-5", "--requests-per-month", "1000", "--output-ratio", "0.5"]
    data = json.loads(run(capsys, argv + ["--format", "json"]))
    check_rows(data["models"])
    assert data["workload"]["requests_per_month"] == 1000
    assert data["workload"]["output_ratio"] == 0.5
    gpt = next(r for r in data["models"] if r["model"] == "gpt-4o")
    assert gpt["input_tokens"] == input_tokens(Request.from_text(TEXT), "gpt-4o").input_tokens
    assert gpt["exactness"] == "documented" and gpt["exactness_reason"]
    check_csv(run(capsys, argv + ["--format", "csv"]))
    run(capsys, argv + ["--out", str(tmp_path)])
    check_csv((tmp_path / "cost_by_model.csv").read_text())
    check_csv((tmp_path / "cost_requests.csv").read_text())


def test_logs_json_csv_and_report_json(capsys, tmp_path):
    argv = ["cost", "--logs", str(LOGS / "calibration.jsonl"), str(LOGS / "anthropic.jsonl"), "-m", "gpt-4o,gpt-4.1-mini",
            "--output-tokens", "30", "--on", "2026-01-15"]
    data = json.loads(run(capsys, argv + ["--format", "json"]))
    for table in ("models", "served", "calibration", "calibration_rows", "days"):
        check_rows(data[table])
    assert isinstance(data["n_rows"], int)
    assert MONEY.match(data["usd_as_billed"]) and MONEY.match(data["usd_recounted_billed"])
    from analysis.cost import read_log_records

    records, _ = read_log_records([LOGS / "calibration.jsonl", LOGS / "anthropic.jsonl"])
    assert data["n_billed"] == sum(1 for r in records if r.usage) > 0
    billed = [r for r in data["served"] if r.get("n_billed")]
    assert billed and all(isinstance(r["billed_input_tokens"], int) for r in billed)
    check_csv(run(capsys, argv + ["--format", "csv"]))
    run(capsys, argv + ["--out", str(tmp_path)])
    report = json.loads((tmp_path / "report.json").read_text())
    check_rows(report["models"])
    for name in ("traffic_by_model.csv", "traffic_served.csv"):
        check_csv((tmp_path / name).read_text())


def test_the_service_cost_route(tmp_path):
    pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")
    from fastapi.testclient import TestClient

    from analysis.api.app import create_app
    from analysis.api.settings import Settings

    with TestClient(create_app(Settings(tokenizers=("o200k_base",)))) as client:
        got = client.post("/v1/cost", json={"text": TEXT, "models": ["gpt-4o"], "requests_per_month": 1000,
                                            "output_tokens": 10})
    assert got.status_code == 200, got.text
    body = json.loads(got.text)
    check_rows(body["models"])
    assert body["models"][0]["input_tokens"] == input_tokens(Request.from_text(TEXT), "gpt-4o").input_tokens
