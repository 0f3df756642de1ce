"""A pre-parsed, checked copy of each rank table in the data dir, so a start skips the parse.

Unlike `vocab`, which parses the source files (base64 lines, GPT-2's JSON and merges), and
`rank_table`, which is the stored table itself (its layout and its look-ups), this module decides
where the copy lives and whether to trust it. The first load of a vocabulary parses its sources
and writes the table (never pickle: the file is data, and loading it runs no code); later loads
read that copy instead, and can look tokens up in it at once, before any dict is built.

The key is the sha256 of the sources' sha256s and the format version: a new package release
(another source file) or a new layout finds the old copy stale. Every load re-checks the magic,
the version, the key, the payload's sha256 and the sizes; building the whole dict also checks
that no token or rank appears twice. A copy that fails a check is never trusted: it is rebuilt
from the sources and a warning says so (logger `tokenprism.cache`). Writes are atomic; a data
dir that cannot be written only costs the parse.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ..atomic import write_bytes
from .fetch import data_dir
from .rank_table import (
    FORMAT_VERSION, HEADER, MAGIC, DictTable, RankTable, StaleCache, Table, encode_table, size_bounds,
)
from .vocab import sha256_file

__all__ = ["MAGIC", "FORMAT_VERSION", "StaleCache", "cache_dir", "source_key", "encode_ranks", "decode_ranks",
           "cached_table", "cached_ranks"]

log = logging.getLogger("tokenprism.cache")

NO_CACHE_ENV = "TOKENPRISM_NO_VOCAB_CACHE"  # 1: always parse the sources, write nothing


def cache_dir() -> Path:
    """Where the pre-parsed rank tables live: the data dir's cache/ranks folder."""
    return data_dir() / "cache" / "ranks"


def source_key(sources: Sequence[Path]) -> bytes:
    """32 bytes naming this content of `sources` under this format version."""
    h = hashlib.sha256(b"tokenprism ranks v%d\n" % FORMAT_VERSION)
    for path in sources:
        h.update(sha256_file(path).encode("ascii") + b"\n")
    return h.digest()


def encode_ranks(ranks: dict[bytes, int], key: bytes) -> bytes:
    """The cache file's bytes for `ranks` (see `rank_table` for the layout)."""
    return encode_table(ranks, key)


def decode_ranks(data: bytes, key: bytes) -> dict[bytes, int]:
    """The ranks stored in `data` as a dict, after every check; raises StaleCache naming the failed one."""
    return RankTable.open(data, key).ranks()


def cached_ranks(name: str, sources: Sequence[Path], parse: Callable[[], dict[bytes, int]]) -> dict[bytes, int]:
    """`parse()`'s ranks as a dict, through the cache file `name` (see `cached_table`)."""
    try:
        return cached_table(name, sources, parse).ranks()
    except StaleCache as e:  # a token or rank twice: a file forged past its checksum
        log.warning("rank cache %s is not usable: %s; rebuilding it", cache_dir() / f"{name}.ranks", e)
        ranks = parse()
        _write(cache_dir() / f"{name}.ranks", encode_table(ranks, source_key(sources)))
        return ranks


def cached_table(name: str, sources: Sequence[Path], parse: Callable[[], dict[bytes, int]]) -> Table:
    """`parse()`'s ranks as a table, from the cache file `name` when it holds this content of `sources`.

    The table answers look-ups at once; its `ranks()` builds the dict when asked.

    Args:
        name: the cache file's name (one per vocabulary, e.g. ``"o200k_base"``).
        sources: the files `parse` reads; their sha256s key the cache.
        parse: reads the sources (the slow path, and the only source of truth).
    """
    if os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return DictTable(parse())
    key = source_key(sources)
    path = cache_dir() / f"{name}.ranks"
    try:
        data = _read_checked(path)
    except StaleCache as e:
        log.warning("rank cache %s is not usable: %s; rebuilding it from %s", path, e,
                    ", ".join(str(s) for s in sources))
        data = None
    except FileNotFoundError:
        data = None
    except OSError as e:
        log.warning("cannot read the rank cache %s (%s); parsing %s instead", path, e.strerror or e, sources[0].name)
        data = None
    if data is not None:
        try:
            return RankTable.open(data, key)
        except StaleCache as e:
            log.warning("rank cache %s is not usable: %s; rebuilding it from %s", path, e,
                        ", ".join(str(s) for s in sources))
    ranks = parse()
    _write(path, encode_table(ranks, key))
    return DictTable(ranks)


def _read_checked(path: Path) -> bytes:
    """The cache file's bytes, read only once its size agrees with its header's bounds."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(HEADER.size)
        least, most = size_bounds(head)
        if not least <= size <= most:
            raise StaleCache(f"its size, {size:,} bytes, is outside what its header allows ({least:,} to {most:,})")
        return head + f.read(size - len(head))


def _write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, data)
    except OSError as e:  # a read-only home or data dir: every start parses, nothing breaks
        log.info("cannot write the rank cache %s (%s); the next start parses again", path, e.strerror or e)
