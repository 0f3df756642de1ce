"""Findings 4, 6 and 10: bounded reads, bounded workload numbers, and the smaller issues.

Every read of user input has a bound with a clear error past it; non-regular files are refused
(a FIFO is named as one); workload numbers have upper bounds shared by the CLI and the
dashboard; cost reports neutralise formula cells; `--show` prints no raw control characters.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from analysis import cli
from analysis.cost import WORKLOAD_LIMITS, Workload, workload_value
from analysis.report.cost import neutralize_formula, safe_table
from analysis.textio import WHY_LIMITS, read_text_file, short_input_problem
from tests.conftest import REPO

COST = ["cost", "--requests-per-month", "10", "--models", "gpt-4o"]


def _run(args, **kw):
    return subprocess.run([sys.executable, "-m", "analysis", *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), **kw)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("args", [["compare", "-t", "gpt2", "-f", "/dev/zero"],
                                  [*COST, "--output-tokens", "1", "-f", "/dev/zero"],
                                  ["compare", "-t", "hf:/dev/zero", "x"]], ids=["compare-f", "cost-f", "hf-spec"])
def test_devices_are_refused_at_once(args):
    proc = _run(args)  # used to read forever, growing by gigabytes
    assert proc.returncode == 2
    assert "not a regular file" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_named_as_one(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert cli.main(["measure", str(fifo), "-t", "gpt2"]) == 2  # used to say "no such file or folder"
    assert "named pipe (FIFO)" in capsys.readouterr().err
    assert cli.main(["compare", "-t", "gpt2", "-f", str(fifo)]) == 2
    assert "named pipe (FIFO)" in capsys.readouterr().err


def test_file_and_stdin_bounds_are_configurable(tmp_path, monkeypatch, capsys):
    big = tmp_path / "big.txt"
    big.write_text("a" * 3000)
    with pytest.raises(ValueError, match="larger than the limit of 2,000 bytes.*--max-input-mb"):
        read_text_file(big, max_bytes=2000)
    monkeypatch.setenv("TOKENPRISM_MAX_INPUT_MB", "0.001")
    with pytest.raises(ValueError, match="limit of 1,000 bytes"):
        read_text_file(big)
    monkeypatch.delenv("TOKENPRISM_MAX_INPUT_MB")
    assert read_text_file(big)[0] == "a" * 3000
    for mb, code in (("0.001", 2), ("0.01", 0)):
        fake = io.TextIOWrapper(io.BytesIO(b"a" * 3000))
        fake.isatty = lambda: False
        monkeypatch.setattr(sys, "stdin", fake)
        assert cli.main(["compare", "-t", "gpt2", "--max-input-mb", mb]) == code


def test_vocabulary_bound(tmp_path, monkeypatch):
    from analysis.tokenizers.registry import load_tokenizer

    spec = tmp_path / "tokenizer.json"
    spec.write_text("{}" + " " * 5000)
    monkeypatch.setenv("TOKENPRISM_MAX_VOCAB_MB", "0.001")
    with pytest.raises(ValueError, match="TOKENPRISM_MAX_VOCAB_MB"):
        load_tokenizer(f"hf:{spec}")


@pytest.mark.parametrize("flag,value", [("--output-tokens", "1e999999999"), ("--output-ratio", "1e308"),
                                        ("--requests-per-month", "1e23"), ("--chars-per-request", "1e400")])
def test_cost_numbers_have_upper_bounds(flag, value, capsys):
    args = ["cost", "--models", "gpt-4o", "--requests-per-month", "10", "--output-tokens", "5", flag, value, "hi"]
    with pytest.raises(SystemExit) as info:  # used to end in a decimal.Overflow traceback
        cli.main(args)
    assert info.value.code == 2
    assert "must be at most" in capsys.readouterr().err


def test_a_huge_message_count_does_not_spin():
    # in a child with a timeout: this one used to loop for as long as the number typed
    proc = _run([*COST, "--output-tokens", "5", "--messages-per-request", "1e999999999", "hi"])
    assert proc.returncode == 2
    assert "must be at most" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_one_validator_for_cli_and_dashboard():
    for name, limit in WORKLOAD_LIMITS.items():
        assert workload_value(name, limit) == limit
        with pytest.raises(ValueError, match="at most"):
            workload_value(name, limit + 1)
    with pytest.raises(ValueError, match="non-negative"):
        Workload(requests_per_month=-5, output_tokens=1)  # the dashboard no longer clamps it away
    with pytest.raises(ValueError, match="at most"):
        Workload(requests_per_month=10**23, output_tokens=1)
    with pytest.raises(ValueError, match="at most"):
        Workload(requests_per_month=10, output_ratio=str(1e308))


def test_price_file_values_are_bounded(tmp_path, capsys):
    prices = tmp_path / "p.csv"
    prices.write_text("model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\nmine,1e999999999,1,me,2026-01-01\n")
    assert cli.main([*COST, "--output-tokens", "1", "--prices", str(prices), "hi"]) == 2
    assert "at most" in capsys.readouterr().err


def test_dashboard_cost_page_rejects_out_of_range_values_with_a_message():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "dashboards" / "app_pages" / "cost.py"), default_timeout=120).run()
    at.text_input(key="cost_rpm").set_value("-5")
    at.button(key="cost_go").click().run()
    assert not at.exception, at.exception
    assert any("non\\-negative" in e.value for e in at.error)  # was silently replaced by 100,000 (Markdown-escaped)
    at.text_input(key="cost_rpm").set_value("100")
    at.radio(key="cost_out_mode").set_value("ratio of input tokens")
    at.text_input(key="cost_out_ratio").set_value("1e308")
    at.button(key="cost_go").click().run()
    assert not at.exception, at.exception  # was a traceback from the chart
    assert any("at most 1000" in e.value for e in at.error)


def test_formula_cells_are_neutralised():
    import pandas as pd

    frame = pd.DataFrame({"model": ['=HYPERLINK("http://x","y")', "+1", "@SUM(A1)", "-2", "gpt-4o"], "n": [1, -2, 3, 4, 5]})
    safe = safe_table(frame)
    assert safe["model"].tolist() == ['\'=HYPERLINK("http://x","y")', "'+1", "'@SUM(A1)", "'-2", "gpt-4o"]
    assert safe["n"].tolist() == [1, -2, 3, 4, 5]  # numbers stay numbers
    assert neutralize_formula("=1+1") == "'=1+1"
    from analysis.report.page import markdown_table

    assert "| '=HYPERLINK" in markdown_table(frame, index=False, formulas=True)
    assert "| =HYPERLINK" in markdown_table(frame, index=False)  # tables of our own numbers are left alone


def test_cost_csv_and_report_escape_a_formula_model_name(tmp_path, capsys):
    prices = tmp_path / "p.csv"
    prices.write_text('model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\n"=HYPERLINK(""http://evil"")",1,1,me,2026-01-01\n')
    args = [*COST[:3], "--output-tokens", "1", "--prices", str(prices), "--models", '=HYPERLINK("http://evil")',
            "--fallback-tokenizer", "gpt2"]
    assert cli.main([*args, "--format", "csv", "hi"]) == 0
    out = capsys.readouterr().out
    assert "'=HYPERLINK" in out
    assert "\n=HYPERLINK" not in out
    assert ',=HYPERLINK' not in out
    assert '\n"=HYPERLINK' not in out
    assert cli.main([*args, "--out", str(tmp_path / "r"), "hi"]) == 0
    for name in ("cost_by_model.csv", "report.md"):
        text = (tmp_path / "r" / name).read_text()
        assert "'=HYPERLINK" in text, name
        assert '"=HYPERLINK' not in text, name
        assert "| =HYPERLINK" not in text, name


def test_show_prints_no_raw_control_characters(capsys):
    assert cli.main(["compare", "-t", "gpt2", "--show", "a\x1b[2J\x07b\x9bc\x7f"]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\x1b\x07\x9b\x7f")
    assert "␛" in out
    assert "␇" in out


@pytest.mark.parametrize("name", ["gpt2", "o200k_base", "ownbpe"])
def test_show_prints_no_raw_bidi_control_or_line_separator(capsys, name):
    # an U+202E reverses the rest of a terminal line; U+2028 may start a new one
    text = "paid \u202e0001\u202c to \u2066x\u2069 \u2028 next\u200b\ufeff"
    assert cli.main(["compare", "-t", name, "--show", text]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\u202e\u202c\u2066\u2069\u2028\u200b\ufeff")
    assert "<U+202E>" in out or "<0xE2>" in out  # whole, or as the bytes of a partial token


def test_why_inputs_have_length_limits():
    assert short_input_problem("1" * 100_000, "number")  # 100k digits took 90 s in the browser
    assert short_input_problem("1234567", "number") is None
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO / "dashboards" / "app_pages" / "why.py"), default_timeout=120).run()
    for key, kind in (("why_number", "number"), ("ws_text", "text")):  # the merge trace had its own 200 already
        assert at.text_input(key=key).max_chars == WHY_LIMITS[kind]  # the browser stops typing there
    at.text_input(key="why_number").set_value("1" * 5000).run()
    assert not at.exception
    assert len(at.text_input(key="why_number").value) <= WHY_LIMITS["number"]


def test_readme_links_genai_prices_to_its_source():
    readme = (REPO / "README.md").read_text()
    assert "https://github.com/pydantic/genai-prices" in readme
    assert "pypi.org/project/genai-prices" not in readme
