"""A rank table that answers look-ups straight from its file's bytes, and that file's layout.

Unlike `rank_cache` (where the file lives, when it is stale, what to do when it cannot be
written), this module is the data structure: a vocabulary's token -> rank table stored so that a
process can use it the moment it has read the file. Building a Python dict of 200,000 tokens
takes about a tenth of a second and tiktoken's engine more; a short text needs a few dozen
look-ups. So the file holds an open-addressing hash table (CRC-32 of the token's bytes, linear
probing, at most half full) next to the tokens, and `RankTable.get` probes it through memoryviews
without building anything. `RankTable.ranks` builds the dict when a caller needs all of it.

The layout, version `FORMAT_VERSION`, little-endian:

    header   magic b"TPRANKS\\0", u32 format version, 32-byte key, u32 count, u32 flags,
             u32 log2 of the slot count, 32-byte sha256 of the payload
    payload  (count + 1) u32 offsets of the tokens in the blob, in rank order;
             count u32 ranks (only when flags has RANKS_LISTED; else token i has rank i);
             2**bits u32 slots (0: empty, else 1 + the token's index);
             the tokens' bytes back to back (the blob)
"""

from __future__ import annotations

import hashlib
import struct
import sys
import threading
from array import array
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from itertools import accumulate
from zlib import crc32

MAGIC = b"TPRANKS\0"
FORMAT_VERSION = 2
HEADER = struct.Struct("<8sI32sIII32s")
RANKS_LISTED = 1  # ranks stored explicitly; without it token i has rank i
MAX_SLOT_BITS = 26  # 64M slots: far above any vocabulary (a larger value is a damaged header)


class StaleCache(ValueError):
    """A cache file that fails a check; the message says which."""


def _u32(data: memoryview) -> Sequence[int]:
    """`data` read as little-endian u32s: a view where the machine is little-endian, else a copy."""
    if sys.byteorder == "little":
        return data.cast("I")
    arr = array("I")
    arr.frombytes(data)
    arr.byteswap()
    return arr


def _le(values: Sequence[int]) -> bytes:
    arr = array("I", values)
    if sys.byteorder != "little":
        arr.byteswap()
    return arr.tobytes()


MAX_TOKEN_BYTES = 4096  # no vocabulary's token is longer; a file needing more per token is not ours


def size_bounds(head: bytes) -> tuple[int, int]:
    """The least and most bytes a cache file with this header can have, from the header alone,
    so that a file's size is checked before the file is read (a 3 GB file is never loaded).

    Raises StaleCache for a short or foreign header, or a hash table over `MAX_SLOT_BITS`."""
    if len(head) < HEADER.size:
        raise StaleCache("shorter than its header")
    magic, _, _, count, flags, bits, _ = HEADER.unpack_from(head)
    if magic != MAGIC:
        raise StaleCache("not a tokenprism rank cache (bad magic)")
    if bits > MAX_SLOT_BITS or (1 << bits) < 2 * count:
        raise StaleCache("its hash table is the wrong size")
    least = HEADER.size + 4 * (count + 1) + (4 * count if flags & RANKS_LISTED else 0) + (4 << bits)
    return least, least + count * MAX_TOKEN_BYTES


def encode_table(ranks: Mapping[bytes, int], key: bytes) -> bytes:
    """The file's bytes for `ranks` under `key` (what `RankTable.open` reads back)."""
    items = sorted(ranks.items(), key=lambda kv: kv[1])
    tokens = [t for t, _ in items]
    listed = [r for _, r in items] != list(range(len(items)))
    bits = max(4, (2 * len(tokens)).bit_length())
    mask = (1 << bits) - 1
    slots = array("I", bytes(4 << bits))
    for i, token in enumerate(tokens):  # once per vocabulary and release: a plain loop is fine
        h = crc32(token) & mask
        while slots[h]:
            h = (h + 1) & mask
        slots[h] = i + 1
    if sys.byteorder != "little":
        slots.byteswap()
    payload = b"".join([_le([0, *accumulate(map(len, tokens))]), _le([r for _, r in items]) if listed else b"",
                        slots.tobytes(), *tokens])
    header = HEADER.pack(MAGIC, FORMAT_VERSION, key, len(tokens), RANKS_LISTED if listed else 0, bits,
                         hashlib.sha256(payload).digest())
    return header + payload


class _Lookup:
    """`[]` and `in` from a table's `get`."""

    def get(self, token: bytes, default: int | None = None) -> int | None:
        raise NotImplementedError

    def __getitem__(self, token: bytes) -> int:
        rank = self.get(token)
        if rank is None:
            raise KeyError(token)
        return rank

    def __contains__(self, token: object) -> bool:
        return isinstance(token, bytes) and self.get(token) is not None


