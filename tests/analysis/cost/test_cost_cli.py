"""`tokenprism cost` and `tokenprism models`: formats, report folder, figures and bad input."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

import genai_prices
import pandas as pd
import pytest
from matplotlib.figure import Figure

from analysis.cli import main
from analysis.cost import Workload, estimate, get_price, list_prices
from analysis.plots.cost import cost_vs_chars_per_token, monthly_cost_bar

BASE = ["cost", "Where is my parcel? It was due on Monday.", "--on", "2026-01-15", "--requests-per-month", "1000",
        "--output-tokens", "50"]
VERSION = genai_prices.__version__


def run(capsys, argv):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_table_names_price_source_workload_and_estimates(capsys):
    rc, out, _ = run(capsys, BASE + ["--models", "gpt-4o,claude-haiku-4-5", "--cached-share", "0.5"])
    assert rc == 0
    assert f"prices in force on 2026-01-15 (UTC): genai-prices {VERSION}" in out  # in the trailer
    assert out.startswith("Cheapest: ")  # the answer first
    assert "1,000 requests/month" in out
    assert "cached share 50%" in out
    assert "~o200k_base" in out
    assert "estimate" in out
    assert "approximate" not in out  # the exactness vocabulary of `count`
    assert "claude-haiku-4-5: estimate: " in out  # its one-line note


def test_csv_has_exact_decimal_money_and_the_source(capsys):
    rc, out, _ = run(capsys, BASE + ["--models", "gpt-4o", "--format", "csv"])
    assert rc == 0
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert row["price_source"] == f"genai-prices {VERSION}"
    assert row["price_as_of"] == "2026-01-15"
    assert Decimal(row["usd_per_month"]) == Decimal(row["usd_per_request"]) * 1000


def test_json_keeps_money_as_strings(capsys):
    rc, out, _ = run(capsys, BASE + ["--models", "gpt-4o,deepseek-chat", "--format", "json"])
    data = json.loads(out)
    assert rc == 0
    assert data["prices_on"] == "2026-01-15"
    assert data["price_source"].startswith("genai-prices")
    assert all(isinstance(m["usd_per_month"], str) for m in data["models"])
    assert data["workload"]["requests_per_month"] == 1000


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_markdown_and_html_carry_source_and_notes(capsys, fmt):
    rc, out, _ = run(capsys, BASE + ["--models", "gpt-4o,gemini-2.5-flash", "--format", fmt])
    assert rc == 0
    assert f"genai-prices {VERSION}" in out
    assert "ESTIMATE" in out
    assert ("| model |" in out) if fmt == "md" else ("<table" in out and "</html>" in out)


def test_out_writes_the_report_folder(capsys, tmp_path):
    rc, _, err = run(capsys, BASE + ["--models", "gpt-4o,claude-haiku-4-5", "--format", "csv", "--out", str(tmp_path)])
    assert rc == 0
    for name in ("report.md", "report.html", "cost_by_model.csv", "cost_requests.csv", "monthly_cost.png",
                 "monthly_cost.svg", "cost_vs_chars_per_token.png", "cost_vs_chars_per_token.svg"):
        assert (tmp_path / name).stat().st_size > 0, name
        assert name in err
    md = (tmp_path / "report.md").read_text()
    assert "![Monthly cost by model](monthly_cost.png)" in md
    assert f"genai-prices {VERSION}" in md
    assert "data:image/png;base64," in (tmp_path / "report.html").read_text()


def test_corpus_input_and_category_breakdown(capsys, tmp_path):
    (tmp_path / "a.py").write_text("def f(x):\n    return x + 1\n")
    (tmp_path / "b.txt").write_text("Dear customer, your refund has been processed.\n")
    rc, out, _ = run(capsys, ["cost", "--corpus", str(tmp_path), "--models", "gpt-4o", "--requests-per-month", "10",
                              "--output-ratio", "0.5"])
    assert rc == 0
    assert "by category" in out
    assert "code" in out
    assert "prose" in out


@pytest.mark.parametrize("engine", ["inprocess", "local"])
def test_corpus_reading_error_is_named_not_hidden(capsys, tmp_path, engine):
    # a bad line used to come out as "no text loaded" whenever nothing had been priced yet
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "hello"}\n{"text": "world"}\n{"text": "cut\n', encoding="utf-8")
    rc, _, err = run(capsys, ["cost", "--corpus", str(bad), "--column", "text", "--models", "gpt-4o",
                              "--requests-per-month", "10", "--output-tokens", "5", "--engine", engine])
    assert rc == 2
    assert "line 3 is not valid JSON" in err
    assert "no text loaded" not in err
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"text": ""}\n', encoding="utf-8")
    rc, _, err = run(capsys, ["cost", "--corpus", str(empty), "--column", "text", "--models", "gpt-4o",
                              "--requests-per-month", "10", "--output-tokens", "5", "--engine", engine])
    assert rc == 2
    assert "no text loaded" in err
    assert "1 empty row(s) skipped" in err


def test_files_are_one_request_each(capsys, tmp_path):
    short, long = tmp_path / "short.txt", tmp_path / "long.txt"
    short.write_text("Hi.")
    long.write_text("Please summarise the attached contract. " * 20)
    rc, out, _ = run(capsys, ["cost", "-f", str(short), "-f", str(long), "--models", "gpt-4o", "--format", "json",
                              "--requests-per-month", "1", "--output-tokens", "0", "--messages-per-request", "0"])
    data = json.loads(out)
    assert rc == 0
    assert data["input"]["n_requests_sampled"] == 2
    from analysis import load_tokenizer

    tok = load_tokenizer("o200k_base")
    mean = (tok.count(short.read_text()) + tok.count(long.read_text())) / 2
    assert data["models"][0]["input_tokens_per_request"] == mean


def test_prices_file_replaces_a_model(capsys, tmp_path):
    prices = tmp_path / "mine.csv"
    prices.write_text("model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\ngpt-4o,1,1,contract,2026-01-01\n")
    rc, out, _ = run(capsys, BASE + ["--models", "gpt-4o", "--prices", str(prices), "--format", "csv"])
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0
    assert row["price_source"] == "mine.csv: contract"
    assert row["usd_per_mtok_input"] == "1.0000000000"


@pytest.mark.parametrize(("extra", "message"), [
    pytest.param(["--requests-per-month", "-5"], "argument --requests-per-month: value must be a non-negative", id="negative"),
    pytest.param(["--requests-per-month", "many"], "argument --requests-per-month: value must be a number", id="text"),
    pytest.param(["--cached-share", "1.5"], "argument --cached-share: value must be at most 1", id="share"),
    pytest.param(["--messages-per-request", "2.5"], "argument --messages-per-request: value must be a whole number", id="messages"),
    pytest.param(["--output-ratio", "1"], "not allowed with argument --output-tokens", id="both-outputs"),
    pytest.param(["--on", "yesterday"], "argument --on: 'yesterday' is not a date", id="date"),
])
def test_bad_workload_flags_exit_2_naming_the_flag(capsys, extra, message):
    with pytest.raises(SystemExit) as info:
        main(BASE + ["--models", "gpt-4o"] + extra)
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_unknown_model_exits_2_with_closest_names(capsys):
    rc, _, err = run(capsys, BASE + ["--models", "gpt-4o,claude-sonet-4-5"])
    assert rc == 2
    assert "unknown model 'claude-sonet-4-5'" in err
    assert "anthropic:claude-sonnet-4-5" in err


def test_bad_prices_file_exits_2_naming_line_and_column(capsys, tmp_path):
    prices = tmp_path / "bad.csv"
    prices.write_text("model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\nx,1,one,s,2026-01-01\n")
    rc, _, err = run(capsys, BASE + ["--prices", str(prices)])
    assert rc == 2
    assert f"{prices}: line 2, column usd_per_mtok_output: 'one' is not a number" in err


def test_models_lists_prices_tokenizer_and_exactness(capsys):
    rc, out, _ = run(capsys, ["models", "--provider", "deepseek", "--on", "2026-01-15", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0
    assert rows
    assert {r["model"].split(":")[0] for r in rows} == {"deepseek"}
    assert all(r["tokenizer"] == "deepseek-v4" and r["exactness"] == "exact" for r in rows)
    assert all(r["price_source"] == f"genai-prices {VERSION}" for r in rows)


def test_models_table_and_filters(capsys):
    rc, out, _ = run(capsys, ["models", "claude-haiku", "--exactness", "approximate"])
    assert rc == 0
    assert out.startswith("model ") and f"(UTC): genai-prices {VERSION}" in out.splitlines()[-1]
    assert "~o200k_base" in out
    assert "anthropic:claude-haiku-4-5" in out
    rc, _, err = run(capsys, ["models", "--provider", "opnai"])
    assert rc == 2
    assert "did you mean openai" in err


def test_every_listed_model_key_resolves_back_to_itself():
    for price in list_prices():
        assert get_price(price.key).key == price.key


def test_figures_are_matplotlib_figures_that_show_missing_costs():
    report = estimate("hello there", ["gpt-4o", "claude-haiku-4-5", "groq:llama-3.3-70b-versatile"],
                      workload=Workload(requests_per_month=100, output_tokens=10))
    bar = monthly_cost_bar(report.models)
    assert isinstance(bar, Figure)
    texts = [t.get_text() for t in bar.axes[0].texts]
    assert any("tokenprism vocab fetch llama3" in t for t in texts)  # named, not drawn as $0
    assert sum(1 for t in texts if "(estimate)" in t) == 1
    scatter = cost_vs_chars_per_token(report.models)
    assert isinstance(scatter, Figure)
    assert "USD per million input characters" in scatter.axes[0].get_ylabel()
    frame = pd.DataFrame({"model": ["a"], "exactness": ["exact"], "status": ["ok"], "usd_per_month": [None]})
    assert "no price" in [t.get_text() for t in monthly_cost_bar(frame).axes[0].texts]


def test_workload_numbers_typed_with_an_exponent_show_in_plain_digits(capsys):
    # "1e6" is read exactly as a Decimal; the workload line used to print it as "1E+6"
    rc, out, _ = run(capsys, ["cost", "some text", "--models", "gpt-4o", "--requests-per-month", "1e6",
                              "--output-tokens", "3E2"])
    assert rc == 0
    assert "1,000,000 requests/month" in out
    assert "300 output tokens/request" in out
    assert "E+" not in out


def test_every_format_the_cli_offers_has_one_writer_in_each_cost_table():
    # the CLI picks a writer from report.cost's tables (the terminal table is cli.answer's): no format
    # ladder, and no format without a writer
    import argparse

    from analysis.cli import build_parser
    from analysis.cli.cost import FORMATS
    from analysis.report.cost import MODELS_WRITERS, QUICK_WRITERS, WRITERS

    assert set(FORMATS) == {"table", *WRITERS} == {"table", *QUICK_WRITERS}
    sub = next(a for a in build_parser(["models"])._actions if isinstance(a, argparse._SubParsersAction))
    models_format = next(a for a in sub.choices["models"]._actions if a.dest == "format")
    assert set(models_format.choices) == {"table", *MODELS_WRITERS}


@pytest.mark.slow  # writes a report folder with its figures (about 2 s)
def test_a_workload_on_a_reasoning_model_without_a_figure_says_so_in_every_output(tmp_path, capsys):
    # issue 42: `cost TEXT -m o3 --output-tokens 300` prices 300 visible tokens; o3 bills its reasoning too
    argv = ["cost", "Prove that there are infinitely many primes.", "-m", "o3,gpt-4.1", "--output-tokens", "300",
            "--requests-per-month", "1000"]
    assert main([*argv, "--out", str(tmp_path / "report")]) == 0
    table = capsys.readouterr().out
    assert "reasoning not included" in table
    for name in ("report.md", "report.html", "cost_by_model.csv"):
        assert "reasoning not included" in (tmp_path / "report" / name).read_text(encoding="utf-8"), name
    assert main([*argv, "--format", "json"]) == 0
    rows = {r["model"]: r for r in json.loads(capsys.readouterr().out)["models"]}
    assert "reasoning not included" in json.dumps(rows["o3"]) and "reasoning not included" not in json.dumps(rows["gpt-4.1"])
    assert main([*argv, "--reasoning-tokens", "2000", "--format", "json"]) == 0
    assert "reasoning not included" not in capsys.readouterr().out
