"""Finding 13 of issue 34, and 12's and 21's hostile `hf:` files: a model file cannot hang a
run, count text as nothing, crash with an engine's error, or take gigabytes.

* ownbpe: a pattern that can match the empty string (`""`, `(a|a)*$|...`) or leaves
  characters unmatched is refused on load; any other user pattern runs with a time bound.
* hf: a normalizer that deletes everything is refused on load (it gave 0 tokens for 52
  characters, exit 0); "WordLevel error" and onig's panic on a catastrophic Split regex become
  refusals naming the file; more than `MAX_MERGES` merges are refused before parsing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import ownbpe
import pytest

from analysis import load_tokenizer
from analysis.errors import BadInput
from analysis.tokenizers import hf_adapter
from analysis.tokenizers.vocab import VocabularyError
from ownbpe import userpattern
from tests.conftest import REPO

TEXT = "The quick brown fox jumps over the lazy dog, 52 chars"  # 52 characters, as in the finding


def _ownbpe_model(tmp_path, pattern: str):
    tok = ownbpe.Tokenizer.train_from_iterator(["low lower lowest"] * 3, 259)
    path = tmp_path / "hostile.model"
    tok.save(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[1] = "pattern " + json.dumps(pattern)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("pattern", ["", r"(a|a)*$|\s+|\S", r"\p{L}+"], ids=["empty", "redos-empty-match", "letters-only"])
def test_an_ownbpe_pattern_that_drops_text_is_refused(tmp_path, pattern):
    path = _ownbpe_model(tmp_path, pattern)
    with pytest.raises(VocabularyError, match="pre-tokenization pattern"):
        load_tokenizer(f"ownbpe:{path}")


def test_the_cli_refuses_it_instead_of_counting_zero(tmp_path):
    path = _ownbpe_model(tmp_path, "")
    r = subprocess.run([sys.executable, "-m", "analysis", "compare", TEXT, "-t", f"ownbpe:{path}"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "matches the empty string" in r.stderr and "Traceback" not in r.stderr


def test_a_catastrophic_ownbpe_pattern_stops_at_its_time_bound(tmp_path, monkeypatch):
    # covers the probe text and matches no empty string, but backtracks exponentially on a's
    path = _ownbpe_model(tmp_path, r"(?:a|a)+b|[\s\S]")
    tok = load_tokenizer(f"ownbpe:{path}")
    monkeypatch.setattr(userpattern, "SECONDS", 0.3)
    t0 = time.monotonic()
    with pytest.raises(BadInput, match="backtracks catastrophically") as e:
        tok.count("a" * 60)
    assert str(path) in str(e.value)
    assert time.monotonic() - t0 < 10  # unbounded, 2^60 steps


def _hf_file(tmp_path, name: str, *, model=None, normalizer=None, pre=None) -> str:
    bpe = {"type": "BPE", "vocab": {chr(c): i for i, c in enumerate(range(32, 127))}, "merges": [], "unk_token": None}
    spec = {"version": "1.0", "added_tokens": [], "normalizer": normalizer, "pre_tokenizer": pre,
            "post_processor": None, "decoder": None, "model": model or bpe}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return str(path)


def test_an_hf_normalizer_that_deletes_everything_is_refused(tmp_path):
    path = _hf_file(tmp_path, "deleting", normalizer={"type": "Replace", "pattern": {"Regex": r"[\s\S]"}, "content": ""})
    with pytest.raises(VocabularyError, match="into 0 tokens") as e:
        load_tokenizer(f"hf:{path}")
    assert path in str(e.value)


def test_an_hf_wordlevel_error_is_a_refusal_naming_the_file(tmp_path):
    path = _hf_file(tmp_path, "wordlevel", model={"type": "WordLevel", "vocab": {"a": 0, "b": 1}, "unk_token": "[UNK]"})
    with pytest.raises(VocabularyError, match="WordLevel error") as e:
        load_tokenizer(f"hf:{path}")
    assert path in str(e.value)


def test_an_hf_split_regex_panic_is_a_refusal_naming_the_file(tmp_path):
    path = _hf_file(tmp_path, "split", pre={"type": "Split", "pattern": {"Regex": "(a|a)*$"}, "behavior": "Isolated",
                                            "invert": False})
    tok = load_tokenizer(f"hf:{path}")
    with pytest.raises(BadInput, match="cannot encode this text") as e:
        tok.count("a" * 5000 + "!")  # onig gives up (its retry limit) and the Rust side panics
    assert path in str(e.value)
    r = subprocess.run([sys.executable, "-m", "analysis", "compare", "a" * 5000 + "!", "-t", f"hf:{path}"],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "PanicException" not in r.stderr and "Traceback" not in r.stderr
    assert f"hf:{path}" in r.stderr or path in r.stderr


def test_too_many_merges_are_refused_before_parsing(tmp_path, monkeypatch):
    monkeypatch.setattr(hf_adapter, "MAX_MERGES", 1_000)
    vocab = {f"t{i}": i for i in range(3_000)}
    merges = [f"t{i} t{i + 1}" for i in range(2_500)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"version": "1.0", "model": {"type": "BPE", "vocab": vocab, "merges": merges}}))
    monkeypatch.setattr(hf_adapter, "read_json", lambda *a, **k: pytest.fail("parsed before the merges were counted"))
    with pytest.raises(VocabularyError, match="merges, more than the 1,000"):
        load_tokenizer(f"hf:{path}")


def test_too_many_strings_are_refused_before_parsing(tmp_path, monkeypatch):
    monkeypatch.setattr(hf_adapter, "MAX_STRINGS", 1_000)
    vocab = {f"t{i}": i for i in range(3_000)}  # a vocabulary alone, no merges
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({"version": "1.0", "model": {"type": "BPE", "vocab": vocab, "merges": []}}))
    monkeypatch.setattr(hf_adapter, "read_json", lambda *a, **k: pytest.fail("parsed before the strings were counted"))
    with pytest.raises(VocabularyError, match="strings"):
        load_tokenizer(f"hf:{path}")