class RankTable(_Lookup):
    """token bytes -> rank, read from a file made by `encode_table`, with no dict built.

    `get` and `[]` answer as a dict would; `token(rank)` goes the other way; `ranks()` builds
    (once, then shares) the whole dict for the callers that need one, such as tiktoken's engine.

    >>> table = RankTable.open(encode_table({b"a": 0, b"b": 1, b"ab": 2}, bytes(32)), bytes(32))
    >>> table.get(b"ab"), table.get(b"ba"), table.token(2), len(table), table.max_rank
    (2, None, b'ab', 3, 2)
    """

    def __init__(self, blob: bytes, offsets: Sequence[int], ranks: Sequence[int], slots: Sequence[int]) -> None:
        self._blob = blob
        self._offsets = offsets
        self._ranks = ranks
        self._slots = slots
        self._mask = len(slots) - 1
        self._dict: dict[bytes, int] | None = None
        self._lock = threading.Lock()
        self.max_rank = ranks[-1] if len(ranks) else -1  # stored in rank order

    @classmethod
    def open(cls, data: bytes, key: bytes) -> "RankTable":
        """The table stored in `data`, after every check that costs no pass over the tokens.

        Raises StaleCache naming the failed check: the magic, the version, the key, the
        payload's sha256 (any damage), and whether the parts add up.
        """
        if len(data) < HEADER.size:
            raise StaleCache("shorter than its header")
        magic, version, stored_key, count, flags, bits, digest = HEADER.unpack_from(data)
        if magic != MAGIC:
            raise StaleCache("not a tokenprism rank cache (bad magic)")
        if version != FORMAT_VERSION:
            raise StaleCache(f"format version {version}, this tokenprism reads {FORMAT_VERSION}")
        if stored_key != key:
            raise StaleCache("made from other source files (their sha256 changed)")
        payload = memoryview(data)[HEADER.size:]
        if hashlib.sha256(payload).digest() != digest:
            raise StaleCache("its content does not match its checksum (corrupt)")
        if bits > MAX_SLOT_BITS or (1 << bits) < 2 * count:
            raise StaleCache("its hash table is the wrong size")
        pos = 4 * (count + 1)
        offsets = _u32(payload[:pos])
        ranks: Sequence[int] = range(count)
        if flags & RANKS_LISTED:
            ranks = _u32(payload[pos:pos + 4 * count])
            pos += 4 * count
        slots = _u32(payload[pos:pos + (4 << bits)])
        pos += 4 << bits
        blob = bytes(payload[pos:])
        if len(offsets) != count + 1 or len(ranks) != count or len(slots) != 1 << bits \
                or offsets[0] != 0 or offsets[-1] != len(blob):
            raise StaleCache("its lengths do not add up (truncated)")
        return cls(blob, offsets, ranks, slots)

    def __len__(self) -> int:
        return len(self._ranks)

    def get(self, token: bytes, default: int | None = None) -> int | None:
        slots, offsets, blob, mask = self._slots, self._offsets, self._blob, self._mask
        h = crc32(token) & mask
        while s := slots[h]:
            start, end = offsets[s - 1], offsets[s]
            if end - start == len(token) and blob[start:end] == token:
                return self._ranks[s - 1]
            h = (h + 1) & mask
        return default

    def token(self, rank: int) -> bytes:
        """The bytes of the token of `rank` (KeyError when no token has it)."""
        i = rank if isinstance(self._ranks, range) else bisect_left(self._ranks, rank)
        if not 0 <= i < len(self._ranks) or self._ranks[i] != rank:
            raise KeyError(rank)
        return self._blob[self._offsets[i]:self._offsets[i + 1]]

    def ranks(self) -> dict[bytes, int]:
        """The whole table as a dict (built once; every caller shares it: do not mutate).

        Raises StaleCache when two entries hold the same token or rank (a forged file: the
        checksum alone cannot tell).
        """
        if self._dict is None:
            with self._lock:
                if self._dict is None:
                    offsets, blob = self._offsets, self._blob
                    table = dict(zip(map(blob.__getitem__, map(slice, offsets[:-1], offsets[1:])), self._ranks))
                    if len(table) != len(self._ranks) or (not isinstance(self._ranks, range)
                                                           and len(set(self._ranks)) != len(self._ranks)):
                        raise StaleCache("a token or a rank appears twice")
                    self._dict = table
        return self._dict


class DictTable:
    """A dict behind `RankTable`'s interface, for ranks that were parsed and not cached.

    >>> t = DictTable({b"a": 0, b"b": 7})
    >>> t.get(b"b"), t.token(7), t.max_rank
    (7, b'b', 7)
    """

    def __init__(self, ranks: dict[bytes, int]) -> None:
        self._dict = ranks
        self.get = ranks.get
        self.max_rank = max(ranks.values(), default=-1)
        self._bytes_of: dict[int, bytes] | None = None

    def __len__(self) -> int:
        return len(self._dict)

    def __getitem__(self, token: bytes) -> int:
        return self._dict[token]

    def __contains__(self, token: object) -> bool:
        return token in self._dict

    def token(self, rank: int) -> bytes:
        if self._bytes_of is None:
            self._bytes_of = {r: t for t, r in self._dict.items()}
        return self._bytes_of[rank]

    def ranks(self) -> dict[bytes, int]:
        return self._dict


class OverlayTable(_Lookup):
    """A table plus a few tokens of its own (p50k_base: r50k_base and runs of spaces).

    >>> t = OverlayTable(DictTable({b"a": 0}), {b"  ": 1})
    >>> t.get(b"  "), t.get(b"a"), t.token(1), len(t), t.max_rank
    (1, 0, b'  ', 2, 1)
    """

    def __init__(self, base: "RankTable | DictTable", extra: dict[bytes, int]) -> None:
        self._base, self._extra = base, extra
        self._inverse = {r: t for t, r in extra.items()}
        self.max_rank = max(base.max_rank, *extra.values())
        self._dict: dict[bytes, int] | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._base) + len(self._extra)

    def get(self, token: bytes, default: int | None = None) -> int | None:
        rank = self._extra.get(token)
        return rank if rank is not None else self._base.get(token, default)

    def token(self, rank: int) -> bytes:
        hit = self._inverse.get(rank)
        return hit if hit is not None else self._base.token(rank)

    def ranks(self) -> dict[bytes, int]:
        with self._lock:
            if self._dict is None:
                self._dict = {**self._base.ranks(), **self._extra}
        return self._dict


Table = RankTable | DictTable | OverlayTable
