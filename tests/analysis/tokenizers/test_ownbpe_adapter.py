"""The built-in ownbpe model: present, current with the built-in corpora, and a full citizen."""

from __future__ import annotations

from analysis import available_tokenizers, load_tokenizer
from analysis.tokenizers.ownbpe_adapter import BUILTIN_VOCAB_SIZE, builtin_model_path, train_builtin


def test_builtin_model_is_current(tmp_path):
    fresh = tmp_path / "fresh.model"
    train_builtin().save(fresh)
    assert fresh.read_bytes() == builtin_model_path().read_bytes(), (
        "analysis/data/ownbpe-builtin.model is stale: the built-in corpora changed. Fix: make builtin-model"
    )


def test_builtin_model_in_registry():
    assert "ownbpe" in available_tokenizers()
    tok = load_tokenizer("ownbpe")
    assert tok.family == "ownbpe"
    assert tok.n_vocab == BUILTIN_VOCAB_SIZE
    text = "The cat sat on the mat. def main():\n    return 0\n"
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert len(ids) < len(text) / 2
    assert tok.encode("<|endoftext|>") != [tok.bpe.special_tokens["<|endoftext|>"]]
