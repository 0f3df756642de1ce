"""Read a GGUF file's header and its tokenizer metadata, and nothing else.

Unlike `gguf_build` (which turns these facts into a tokenizer), this module is pure, bounded I/O.
A GGUF file is a header, a list of key/value pairs (the metadata), the tensor descriptions and
then the weights. The tokenizer lives in the metadata (``tokenizer.ggml.model``, ``.pre``,
``.tokens``, ``.merges``, ``.token_type``, ``.scores``, the special ids, ``tokenizer.chat_template``),
so reading stops at the end of the key/value pairs: a 5 GB model costs what its vocabulary costs.

The file is mapped, not read: the pages touched are the metadata's, and memory stays flat in the
file's size. Every count and length is checked against the bytes left in the file *before*
anything is allocated, so a truncated file, an array that claims 10^12 elements or a string that
claims a terabyte is refused at once, naming the key and the problem.

Layout (little-endian; versions 2 and 3): ``GGUF``, uint32 version, uint64 tensor count, uint64
key/value count, then per pair a string key (uint64 length + UTF-8), a uint32 value type and the
value; an array is a uint32 element type, a uint64 count and the elements.
"""

from __future__ import annotations

import hashlib
import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .vocab import VocabularyError

MAGIC = b"GGUF"
VERSIONS = (2, 3)

# value types -> (struct format, size); 8 is a string, 9 an array
_SCALARS: dict[int, tuple[str, int]] = {
    0: ("<B", 1), 1: ("<b", 1), 2: ("<H", 2), 3: ("<h", 2), 4: ("<I", 4), 5: ("<i", 4), 6: ("<f", 4),
    7: ("<?", 1), 10: ("<Q", 8), 11: ("<q", 8), 12: ("<d", 8),
}
_ARRAY_CODES = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
STRING, ARRAY = 8, 9

# Bounds beyond "fits in the file": real vocabularies hold at most a few hundred thousand tokens
# and merges (Gemma: 262,144 tokens; Qwen: 151,387 merges), one token at most a few hundred bytes,
# and chat templates a few tens of kilobytes.
MAX_KV = 100_000
MAX_ARRAY = 4_000_000
MAX_KEY_BYTES = 65_536
MAX_STRING_BYTES = 16 << 20  # one string (a chat template); a token is far shorter

# the keys kept; every other pair is skipped by its length, without reading its value
_KEEP_PREFIXES = ("tokenizer.", "general.architecture", "general.name")


class GGUFError(VocabularyError):
    """A file that is not a GGUF file, or one whose metadata is damaged or out of bounds."""


@dataclass(frozen=True)
class GGUFMetadata:
    """The tokenizer facts of one GGUF file (values as stored, arrays as lists)."""

    path: Path
    version: int
    file_size: int
    metadata_bytes: int  # where the key/value pairs end
    digest: str  # sha256 of the header and key/value pairs: names this tokenizer whatever the weights
    values: dict[str, Any] = field(repr=False)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)

    @property
    def model(self) -> str | None:
        return self.values.get("tokenizer.ggml.model")

    @property
    def pre(self) -> str | None:
        return self.values.get("tokenizer.ggml.pre")

    @property
    def chat_template(self) -> str | None:
        return self.values.get("tokenizer.chat_template")


