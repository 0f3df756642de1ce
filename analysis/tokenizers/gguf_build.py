"""Build the tokenizer a GGUF file describes, as llama.cpp would run it.

Unlike `gguf_reader` (bounded I/O) and `gguf_pre` (the split table), this module decides which
engine runs a file's vocabulary and writes that engine's own file:

- ``gpt2`` (byte-level BPE): a Hugging Face ``tokenizer.json`` with the file's tokens and merges,
  the split regexes its ``pre`` name stands for, GPT-2's byte-to-character map, and the control
  and user-defined tokens as added tokens (user-defined ones are matched in text, as llama.cpp
  matches them without ``parse_special``).
- ``gemma4`` (BPE over raw UTF-8 with ``▁`` for spaces, byte fallback): a ``tokenizer.json``.
- ``bert`` (WordPiece): a ``tokenizer.json``; llama.cpp stores word-initial pieces with a ``▁``
  and continuations bare, so the pieces are turned back into ``word`` / ``##piece``.
- ``llama`` (SentencePiece BPE) and ``t5`` (SentencePiece unigram): a SentencePiece model
  (``.model`` protobuf) with the same pieces, scores and types; GGUF's token types are
  SentencePiece's, number for number.

The written file lives in the data dir under the GGUF metadata's sha256 (``cache/gguf``), so a
second load of the same vocabulary builds nothing; the engine is then the adapter that exists for
that kind of file (`hf_adapter`, `sentencepiece_adapter`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..atomic import write_bytes
from .base import Source, Tokenizer
from .gguf_pre import known_names, rule_for
from .gguf_reader import GGUFMetadata, read_metadata
from .vocab import VocabularyError

MODELS = ("gpt2", "gemma4", "bert", "llama", "t5")
# GGUF token types (llama.cpp's llama_token_type; SentencePiece's ModelProto.SentencePiece.Type)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
FORMAT = 1  # the written files' layout: a change makes old copies stale


class GGUFFileError(VocabularyError):
    """A GGUF file whose tokenizer cannot be built exactly (unknown model or pre name, missing keys)."""


def _need(meta: GGUFMetadata, key: str, kind: type) -> Any:
    value = meta.get(key)
    if not isinstance(value, kind):
        got = "missing" if value is None else f"a {type(value).__name__}"
        raise GGUFFileError(f"{meta.path.name}: {key} is {got}, a {kind.__name__} is needed. Fix: check the file "
                            "(a GGUF without its tokenizer?)")
    return value


def _types(meta: GGUFMetadata, n: int) -> list[int]:
    types = meta.get("tokenizer.ggml.token_type")
    if types is None:
        return [NORMAL] * n
    if not isinstance(types, list) or len(types) != n:
        raise GGUFFileError(f"{meta.path.name}: tokenizer.ggml.token_type has {len(types) if isinstance(types, list) else 0} "
                            f"entries for {n} tokens. Fix: check the file")
    return types


def _added(tokens: list[str], types: list[int], *, user_defined: bool = True) -> list[dict[str, Any]]:
    out = []
    for i, (t, kind) in enumerate(zip(tokens, types)):
        if kind == CONTROL or (user_defined and kind == USER_DEFINED):
            out.append({"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                        "normalized": False, "special": kind == CONTROL})
    return out


def _vocab(tokens: list[str]) -> dict[str, int]:
    return {t: i for i, t in enumerate(tokens)}  # a repeated token keeps its last id, as in llama.cpp


def _merges(meta: GGUFMetadata) -> list[list[str]]:
    merges = _need(meta, "tokenizer.ggml.merges", list)
    out = []
    for m in merges:
        cut = m.find(" ", 1)  # as llama.cpp splits: the first space after the first character
        out.append([m[:cut], m[cut + 1:]] if cut >= 0 else ["", ""])
    return out


def _split(regex: str) -> dict[str, Any]:
    return {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}


def spec_gpt2(meta: GGUFMetadata) -> dict[str, Any]:
    """The tokenizer.json of a ``gpt2`` (byte-level BPE) vocabulary."""
    tokens = _need(meta, "tokenizer.ggml.tokens", list)
    types = _types(meta, len(tokens))
    try:
        rule = rule_for(meta.pre)
    except KeyError as e:
        raise GGUFFileError(f"{meta.path.name}: {e.args[0]}. Fix: use a file whose tokenizer.ggml.pre is one of these, "
                            "or its tokenizer.json as hf:PATH") from None
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": _added(tokens, types),
        "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            *map(_split, rule.regexes),
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": rule.ignore_merges, "vocab": _vocab(tokens), "merges": _merges(meta)},
    }


def spec_gemma4(meta: GGUFMetadata) -> dict[str, Any]:
    """The tokenizer.json of a ``gemma4`` vocabulary: BPE over UTF-8, ``▁`` for spaces, byte fallback,
    the text first cut into lines and runs of newlines (llama.cpp's GEMMA4 split)."""
    tokens = _need(meta, "tokenizer.ggml.tokens", list)
    types = _types(meta, len(tokens))
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": _added(tokens, types),
        "normalizer": {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
        "pre_tokenizer": _split("[^\\n]+|[\\n]+"),
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": True,
                  "ignore_merges": False, "vocab": _vocab(tokens), "merges": _merges(meta)},
    }


