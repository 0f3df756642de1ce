"""Answers kept in the data dir between runs: one JSON file per key, checked before it is trusted.

Unlike the rank cache (`tokenizers.rank_cache`, a binary table per vocabulary), this keeps small
JSON documents: a vocabulary's audit, a question's answer. A file is a header line (format
version, the digest it was made for, the sha256 of its body) and the body. A file that fails a
check is never used: the caller computes the answer again and a warning says why (logger
`tokenprism.cache`). Writes are atomic; a data dir that cannot be written only costs the work.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger("tokenprism.cache")

NO_CACHE_ENV = "TOKENPRISM_NO_VOCAB_CACHE"  # the rank cache's switch: 1 keeps nothing, computes every time
FORMAT_VERSION = 1


def enabled() -> bool:
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


def kept_path(kind: str, name: str, digest: str) -> Path:
    """Where the document `name` of `kind` made for `digest` lives."""
    from ..tokenizers.fetch import data_dir

    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:80]
    return data_dir() / "cache" / kind / f"{safe}-{digest[:16]}.json"


def read_kept(path: Path, digest: str) -> Any | None:
    """The document kept at `path` when it is whole and made for `digest`; None otherwise (and a
    warning when a copy was there but failed a check)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        log.warning("cannot read %s (%s); computing it again", path, e.strerror or e)
        return None
    try:
        head, _, body = raw.partition(b"\n")
        meta = json.loads(head)
        if meta.get("version") != FORMAT_VERSION or meta.get("digest") != digest:
            raise ValueError("made for another vocabulary, question or format")
        if meta.get("sha256") != hashlib.sha256(body).hexdigest():
            raise ValueError("its body does not match its sha256")
        return json.loads(body)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        log.warning("%s is not usable (%s); computing it again", path, e)
        return None


def keep(path: Path, digest: str, doc: Any) -> None:
    """Write `doc` to `path` for `digest`, atomically."""
    from ..atomic import write_bytes

    body = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    head = json.dumps({"version": FORMAT_VERSION, "digest": digest, "sha256": hashlib.sha256(body).hexdigest()})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, head.encode() + b"\n" + body)
    except OSError as e:  # a read-only data dir: the next run computes it again
        log.info("cannot keep %s (%s)", path, e.strerror or e)
