"""A pre-parsed, checked copy of each rank table in the data dir, so a start skips the parse.

Unlike `vocab`, which parses the source files (base64 lines, GPT-2's JSON and merges), this
module only stores what a parse produced and gives it back. The first load of a vocabulary
parses its sources and writes the ranks in a small binary layout of our own (never pickle: the
file is data, and loading it runs no code); later loads read that copy instead.

The layout, version `FORMAT_VERSION`, little-endian:

    header   magic b"TPRANKS\\0", u32 format version, 32-byte key, u32 count, u32 flags,
             32-byte sha256 of the payload
    payload  count u16 token lengths, then (when flags has RANKS_LISTED) count u32 ranks,
             then the tokens' bytes back to back

The key is the sha256 of the sources' sha256s and the format version: a new package release
(another source file) or a new layout finds the old copy stale. Every load re-checks the magic,
the version, the key, the payload's sha256, the lengths and the ranks; a copy that fails any
check is never trusted: it is rebuilt from the sources and a warning says so (logger
`tokenprism.cache`). Writes are atomic; a data dir that cannot be written only costs the parse.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import sys
from array import array
from collections.abc import Callable, Sequence
from itertools import accumulate
from pathlib import Path

from ..atomic import write_bytes
from .fetch import data_dir
from .vocab import sha256_file

log = logging.getLogger("tokenprism.cache")

MAGIC = b"TPRANKS\0"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sI32sII32s")
RANKS_LISTED = 1  # ranks stored explicitly; without it token i has rank i
MAX_TOKEN_BYTES = 0xFFFF
NO_CACHE_ENV = "TOKENPRISM_NO_VOCAB_CACHE"  # 1: always parse the sources, write nothing


class StaleCache(ValueError):
    """A cache file that fails a check; the message says which."""


def cache_dir() -> Path:
    """Where the pre-parsed rank tables live: the data dir's cache/ranks folder."""
    return data_dir() / "cache" / "ranks"


def source_key(sources: Sequence[Path]) -> bytes:
    """32 bytes naming this content of `sources` under this format version."""
    h = hashlib.sha256(b"tokenprism ranks v%d\n" % FORMAT_VERSION)
    for path in sources:
        h.update(sha256_file(path).encode("ascii") + b"\n")
    return h.digest()


def _le(arr: array) -> bytes:
    if sys.byteorder != "little":
        arr = array(arr.typecode, arr)
        arr.byteswap()
    return arr.tobytes()


def _from_le(typecode: str, data: bytes | memoryview) -> array:
    arr = array(typecode)
    arr.frombytes(data)
    if sys.byteorder != "little":
        arr.byteswap()
    return arr


def encode_ranks(ranks: dict[bytes, int], key: bytes) -> bytes | None:
    """The file's bytes for `ranks`, or None when a token is too long for the layout."""
    items = sorted(ranks.items(), key=lambda kv: kv[1])
    tokens = [t for t, _ in items]
    if any(len(t) > MAX_TOKEN_BYTES for t in tokens):
        return None
    listed = [r for _, r in items] != list(range(len(items)))
    payload = _le(array("H", map(len, tokens)))
    if listed:
        payload += _le(array("I", (r for _, r in items)))
    payload += b"".join(tokens)
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, key, len(tokens), RANKS_LISTED if listed else 0,
                          hashlib.sha256(payload).digest())
    return header + payload


def decode_ranks(data: bytes, key: bytes) -> dict[bytes, int]:
    """The ranks stored in `data`, after every check; raises StaleCache naming the failed one."""
    if len(data) < _HEADER.size:
        raise StaleCache("shorter than its header")
    magic, version, stored_key, count, flags, digest = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise StaleCache("not a tokenprism rank cache (bad magic)")
    if version != FORMAT_VERSION:
        raise StaleCache(f"format version {version}, this tokenprism reads {FORMAT_VERSION}")
    if stored_key != key:
        raise StaleCache("made from other source files (their sha256 changed)")
    payload = memoryview(data)[_HEADER.size:]
    if hashlib.sha256(payload).digest() != digest:
        raise StaleCache("its content does not match its checksum (corrupt)")
    lengths = _from_le("H", payload[:2 * count])
    pos = 2 * count
    if flags & RANKS_LISTED:
        ranks: Sequence[int] = _from_le("I", payload[pos:pos + 4 * count])
        pos += 4 * count
    else:
        ranks = range(count)
    blob = bytes(payload[pos:])
    ends = list(accumulate(lengths))
    if len(lengths) != count or len(ranks) != count or (ends[-1] if ends else 0) != len(blob):
        raise StaleCache("its lengths do not add up (truncated)")
    # one C-level pass: slice objects over the blob, then a dict of token -> rank
    table = dict(zip(map(blob.__getitem__, map(slice, [0, *ends[:-1]], ends)), ranks))
    if len(table) != count or (flags & RANKS_LISTED and len(set(ranks)) != count):
        raise StaleCache("a token or a rank appears twice")
    return table


def cached_ranks(name: str, sources: Sequence[Path], parse: Callable[[], dict[bytes, int]]) -> dict[bytes, int]:
    """`parse()`'s ranks, from the cache file `name` when it holds this content of `sources`.

    Args:
        name: the cache file's name (one per vocabulary, e.g. ``"o200k_base"``).
        sources: the files `parse` reads; their sha256s key the cache.
        parse: reads the sources (the slow path, and the only source of truth).
    """
    if os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return parse()
    key = source_key(sources)
    path = cache_dir() / f"{name}.ranks"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        data = None
    except OSError as e:
        log.warning("cannot read the rank cache %s (%s); parsing %s instead", path, e.strerror or e, sources[0].name)
        data = None
    if data is not None:
        try:
            return decode_ranks(data, key)
        except StaleCache as e:
            log.warning("rank cache %s is not usable: %s; rebuilding it from %s", path, e,
                        ", ".join(str(s) for s in sources))
    ranks = parse()
    blob = encode_ranks(ranks, key)
    if blob is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_bytes(path, blob)
        except OSError as e:  # a read-only home or data dir: every start parses, nothing breaks
            log.info("cannot write the rank cache %s (%s); the next start parses again", path, e.strerror or e)
    return ranks
