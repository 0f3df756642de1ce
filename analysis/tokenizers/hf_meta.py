"""What tokenprism reads from a ``tokenizer.json`` besides the engine, kept so a load can skip the parse.

Unlike `hf_adapter` (which runs the pipeline in Hugging Face `tokenizers`), this module only
derives, from the parsed JSON, the facts the adapter needs before it encodes anything: its
special and added tokens, its normaliser, whether it is byte-level, its id space, whether long
texts may be cut. Parsing a 5.5 MB file in Python takes about 0.1 s and building the engine as
much again; with these facts kept in the data dir (`cache/hf/<sha256 of the file>.json`), a
bundled or fetched tokenizer loads in milliseconds and builds its engine on first use.

The copy is keyed by the file's sha256 and `VERSION`; a copy that fails any check is never
trusted: the file is parsed again and the copy rewritten, with a warning (logger
`tokenprism.cache`). A data dir that cannot be written only costs the parse.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from ..atomic import write_text
from . import hf_words
from .fetch import data_dir
from .normalize import NormalForm
from .vocab import sha256_file

log = logging.getLogger("tokenprism.cache")
VERSION = 1
_NORMALIZERS: dict[str, NormalForm] = {"NFC": "NFC", "NFKC": "NFKC", "NFD": "NFD", "NFKD": "NFKD"}
_KEYS: dict[str, type | tuple[type, ...]] = {"special": dict, "added": dict, "safe_newline_cuts": bool, "normalize": (str, type(None)), "exotic": bool,
         "byte_level": bool, "n_vocab": (int, type(None)), "junctions": bool, "post_processor": bool}


def has_type(node: Any, wanted: str) -> bool:
    """True when a pipeline node (or any member of a Sequence) has type `wanted`."""
    if not isinstance(node, dict):
        return False
    if node.get("type") == wanted:
        return True
    return any(has_type(child, wanted) for key in ("pretokenizers", "normalizers", "decoders") for child in node.get(key) or [])


def from_spec(spec: dict, safe_newline_cuts: bool) -> dict[str, Any]:
    """The adapter's facts about the parsed file `spec` (n_vocab None: only the engine knows it)."""
    added = spec.get("added_tokens") or []
    norm = spec.get("normalizer") or {}
    members = norm.get("normalizers", []) if norm.get("type") == "Sequence" else [norm] if norm else []
    kinds = [k for k in (n.get("type") for n in members) if k]
    model_vocab = spec["model"].get("vocab") if isinstance(spec["model"], dict) else None
    if isinstance(model_vocab, dict) and model_vocab:  # BPE/WordPiece: token -> id
        top: int | None = max(model_vocab.values())
    elif isinstance(model_vocab, list):  # Unigram: ids are positions
        top = len(model_vocab) - 1
    else:
        top = None
    added_ids = [int(t["id"]) for t in added]
    # an added token that holds or strips whitespace could span a cut: then never cut
    cuts_ok = safe_newline_cuts and not any(
        not t.get("special") and (t.get("lstrip") or t.get("rstrip") or t.get("single_word")
                                  or any(c.isspace() for c in t["content"])) for t in added)
    return {
        "special": {int(t["id"]): t["content"] for t in added if t.get("special")},
        # Non-special added tokens (e.g. DeepSeek's "<think>") are matched in text by the real
        # tokenizer too, so they stay; their text is their content, not the vocab entry's.
        "added": {int(t["id"]): t["content"] for t in added},
        "safe_newline_cuts": cuts_ok,
        "normalize": _NORMALIZERS[kinds[0]] if len(kinds) == 1 and kinds[0] in _NORMALIZERS else None,
        "exotic": bool(kinds) and not (len(kinds) == 1 and kinds[0] in _NORMALIZERS),
        "byte_level": has_type(spec.get("pre_tokenizer"), "ByteLevel") or has_type(spec.get("decoder"), "ByteLevel"),
        "n_vocab": None if top is None else max([top, *added_ids]) + 1,
        "junctions": cuts_ok and hf_words.usable(spec, added),
        "post_processor": spec.get("post_processor") is not None,
    }


def _path(sha: str) -> Path:
    return data_dir() / "cache" / "hf" / f"{sha}.json"


MAX_CACHE_BYTES = 16_000_000


def read(path: Path) -> tuple[dict[str, Any] | None, str]:
    """(the kept facts about the file at `path`, or None; the file's sha256)."""
    sha = sha256_file(path)
    where = _path(sha)
    try:
        if where.stat().st_size > MAX_CACHE_BYTES:  # checked before it is read: ours are a few kB
            raise ValueError(f"{where.stat().st_size:,} bytes, more than a cache of ours holds")
        doc = json.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, sha
    except (OSError, ValueError) as e:
        log.warning("tokenizer cache %s is not usable (%s); parsing %s again", where, e, path)
        return None, sha
    meta = doc.get("meta") if isinstance(doc, dict) and doc.get("version") == VERSION and doc.get("sha256") == sha else None
    if not isinstance(meta, dict) or any(not isinstance(meta.get(k), t) for k, t in _KEYS.items()):
        log.warning("tokenizer cache %s is stale or damaged; parsing %s again", where, path)
        return None, sha
    for key in ("special", "added"):  # JSON keys are strings; ids are ints
        meta[key] = {int(i): str(c) for i, c in meta[key].items()}
    return meta, sha


def write(sha: str, meta: dict[str, Any]) -> None:
    """Keep `meta` for the file whose sha256 is `sha` (atomically; a read-only data dir is no error)."""
    where = _path(sha)
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        write_text(where, json.dumps({"version": VERSION, "sha256": sha, "meta": meta}, ensure_ascii=False))
    except OSError as e:
        log.info("cannot write the tokenizer cache %s (%s); the next load parses again", where, e.strerror or e)
