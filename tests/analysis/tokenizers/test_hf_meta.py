"""A bundled tokenizer.json loads from its kept facts and builds its engine on first use.

The first load parses the file and keeps what the adapter reads from it (`hf_meta`); a second
load must parse nothing, build no engine, and still give the same sizes, tokens and ids. A
damaged or stale copy is parsed again and says so; a user's own file is always checked on load.
"""

from __future__ import annotations

import json
import logging

import pytest

from analysis.tokenizers import CATALOGUE, hf_meta
from analysis.tokenizers.hf_adapter import HFTokenizerAdapter
from analysis.tokenizers.registry import load_tokenizer

TEXT = "def f(x):\n    return x  # 世界 12345 <think> café"


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))


def _deepseek() -> HFTokenizerAdapter:
    tok = CATALOGUE["deepseek-v4"].build()  # a new adapter, not the registry's shared one
    assert isinstance(tok, HFTokenizerAdapter)
    return tok


def _kept() -> list:
    return sorted((hf_meta.data_dir() / "cache" / "hf").glob("*.json"))


def test_second_load_parses_nothing_and_answers_the_same():
    first = _deepseek()
    assert first._engine is not None and len(_kept()) == 1  # parsed, built, facts kept
    second = _deepseek()
    assert second._engine is None  # nothing built yet
    assert (second.n_vocab, second.special_tokens, second._added, second.safe_newline_cuts) == \
           (first.n_vocab, first.special_tokens, first._added, first.safe_newline_cuts)
    assert second.token_bytes(100) == first.token_bytes(100)  # needs the engine: built on use
    assert second._engine is not None
    assert second.encode(TEXT) == first.encode(TEXT) == load_tokenizer("deepseek-v4").encode(TEXT)


def test_build_makes_the_engine_now():
    _deepseek()
    tok = _deepseek()
    tok.build()
    assert tok._engine is not None and tok._junctions is not None  # DeepSeek's long-word cuts too


@pytest.mark.parametrize("damage", ["not json {", json.dumps({"version": 99}), "[]",
                                    json.dumps({"version": hf_meta.VERSION, "sha256": "0" * 64, "meta": {}})])
def test_a_damaged_copy_is_parsed_again_and_says_so(caplog, damage):
    _deepseek()
    (kept,) = _kept()
    kept.write_text(damage, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="tokenprism.cache"):
        tok = _deepseek()
    assert "parsing" in caplog.text and tok._engine is not None  # parsed and built, as the first time
    assert tok.n_vocab == 129280
    assert _deepseek()._engine is None  # the copy was rewritten: good again


def test_a_users_file_is_checked_on_load(tmp_path):
    broken = tmp_path / "tokenizer.json"
    spec = json.loads(_deepseek().path.read_text(encoding="utf-8"))
    spec["normalizer"] = {"type": "Replace", "pattern": {"Regex": "[\\s\\S]"}, "content": ""}  # deletes all text
    broken.write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ValueError, match="0 tokens"):
        load_tokenizer(f"hf:{broken}")
