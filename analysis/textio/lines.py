"""The one bounded line reader: lines of a log, a corpus table or an upload, never unbounded.

Unlike `textio` (one whole text for one command, bounded by its size) this module streams a
file line by line, and bounds what a single line and a compressed file may cost:

* a line may hold at most `LineBounds.max_line_bytes` bytes, counted *after* decompression
  (default 64 MB; `--max-line-mb` or $TOKENPRISM_MAX_LINE_MB raise it);
* a gzip file, all its members together, may decompress to at most
  `LineBounds.max_decompressed_bytes` (default 10 GB; `--max-decompressed-mb` or
  $TOKENPRISM_MAX_DECOMPRESSED_MB raise it; an upload to the dashboard, 100 MB). A ceiling, not a
  ratio: a very repetitive log that compresses 500 times is read as long as it stays below it.
  A file that could pass the ceiling (deflate inflates at most 1,032 times) is decompressed
  once, without reading its lines, before any line is given: a bomb is refused in the time
  it takes to inflate up to the ceiling, before any counting.

Inflation is ISA-L's (`isal.igzip`, the standard `gzip` module's interface and bytes, about three
times faster: both passes over a log cost less). A damaged file is refused as damaged with ISA-L's
own reason (bytes after the last member read as a truncated member, where `gzip` says "Not a
gzipped file").

Memory stays below one line plus one read block whatever the file holds: a gzip "bomb" (a few
MB holding a GB of one line) stops at the bound with a message naming the file, the line and
the fix, instead of growing the process to the size of the line.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from isal import igzip

from ..errors import BadInput, shown

DEFAULT_MAX_LINE_MB = 64
DEFAULT_MAX_DECOMPRESSED_MB = 10_000
# Deflate's largest expansion: 1,032 to 1 (zlib's technical details, "Maximum compression factor").
MAX_DEFLATE_RATIO = 1032
READ_BLOCK = 1 << 16
GZIP_MAGIC = b"\x1f\x8b"
# The compressed formats read as they are (gzip) and the ones named and refused, by magic bytes.
OTHER_COMPRESSION = {b"BZh": "bzip2", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd",
                     b"PK\x03\x04": "zip", b"\x04\x22\x4d\x18": "lz4"}
Stream = IO[bytes] | io.BufferedIOBase  # a binary stream: a file, BytesIO, GzipFile
RAISE_HINT = "raise the bound with --max-line-mb MB (or $TOKENPRISM_MAX_LINE_MB)"


def _env_mb(name: str, default: float, top: float) -> float:
    raw = os.environ.get(name, "")
    try:
        mb = float(raw) if raw.strip() else default
    except ValueError:
        raise BadInput(f"{name} must be a number of megabytes, got {shown(raw, 40)}") from None
    if not 0.001 <= mb <= top:
        raise BadInput(f"{name} must be between 0.001 and {top:,} (megabytes), got {shown(raw, 40)}")
    return mb


# The largest line bound one may ask for: one line is held in memory as bytes and then as text.
MAX_LINE_MB_CEILING = 4096
# The largest decompression ceiling one may ask for (a petabyte: a bound, never reached).
MAX_DECOMPRESSED_MB_CEILING = 1_000_000_000


@dataclass(frozen=True)
class LineBounds:
    """How much one line, and a compressed file as a whole, may cost.

    >>> LineBounds(max_line_bytes=10).max_decompressed_bytes
    10000000000
    """

    max_line_bytes: int = DEFAULT_MAX_LINE_MB * 1_000_000
    max_decompressed_bytes: int = DEFAULT_MAX_DECOMPRESSED_MB * 1_000_000
    hint: str = RAISE_HINT  # how to raise the line bound, for messages
    decompressed_hint: str = ("raise the ceiling with --max-decompressed-mb MB (or $TOKENPRISM_MAX_DECOMPRESSED_MB) "
                              "if the file is what you meant")

    @classmethod
    def from_env(cls, max_line_mb: float | None = None, max_decompressed_mb: float | None = None) -> "LineBounds":
        """The bounds of a command: the values given, else $TOKENPRISM_MAX_LINE_MB and
        $TOKENPRISM_MAX_DECOMPRESSED_MB, else the defaults."""
        mb = _env_mb("TOKENPRISM_MAX_LINE_MB", DEFAULT_MAX_LINE_MB, MAX_LINE_MB_CEILING) if max_line_mb is None else max_line_mb
        ceiling = (_env_mb("TOKENPRISM_MAX_DECOMPRESSED_MB", DEFAULT_MAX_DECOMPRESSED_MB, MAX_DECOMPRESSED_MB_CEILING)
                   if max_decompressed_mb is None else max_decompressed_mb)
        return cls(max_line_bytes=int(mb * 1_000_000), max_decompressed_bytes=int(ceiling * 1_000_000))


# The dashboard's upload (at most 4 MB as sent, textio.MAX_UPLOAD_BYTES): a line of at most 8 MB and
# at most 100 MB decompressed, so no upload can cost a server more than that.
UPLOAD_BOUNDS = LineBounds(max_line_bytes=8_000_000, max_decompressed_bytes=100_000_000,
                           hint="price the log with the CLI (tokenprism cost --logs FILE), which allows 64 MB a line",
                           decompressed_hint="price the log with the CLI (tokenprism cost --logs FILE), which "
                                             "allows 10 GB decompressed")


def _mb(n: int) -> str:
    return f"{n / 1_000_000:,.3g} MB"


def _too_large(where: str, limit: int, compressed: int, hint: str) -> BadInput:
    return BadInput(f"{where}: decompresses to more than {_mb(limit)} (from {_mb(compressed)}), the ceiling of what "
                    f"a compressed file may hold: refused as a compression bomb. Fix: {hint}")


def _damaged(where: str, after: int, e: Exception) -> BadInput:
    return BadInput(f"{where}: cannot decompress after {after:,} bytes ({e}); the gzip file is damaged")


class _Inflation(io.RawIOBase):
    """A decompressed stream that stops once it has given more than `limit` bytes."""

    def __init__(self, inner: Stream, *, limit: int, where: str, compressed: int, hint: str) -> None:
        self._inner, self._limit, self._where, self._compressed, self._hint = inner, limit, where, compressed, hint
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        try:
            data = self._inner.read(len(b))
        except (OSError, EOFError) as e:  # a truncated or corrupt gzip stream
            raise _damaged(self._where, self.given, e) from None
        self.given += len(data)
        if self.given > self._limit:
            raise _too_large(self._where, self._limit, self._compressed, self._hint)
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()


def _inflated_size(fh: Stream, *, limit: int, where: str, compressed: int, hint: str) -> int:
    """The decompressed size of the gzip stream `fh` (every member), refusing it past `limit`.

    Only zlib runs (no line is split, nothing decoded): the bytes are counted and dropped.
    """
    total = 0
    with igzip.IGzipFile(fileobj=fh) as inner:
        while True:
            try:
                n = len(inner.read(READ_BLOCK * 16))
            except (OSError, EOFError) as e:
                raise _damaged(where, total, e) from None
            if not n:
                return total
            total += n
            if total > limit:
                raise _too_large(where, limit, compressed, hint)


def open_decompressed(fh: Stream, *, where: str, size: int, bounds: LineBounds) -> Stream:
    """`fh` (a binary stream at its start, of `size` bytes), gzip decompressed when its magic
    bytes say so, within `bounds.max_decompressed_bytes`. A plain stream is returned as it is.

    A gzip stream that could inflate past the ceiling is measured first (`_inflated_size`), so
    that a bomb is refused before its first line is read.
    """
    head = fh.read(6)
    fh.seek(0)
    for magic, kind in OTHER_COMPRESSION.items():
        if head.startswith(magic):
            raise BadInput(f"{where}: compressed with {kind}; this reads plain text and gzip only. Fix: decompress "
                           f"it first (or recompress it with gzip)")
    if head[:2] != GZIP_MAGIC:
        return fh
    limit, hint = bounds.max_decompressed_bytes, bounds.decompressed_hint
    if size * MAX_DEFLATE_RATIO > limit:
        _inflated_size(fh, limit=limit, where=where, compressed=size, hint=hint)
        fh.seek(0)
    inflating = _Inflation(igzip.IGzipFile(fileobj=fh), limit=limit, where=where, compressed=size, hint=hint)
    return io.BufferedReader(inflating, buffer_size=READ_BLOCK)


def csv_records(reader: Iterator[Any], where: str, *, bounds: LineBounds, otherwise: str,
                line_of: Callable[[], int] | None = None) -> Iterator[Any]:
    """The records of a `csv` reader over bounded lines: a cell may be as long as a line (a field
    can span lines, so csv's own field bound is raised to the line bound), and csv's errors name
    the file, the line (`line_of()`, else the reader's) and the fix (`otherwise`, unless a cell
    was too long)."""
    csv.field_size_limit(max(csv.field_size_limit(), bounds.max_line_bytes))  # process-wide: raised only
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            fix = (f"a cell is longer than the bound of one line; {bounds.hint}" if "field larger" in str(e)
                   else otherwise)
            line = line_of() if line_of else getattr(reader, "line_num", 0)
            raise BadInput(f"{where}: line {line}: not readable as CSV ({e}). Fix: {fix}") from None


def line_too_long(where: str, line: int, limit: int, hint: str = RAISE_HINT) -> BadInput:
    """The refusal of a line over the bound, naming the file, the line and the fix."""
    return BadInput(f"{where}: line {line} is longer than {_mb(limit)} (the bound of one line, counted "
                    f"decompressed). Fix: {hint}, or split the line")


# Runs of line ends (blank lines) are passed by one C call each: a block that is all line ends by
# `bytes.translate` (about 1.5 GB/s), a run inside a block by a one-character repeat (`\n*`), which
# the regex engine runs as a tight loop. Only lines with something on them cost a Python step.
_RUN = re.compile(rb"\n*")
_RUN_UNIVERSAL = re.compile(rb"[\r\n]*")
_TEXT_UNIVERSAL = re.compile(rb"[^\r\n]*")


def _ends(buf: bytes, start: int, stop: int, universal: bool) -> int:
    """The line ends in buf[start:stop] (a run of blank lines): "\r\n" once, with `universal`."""
    n = buf.count(b"\n", start, stop)
    return n + buf.count(b"\r", start, stop) - buf.count(b"\r\n", start, stop) if universal else n


def _split(buf: bytes, universal: bool, skip_blank: bool) -> tuple[list[bytes], list[int], int]:
    """(lines, the blank lines before each, blank lines after the last) of `buf`, which starts a line."""
    if not skip_blank:
        return (buf.splitlines(keepends=True) if universal else io.BytesIO(buf).readlines()), [], 0
    size = len(buf)
    # a final "\r" waits for the next block, where a "\n" may follow it
    held_cr = universal and buf.endswith(b"\r")
    lines: list[bytes] = []
    gaps: list[int] = []
    pos = 0
    if buf.translate(None, b"\r\n" if universal else b"\n"):
        run, text = (_RUN_UNIVERSAL, _TEXT_UNIVERSAL) if universal else (_RUN, None)
        while True:
            start = run.match(buf, pos).end()  # type: ignore[union-attr]  # a pattern that matches empty
            if start == size:
                break
            if text is None:
                end = buf.find(b"\n", start)
                end = size if end < 0 else end + 1
            else:
                end = text.match(buf, start).end()  # type: ignore[union-attr]
                end += 2 if buf.startswith(b"\r\n", end) else 1 if end < size else 0
            gaps.append(_ends(buf, pos, start, universal))
            lines.append(buf[start:end])
            pos = end
    if held_cr and (not lines or pos < size):  # the "\r" ends a blank line, not the last line
        lines.append(b"\r")
        gaps.append(_ends(buf, pos, size - 1, universal))
        return lines, gaps, 0
    return lines, gaps, _ends(buf, pos, size, universal)


def iter_lines(fh: Stream, *, where: str, bounds: LineBounds, universal: bool = False,
               skip_blank: bool = False) -> Iterator[tuple[int, bytes]]:
    r"""(line number from 1, line bytes with its end) of a binary stream, each at most
    `bounds.max_line_bytes` long.

    Lines end at "\n"; with `universal` also at "\r\n" and a lone "\r", as `open(newline="")`
    gives them to `csv`. Memory holds one line and one read block at most. With `skip_blank`,
    empty lines (a line end alone) are skipped in bulk, by the regex engine and `bytes.count`,
    and only counted: a gigabyte of blank lines costs what inflating and scanning it costs (under a
    second), not a Python step each (minutes); their bytes count toward the decompressed ceiling
    like any others.

    >>> list(iter_lines(io.BytesIO(b"a\r\nb\rc"), where="x", bounds=LineBounds(), universal=True))
    [(1, b'a\r\n'), (2, b'b\r'), (3, b'c')]
    >>> list(iter_lines(io.BytesIO(b"\n\na\n\n\nb"), where="x", bounds=LineBounds(), skip_blank=True))
    [(3, b'a\n'), (6, b'b')]
    >>> list(iter_lines(io.BytesIO(b"abcdef\n"), where="x", bounds=LineBounds(max_line_bytes=4)))
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: x: line 1 is longer than 4e-06 MB (the bound of one line, counted decompressed). Fix: raise the bound with --max-line-mb MB (or $TOKENPRISM_MAX_LINE_MB), or split the line
    """
    limit = bounds.max_line_bytes
    ends = (b"\n", b"\r") if universal else (b"\n",)
    pending: list[bytes] = []  # the unfinished line, in blocks: joined once, when its end arrives
    held = 0
    n = 0

    def too_long() -> BadInput:
        return line_too_long(where, n + 1, limit, bounds.hint)

    while block := fh.read(READ_BLOCK):
        if not any(end in block for end in ends) and not (pending and pending[-1].endswith(b"\r")):
            pending.append(block)
            held += len(block)
            if held > limit + 1:
                raise too_long()
            continue
        buf = b"".join([*pending, block]) if pending else block
        parts, gaps, after = _split(buf, universal, skip_blank)
        # an unfinished last line waits for more; so does a final "\r", whose "\n" may follow (a
        # line with blank lines after it has ended, whatever its end)
        pending = [parts.pop()] if parts and not parts[-1].endswith(b"\n") and not after else []
        held = len(pending[0]) if pending else 0
        for i, line in enumerate(parts):
            if gaps:
                n += gaps[i]
            if len(line) > limit and len(line.rstrip(b"\r\n")) > limit:
                raise too_long()
            n += 1
            yield n, line
        if gaps and pending:
            n += gaps[len(parts)]
        n += after
        if held > limit + 1:
            raise too_long()
    if pending:
        last = b"".join(pending)
        if len(last.rstrip(b"\r")) > limit:
            raise too_long()
        if skip_blank and universal and last == b"\r":  # a blank line ended by a lone "\r"
            return
        yield n + 1, last
