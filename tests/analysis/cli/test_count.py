"""`tokenprism count`: exit statuses, the JSON contract, refusals, and the Cookbook's totals."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from analysis.cli import main
from analysis.cli.count import SHAPE_HELP
from analysis.requests import SHAPES

from tests.analysis.requests.cookbook import VERIFIED


def run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8"))
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def body_file(tmp_path, body, name="chat.json"):
    path = tmp_path / name
    path.write_text(json.dumps(body), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("model", "body", "billed", "revision"), [
    pytest.param(*case, id=f"{case[0]}-{'tools' if 'tools' in case[1] else 'names'}") for case in VERIFIED])
def test_cookbook_examples_through_the_cli(tmp_path, capsys, model, body, billed, revision):
    rc, out, _ = run(["count", "--messages", body_file(tmp_path, body), "-m", model, "--format", "json"], capsys)
    assert rc == 0
    (row,) = json.loads(out)
    assert (row["model"], row["input_tokens"], row["exactness"]) == (model, billed, "documented")


def test_json_rows_are_typed_and_one_per_model(capsys):
    rc, out, _ = run(["count", "hello world", "-m", "gpt-4o,openai:text-embedding-3-small", "-m", "claude-sonnet-4-5",
                      "--format", "json", "--ids"], capsys)
    assert rc == 0
    rows = json.loads(out)
    assert [r["model"] for r in rows] == ["gpt-4o", "openai:text-embedding-3-small", "claude-sonnet-4-5"]
    for r in rows:
        assert set(r) == {"model", "tokenizer", "input_tokens", "content_tokens", "format_tokens", "media_tokens",
                          "exactness", "exactness_reason", "ids"}
        assert all(type(r[k]) is int for k in ("input_tokens", "content_tokens", "format_tokens", "media_tokens"))
        assert r["input_tokens"] == r["content_tokens"] + r["format_tokens"] + r["media_tokens"]
        assert r["exactness"] in ("exact", "documented", "estimate")
        assert r["exactness_reason"]
    assert rows[1]["ids"] == [15339, 1917]
    assert rows[1]["exactness"] == "exact"
    assert rows[0]["ids"] is None
    assert rows[2]["ids"] is None


def test_table_csv_stdin_and_file(tmp_path, capsys, monkeypatch):
    rc, out, _ = run(["count", "hello world", "-m", "gpt-4o"], capsys)
    assert rc == 0
    assert "documented" in out
    assert "gpt-4o: documented: OpenAI Cookbook" in out
    rc, out, _ = run(["count", "-m", "gpt-4o", "--format", "csv"], capsys, stdin="hello world", monkeypatch=monkeypatch)
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert (row["input_tokens"], row["content_tokens"], row["format_tokens"]) == ("9", "2", "7")
    text = tmp_path / "prompt.txt"
    text.write_text("hello world", encoding="utf-8")
    rc, out, _ = run(["count", "-f", str(text), "-m", "gpt-4o", "--format", "json", "--no-generation-prompt"], capsys)
    assert json.loads(out)[0]["input_tokens"] == 6


def test_a_bare_messages_list_and_a_forced_shape(tmp_path, capsys):
    path = body_file(tmp_path, [{"role": "user", "content": "hello world"}])
    rc, out, _ = run(["count", "--messages", path, "-m", "gpt-4o", "--format", "json"], capsys)
    assert rc == 0
    assert json.loads(out)[0]["input_tokens"] == 9
    rc, _, err = run(["count", "--messages", path, "-m", "gpt-4o", "--shape", "gemini"], capsys)
    assert rc == 2
    assert "parts" in err


@pytest.mark.parametrize(("argv", "stdin", "message"), [
    pytest.param(["count", "hi", "-m", "gpt-4oo"], None, "did you mean gpt-4o", id="misspelt-model"),
    pytest.param(["count", "hi", "-m", "gpt-4o,claude-sonet-4-5"], None, "did you mean claude-sonnet-4-5", id="one-of-two"),
    pytest.param(["count", "--messages", "-", "-m", "gpt-4o"], '{"messages": [{"role": "wizard", "content": "x"}]}',
                 "unknown role 'wizard'", id="unknown-role"),
    pytest.param(["count", "--messages", "-", "-m", "gpt-4o"], '{"messages": [}', "not JSON", id="bad-json"),
    pytest.param(["count", "--messages", "-", "-m", "gpt-4o", "--shape", "openai"], '{"messages": []}',
                 "did you mean openai-chat", id="unknown-shape"),
    pytest.param(["count", "hi", "-m", "gpt-4o", "--shape", "anthropic"], None, "--messages FILE", id="shape-without-body"),
    pytest.param(["count", "hi", "-m", "whisper-1"], None, "no text tokenizer", id="no-tokenizer"),
    pytest.param(["count", "hi", "-m", "llama3"], None, "tokenprism vocab fetch llama3", id="not-fetched"),
])
def test_refusals_exit_2_with_the_fix(capsys, monkeypatch, argv, stdin, message):
    rc, out, err = run(argv, capsys, stdin=stdin, monkeypatch=monkeypatch)
    assert rc == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_two_inputs_are_refused(tmp_path, capsys):
    rc, _, err = run(["count", "hi", "--messages", body_file(tmp_path, []), "-m", "gpt-4o"], capsys)
    assert rc == 2
    assert "give one input" in err


def test_the_shape_help_lists_every_shape():
    assert SHAPE_HELP.replace(" or ", ", ").split(", ") == list(SHAPES)


def test_as_a_process_the_exit_status_is_2_and_stderr_names_the_model():
    proc = subprocess.run([sys.executable, "-m", "analysis", "count", "hi", "-m", "gpt-4oo"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "gpt-4oo" in proc.stderr
    assert "Traceback" not in proc.stderr