class _Cursor:
    """Bounded reads over the mapped file: each one checks what it needs against what is left."""

    __slots__ = ("buf", "pos", "end", "path", "key")

    def __init__(self, buf: mmap.mmap, path: Path) -> None:
        self.buf, self.pos, self.end, self.path, self.key = buf, 0, len(buf), path, ""

    def fail(self, problem: str) -> GGUFError:
        where = f" in key {self.key!r}" if self.key else ""
        return GGUFError(f"{self.path.name}: {problem}{where} (at byte {self.pos:,} of {self.end:,}). "
                         "Fix: check the file is a complete GGUF model or vocabulary (a download cut short?)")

    def need(self, n: int, what: str) -> None:
        if n > self.end - self.pos:
            raise self.fail(f"truncated: {what} needs {n:,} bytes but only {self.end - self.pos:,} are left")

    def scalar(self, fmt: str, size: int, what: str) -> Any:
        self.need(size, what)
        (v,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return v

    def u32(self, what: str) -> int:
        return int(self.scalar("<I", 4, what))

    def u64(self, what: str) -> int:
        return int(self.scalar("<Q", 8, what))

    def string(self, what: str, limit: int = MAX_STRING_BYTES, keep: bool = True) -> str:
        n = self.u64(f"the length of {what}")
        if n > limit:
            raise self.fail(f"{what} claims {n:,} bytes, more than the {limit:,} allowed")
        self.need(n, what)
        start, self.pos = self.pos, self.pos + n
        if not keep:
            return ""
        try:
            return self.buf[start:self.pos].decode("utf-8")
        except UnicodeDecodeError as e:
            raise self.fail(f"{what} is not UTF-8 ({e.reason} at its byte {e.start})") from None


def _array(cur: _Cursor, keep: bool) -> list[Any] | None:
    elem = cur.u32("an array's element type")
    count = cur.u64("an array's length")
    if count > MAX_ARRAY:
        raise cur.fail(f"an array of {count:,} elements, more than the {MAX_ARRAY:,} allowed")
    if elem == STRING:
        cur.need(8 * count, f"an array of {count:,} strings")  # each at least its length field
        if not keep:
            for _ in range(count):
                cur.string("an array element", keep=False)
            return None
        return _strings(cur, count, MAX_KEY_BYTES)
    if elem not in _ARRAY_CODES:
        raise cur.fail(f"unknown array element type {elem} (valid: 0-8, 10-12; nested arrays are not metadata)")
    size = _SCALARS[elem][1]
    cur.need(size * count, f"an array of {count:,} elements of {size} bytes")
    start, cur.pos = cur.pos, cur.pos + size * count
    if not keep:
        return None
    return list(struct.unpack_from(f"<{count}{_ARRAY_CODES[elem]}", cur.buf, start))


_U64 = struct.Struct("<Q").unpack_from


def _strings(cur: _Cursor, count: int, limit: int) -> list[str]:
    """`count` strings, each bounded like `_Cursor.string`, in one tight loop (a vocabulary holds
    hundreds of thousands: a method call per string cost most of the load)."""
    buf, pos, end = cur.buf, cur.pos, cur.end
    raw: list[bytes] = []
    add = raw.append
    for i in range(count):
        if end - pos < 8:
            cur.pos = pos
            raise cur.fail(f"truncated: element {i:,} of {count:,} strings has no length field")
        (n,) = _U64(buf, pos)
        pos += 8
        if n > limit or n > end - pos:
            cur.pos = pos
            problem = f"more than the {limit:,} allowed" if n > limit else f"only {end - pos:,} are left (truncated)"
            raise cur.fail(f"element {i:,} of {count:,} strings claims {n:,} bytes, {problem}")
        add(buf[pos:pos + n])
        pos += n
    cur.pos = pos
    try:
        return [b.decode("utf-8") for b in raw]
    except UnicodeDecodeError:
        bad = next(i for i, b in enumerate(raw) if not _is_utf8(b))
        raise cur.fail(f"element {bad:,} of the string array is not UTF-8") from None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _value(cur: _Cursor, vtype: int, keep: bool) -> Any:
    if vtype in _SCALARS:
        fmt, size = _SCALARS[vtype]
        return cur.scalar(fmt, size, "a value")
    if vtype == STRING:
        return cur.string("a string value", keep=keep)
    if vtype == ARRAY:
        return _array(cur, keep)
    raise cur.fail(f"unknown value type {vtype} (valid: 0-12)")


def read_metadata(path: str | Path) -> GGUFMetadata:
    """The tokenizer metadata of the GGUF file at `path` (raises GGUFError naming any problem).

    Only the header and the key/value pairs are read; keys outside ``tokenizer.*`` and
    ``general.architecture``/``general.name`` are skipped by length.
    """
    path = Path(path)
    try:
        f = open(path, "rb")
    except OSError as e:
        raise GGUFError(f"{path.name}: cannot open it ({e.strerror}). Fix: check the path") from None
    with f:
        size = path.stat().st_size
        if size < 24:
            raise GGUFError(f"{path.name}: {size} bytes is too short for a GGUF header (24 bytes). Fix: check the file")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            return _parse(buf, path, size)


def _parse(buf: mmap.mmap, path: Path, size: int) -> GGUFMetadata:
    cur = _Cursor(buf, path)
    if buf[:4] != MAGIC:
        raise GGUFError(f"{path.name}: not a GGUF file (it starts with {bytes(buf[:4])!r}, not b'GGUF'). "
                        "Fix: give a .gguf model or vocabulary file")
    cur.pos = 4
    version = cur.u32("the version")
    if version not in VERSIONS:
        swapped = struct.unpack("<I", struct.pack(">I", version))[0]
        hint = " (a big-endian file: only little-endian GGUF is read)" if swapped in VERSIONS else ""
        raise GGUFError(f"{path.name}: GGUF version {version}{hint}; versions {', '.join(map(str, VERSIONS))} are read")
    cur.u64("the tensor count")
    n_kv = cur.u64("the key/value count")
    if n_kv > MAX_KV:
        raise cur.fail(f"the header claims {n_kv:,} key/value pairs, more than the {MAX_KV:,} allowed")
    values: dict[str, Any] = {}
    for _ in range(n_kv):
        cur.key = ""
        key = cur.string("a key", limit=MAX_KEY_BYTES)
        cur.key = key
        vtype = cur.u32("a value type")
        keep = key.startswith(_KEEP_PREFIXES)
        value = _value(cur, vtype, keep)
        if keep:
            values[key] = value
    cur.key = ""
    digest = hashlib.sha256(buf[:cur.pos]).hexdigest()
    return GGUFMetadata(path, version, size, cur.pos, digest, values)
