"""`tokenprism measure`, `plot` and `probe` (the `report` command is exercised in tests/analysis/report/test_bundle.py)."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from analysis.cli import main

TOKS = "gpt2,cl100k_base"


def test_measure_builtin_prints_category_table_and_writes_tidy_file(capsys, tmp_path):
    out = tmp_path / "m.csv"
    assert main(["measure", "-t", TOKS, "--out", str(out), "--no-progress"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert lines[0].startswith("characters per token")
    assert lines[1].split() == ["category", "gpt2", "cl100k_base"]
    assert [l.split()[0] for l in lines[2:]] == ["prose", "code", "multilingual", "numbers", "whitespace"]
    assert "built-in corpora x 2 tokenizer(s)" in captured.err
    assert "wrote" in captured.err
    frame = pd.read_csv(out)
    assert set(frame["tokenizer"]) == set(TOKS.split(","))
    assert not frame.duplicated(["sample_id", "tokenizer"]).any()


def test_measure_user_files_as_csv(capsys, tmp_path):
    (tmp_path / "a.py").write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Hello world, this is prose.\n", encoding="utf-8")
    assert main(["measure", str(tmp_path), "-t", "cl100k_base", "--format", "csv", "--no-progress"]) == 0
    rows = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert sorted(rows["category"]) == ["code", "prose"]
    assert (rows["n_samples"] == 1).all()
    assert "chars_per_token_of_sums" in rows.columns


def test_measure_parallel_prints_premium(capsys, tmp_path):
    for lang, text in (("eng_Latn", "The cat sleeps."), ("rus_Cyrl", "Кошка спит.")):
        (tmp_path / f"{lang}.dev").write_text(text + "\n", encoding="utf-8")
    assert main(["measure", "--parallel", str(tmp_path), "--pivot", "eng_Latn", "-t", TOKS, "--by", "language",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "premium: tokens / tokens of en" in out
    premium_rows = out.split("premium:")[1].splitlines()[2:]
    assert premium_rows[0].split()[0] == "en"
    assert premium_rows[0].split()[1:] == ["1.00", "1.00"]


def test_measure_errors_exit_2(capsys, tmp_path):
    assert main(["measure", "-t", "no-such-tokenizer"]) == 2
    assert "no-such-tokenizer" in capsys.readouterr().err
    assert main(["measure", "-t", "gpt2", "--out", str(tmp_path / "m.xlsx"), "--category", "numbers", "--no-progress"]) == 2
    assert ".csv, .parquet" in capsys.readouterr().err
    assert main(["measure", str(tmp_path / "missing"), "-t", "gpt2", "--no-progress"]) == 2


def test_probe_lists_tables_and_prints_one(capsys):
    assert main(["probe"]) == 0
    listing = capsys.readouterr().out
    assert "digit-grouping" in listing
    assert "language-premium" in listing
    assert main(["probe", "digit-grouping", "-t", TOKS, "--format", "json", "--no-progress"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["tokenizer"], r["pieces"]) for r in rows if r["number"] == "1234567"} == \
        {("gpt2", "123|45|67"), ("cl100k_base", "123|456|7")}


def test_probe_with_own_text(capsys):
    assert main(["probe", "trailing-whitespace", "-t", "cl100k_base", "--text", "Hi.", "--format", "csv",
                 "--no-progress"]) == 0
    frame = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    assert set(frame["text"]) == {"Hi."}


def test_probe_unknown_name_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["probe", "nonsense"])
    assert e.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_plot_writes_the_figure(tmp_path, capsys):
    out = tmp_path / "digits.svg"
    assert main(["plot", "tokens-vs-digits", "--out", str(out), "-t", TOKS, "--no-progress"]) == 0
    assert out.read_text().lstrip().startswith("<?xml")
    assert str(out) in capsys.readouterr().out
    assert main(["plot", "tokens-vs-digits", "--out", str(tmp_path / "x.gif"), "-t", TOKS]) == 2


@pytest.mark.parametrize("by", ["tokenizer", "category,tokenizer", "tokenizer,category"])
def test_measure_by_naming_the_tokenizer_too(capsys, tmp_path, by):
    # the tokenizer is always a grouping column; naming it used to group by it twice and fail
    # ("Grouper for 'tokenizer' not 1-dimensional")
    from analysis import load_tokenizer

    texts = ["hello there", " leading space", "trailing \n", "日本語のテキスト", "x"]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), encoding="utf-8")
    assert main(["measure", str(path), "--column", "text", "-t", "o200k_base,gpt2", "--by", by, "--engine",
                 "inprocess", "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(got["tokenizer"]) == ["o200k_base", "gpt2"]
    assert list(got["n_tokens"]) == [sum(len(load_tokenizer(n).encode(t)) for t in texts) for n in ("o200k_base", "gpt2")]
    assert main(["measure", str(path), "--column", "text", "-t", "o200k_base", "--by", by, "--engine", "inprocess"]) == 0
    assert "characters per token" in capsys.readouterr().out


def test_measure_by_an_unknown_column_fails_before_any_work(capsys, tmp_path):
    rc = main(["measure", str(tmp_path / "nothing-here"), "--by", "foo,category"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "--by foo: not a column to group by; choose from sample_id, category" in err
