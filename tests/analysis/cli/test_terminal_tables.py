"""Every command a person reads, run in a pipe: one block per table, every line at most 100
characters, no line continued with a backslash, the answer column on the same line as the name,
the answer sentence first, and notes of one line each (whole only with --explain)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from analysis.cli.table import PIPE_WIDTH

from .examples import run_in_examples
M3 = "gpt-4o,gpt-4o-mini,claude-sonnet-4-5"
# (argv, the name column, the answer column that must be on the name's line)
COMMANDS = [
    (["tokenizers"], "name", "n_vocab"),
    (["vocab", "list"], "name", "fetched"),
    (["models"], "model", "$/Mtok in"),
    (["models", "claude"], "model", "$/Mtok in"),
    (["compare", "Hello, world!   "], "tokenizer", "n_tokens"),
    (["compare", "Hello, world!", "-m", M3], "model", "input_tokens"),
    (["count", "--messages", "chat.json", "-m", "gpt-4o,gpt-oss-120b,qwen3,deepseek-v3,claude-sonnet-4-5"],
     "model", "input_tokens"),
    (["cost", "Summarise this contract.", "-m", M3], "model", "$ input"),
    (["cost", "-f", "prompt.txt", "-m", M3, "--output-tokens", "300", "--requests-per-month", "1000"],
     "model", "$/month"),
    (["cost", "--messages", "request.json"], "model", "total $"),
    (["cost", "--logs", "month.jsonl", "-m", M3, "--requests-per-month", "10000", "--sort", "cost"],
     "model", "$/month (projected)"),
    (["cost", "--builtin", "numbers", "-m", M3, "--requests-per-month", "1000", "--output-tokens", "200"],
     "model", "$/month"),
    # the tools' and providers' exports (issue 58): their report, headline and notes fit too
    (["cost", "--logs", "observations.jsonl"], "model", "as billed $"),
    (["cost", "--logs", "spend-logs.csv", "-m", M3], "model", "as billed $"),
    (["probe"], "table", "what it shows"),
    *[(["probe", name, "-t", "o200k_base,cl100k_base,qwen2.5"], None, None)
      for name in ("code-languages", "code-variants", "whitespace-tokens", "language-premium", "bytes-per-char",
                   "tokenizer-reduction", "digit-lengths", "digit-grouping", "single-token-numbers",
                   "single-token-years", "thousands-separators", "trailing-whitespace", "whitespace-summary",
                   "leading-space", "boundary-agreement", "agreement-matrix")],
]


def run(capsys, argv: list[str]) -> tuple[int, str]:
    code, out, _ = run_in_examples(capsys, argv)
    return code, out


def _ids(command: tuple) -> str:
    return " ".join(command[0])[:60]


@pytest.mark.parametrize("argv,name,answer", COMMANDS, ids=[_ids(c) for c in COMMANDS])
def test_every_table_fits_a_pipe_in_one_block(argv, name, answer, capsys):
    code, out = run(capsys, argv)
    assert code == 0, out
    lines = out.splitlines()
    too_long = [line for line in lines if len(line) > PIPE_WIDTH]
    assert not too_long, too_long
    assert not [line for line in lines if line.endswith("\\")]
    if name is None:  # a probe: its first column, and its tokenizer column wherever it has one
        _, csv_out = run(capsys, [*argv, "--format", "csv"])
        columns = csv_out.splitlines()[0].split(",")
        # the probe's headline first (issue 55), then its table: the first column, and the tokenizer
        header = next((line for line in lines if line.split()[:1] == [columns[0]]), None)
        assert header is not None, out
        assert "tokenizer" not in columns or "tokenizer" in header.split(), header
        return
    headers = [i for i, line in enumerate(lines) if line.split()[:1] == [name]]
    assert headers, f"no table whose first column is {name!r}:\n{out}"
    if answer is not None:
        # the answer column is in the header line of the name column, and so on each row's line
        assert any(answer in lines[i] for i in headers), f"{answer!r} is not beside {name!r}:\n{out}"


NOTED = [
    ["count", "--messages", "chat.json", "-m", "gpt-4o,claude-sonnet-4-5,deepseek-chat"],
    ["cost", "Summarise this contract.", "-m", "gpt-4o,claude-sonnet-4-5,deepseek-chat"],
    ["cost", "--messages", "request.json", "-m", "gpt-4o,claude-sonnet-4-5,deepseek-chat"],
    ["cost", "--logs", "month.jsonl", "-m", "gpt-4o,claude-sonnet-4-5,deepseek-chat"],
    ["cost", "--builtin", "numbers", "-m", "gpt-4o,claude-sonnet-4-5,deepseek-chat", "--requests-per-month", "10",
     "--output-tokens", "5"],
]


@pytest.mark.parametrize("argv", NOTED, ids=[" ".join(a[:2]) for a in NOTED])
def test_notes_are_one_line_each_and_explain_says_each_reason_once(argv, capsys):
    code, short = run(capsys, argv)
    assert code == 0
    notes = short.split("\nnotes:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    models = ("gpt-4o", "claude-sonnet-4-5", "deepseek-chat")
    per_model = [line for line in notes if any(m in line.split(":")[0] for m in models)]
    assert per_model and all(len(line) <= PIPE_WIDTH for line in notes)
    for model in models:  # at most one line per model
        assert sum(model in line.split(": ")[0].split(", ") or f":{model}" in line.split(": ")[0]
                   for line in per_model) <= 1, per_model
    assert "--explain for the reasons" in short
    assert "estimate: estimate:" not in short
    code, full = run(capsys, [*argv, "--explain"])
    assert code == 0 and "estimate: estimate:" not in full
    reasons = [line for line in full.splitlines() if line.startswith("  ") and ": estimate: " in line]
    assert reasons and len(reasons) == len(set(reasons))  # each reason once
    assert max(map(len, full.splitlines())) > PIPE_WIDTH  # in full


def test_cost_opens_with_the_cheapest_and_the_dearest(capsys):
    code, out = run(capsys, ["cost", "-f", "prompt.txt", "-m", M3, "--output-tokens", "300",
                             "--requests-per-month", "1000"])
    first = out.splitlines()[0]
    assert re.match(r"Cheapest: gpt-4o-mini at \$[\d.,]+ a month; dearest: claude-sonnet-4-5 at \$[\d.,]+ "
                    r"\(\d+(\.\d)?x\)\.$", first), first
    assert "prices in force on" in out.splitlines()[-1]  # the source in the trailer
    code, out = run(capsys, ["cost", "--logs", "month.jsonl", "-m", M3, "--sort", "cost"])
    assert out.startswith("Cheapest: gpt-4o-mini at $") and "As billed: $" in out.split("\n\n")[0]


def test_count_names_the_model_with_the_most_tokens(capsys):
    _, out = run(capsys, ["count", "--messages", "chat.json", "-m", "gpt-4o,gpt-oss-120b,deepseek-v3"])
    assert out.splitlines()[0] == "Most tokens: gpt-oss-120b with 74 (deepseek-v3: 12, the fewest)."


def test_a_real_pipe_reads_the_same():
    done = subprocess.run([sys.executable, "-m", "analysis", "tokenizers"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "300"}, timeout=120)
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and max(map(len, lines)) <= PIPE_WIDTH and lines[-1].startswith("(--wide adds")
    wide = subprocess.run([sys.executable, "-m", "analysis", "tokenizers", "--wide"], capture_output=True,
                          text=True, timeout=120)
    assert max(map(len, wide.stdout.splitlines())) > PIPE_WIDTH and "licence" in wide.stdout.splitlines()[0]