def spec_bert(meta: GGUFMetadata) -> dict[str, Any]:
    """The tokenizer.json of a ``bert`` (WordPiece) vocabulary."""
    tokens = _need(meta, "tokenizer.ggml.tokens", list)
    types = _types(meta, len(tokens))
    unk_id = meta.get("tokenizer.ggml.unknown_token_id", 100)
    if not isinstance(unk_id, int) or not 0 <= unk_id < len(tokens):
        raise GGUFFileError(f"{meta.path.name}: tokenizer.ggml.unknown_token_id {unk_id!r} is not a token id. Fix: check the file")
    pieces = []
    for t, kind in zip(tokens, types):
        if kind == CONTROL:
            pieces.append(t)
        elif t.startswith("▁"):
            pieces.append(t[1:])
        else:
            pieces.append("##" + t)
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": _added(pieces, types),
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": None,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": pieces[unk_id], "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": _vocab(pieces)},
    }


def sentencepiece_model(meta: GGUFMetadata) -> bytes:
    """A SentencePiece ``.model`` (serialised ModelProto) with the pieces of a ``llama`` or ``t5`` vocabulary."""
    from sentencepiece import sentencepiece_model_pb2 as pb  # needs protobuf

    tokens = _need(meta, "tokenizer.ggml.tokens", list)
    types = _types(meta, len(tokens))
    scores = meta.get("tokenizer.ggml.scores") or [0.0] * len(tokens)
    if len(scores) != len(tokens):
        raise GGUFFileError(f"{meta.path.name}: tokenizer.ggml.scores has {len(scores)} entries for {len(tokens)} tokens")
    unigram = meta.model == "t5"
    proto: Any = pb.ModelProto()  # type: ignore[attr-defined]
    unk = meta.get("tokenizer.ggml.unknown_token_id", 2 if unigram else 0)
    if not isinstance(unk, int) or not 0 <= unk < len(tokens):
        raise GGUFFileError(f"{meta.path.name}: tokenizer.ggml.unknown_token_id {unk!r} is not a token id. Fix: check the file")
    for i, (t, kind, score) in enumerate(zip(tokens, types, scores)):
        p = proto.pieces.add()
        p.piece, p.score = t, float(score)
        if i == unk:
            kind = UNKNOWN  # SentencePiece needs its unknown piece typed so (Phi-3's file marks it control)
        elif kind == UNKNOWN or kind not in (NORMAL, CONTROL, USER_DEFINED, UNUSED, BYTE):
            kind = CONTROL  # SentencePiece allows one unknown piece; the others are never matched in text
        p.type = kind
    trainer = proto.trainer_spec
    trainer.model_type = 1 if unigram else 2  # UNIGRAM, BPE
    trainer.vocab_size = len(tokens)
    trainer.unk_id = unk
    trainer.byte_fallback = BYTE in types
    for field, key in (("bos_id", "bos_token_id"), ("eos_id", "eos_token_id"), ("pad_id", "padding_token_id")):
        v = meta.get(f"tokenizer.ggml.{key}")
        setattr(trainer, field, v if isinstance(v, int) and 0 <= v < len(tokens) and v != unk
                and proto.pieces[v].type == CONTROL else -1)
    norm = proto.normalizer_spec
    charsmap = meta.get("tokenizer.ggml.precompiled_charsmap")
    norm.name = "nmt_nfkc" if charsmap else "identity"
    if charsmap:
        norm.precompiled_charsmap = bytes(b & 0xFF for b in charsmap)
    norm.add_dummy_prefix = bool(meta.get("tokenizer.ggml.add_space_prefix", True))
    norm.remove_extra_whitespaces = bool(meta.get("tokenizer.ggml.remove_extra_whitespaces", False))
    norm.escape_whitespaces = True
    return proto.SerializeToString()


def _cache_file(meta: GGUFMetadata, suffix: str, data: bytes) -> tuple[Path, bool]:
    """Write `data` under the metadata's digest in the data dir (atomically); (path, is a temporary file)."""
    from .fetch import data_dir

    path = _cache_path(meta, suffix)
    if path.is_file():
        return path, False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_bytes(path, data), False
    except OSError:  # a data dir we cannot write: a temporary file, removed once loaded
        fd, tmp = tempfile.mkstemp(prefix="tokenprism-gguf-", suffix=suffix)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return Path(tmp), True


def display_name(meta: GGUFMetadata) -> str:
    """How a GGUF tokenizer appears in tables: its file name and the start of its metadata digest."""
    return f"gguf:{meta.path.name}@{meta.digest[:12]}"


