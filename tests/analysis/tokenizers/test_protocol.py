"""Every tokenizer the registry makes is a `Tokenizer`: it has each member the protocol declares, with its signature."""

from __future__ import annotations

import inspect
from typing import get_args

from analysis.tokenizers import CATALOGUE, available_tokenizers, load_tokenizer
from analysis.tokenizers.base import NormalForm, SymbolTokenizer, Tokenizer
from tests.analysis.tokenizers.references import reference_builds


def _members(protocol: type) -> dict[str, object]:
    """The protocol's own members: its annotated attributes and its methods and properties."""
    own = {n: v for n, v in vars(protocol).items() if not n.startswith("_") and (callable(v) or isinstance(v, property))}
    return {**dict.fromkeys(vars(protocol).get("__annotations__", {})), **own}


def _all() -> list[Tokenizer]:
    return [load_tokenizer(n) for n in available_tokenizers()] + reference_builds()


def test_the_protocol_declares_what_callers_use():
    # build (warm-up, pools before they fork), normalize (explain), and the SentencePiece markers (Gemma 3)
    assert {"build", "normalize", "encode", "count_batch", "pieces", "special_tokens"} <= set(_members(Tokenizer))
    assert {"piece_id", "encode_as_text"} <= set(_members(SymbolTokenizer))


def test_every_registered_tokenizer_has_every_member_with_its_signature():
    toks = _all()
    families = {t.family for t in toks}
    assert {"tiktoken", "hf", "ownbpe"} <= families, families  # each adapter class is checked
    for tok in toks:
        assert isinstance(tok, Tokenizer), tok.name
        for name, declared in _members(Tokenizer).items():
            assert hasattr(tok, name), f"{tok.name} ({type(tok).__name__}) has no {name}"
            if inspect.isfunction(declared):
                want = list(inspect.signature(declared).parameters)
                got = ["self", *inspect.signature(getattr(tok, name)).parameters]
                assert got == want, f"{type(tok).__name__}.{name}{got} differs from the protocol's {want}"
        assert tok.normalize is None or tok.normalize in get_args(NormalForm), tok.name
        assert tok.build() is None  # builds what is deferred, or nothing; never fails on a loaded adapter
        assert tok.encode("tokens, again") == tok.encode_batch(["tokens, again"])[0]  # still whole after build


def test_only_sentencepiece_adapters_match_symbols_in_text():
    for tok in _all():
        assert isinstance(tok, SymbolTokenizer) == (tok.family == "sentencepiece"), tok.name


def test_qwen_says_it_normalises_to_nfc_and_the_byte_level_tokenizers_do_not():
    assert load_tokenizer("qwen2.5").normalize == "NFC" and load_tokenizer("o200k_base").normalize is None
    assert CATALOGUE["ownbpe"].present() is False or load_tokenizer("ownbpe").normalize is None
