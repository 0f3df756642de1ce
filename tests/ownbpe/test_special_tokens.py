"""Two special-token rules, each in one place, tested side by side.

- ownbpe, the library, follows its caller (the CS336 contract): the special tokens a `Tokenizer`
  is built with, or that its model file lists, are single ids in `encode`, `encode_iterable` and
  `explain`, the longest first where two overlap; `allowed_special=` narrows that.
- tokenprism, the product, counts what a user typed: its ownbpe adapter asks for plain text, so
  a pasted "<|endoftext|>" is counted as the characters it is, as on every other tokenizer; the
  `python -m ownbpe encode` command keeps that default too, and `--allow-special` gives ids.
"""

from __future__ import annotations

import inspect
import json

import pytest

import ownbpe
from ownbpe.cli import main

TEXT = "Hello<|endoftext|> world <|endoftext|>"
EOT = "<|endoftext|>"
DOUBLE = EOT * 2


@pytest.fixture(scope="module")
def builtin():
    from analysis.tokenizers.ownbpe_adapter import builtin_model_path, builtin_ownbpe

    return builtin_ownbpe(), builtin_model_path()


def _byte_vocab() -> dict[int, bytes]:
    return {i: bytes([i]) for i in range(256)}


# -- the library: named special tokens are single ids -----------------------------------------


@pytest.mark.parametrize("fast", [True, False])
def test_a_named_special_token_is_one_id(fast):
    tok = ownbpe.Tokenizer(_byte_vocab(), [], [EOT])
    eot = tok.special_tokens[EOT]
    assert eot == 256
    assert tok.encode(f"a{EOT}b", fast=fast) == [97, eot, 98]
    assert tok.encode(EOT, fast=fast) == [eot]
    assert tok.decode(tok.encode(TEXT, fast=fast)) == TEXT
    # A dict gives the ids; the rule is the same.
    given = ownbpe.Tokenizer(_byte_vocab(), [], {EOT: 300})
    assert given.encode(f"x{EOT}", fast=fast) == [120, 300]


def test_a_model_file_that_lists_special_tokens_keeps_them_single(tmp_path):
    tok = ownbpe.Tokenizer.train_from_iterator(["low lower lowest"] * 3, 262, [EOT])
    path = tmp_path / "m.model"
    tok.save(path)
    loaded = ownbpe.Tokenizer.load(path)
    eot = loaded.special_tokens[EOT]
    ids = loaded.encode(f"lowest{EOT}")
    assert ids[-1] == eot and ids.count(eot) == 1
    assert ids == tok.encode(f"lowest{EOT}")


@pytest.mark.parametrize("fast", [True, False])
def test_overlapping_special_tokens_take_the_longer(fast):
    tok = ownbpe.Tokenizer(_byte_vocab(), [], [EOT, DOUBLE])
    single, double = tok.special_tokens[EOT], tok.special_tokens[DOUBLE]
    assert tok.encode(EOT * 3, fast=fast) == [double, single]
    assert tok.encode(f"a{DOUBLE}b{EOT}", fast=fast) == [97, double, 98, single]
    assert tok.decode(tok.encode(EOT * 5, fast=fast)) == EOT * 5
    # Narrowed to the shorter one, the longer is two of it.
    assert tok.encode(DOUBLE, allowed_special={EOT}, fast=fast) == [single, single]
    assert [i for p in tok.explain(EOT * 3) for i in p.ids] == [double, single]


def test_overlapping_specials_stream_as_they_encode(monkeypatch):
    from ownbpe import tokenizer

    monkeypatch.setattr(tokenizer, "STREAM_BLOCK", 8)  # cut as often as the rule allows
    tok = ownbpe.Tokenizer(_byte_vocab(), [], [EOT, DOUBLE])
    text = f"ab{EOT * 3} c{DOUBLE}{EOT}d" * 4
    for size in (1, 3, 7, 13, 26):
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        assert list(tok.encode_iterable(pieces)) == tok.encode(text)


