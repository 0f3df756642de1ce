"""The spec syntax ``family:path``: a tokenizer named by a file, a cached model or an encoding.

Unlike `catalogue` (names this package ships or fetches), a spec names a tokenizer the user has:
``hf:PATH`` (a tokenizer.json, or a folder holding one), ``hf:org/name`` (a model already in the
local Hugging Face cache, never downloaded here), ``ownbpe:PATH`` (a model `tokenprism train`
wrote), ``gguf:PATH`` (the tokenizer inside a GGUF model file, see `gguf_build`), ``sp:PATH`` (a
SentencePiece ``.model``), or ``tiktoken:NAME`` (a catalogue encoding by its tiktoken name). Each file is checked
before it is read: it must exist, be a regular file and stay under the size limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..errors import UnknownName
from . import hf_cache
from .base import Source, Tokenizer
from .catalogue import CATALOGUE
from .vocab import VocabularyError, max_vocab_bytes, sha256_file


FAMILIES = ("tiktoken", "hf", "gguf", "sp", "ownbpe")


def _unknown_family(family: str, spec: str) -> UnknownName:
    return UnknownName("tokenizer family", family, FAMILIES, message=(
        f"unknown tokenizer family {family!r} in {spec!r}; use tiktoken:NAME, hf:PATH, gguf:PATH, sp:PATH or ownbpe:PATH"))


def load_spec(spec: str, load_name: Callable[[str], Tokenizer]) -> Tokenizer:
    """The tokenizer `spec` names; ``tiktoken:NAME`` is loaded by name with `load_name` (the registry's cache)."""
    family, _, arg = spec.partition(":")
    if family == "tiktoken":
        if arg not in CATALOGUE or CATALOGUE[arg].family != "tiktoken":
            names = [n for n, e in CATALOGUE.items() if e.family == "tiktoken"]
            raise UnknownName("tiktoken encoding", arg, names,
                              message=f"unknown tiktoken encoding {arg!r}; valid: {', '.join(names)}")
        return load_name(arg)
    if family not in ("hf", "ownbpe", "gguf", "sp"):
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
    if family == "gguf":  # only the metadata is read, whatever the file's size (see gguf_reader)
        from .gguf_build import load as load_gguf

        return load_gguf(target)
    if target.stat().st_size > max_vocab_bytes():
        raise VocabularyError(f"{family}: {str(target)!r} is larger than the limit of {max_vocab_bytes():,} bytes. "
                              "Fix: check the path, or raise the limit with TOKENPRISM_MAX_VOCAB_MB")
    if family == "hf":
        from .hf_adapter import HFTokenizerAdapter

        p = path / "tokenizer.json" if path.is_dir() else path
        return HFTokenizerAdapter(f"hf:{p.name}" if p.name != "tokenizer.json" else f"hf:{p.parent.name}", p, source=Source("", str(p), "see file"))
    if family == "sp":
        from .sentencepiece_adapter import SentencePieceTokenizer

        digest = sha256_file(target)[:12]
        return SentencePieceTokenizer(f"sp:{path.name}@{digest}", target, source=Source("", path.name, "see file", digest))
    if family == "ownbpe":
        from .ownbpe_adapter import OwnBPETokenizer

        return OwnBPETokenizer.from_file(path, name=f"ownbpe:{path.name}")
    raise _unknown_family(family, spec)
