"""Log files as rows: each container (JSON Lines, plain or gzip; CSV; Parquet; plain text) opened and
cut into (where, row) or (where, line) pairs, its JSON read exactly.

Unlike `read` (which turns a row into a `LogRecord`, by its shape) and `chunk` (which prices
records), this module only opens files and reads their bytes: which container a file is, the lines
of a bounded stream, a table's rows with its JSON columns decoded, and JSON whose numbers orjson
cannot hold exactly read by the standard library instead.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .shapes import RowError
from ...errors import BadInput
from ...textio.lines import LineBounds, Stream, csv_records, iter_lines, open_decompressed

CONTAINERS = ("jsonl", "csv", "parquet", "text")
_JSON_COLUMNS = ("messages", "tools", "system", "response", "usage", "body")

def container_of(path: Source) -> str:
    """The container by file name: .jsonl[.gz], .json[.gz], .csv, .parquet; anything else is text."""
    name = (path.name if isinstance(path, LogUpload) else Path(path).name).lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".parquet"):
        return "parquet"
    return "text"


@dataclass(frozen=True)
class LogUpload:
    """A log file held in memory (a dashboard upload): its name (for the container and messages) and bytes."""

    name: str
    data: bytes

    def __str__(self) -> str:
        return self.name


Source = Path | LogUpload


def _binary(src: Source) -> io.BufferedIOBase:
    return io.BytesIO(src.data) if isinstance(src, LogUpload) else open(src, "rb")


def _open_binary(src: Source, bounds: LineBounds) -> Stream:
    """The file's bytes, gzip decompressed (recognised by its magic bytes, not its name) within `bounds`."""
    size = len(src.data) if isinstance(src, LogUpload) else src.stat().st_size
    return open_decompressed(_binary(src), where=str(src), size=size, bounds=bounds)


