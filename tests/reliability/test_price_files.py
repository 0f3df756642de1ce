"""A --prices file is user input: a latin-1 CSV or TOML, or a deeply nested TOML is a refusal naming the file.

Regression tests for the third audit's findings 12 (deep TOML gave a RecursionError traceback) and
16 (a latin-1 CSV gave "'utf-8' codec can't decode"), and for the typed refusals: each of these
was a plain ValueError or worse, which the CLI would now report as a bug.
"""

from __future__ import annotations

import pytest

from analysis.cli import main
from analysis.cost import load_overrides
from analysis.errors import BadInput

HEADER = "model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\n"


def test_a_latin1_csv_names_the_file_and_line(tmp_path):
    path = tmp_path / "prices.csv"
    path.write_bytes((HEADER + "caf\u00e9-model,1,2,ours,2026-01-01\n").encode("latin-1"))
    with pytest.raises(BadInput, match=r"prices\.csv: line 2: not UTF-8 at byte \d+"):
        load_overrides(path)


def test_a_deeply_nested_toml_is_a_refusal_not_a_recursion_error(tmp_path, capsys):
    path = tmp_path / "prices.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert main(["cost", "hi", "--requests-per-month", "10", "--output-tokens", "5", "--prices", str(path)]) == 2
    err = capsys.readouterr().err
    assert "nested too deeply" in err
    assert "Traceback" not in err


def test_a_toml_that_is_not_utf8_is_a_refusal(tmp_path):
    path = tmp_path / "prices.toml"
    path.write_bytes(b'[[model]]\nmodel = "caf\xe9"\n')
    with pytest.raises(BadInput, match="not UTF-8"):
        load_overrides(path)