def build(meta: GGUFMetadata, *, name: str | None = None) -> Tokenizer:
    """The adapter for the tokenizer `meta` describes (see the module docstring).

    Raises:
        GGUFFileError: an unknown model type or pre-tokenizer name (naming the known ones), or
            missing keys.
    """
    model = meta.model
    name = name or display_name(meta)
    source = Source("", f"{meta.path.name} (metadata sha256 {meta.digest[:12]})", "see the model card of the file",
                    meta.digest[:12])
    if model in ("llama", "t5"):
        from .sentencepiece_adapter import SentencePieceTokenizer

        path, temporary = _cache_file(meta, ".model", _cached_or(meta, ".model", lambda: sentencepiece_model(meta)))
        try:
            return SentencePieceTokenizer(name, path, source=source)
        finally:
            if temporary:
                path.unlink(missing_ok=True)
    makers = {"gpt2": spec_gpt2, "gemma4": spec_gemma4, "bert": spec_bert}
    if model not in makers:
        raise GGUFFileError(f"{meta.path.name}: tokenizer.ggml.model {model!r} is not supported; known: "
                            f"{', '.join(MODELS)}. Fix: use the model's tokenizer.json as hf:PATH or its .model as sp:PATH")
    from .hf_adapter import HFTokenizerAdapter

    path, temporary = _cache_file(meta, ".json", _cached_or(
        meta, ".json", lambda: json.dumps(makers[model](meta), ensure_ascii=False).encode("utf-8")))
    try:
        # lazy: on a second load the facts come from the data dir and the engine is built on first use
        return HFTokenizerAdapter(name, path, source=source, lazy=not temporary)
    finally:
        if temporary:
            path.unlink(missing_ok=True)


def _cached_or(meta: GGUFMetadata, suffix: str, make) -> bytes:
    """The bytes to write, made only when the data dir has no copy yet (`_cache_file` then skips the write)."""
    if _cache_path(meta, suffix).is_file():
        return b""
    return make()


def _cache_path(meta: GGUFMetadata, suffix: str) -> Path:
    """Where the engine file of `meta` is kept: named by the metadata's digest and by the recipe (this
    module's format and, for BPE, the split rule), so a changed rule never meets an old copy."""
    from .fetch import data_dir

    recipe = f"{FORMAT}|{meta.model}|"
    if meta.model == "gpt2":
        try:
            recipe += repr(rule_for(meta.pre))
        except KeyError:
            pass  # refused when the spec is made
    key = hashlib.sha256(recipe.encode("utf-8")).hexdigest()[:12]
    return data_dir() / "cache" / "gguf" / f"{meta.digest}.{key}{suffix}"


def load(path: str | Path, *, name: str | None = None) -> Tokenizer:
    """The tokenizer inside the GGUF file at `path`; its ``chat_template`` attribute holds the file's template."""
    meta = read_metadata(path)
    tok = build(meta, name=name)
    tok.chat_template = meta.chat_template  # type: ignore[attr-defined]  # read by count -m gguf:PATH
    return tok


__all__ = ["MODELS", "GGUFFileError", "build", "load", "added_ids", "display_name", "known_names", "spec_gpt2", "spec_gemma4",
           "spec_bert", "sentencepiece_model"]


def added_ids(meta: GGUFMetadata) -> tuple[list[int], list[int]]:
    """The ids llama.cpp puts before and after a text when asked to add special tokens.

    Per vocabulary type, as llama.cpp's loader sets them, then the file's own
    ``tokenizer.ggml.add_bos_token`` / ``add_eos_token`` / ``add_sep_token`` keys: SentencePiece
    BPE adds BOS; WordPiece adds BOS (``[CLS]``) and SEP; unigram adds EOS; byte-level BPE adds BOS
    for the Llama 3 and Tekken splits, SEP for the RoBERTa-like names.
    """
    model, pre = meta.model, meta.pre or ""
    bos_default = {"llama": 1, "bert": 101, "gpt2": 11}.get(model or "")
    eos_default = {"llama": 2, "gpt2": 11, "t5": 1}.get(model or "")
    add_bos = model in ("llama", "bert") or (model == "gpt2" and pre in (
        "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano",
        "tekken", "chameleon"))
    add_eos = model == "t5"
    add_sep = model == "bert" or (model == "gpt2" and pre in ("jina-v1-en", "jina-v2-code", "roberta-bpe"))
    add_bos = bool(meta.get("tokenizer.ggml.add_bos_token", add_bos))
    add_eos = bool(meta.get("tokenizer.ggml.add_eos_token", add_eos))
    add_sep = bool(meta.get("tokenizer.ggml.add_sep_token", add_sep))
    bos = meta.get("tokenizer.ggml.bos_token_id", bos_default)
    eos = meta.get("tokenizer.ggml.eos_token_id", eos_default)
    sep = meta.get("tokenizer.ggml.seperator_token_id", 102 if model == "bert" else None)
    before = [bos] if add_bos and isinstance(bos, int) else []
    after = ([eos] if add_eos and isinstance(eos, int) else []) + ([sep] if add_sep and isinstance(sep, int) else [])
    return before, after