def _lines(path: Source, bounds: LineBounds, *, universal: bool = False,
           skip_blank: bool = False) -> Iterator[tuple[int, str]]:
    """(line number, line) of a text file, streamed and bounded; invalid UTF-8 names the file, the line and the fix."""
    with _open_binary(path, bounds) as fh:
        for n, raw in iter_lines(fh, where=str(path), bounds=bounds, universal=universal, skip_blank=skip_blank):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise BadInput(f"{path}: line {n}: not valid UTF-8 at byte {e.start} of the line ({e.reason}); "
                               "convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
            yield n, line.lstrip("\ufeff") if n == 1 else line


def _beyond_int64(value: Any) -> bool:
    """Whether a parsed row holds a float outside orjson's exact integers (it reads an integer
    literal beyond 64 bits as a float; the standard library reads it exactly)."""
    kind = type(value)
    if kind is float:
        return not -9.2e18 < value < 1.8e19
    if kind is dict:
        value = value.values()
    elif kind is not list:
        return False
    for item in value:
        kind = type(item)
        if (kind is dict or kind is list or kind is float) and _beyond_int64(item):
            return True
    return False


_NOT_EXACT = object()


def _orjson_exact(text: str) -> Any:
    """orjson's value of `text` where it is the standard library's, else `_NOT_EXACT` (a syntax error,
    NaN, a lone surrogate, nesting too deep, or a float beyond 64-bit integers)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return _NOT_EXACT
    try:
        return _NOT_EXACT if _beyond_int64(value) else value
    except RecursionError:  # nested deeper than Python's own recursion: the standard library decides
        return _NOT_EXACT


def _json(text: str) -> Any:
    """json.loads, with the limits of the parser as row problems (a RowError), not tracebacks.

    orjson reads the row first (a few times faster). Whatever it refuses (a syntax error, NaN, a
    lone surrogate, nesting too deep) is read again by the standard library, and so is a row with a
    float beyond 64-bit integers (which may have been an integer literal orjson cannot hold), so
    what is accepted, every value and every error message are the standard library's own."""
    value = _orjson_exact(text)
    if value is not _NOT_EXACT:
        return value
    try:
        return json.loads(text)
    except RecursionError:
        raise RowError("nested too deeply to read (JSON arrays or objects inside each other thousands of levels "
                       "deep)", "nested too deeply") from None
    except json.JSONDecodeError:
        raise
    except ValueError as e:  # an integer of more digits than Python converts (sys.int_max_str_digits)
        raise RowError(f"holds a number too long to read ({str(e).split(':')[0]})", "number too long") from None


def _cell(column: str, value: Any) -> Any:
    """A CSV/Parquet cell: JSON-decoded where the column holds structure ("messages", "usage", ...)."""
    if isinstance(value, str) and column in _JSON_COLUMNS and value.strip()[:1] in ("[", "{", '"'):
        return _json(value)
    if value is None or (isinstance(value, float) and value != value) or value == "":
        return None
    return value


def _table_rows(path: Source, container: str, column: str, bounds: LineBounds) -> Iterator[tuple[str, Any]]:
    """(where, row dict) of a CSV or Parquet table; the messages column is renamed "messages"."""
    def rename(row: dict[str, Any]) -> dict[str, Any]:
        if column not in row:
            raise BadInput(f"{path} has no column {column!r}; columns found: {list(row)}. "
                             "Fix: --log-column NAME naming the column that holds the messages")
        row = dict(row)
        row["messages"] = row.pop(column)
        return row

    if container == "parquet":
        yield from ((where, rename(row)) for where, row in _parquet_rows(path))
        return
    numbered = _lines(path, bounds, universal=True)
    line_no = [0]

    def text() -> Iterator[str]:
        for n, line in numbered:
            line_no[0] = n
            yield line

    reader = csv.DictReader(text())
    for row in csv_records(reader, str(path), bounds=bounds, otherwise="it must be UTF-8 CSV with a header row",
                           line_of=lambda: line_no[0]):
        yield f"{path}:line {reader.line_num}", rename(row)


def _parquet_rows(path: Source) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, row) of a Parquet log, one row group after another; a damaged group is named."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(io.BytesIO(path.data) if isinstance(path, LogUpload) else path)
    except Exception as e:  # pyarrow raises its own error types for a damaged file
        raise BadInput(f"{path}: not a readable Parquet file ({e})") from None
    n = 0
    groups = pf.num_row_groups
    for group in range(groups):
        try:
            for batch in pf.iter_batches(batch_size=2048, row_groups=[group]):
                for row in batch.to_pylist():
                    n += 1
                    yield f"{path}:row {n}", row
        except (pa.ArrowException, OSError) as e:
            raise BadInput(f"{path}: row group {group + 1} of {groups} (after row {n:,}) is damaged ({e}); "
                           "check the file, or export it again") from None


def _decoded(where: str, row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in row.items():
        try:
            out[k] = _cell(k, v)
        except json.JSONDecodeError as e:
            raise RowError(f"column {k!r} is not valid JSON ({e.msg} at char {e.pos})", "not valid JSON") from None
    return out


def _json_row(line: str) -> Any:
    """A JSON line's value, or the RowError that stands in its place."""
    try:
        return _json(line)
    except json.JSONDecodeError as e:
        return RowError(f"not valid JSON ({e.msg} at column {e.colno})", "not valid JSON")
    except RowError as e:
        return e


def _raw_rows(path: Source, container: str, column: str, bounds: LineBounds) -> Iterator[tuple[str, Any]]:
    """(where, row) before shape parsing; a JSON syntax error arrives as a RowError in place of a row."""
    if container in ("csv", "parquet"):
        yield from _table_rows(path, container, column, bounds)
        return
    for where, line in _row_lines(path, container, bounds):
        yield where, line if container == "text" else _json_row(line)


def _row_lines(path: Source, container: str, bounds: LineBounds) -> Iterator[tuple[str, str]]:
    """(where, line) of a JSON Lines or text file's rows, blank lines left out, not yet parsed."""
    name, text = str(path), container == "text"
    for n, line in _lines(path, bounds, skip_blank=True):  # runs of blank lines skipped in bulk
        if not line or line.isspace():  # what `not line.strip()` says, without copying the line
            continue
        yield f"{name}:{n}", line.rstrip("\r\n") if text else line
