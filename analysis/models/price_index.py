"""Which priced models an id names, kept per genai-prices release, so resolving skips the price data.

Unlike `resolve` (which decides what an id is), this module only remembers what genai-prices
answered about an id: its provider, its canonical id and its context window. Loading the price
data takes about half a second (1.6 MB of pydantic models); a program that counts a request for
"gpt-4o" in CI needs three strings of it. The answers are kept in the data dir, in one file per
genai-prices version (`cache/models/genai-prices-VERSION.json`): the package's data cannot change
without its version changing. An id the data does not know is kept only when the caller knows it
otherwise (an open-weight family such as "llama3"); a typo is not: its refusal needs the data
anyway, to name the closest ids.

A copy that cannot be read or fails its checks is ignored (and rewritten); a data dir that
cannot be written only costs the lookup.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from ..atomic import write_text
from ..tokenizers.fetch import data_dir

log = logging.getLogger("tokenprism.cache")
VERSION = 1
Hit = tuple[str, str, "int | None"]  # provider id, model id, context window


@lru_cache(maxsize=1)
def _file() -> Path | None:
    import importlib.metadata as md

    try:
        release = md.version("genai-prices")
    except md.PackageNotFoundError:
        return None
    return data_dir() / "cache" / "models" / f"genai-prices-{release}.json"


_kept: dict | None = None
MAX_CACHE_BYTES = 64_000_000


def _doc() -> dict:
    global _kept
    if _kept is None:
        _kept = {"version": VERSION, "providers": None, "ids": {}}
        path = _file()
        if path is not None and path.is_file():
            try:
                if path.stat().st_size > MAX_CACHE_BYTES:  # checked before it is read: ours are a few MB
                    raise ValueError(f"{path.stat().st_size:,} bytes, more than a cache of ours holds")
                doc = json.loads(path.read_text(encoding="utf-8"))
                if doc.get("version") == VERSION and isinstance(doc.get("ids"), dict):
                    _kept = doc
            except (OSError, ValueError, AttributeError) as e:
                log.warning("model cache %s is not usable (%s); the price data is read instead", path, e)
    return _kept


def _save() -> None:
    path = _file()
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(_doc(), ensure_ascii=False))
    except OSError as e:
        log.info("cannot write the model cache %s (%s); the next run reads the price data", path, e.strerror or e)


def provider_ids(compute: Callable[[], frozenset[str]]) -> frozenset[str]:
    """The price data's provider ids (lower case), kept after the first `compute()`."""
    doc = _doc()
    kept = doc.get("providers")
    if isinstance(kept, list) and all(isinstance(p, str) for p in kept):
        return frozenset(kept)
    ids = compute()
    doc["providers"] = sorted(ids)
    _save()
    return ids


def lookup(provider_id: str | None, ref: str, compute: Callable[[], tuple[list[Hit], bool]], *,
           keep_empty: bool = False) -> tuple[list[Hit], bool]:
    """`compute()`'s answer for (`provider_id`, `ref`): the hits and whether genai-prices inferred them.

    An answer without hits is kept only with `keep_empty` (an id known apart from the prices).
    """
    key = f"{provider_id or ''}:{ref}"
    kept = _doc()["ids"].get(key)
    if _valid(kept):
        return [(p, m, w) for p, m, w in kept["hits"]], bool(kept["inferred"])
    hits, inferred = compute()
    if hits or keep_empty:
        _doc()["ids"][key] = {"hits": [list(h) for h in hits], "inferred": inferred}
        _save()
    return hits, inferred


def _valid(kept: object) -> bool:
    if not isinstance(kept, dict) or not isinstance(kept.get("hits"), list):
        return False
    return all(isinstance(h, list) and len(h) == 3 and isinstance(h[0], str) and isinstance(h[1], str)
               and (h[2] is None or isinstance(h[2], int)) for h in kept["hits"])
