"""analysis.errors: the two refusal types, what they carry, and which domain errors are refusals."""

from __future__ import annotations

import pickle

import pytest

from analysis.corpora.system import CorpusUnavailableError
from analysis.engine import EngineError
from analysis.errors import BadInput, UnknownName
from analysis.tokenizers import load_tokenizer
from analysis.tokenizers.registry import is_available
from analysis.tokenizers.vocab import VocabularyError


def test_unknown_name_offers_the_closest_names():
    e = UnknownName("model", "gpt-4oo", ["o3", "gpt-4o", "gpt-4o"])
    assert isinstance(e, KeyError)
    assert str(e) == "unknown model 'gpt-4oo'; did you mean gpt-4o?"
    assert e.valid == ["gpt-4o", "o3"]
    assert e.closest == ["gpt-4o"]


def test_a_whole_message_keeps_the_names():
    e = UnknownName("figure", "cpt", ["chars_per_token"], message="unknown figure 'cpt'; see --help")
    assert str(e) == "unknown figure 'cpt'; see --help"
    assert e.args == ("unknown figure 'cpt'; see --help",)
    assert e.valid == ["chars_per_token"]


def test_unknown_name_survives_pickling():
    # Engines' workers raise in other processes; the error comes back pickled.
    e = pickle.loads(pickle.dumps(UnknownName("tokenizer", "o200k", ["o200k_base"], hint="See `tokenizers`.")))
    assert type(e) is UnknownName
    assert str(e) == "unknown tokenizer 'o200k'; did you mean o200k_base? See `tokenizers`."
    assert (e.kind, e.name, e.valid, e.closest) == ("tokenizer", "o200k", ["o200k_base"], ["o200k_base"])


@pytest.mark.parametrize("cls", [VocabularyError, CorpusUnavailableError, EngineError])
def test_domain_refusals_are_bad_input(cls):
    assert issubclass(cls, BadInput)
    assert issubclass(cls, ValueError)


def test_engine_error_is_still_an_os_error():
    assert issubclass(EngineError, OSError)


def test_the_registry_refuses_unknown_names_typed():
    with pytest.raises(UnknownName) as info:
        load_tokenizer("o200k")
    assert "o200k_base" in info.value.closest
    with pytest.raises(UnknownName):
        is_available("no-such-tokenizer")  # was a bare KeyError from a dict lookup
    with pytest.raises(UnknownName) as info:
        load_tokenizer("tiktoken:o200k")
    assert info.value.kind == "tiktoken encoding"
    with pytest.raises(UnknownName) as info:
        load_tokenizer("spx:model.bin")  # sp: is a family since issue 59
    assert info.value.valid == ["gguf", "hf", "ownbpe", "sp", "tiktoken"]
