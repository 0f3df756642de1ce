"""`tokenprism cost --logs` on every log shape, and the quick price of one request."""

from __future__ import annotations

import io
import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from analysis import load_tokenizer
from analysis.cli import main
from analysis.cost import get_price

LOGS = Path(__file__).resolve().parents[3] / "fixtures" / "logs"
FOUR = "gpt-4o,gpt-4.1-mini,claude-sonnet-4-5,deepseek-chat"


def run(capsys, argv):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_quick_price_needs_only_text_and_model(capsys):
    rc, out, err = run(capsys, ["cost", "hi", "-m", "gpt-4o", "--on", "2026-01-15", "--format", "json"])
    assert rc == 0, err
    (row,) = json.loads(out)["per_request"]
    n = load_tokenizer("o200k_base").count("hi") + 4 + 3  # one user message, chat format documented
    assert row["input_tokens"] == n
    assert Decimal(row["usd_input"]) == n * get_price("gpt-4o", on=date(2026, 1, 15)).input.base / Decimal(1_000_000)
    assert "usd_output" not in row
    assert "usd_per_month" not in row
    rc, out, _ = run(capsys, ["cost", "hi", "-m", "gpt-4o"])
    assert rc == 0
    assert "$ input" in out
    assert "$/month" not in out
    assert "--output-tokens N" in out


def test_quick_price_adds_output_and_month_on_request(capsys, tmp_path, monkeypatch):
    path = tmp_path / "prompt.txt"
    path.write_text("Summarise the attached contract.")
    rc, out, _ = run(capsys, ["cost", "-f", str(path), "-m", "gpt-4o", "--output-tokens", "100", "--format", "json"])
    (row,) = json.loads(out)["per_request"]
    assert rc == 0
    assert Decimal(row["usd_per_request"]) == Decimal(row["usd_input"]) + Decimal(row["usd_output"])
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"hello there")))
    rc, out, _ = run(capsys, ["cost", "-m", "gpt-4o", "--requests-per-month", "1000", "--format", "csv"])
    assert rc == 0
    assert "usd_per_month" in out.splitlines()[0]
    assert "usd_output" not in out


def test_a_misspelt_model_fails_with_the_closest_names(capsys):
    rc, _, err = run(capsys, ["cost", "hi", "-m", "gpt-4oo"])
    assert rc == 2
    assert "unknown model 'gpt-4oo'" in err
    assert "openai:gpt-4o" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ["openai_chat.jsonl", "openai_batch.jsonl", "anthropic.jsonl", "plain.txt", "chat.csv"])
def test_logs_of_every_shape_priced_under_four_models(capsys, name):
    rc, out, err = run(capsys, ["cost", "--logs", str(LOGS / name), "-m", FOUR, "--output-tokens", "30",
                                "--on", "2026-01-15", "--format", "json"])
    assert rc == 0, err
    data = json.loads(out)
    assert data["estimate"] is True
    assert [m["model"] for m in data["models"]] == FOUR.split(",")
    assert all(Decimal(m["usd_total"]) > 0 for m in data["models"])
    assert data["n_rows"] == sum(1 for line in (LOGS / name).read_text().splitlines() if line.strip()) - (name == "chat.csv")


def test_table_and_report_folder(capsys, tmp_path):
    rc, out, err = run(capsys, ["cost", "--logs", str(LOGS / "calibration.jsonl"), str(LOGS / "anthropic.jsonl"),
                                "-m", FOUR, "--output-tokens", "30", "--out", str(tmp_path)])
    assert rc == 0
    assert "total $" in out and "text only $" in out
    assert "Calibration" in out
    assert "vs served" in out
    assert "As billed" in out
    assert "As billed: $" in out.split("\n\n")[0]  # the bill in the answer sentence (issue 56)
    assert "estimate: " in out  # the exactness vocabulary of `count`, never "approximate"
    assert "approximate" not in out
    for name in ("report.md", "report.html", "report.json", "traffic_by_model.csv", "traffic_calibration.csv",
                 "traffic_total.png", "traffic_per_day.svg"):
        assert (tmp_path / name).stat().st_size > 0
        assert name in err
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tokenprism-tmp")]
    assert "data:image/png;base64," in (tmp_path / "report.html").read_text()
    first = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.suffix in (".png", ".svg")}
    again = tmp_path / "again"
    rc, _, _ = run(capsys, ["cost", "--logs", str(LOGS / "calibration.jsonl"), str(LOGS / "anthropic.jsonl"),
                            "-m", FOUR, "--output-tokens", "30", "--out", str(again)])
    assert rc == 0
    assert {p.name: p.read_bytes() for p in again.iterdir() if p.suffix in (".png", ".svg")} == first  # reproducible


def test_bad_rows_exit_2_or_are_skipped_with_counts(capsys, tmp_path):
    log = tmp_path / "month.jsonl"
    log.write_text((LOGS / "openai_chat.jsonl").read_text() + "{not json\n")
    rc, _, err = run(capsys, ["cost", "--logs", str(log), "-m", "gpt-4o", "--output-tokens", "5"])
    assert rc == 2
    assert f"{log}:4: not valid JSON" in err
    assert "--errors skip" in err
    rc, out, err = run(capsys, ["cost", "--logs", str(log), "-m", "gpt-4o", "--output-tokens", "5", "--errors", "skip"])
    assert rc == 0
    assert "1 skipped: not valid JSON (1:" in err
    assert "3 row(s) read" in out


def test_logs_without_response_need_an_output_size_and_no_workload_flags(capsys):
    rc, _, err = run(capsys, ["cost", "--logs", str(LOGS / "plain.txt"), "-m", "gpt-4o"])
    assert rc == 2
    assert "--output-tokens N or --output-ratio R" in err
    rc, _, err = run(capsys, ["cost", "--logs", str(LOGS / "plain.txt"), "-m", "gpt-4o", "--output-tokens", "5",
                              "--messages-per-request", "3"])
    assert rc == 2
    assert "is counted as it is" in err
    rc, _, err = run(capsys, ["cost", "hi", "--logs", str(LOGS / "plain.txt"), "-m", "gpt-4o"])
    assert rc == 2
    assert "either --logs or requests" in err
