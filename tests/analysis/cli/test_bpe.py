"""`tokenprism explain` and `tokenprism train`, and ownbpe loaded through the registry."""

from __future__ import annotations

import json

import pytest

from analysis import load_tokenizer
from analysis.cli import main
from analysis.cli.bpe import rank_note
from analysis.lab.explain import bpe_for, explain

TEXTS = ["hello world", "2024 is not 2023", "Grüße, 世界! 👩‍👩‍👧", "def f(x):\n\treturn x  \r\n"]


@pytest.mark.parametrize("name", ["gpt2", "p50k_base", "cl100k_base", "o200k_base", "qwen2.5"])
def test_bpe_for_reproduces_registry_ids(name):
    tok, bpe = load_tokenizer(name), bpe_for(name)
    for text in TEXTS:
        assert bpe.encode_ordinary(text) == tok.encode(text), (name, text)


def test_explain_pieces_end_in_the_tokenizers_ids():
    for name in ("gpt2", "o200k_base"):
        pieces = explain("tokenization 2024", name)
        assert [i for p in pieces for i in p.ids] == load_tokenizer(name).encode("tokenization 2024")
        # each merge's result is the concatenation of its two sides, ranks rise within a piece
        for p in pieces:
            for step in p.steps:
                assert step.result == step.left + step.right


def test_cli_explain_shows_merges(capsys):
    assert main(["explain", "2024", "-t", "gpt2"]) == 0
    out = capsys.readouterr().out
    assert "gpt2: 2 tokens" in out
    assert '"20" | "24"' in out
    assert "rank" in out


def test_cli_explain_rejects_non_bpe_tokenizer(capsys):
    assert main(["explain", "x", "-t", "deepseek-v4"]) == 2
    assert "o200k_base" in capsys.readouterr().err


def test_cli_train_then_compare_with_spec(tmp_path, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("low lower lowest newer newest wider\n" * 50, encoding="utf-8")
    model = tmp_path / "toy.model"
    assert main(["train", str(corpus), "--vocab-size", "300", "--out", str(model), "--special", "<|endoftext|>"]) == 0
    out = capsys.readouterr().out
    assert "merges" in out
    assert model.is_file()
    assert main(["compare", "lowest newer", "-t", f"ownbpe:{model}", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    tok = load_tokenizer(f"ownbpe:{model}")
    assert row["ids"] == tok.encode("lowest newer")
    assert row["n_tokens"] < len("lowest newer")
    assert tok.decode(row["ids"]) == "lowest newer"


def test_cli_train_missing_corpus(capsys, tmp_path):
    assert main(["train", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "m")]) == 2
    assert "no such corpus file" in capsys.readouterr().err


def test_cli_train_refuses_an_empty_corpus(capsys, tmp_path):
    (tmp_path / "a.txt").write_text("")
    (tmp_path / "b.txt").write_text("")
    model = tmp_path / "m.model"
    assert main(["train", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--out", str(model)]) == 2
    assert "empty" in capsys.readouterr().err
    assert not model.exists()


def test_cli_train_says_when_the_corpus_runs_out_of_pairs(capsys, tmp_path):
    corpus = tmp_path / "tiny.txt"
    corpus.write_text("The quick brown fox\n", encoding="utf-8")
    model = tmp_path / "m.model"
    assert main(["train", str(corpus), "--vocab-size", "1000", "--out", str(model)]) == 0
    n_vocab = load_tokenizer(f"ownbpe:{model}").n_vocab
    assert n_vocab < 1000
    assert f"stopped at {n_vocab} tokens of the 1000 asked" in capsys.readouterr().err


@pytest.mark.parametrize("name,offset", [("ownbpe", 256), ("gpt2", 0)])
def test_explain_says_how_its_ranks_relate_to_the_ids(name, offset, capsys):
    # issue 56: ownbpe's ranks differ from its ids by 256, with no word why
    import re

    assert main(["explain", "hello", "-t", name]) == 0
    out = capsys.readouterr().out
    ids = [int(i) for i in re.search(r"tokens?: ([\d ]+)", out).group(1).split()]
    last_rank = int(re.findall(r"rank\s+(\d+):", out)[-1])
    assert last_rank + offset == ids[-1]  # the last merge makes the last token
    assert out.rstrip().splitlines()[-1] == rank_note(name)
    assert ("id rank + 256" in rank_note(name)) is (offset == 256)