def test_allowed_special_narrows_and_frozenset_means_plain_text():
    tok = ownbpe.Tokenizer(_byte_vocab(), [], [EOT, "<|pad|>"])
    eot, pad = tok.special_tokens[EOT], tok.special_tokens["<|pad|>"]
    text = f"{EOT}<|pad|>"
    assert tok.encode(text) == [eot, pad] == tok.encode(text, allowed_special="all")
    assert tok.encode(text, allowed_special={"<|pad|>"}) == [*EOT.encode(), pad]
    assert tok.encode(text, allowed_special=frozenset()) == list(text.encode()) == tok.encode_ordinary(text)
    assert list(tok.encode_iterable([text], allowed_special=frozenset())) == list(text.encode())
    assert [i for p in tok.explain(text, ordinary=True) for i in p.ids] == list(text.encode())


def test_encode_iterable_over_a_file_equals_encode_and_tiktoken(cs336, gpt2_ownbpe, gpt2_tiktoken):
    path = cs336 / "tinystories_sample.txt"
    text = path.read_text(encoding="utf-8")
    assert text.count(EOT) >= 2
    with path.open(encoding="utf-8") as f:
        streamed = list(gpt2_ownbpe.encode_iterable(f))
    assert streamed == gpt2_ownbpe.encode(text)
    assert streamed == gpt2_tiktoken.encode(text, allowed_special="all")
    assert streamed.count(gpt2_ownbpe.special_tokens[EOT]) == text.count(EOT)


def test_a_wrong_allowed_special_names_the_fix():
    tok = ownbpe.Tokenizer.train_from_iterator(["low lower"], 258, [EOT])
    with pytest.raises(ValueError, match=r"not a special token of this tokenizer; its special tokens are \['<\|endoftext\|>'\]"):
        tok.encode("x", allowed_special={"<|eot|>"})
    with pytest.raises(ValueError, match=r"give a set of special tokens, e.g. allowed_special=\{'<\|endoftext\|>'\}"):
        tok.encode("x", allowed_special="<|endoftext|>")  # type: ignore[arg-type]


# -- the product: a typed marker is text ------------------------------------------------------


def test_the_product_counts_a_typed_marker_as_text(builtin, capsys):
    adapter, path = builtin
    tok = adapter.bpe
    eot = tok.special_tokens[EOT]
    as_text = tok.encode_ordinary(TEXT)
    assert eot not in as_text and tok.decode(as_text) == TEXT
    assert tok.encode(TEXT).count(eot) == 2  # the library, asked by default: ids
    assert adapter.encode(TEXT) == as_text
    assert adapter.count(TEXT) == len(as_text)
    assert adapter.count_batch([TEXT, EOT]) == [len(as_text), len(tok.encode_ordinary(EOT))]
    # The command line keeps the product's default; --allow-special gives the ids.
    assert main(["encode", "--model", str(path), "--format", "json", TEXT]) == 0
    assert json.loads(capsys.readouterr().out) == as_text
    assert main(["encode", "--model", str(path), "--format", "json", "--allow-special", TEXT]) == 0
    assert json.loads(capsys.readouterr().out) == tok.encode(TEXT)


def test_the_documents_say_both_rules():
    from analysis.tokenizers import base, ownbpe_adapter
    from ownbpe import tokenizer

    def words(doc: str | None) -> str:
        return " ".join((doc or "").split())

    assert "special-token strings are counted as plain text" in words(inspect.getdoc(base.Tokenizer))
    module = words(tokenizer.__doc__)
    assert "The library follows its caller" in module and "The product counts what a user typed" in module
    assert "longest first" in module
    assert "allowed_special=frozenset()" in words(ownbpe_adapter.OwnBPETokenizer.__doc__)
    assert "single ids" in words(ownbpe.__doc__) and "plain text" in words(ownbpe.__doc__)
    assert "plain text" in words(inspect.getdoc(ownbpe.Tokenizer.encode))
