"""One special-token default in every layer: special-token strings are plain text unless allowed.

`ownbpe.Tokenizer.encode` (both paths), `encode_iterable`, `explain`, `python -m ownbpe encode`,
tokenprism's ownbpe adapter and the `Tokenizer` protocol it implements must all say the same: a
pasted "<|endoftext|>" is 7 tokens of text, and only `allowed_special=` (`--allow-special` on the
command line) turns it into its id.
"""

from __future__ import annotations

import inspect
import json

import pytest

import ownbpe
from ownbpe.cli import main

TEXT = "Hello<|endoftext|> world <|endoftext|>"


@pytest.fixture(scope="module")
def builtin():
    from analysis.tokenizers.ownbpe_adapter import builtin_model_path, builtin_ownbpe

    return builtin_ownbpe(), builtin_model_path()


def test_every_layer_counts_special_tokens_as_text_by_default(builtin, capsys):
    adapter, path = builtin
    tok = adapter.bpe
    eot = tok.special_tokens["<|endoftext|>"]
    as_text = tok.encode_ordinary(TEXT)
    assert eot not in as_text
    assert tok.decode(as_text) == TEXT
    assert tok.encode(TEXT) == as_text
    assert tok.encode(TEXT, fast=False) == as_text
    assert list(tok.encode_iterable([TEXT[:7], TEXT[7:]])) == as_text
    assert [i for p in tok.explain(TEXT) for i in p.ids] == as_text
    assert adapter.encode(TEXT) == as_text
    assert adapter.count(TEXT) == len(as_text)
    assert main(["encode", "--model", str(path), "--format", "json", TEXT]) == 0
    assert json.loads(capsys.readouterr().out) == as_text


def test_allowed_special_is_the_one_way_to_ids(builtin, capsys):
    adapter, path = builtin
    tok = adapter.bpe
    eot = tok.special_tokens["<|endoftext|>"]
    allowed = tok.encode(TEXT, allowed_special="all")
    assert allowed.count(eot) == 2
    assert tok.encode(TEXT, allowed_special={"<|endoftext|>"}) == allowed
    assert tok.encode(TEXT, allowed_special={"<|endoftext|>"}, fast=False) == allowed
    assert list(tok.encode_iterable([TEXT[:7], TEXT[7:]], allowed_special="all")) == allowed
    assert [i for p in tok.explain(TEXT, allowed_special="all") for i in p.ids] == allowed
    assert main(["encode", "--model", str(path), "--format", "json", "--allow-special", TEXT]) == 0
    assert json.loads(capsys.readouterr().out) == allowed


def test_a_wrong_allowed_special_names_the_fix():
    tok = ownbpe.Tokenizer.train_from_iterator(["low lower"], 258, ["<|endoftext|>"])
    with pytest.raises(ValueError, match=r"not a special token of this tokenizer; its special tokens are \['<\|endoftext\|>'\]"):
        tok.encode("x", allowed_special={"<|eot|>"})
    with pytest.raises(ValueError, match=r"give a set of special tokens, e.g. allowed_special=\{'<\|endoftext\|>'\}"):
        tok.encode("x", allowed_special="<|endoftext|>")  # type: ignore[arg-type]


def test_the_documents_say_the_same():
    from analysis.tokenizers import base, ownbpe_adapter

    assert "special-token strings are counted as plain text" in " ".join((inspect.getdoc(base.Tokenizer) or "").split())
    assert "plain text" in " ".join((inspect.getdoc(ownbpe.Tokenizer.encode) or "").split())
    assert "plain text" in " ".join((ownbpe_adapter.OwnBPETokenizer.__doc__ or "").split())
    assert "plain text" in " ".join((ownbpe.__doc__ or "").split())
