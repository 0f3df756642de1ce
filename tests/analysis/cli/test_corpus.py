"""`tokenprism corpus list|show|stats`, driven through an argparse parser as `analysis.cli` builds it."""

from __future__ import annotations

import argparse
import io
import json

import pandas as pd
import pytest

from analysis.cli.corpus import register
from analysis.corpora import builtin_dir, get_sample


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="tokenprism")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    rc = args.func(args)
    out, err = capsys.readouterr()
    return rc, out, err


def test_list_summarises_categories(capsys):
    rc, out, _ = run(["corpus", "list", "--format", "csv"], capsys)
    assert rc == 0
    table = pd.read_csv(io.StringIO(out))
    assert table["category"].tolist() == ["prose", "code", "multilingual", "numbers", "whitespace"]
    assert set(table.columns) >= {"n_samples", "n_chars", "n_bytes", "stored"}
    prose = table.set_index("category").loc["prose"]
    assert prose["n_samples"] >= 40
    assert prose["n_bytes"] >= 40_000
    assert bool(prose["stored"])
    assert not bool(table.set_index("category").loc["numbers", "stored"])


def test_list_samples_of_one_category_as_json(capsys):
    rc, out, _ = run(["corpus", "list", "code", "--samples", "--format", "json"], capsys)
    rows = json.loads(out)
    assert rc == 0
    assert {r["category"] for r in rows} == {"code"}
    tabs = next(r for r in rows if r["id"] == "code/python/inventory_tabs")
    assert tabs["group"] == "python-inventory-indentation"
    assert tabs["variant"] == "tabs"
    assert tabs["n_bytes"] == (builtin_dir() / "code/python/inventory_tabs.py").stat().st_size


def test_list_table_format_and_system(capsys):
    rc, out, _ = run(["corpus", "list", "prose"], capsys)
    assert rc == 0
    assert out.splitlines()[0].split()[:2] == ["category", "n_samples"]
    rc, out, _ = run(["corpus", "list", "--system"], capsys)
    assert rc == 0
    assert "stdlib" in out
    assert "gettext" in out


def test_list_unknown_category_is_a_value_error(capsys):
    with pytest.raises(ValueError, match="unknown built-in category"):
        run(["corpus", "list", "poetry"], capsys)


def test_show_prints_the_exact_text(capsys):
    rc, out, _ = run(["corpus", "show", "whitespace/crlf-file"], capsys)
    assert rc == 0
    assert out == get_sample("whitespace/crlf-file").text
    assert "\r\n" in out
    rc, out, _ = run(["corpus", "show", "whitespace/trailing-spaces-file"], capsys)
    assert "two spaces.  \n" in out


def test_show_visible_whitespace(capsys):
    rc, out, _ = run(["corpus", "show", "--visible", "whitespace/trailing-spaces-file"], capsys)
    assert rc == 0
    assert "two·spaces.··↵" in out
    assert "→" in out


def test_show_unknown_id(capsys):
    with pytest.raises(KeyError, match="no built-in sample 'numbers/yeer'; did you mean"):
        run(["corpus", "show", "numbers/yeer"], capsys)


def test_stats_builtin_by_category_and_language(capsys):
    rc, out, _ = run(["corpus", "stats", "--builtin", "--format", "csv"], capsys)
    stats = pd.read_csv(io.StringIO(out), keep_default_na=False)
    assert rc == 0
    assert list(stats.columns) == ["category", "language", "n_samples", "n_chars", "n_bytes", "n_lines", "bytes_per_char"]
    en_prose = stats[(stats["category"] == "prose") & (stats["language"] == "en")].iloc[0]
    assert en_prose["n_samples"] >= 40
    assert en_prose["bytes_per_char"] >= 1.0
    assert (stats["n_bytes"] >= stats["n_chars"]).all()


def test_stats_on_user_files_reports_skips_on_stderr(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("x = 'ж'", encoding="utf-8")
    (tmp_path / "c.bin").write_bytes(b"\x00\x01")
    rc, out, err = run(["corpus", "stats", str(tmp_path), "--by", "category,script", "--format", "json"], capsys)
    rows = {r["category"]: r for r in json.loads(out)}
    assert rc == 0
    assert set(rows) == {"code", "prose"}
    assert rows["prose"]["n_lines"] == 2
    assert rows["prose"]["n_chars"] == 8
    assert rows["code"]["n_lines"] == 1
    assert rows["code"]["n_bytes"] == 8
    assert rows["code"]["n_chars"] == 7
    assert "1 binary file(s) skipped" in err


def test_stats_errors_flag_and_bad_input(tmp_path, capsys):
    (tmp_path / "l1.txt").write_bytes("naïve".encode("latin-1"))
    with pytest.raises(ValueError, match=r"l1.txt: not valid UTF-8 at byte offset 2"):
        run(["corpus", "stats", str(tmp_path / "l1.txt")], capsys)
    rc, out, err = run(["corpus", "stats", str(tmp_path / "l1.txt"), "--errors", "replace", "--format", "csv"], capsys)
    assert rc == 0
    assert "1 invalid UTF-8 sequence(s) replaced" in err
    with pytest.raises(ValueError, match="--by 'colour': valid columns are category, language, script, kind"):
        run(["corpus", "stats", "--by", "colour"], capsys)
    with pytest.raises(ValueError, match="no such file or folder"):
        run(["corpus", "stats", str(tmp_path / "missing")], capsys)


def test_stats_parallel_folder(tmp_path, capsys):
    for name, text in {"eng_Latn.dev": "Hi.\nBye.\n", "ell_Grek.dev": "Γεια.\nΑντίο.\n"}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    rc, out, _ = run(["corpus", "stats", "--parallel", str(tmp_path), "--by", "language,script", "--format", "csv"], capsys)
    stats = pd.read_csv(io.StringIO(out)).set_index("language")
    assert rc == 0
    assert stats.loc["el", "script"] == "Grek"
    assert stats.loc["en", "n_chars"] == len("Hi. Bye.")
