"""`tokenprism diff`: the change in count per file, the first different cut, and `--fail-over` for CI."""

from __future__ import annotations

import json
from itertools import accumulate
from pathlib import Path

import pytest

from analysis.cli import main
from analysis.tokenizers import load_tokenizer

# ASCII only, so a character offset is a byte offset and the cuts can be found from token bytes.
PROSE = "Summarise this contract in three bullet points.\n"
CODE = "def add(x, y):\n        return x + y  # sum\n" * 3


def run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def folder(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def first_cut(text: str, a: str, b: str) -> int | None:
    """The first offset where one tokenizer cuts and the other does not, from token bytes alone."""
    cuts = []
    for name in (a, b):
        tok = load_tokenizer(name)
        cuts.append(set(accumulate(len(tok.token_bytes(i)) for i in tok.encode(text))))
    differ = cuts[0] ^ cuts[1]
    return min(differ) if differ else None


def test_counts_change_and_first_cut_per_file(tmp_path, capsys):
    root = folder(tmp_path / "prompts", {"prose.txt": PROSE, "sub/code.py": CODE, ".hidden/skip.txt": "x"})
    rc, out, _ = run(["diff", "-f", str(root), "--from", "cl100k_base", "--to", "o200k_base", "--format", "json"], capsys)
    assert rc == 0
    report = json.loads(out)
    assert (report["from_tokenizer"], report["to_tokenizer"], report["failed"]) == ("cl100k_base", "o200k_base", [])
    rows = {Path(r["file"]).name: r for r in report["files"]}
    assert set(rows) == {"prose.txt", "code.py"}  # hidden folders are skipped
    for name, text in (("prose.txt", PROSE), ("code.py", CODE)):
        r = rows[name]
        a, b = load_tokenizer("cl100k_base").count(text), load_tokenizer("o200k_base").count(text)
        assert (r["from_tokens"], r["to_tokens"], r["change"]) == (a, b, b - a)
        assert r["change_pct"] == pytest.approx(100 * (b - a) / a, abs=1e-3)
        at = first_cut(text, "cl100k_base", "o200k_base")  # None for the code: both cut it alike
        assert (r["first_difference"] or {}).get("char_offset") == at
    prose = rows["prose.txt"]["first_difference"]
    # cl100k cuts "Sum|mar|ise", o200k "Summ|ar|ise": they differ first after "Sum"
    assert (prose["char_offset"], prose["line"], prose["column"]) == (3, 1, 4)
    assert prose["from_tokens"][:2] == ["Sum", "mar"]
    assert prose["to_tokens"][:2] == ["Summ", "ar"]


def test_the_table_draws_both_cuts_with_whitespace_and_controls_made_safe(tmp_path, capsys):
    text = "abc\x1b[31m red\u202e  \t evil\n"
    path = folder(tmp_path, {"odd.txt": text}) / "odd.txt"
    rc, out, _ = run(["diff", "-f", str(path), "--from", "cl100k_base", "--to", "o200k_base"], capsys)
    assert rc == 0
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "␛" in out
    assert "<U+202E>" in out
    assert "first different cut at character" in out
    assert "  cl100k_base  " in out
    assert "  o200k_base   " in out
    assert out.splitlines()[2].startswith("total")


def test_the_same_tokenizer_twice_has_no_difference(tmp_path, capsys):
    path = folder(tmp_path, {"a.txt": CODE}) / "a.txt"
    rc, out, _ = run(["diff", "-f", str(path), "--from", "o200k_base", "--to", "o200k_base", "--format", "json",
                      "--fail-over", "0"], capsys)
    assert rc == 0
    (row,) = json.loads(out)["files"]
    assert (row["change"], row["change_pct"], row["first_difference"]) == (0, 0.0, None)


@pytest.mark.parametrize(("limit", "status"), [("1", 1), ("50", 0)])
def test_fail_over_exits_1_when_a_file_changes_by_more_than_the_limit(tmp_path, capsys, limit, status):
    # gpt2 spells runs of spaces one by one, cl100k in one token: the code shrinks by far more than 1%
    path = folder(tmp_path, {"code.py": CODE}) / "code.py"
    a, b = load_tokenizer("gpt2").count(CODE), load_tokenizer("cl100k_base").count(CODE)
    assert 1 < 100 * (a - b) / a < 50
    rc, _, err = run(["diff", "-f", str(path), "--from", "gpt2", "--to", "cl100k_base", "--fail-over", limit], capsys)
    assert rc == status
    assert ("change by more than 1%" in err) is (status == 1)


def test_fail_over_counts_growth_as_well_as_shrinkage(tmp_path, capsys):
    path = folder(tmp_path, {"code.py": CODE}) / "code.py"
    rc, _, err = run(["diff", "-f", str(path), "--from", "cl100k_base", "--to", "gpt2", "--fail-over", "1"], capsys)
    assert rc == 1
    assert f"{path}: " in err


def test_an_empty_file_changes_by_0_percent_not_by_a_division_by_zero(tmp_path, capsys):
    folder(tmp_path, {"empty.txt": ""})
    rc, out, _ = run(["diff", "-f", str(tmp_path / "empty.txt"), "--from", "gpt2", "--to", "o200k_base",
                      "--format", "json", "--fail-over", "0"], capsys)
    assert rc == 0
    assert json.loads(out)["files"][0]["change_pct"] == 0.0


def test_models_stand_for_their_text_tokenizers(tmp_path, capsys):
    path = folder(tmp_path, {"a.txt": PROSE}) / "a.txt"
    rc, out, err = run(["diff", "-f", str(path), "--from", "gpt-4", "--to", "claude-sonnet-4-5", "--format", "json"],
                       capsys)
    assert rc == 0
    report = json.loads(out)
    assert (report["from_tokenizer"], report["from_exactness"]) == ("cl100k_base", "exact")
    assert (report["to_tokenizer"], report["to_exactness"]) == ("o200k_base", "estimate")
    assert "no public tokenizer" in report["to_exactness_reason"]
    assert "claude-sonnet-4-5: the text's tokens under o200k_base (an estimate" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--from", "cl100k", "--to", "o200k_base"], "unknown tokenizer or model 'cl100k'; did you mean cl100k_base"),
    (["--from", "o200k_base", "--to", "o200k_base", "--fail-over", "-1"], "--fail-over is a percentage of 0 or more"),
    (["--from", "o200k_base", "--to", "o200k_base", "--glob", "*.md"], "no file matches --glob '*.md'"),
])
def test_bad_input_exits_2(tmp_path, capsys, argv, message):
    folder(tmp_path, {"a.txt": PROSE})
    rc, out, err = run(["diff", "-f", str(tmp_path), *argv], capsys)
    assert rc == 2
    assert out == ""
    assert message in err


def test_a_file_that_is_not_utf8_exits_2_naming_it(tmp_path, capsys):
    (tmp_path / "bin.dat").write_bytes(b"\xff\xfe\x00")
    rc, _, err = run(["diff", "-f", str(tmp_path), "--from", "o200k_base", "--to", "cl100k_base"], capsys)
    assert rc == 2
    assert "bin.dat: not valid UTF-8 at byte offset 0" in err


def test_a_file_name_with_control_characters_reaches_no_terminal_raw(tmp_path, capsys):
    path = folder(tmp_path, {"evil\x1b]0;title\x07.py": CODE}) / "evil\x1b]0;title\x07.py"
    rc, out, err = run(["diff", "-f", str(path), "--from", "cl100k_base", "--to", "gpt2", "--fail-over", "1"], capsys)
    assert rc == 1
    assert "evil␛]0;title␇.py" in out
    assert "evil␛]0;title␇.py" in err
    assert "\x1b" not in out + err
    assert "\x07" not in out + err
