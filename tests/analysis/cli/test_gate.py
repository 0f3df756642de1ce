"""The budget gate of `tokenprism count`: exit 0 when every request fits, 1 over budget, 2 for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.cli import main
from analysis.requests import Request, input_tokens, parse

CHAT = {"model": "gpt-4o", "messages": [{"role": "system", "content": "Be brief."},
                                        {"role": "user", "content": "Summarise the contract."}]}


def run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def prompts(root: Path) -> Path:
    """prompts/short.txt, prompts/deep/long.txt (600 words) and prompts/chat.json under `root`."""
    (root / "prompts" / "deep").mkdir(parents=True)
    (root / "prompts" / "short.txt").write_text("Summarise this contract in three bullet points.\n", encoding="utf-8")
    (root / "prompts" / "deep" / "long.txt").write_text("word " * 600, encoding="utf-8")
    (root / "prompts" / "chat.json").write_text(json.dumps(CHAT), encoding="utf-8")
    return root


def budget(root: Path, text: str, name: str = "budget.toml") -> str:
    path = root / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def expected(path: Path, model: str) -> int:
    text = path.read_text(encoding="utf-8")
    request = parse(json.loads(text)) if path.suffix == ".json" else Request.from_text(text)
    return input_tokens(request, model).input_tokens


# -- one request, --max-tokens ---------------------------------------------------------------------
def test_under_the_budget_exits_0(capsys):
    rc, out, err = run(["count", "hello world", "-m", "gpt-4o", "--max-tokens", "9", "--format", "json"], capsys)
    assert rc == 0
    (row,) = json.loads(out)
    assert (row["input_tokens"], row["budget"], row["status"], row["over"]) == (9, 9, "ok", False)
    assert err == ""


def test_over_the_budget_exits_1_and_names_the_offenders(capsys):
    rc, out, err = run(["count", "hello world", "-m", "gpt-4o,claude-sonnet-4-5,gpt-4o-mini", "--max-tokens", "8"],
                       capsys)
    assert rc == 1
    assert "OVER" in out
    assert "3 of 3 over budget (--max-tokens 8)" in err
    assert "gpt-4o: 9 tokens > budget 8 (+1)\n" in err
    # the Claude count is a proxy's: the offender line says so
    assert "claude-sonnet-4-5: 9 tokens > budget 8 (+1) (an estimate)" in err


@pytest.mark.parametrize("value", ["0", "-3", "many", "1.5"])
def test_a_budget_that_is_not_a_positive_whole_number_exits_2(capsys, value):
    with pytest.raises(SystemExit) as exit_:
        main(["count", "hi", "-m", "gpt-4o", "--max-tokens", value])
    assert exit_.value.code == 2
    assert "--max-tokens" in capsys.readouterr().err


# -- a budget file -----------------------------------------------------------------------------------
def test_a_folder_within_its_budgets_exits_0_with_one_row_per_file_and_model(tmp_path, capsys):
    root = prompts(tmp_path)
    path = budget(root, '["prompts/**/*.txt"]\ngpt-4o = 8000\n"claude-sonnet-4-5" = 4000\n\n'
                        '["prompts/*.json"]\ngpt-4o = 100\n')
    rc, out, _ = run(["count", "--budget", path, "--format", "json"], capsys)
    assert rc == 0
    rows = json.loads(out)
    assert [(r["file"], r["model"]) for r in rows] == [
        ("prompts/chat.json", "gpt-4o"),
        ("prompts/deep/long.txt", "claude-sonnet-4-5"), ("prompts/deep/long.txt", "gpt-4o"),
        ("prompts/short.txt", "claude-sonnet-4-5"), ("prompts/short.txt", "gpt-4o")]
    for r in rows:
        assert r["input_tokens"] == expected(root / r["file"], r["model"])
        assert type(r["input_tokens"]) is int
        assert r["over"] is False
    assert {r["model"]: r["exactness"] for r in rows} == {"gpt-4o": "documented", "claude-sonnet-4-5": "estimate"}


def test_a_file_over_its_budget_exits_1_naming_file_and_model(tmp_path, capsys):
    root = prompts(tmp_path)
    path = budget(root, '["prompts/**/*.txt"]\ngpt-4o = 100\n')
    rc, out, err = run(["count", "--budget", path], capsys)
    assert rc == 1
    long_tokens = expected(root / "prompts/deep/long.txt", "gpt-4o")
    assert f"prompts/deep/long.txt: gpt-4o: {long_tokens} tokens > budget 100 (+{long_tokens - 100})" in err
    assert "1 of 2 over budget" in err
    lines = {line.split()[0]: line.split() for line in out.splitlines()[1:3]}
    assert lines["prompts/deep/long.txt"][5] == "OVER"
    assert lines["prompts/short.txt"][5] == "ok"


def test_a_file_named_by_two_globs_is_held_to_the_smaller_budget(tmp_path, capsys):
    root = prompts(tmp_path)
    path = budget(root, '["prompts/**/*.txt"]\ngpt-4o = 8000\n\n["prompts/short.txt"]\ngpt-4o = 5\n')
    rc, out, _ = run(["count", "--budget", path, "--format", "json"], capsys)
    assert rc == 1
    rows = {r["file"]: r for r in json.loads(out)}
    assert (rows["prompts/short.txt"]["budget"], rows["prompts/short.txt"]["glob"]) == (5, "prompts/short.txt")
    assert rows["prompts/deep/long.txt"]["budget"] == 8000


def test_root_moves_where_the_globs_start(tmp_path, capsys):
    root = prompts(tmp_path / "repo")
    path = budget(tmp_path, '["prompts/*.txt"]\ngpt-4o = 8000\n', name="ci-budget.toml")
    rc, _, err = run(["count", "--budget", path], capsys)
    assert rc == 2
    assert "finds no file under" in err
    rc, out, _ = run(["count", "--budget", path, "--root", str(root), "--format", "json"], capsys)
    assert rc == 0
    assert [r["file"] for r in json.loads(out)] == ["prompts/short.txt"]


@pytest.mark.parametrize(("text", "message"), [
    ('["prompts/*.txt"\ngpt-4o = 1', "not a TOML budget file"),
    ("", "no budgets in it"),
    ('gpt-4o = 8000\n', "'gpt-4o' is not a table of models"),
    ('["prompts/*.txt"]\n', "names no model"),
    ('["prompts/*.txt"]\ngpt-4o = 0\n', "gpt-4o = 0: a budget is a positive whole number"),
    ('["prompts/*.txt"]\ngpt-4o = "8000"\n', "a budget is a positive whole number"),
    ('["prompts/*.txt"]\ngpt-4o = true\n', "a budget is a positive whole number"),
    ('["prompts/*.txt"]\ngpt-4.1 = 8000\n', 'a model id with a dot must be quoted, e.g. "gpt-4.1" = 8000'),
    ('["nowhere/*.txt"]\ngpt-4o = 8000\n', '["nowhere/*.txt"]: finds no file under'),
    ('["/etc/*.txt"]\ngpt-4o = 8000\n', "not absolute paths"),
], ids=["toml", "empty", "flat", "no-model", "zero", "string", "bool", "dotted", "no-file", "absolute"])
def test_a_bad_budget_file_exits_2_naming_the_file(tmp_path, capsys, text, message):
    root = prompts(tmp_path)
    path = budget(root, text)
    rc, out, err = run(["count", "--budget", path], capsys)
    assert rc == 2
    assert out == ""
    assert err.startswith(f"tokenprism count: error: {path}")
    assert message in err


def test_an_unknown_model_in_a_budget_file_exits_2_naming_the_key_and_the_closest_ids(tmp_path, capsys):
    root = prompts(tmp_path)
    path = budget(root, '["prompts/*.txt"]\ngpt-4o = 8000\n"claude-sonet-4-5" = 4000\n')
    rc, out, err = run(["count", "--budget", path], capsys)
    assert rc == 2
    assert out == ""
    assert err.startswith(f'tokenprism count: error: {path}: ["prompts/*.txt"] claude-sonet-4-5: unknown model')
    assert "claude-sonnet-4-5" in err


def test_a_bad_request_body_exits_2_naming_the_file(tmp_path, capsys):
    root = prompts(tmp_path)
    (root / "prompts" / "broken.json").write_text("{not json", encoding="utf-8")
    path = budget(root, '["prompts/*.json"]\ngpt-4o = 8000\n')
    rc, _, err = run(["count", "--budget", path], capsys)
    assert rc == 2
    assert "broken.json: not JSON" in err


@pytest.mark.parametrize("extra", [["hello"], ["-m", "gpt-4o"], ["--max-tokens", "5"]])
def test_a_budget_file_with_other_inputs_exits_2(tmp_path, capsys, extra):
    path = budget(prompts(tmp_path), '["prompts/*.txt"]\ngpt-4o = 8000\n')
    rc, _, err = run(["count", "--budget", path, *extra], capsys)
    assert rc == 2
    assert "--budget FILE names the files and models itself" in err


def test_the_exit_status_reaches_the_shell(tmp_path):
    path = budget(prompts(tmp_path), '["prompts/**/*.txt"]\ngpt-4o = 100\n')
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run([sys.executable, "-m", "analysis", "count", "--budget", path], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 1
    assert "prompts/deep/long.txt: gpt-4o:" in done.stderr


def test_the_readme_budget_file_works_as_shown(tmp_path, capsys):
    import re

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```toml\n(.*?)```", readme, re.S)
    root = prompts(tmp_path)
    path = budget(root, example, name="prompt-budget.toml")
    rc, out, _ = run(["count", "--budget", path, "--format", "json"], capsys)
    assert rc == 0
    assert {(r["file"], r["model"]) for r in json.loads(out)} == {
        (f, m) for f in ("prompts/short.txt", "prompts/deep/long.txt") for m in ("gpt-4o", "claude-sonnet-4-5")}
