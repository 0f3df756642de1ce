"""Chat logs as one record type: read request logs of several shapes, streamed, into `LogRecord`s.

Unlike `workloads` (texts plus an assumed workload) and `chunk_sums` (which prices records), this
module only reads. Each file is a container (JSON Lines, plain or gzip; CSV or Parquet with a
messages column; plain text, one request per line) holding rows of one shape:

* ``openai-chat``: an OpenAI Chat Completions request body (``model``, ``messages``, ``tools``);
* ``openai-batch``: an OpenAI Batch input line (``custom_id``, ``body`` holding the same, or a
  Responses body for the url ``/v1/responses``);
* ``openai-responses``: an OpenAI Responses request (``input``, ``instructions``, ``tools``);
* ``anthropic``: an Anthropic Messages request (``system``, ``messages`` whose content is a
  string or a list of blocks, ``tools``);
* ``gemini``: a Gemini request (``contents``, ``systemInstruction``, ``tools``);
* ``text``: one user message per line (or a JSON object with a ``prompt`` string).

A JSON row may also carry ``response`` (the assistant text, a Chat Completion with
``choices[0].message.content``, a Responses object with ``output`` items, a Gemini response with
``candidates``, an Anthropic message with ``content`` blocks, or a Batch output ``{"body": ...}``),
``usage`` or ``usageMetadata`` (at the top or inside the response) and a timestamp (``timestamp``,
``created_at``, ``time`` or the response's ``created``: ISO 8601 or Unix seconds).

The shape is detected per file from its first row and can be forced. Nothing is dropped
silently: a malformed row is a `ValueError` naming the file, the line and the problem (or,
with ``errors="skip"``, counted with its reason in a `LogReport`); an unknown role or content
type is named; images, audio and files are counted in `LogRecord.not_counted`. The request of
each row is parsed by `analysis.requests.parse` (through `shapes`), the one parser of every face.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import io
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .shapes import SHAPES, LogRecord, RowError, Usage, chat_row, detect_shape, parse_row
from ...errors import BadInput
from ...textio import regular_file_problem
from ...textio.lines import LineBounds, Stream, csv_records, iter_lines, open_decompressed

__all__ = ["SHAPES", "LogRecord", "LogReport", "LogUpload", "RowChunk", "Usage", "iter_log_chunks", "iter_log_records",
           "read_log_records", "with_system"]

CONTAINERS = ("jsonl", "csv", "parquet", "text")
MESSAGES_COLUMN = "messages"
_JSON_COLUMNS = ("messages", "tools", "system", "response", "usage", "body")
_MAX_EXAMPLES = 3


@dataclass
class LogReport:
    """What reading the logs found: rows read, rows skipped (by reason), shapes detected per file."""

    rows: int = 0
    skipped: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    shapes: dict[str, str] = field(default_factory=dict)

    def skip(self, reason: str, where: str) -> None:
        self.skipped[reason] += 1
        seen = self.examples.setdefault(reason, [])
        if len(seen) < _MAX_EXAMPLES:
            seen.append(where)

    @property
    def n_skipped(self) -> int:
        return sum(self.skipped.values())

    def summary(self) -> str:
        """One line: "1,000 row(s) read; 2 skipped: not valid JSON (2: a.jsonl:3, ...)"."""
        line = f"{self.rows:,} row(s) read"
        if self.skipped:
            parts = [f"{reason} ({n:,}: {', '.join(self.examples.get(reason, []))}"
                     f"{', ...' if n > len(self.examples.get(reason, [])) else ''})"
                     for reason, n in self.skipped.most_common()]
            line += f"; {self.n_skipped:,} skipped: " + "; ".join(parts)
        return line

    def merge(self, other: LogReport) -> None:
        self.rows += other.rows
        self.skipped.update(other.skipped)
        for reason, where in other.examples.items():
            mine = self.examples.setdefault(reason, [])
            mine.extend(where[: _MAX_EXAMPLES - len(mine)])
        self.shapes.update(other.shapes)


# -- containers -----------------------------------------------------------------------------------
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


# -- the reader -------------------------------------------------------------------------------
def iter_log_records(paths: str | Source | Iterable[str | Source], *, shape: str = "auto", column: str = MESSAGES_COLUMN,
                     errors: str = "strict", report: LogReport | None = None,
                     bounds: LineBounds | None = None) -> Iterator[LogRecord]:
    """Stream `LogRecord`s from log files, one file after another, one row at a time.

    Args:
        paths: log files (.jsonl, .jsonl.gz, .csv, .parquet, or text: one request per line), or
            `LogUpload`s holding such a file in memory.
        shape: "auto" (detected per file from its first row) or one of `SHAPES`.
        column: the messages column of CSV/Parquet files.
        errors: "strict" (the first bad row raises) or "skip" (bad rows are counted in `report`).
        report: receives counts of rows read and skipped, and each file's shape.
        bounds: the bound of one line (decompressed) and of a gzip file's inflation
            (default `LineBounds.from_env()`: 64 MB, or $TOKENPRISM_MAX_LINE_MB).

    Raises:
        ValueError: "FILE:LINE: problem" for a malformed row (with errors="strict"), an unknown
            shape, a missing file, or a table without the messages column.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write('{"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}\\n')
    >>> [(r.model, r.request.messages[0].text) for r in iter_log_records(f.name)]; os.unlink(f.name)
    [('gpt-4o', 'Hi')]
    """
    report = report if report is not None else LogReport()
    bounds = bounds if bounds is not None else LineBounds.from_env()
    for path, container, file_shape in _files(paths, shape, errors):
        for where, row in _raw_rows(path, container, column, bounds):
            record, file_shape = _read_row(where, row, path, container, file_shape, errors, report)
            if record is not None:
                yield record
        report.shapes.setdefault(str(path), file_shape)


def _files(paths: str | Source | Iterable[str | Source], shape: str, errors: str) -> Iterator[tuple[Source, str, str]]:
    """(file, container, its shape: "auto" until its first row says) of each log file, checked."""
    if shape != "auto" and shape not in SHAPES:
        raise BadInput(f"unknown log format {shape!r}; valid: auto, {', '.join(SHAPES)}")
    if errors not in ("strict", "skip"):
        raise BadInput(f"errors must be 'strict' or 'skip' for logs, got {errors!r}")
    sources = [paths] if isinstance(paths, (str, Path, LogUpload)) else list(paths)
    for src in sources:
        path = src if isinstance(src, LogUpload) else Path(src)
        if isinstance(path, Path) and not path.is_file():  # a FIFO or /dev/zero would block or never end
            raise BadInput(f"{path} is a folder; give the log files in it" if path.is_dir()
                           else regular_file_problem(path, what="log file", stdin=False) or f"cannot read {path}")
        container = container_of(path)
        if container == "text" and shape not in ("auto", "text"):
            container = "jsonl"  # a JSON shape forced on a file named otherwise (.log, .out)
        yield path, container, "text" if (shape == "auto" and container == "text") else shape


def _read_row(where: str, row: Any, path: Source | str, container: str, file_shape: str, errors: str,
              report: LogReport) -> tuple[LogRecord | None, str]:
    """One row as a record (None: skipped, counted in `report`), and the file's shape (detected on
    its first row). Raises BadInput for a bad row when `errors` is "strict"."""
    try:
        if isinstance(row, RowError):
            raise row
        if container in ("csv", "parquet"):
            row = _decoded(where, row)
        if file_shape == "auto":
            file_shape = detect_shape(row)
            report.shapes[str(path)] = file_shape
        record = parse_row(row, file_shape, where=where)
    except RowError as e:
        if errors == "strict":
            hint = "" if e.reason == "not valid JSON" else f" (read as {file_shape}; force another with shape=SHAPE)"
            # the caller's words for the fixes: the CLI's flags (cli._FLAGS), the page's controls
            raise BadInput(f"{where}: {e}{hint}. Fix the row, or pass errors='skip' to load the rest") from None
        report.skip(e.reason, where)
        return None, file_shape
    report.rows += 1
    return record, file_shape


# -- rows read here, parsed where they are priced ---------------------------------------------------
@dataclass
class RowChunk:
    """Rows of one log file, read (lines, decoded) but not parsed: an engine's worker parses them
    (`records`), so JSON and request parsing run on every core and only text crosses processes.

    `parsed` holds the records this process read already (a table's rows, the rows before a file's
    shape is known); `lines` the (where, line) of the rest, in file order after them; `report` the
    rows read and skipped so far, which `records` goes on counting.
    """

    path: str
    container: str
    shape: str
    errors: str
    parsed: list[LogRecord] = field(default_factory=list)
    lines: list[tuple[str, str]] = field(default_factory=list)
    report: LogReport = field(default_factory=LogReport)

    def __len__(self) -> int:
        return len(self.parsed) + len(self.lines)

    @property
    def chars(self) -> int:
        return sum(len(line) for _, line in self.lines)

    def sample(self) -> list[LogRecord]:
        """The first unparsed row as a record, or none if it does not read (for a look ahead only)."""
        for where, line in self.lines[:1]:
            try:
                record, _ = _read_row(where, line if self.container == "text" else _json_row(line), self.path,
                                      self.container, self.shape, "skip", LogReport())
            except BadInput:
                return []
            return [] if record is None else [record]
        return []

    def records(self) -> tuple[list[LogRecord], LogReport]:
        """The chunk's records, and its rows read and skipped: bad rows raise (strict) or are counted
        (skip), as `iter_log_records` does."""
        out, report = list(self.parsed), copy.deepcopy(self.report)
        if self.container == "jsonl" and self.shape == "openai-chat":
            return self._chat_records(out, report)
        for where, line in self.lines:
            row = line if self.container == "text" else _json_row(line)
            record, _ = _read_row(where, row, self.path, self.container, self.shape, self.errors, report)
            if record is not None:
                out.append(record)
        return out, report

    def _chat_records(self, out: list[LogRecord], report: LogReport) -> tuple[list[LogRecord], LogReport]:
        """`records` of an OpenAI chat JSON Lines file: each row that orjson reads exactly and that
        `shapes.chat_row` takes is read in this loop; any other (a syntax error, a number orjson
        cannot hold, another shape of row, a bad value) goes the general way, which words its error."""
        append = out.append
        for where, line in self.lines:
            record = None
            row = _orjson_exact(line)
            if type(row) is dict:
                try:
                    record = chat_row(row, where)
                except RowError:
                    record = None
            if record is None:
                record, _ = _read_row(where, _json_row(line), self.path, self.container, self.shape, self.errors, report)
                if record is not None:
                    append(record)
            else:
                report.rows += 1
                append(record)
        return out, report


def iter_log_chunks(paths: str | Source | Iterable[str | Source], *, shape: str = "auto",
                    column: str = MESSAGES_COLUMN, errors: str = "strict", report: LogReport | None = None,
                    bounds: LineBounds | None = None, chunk_rows: int = 4096) -> Iterator[RowChunk]:
    """`iter_log_records`'s rows in chunks of at most `chunk_rows`, left unparsed where they can be.

    A JSON Lines or text file's rows are read here and parsed by `RowChunk.records` (on a worker);
    the rows before a file's shape is detected, and CSV and Parquet tables, are parsed here. The
    records, their order and every error are those of `iter_log_records`; `report` receives each
    file's shape, and each chunk's `records()` its rows read and skipped (merged in order, they are
    `iter_log_records`' report).
    """
    report = report if report is not None else LogReport()
    bounds = bounds if bounds is not None else LineBounds.from_env()
    for path, container, file_shape in _files(paths, shape, errors):
        chunk = RowChunk(str(path), container, file_shape, errors)
        if container in ("csv", "parquet"):
            rows: Iterable[tuple[str, Any]] = _raw_rows(path, container, column, bounds)
        else:
            rows = _row_lines(path, container, bounds)
        for where, row in rows:
            if container in ("csv", "parquet") or chunk.shape == "auto":
                if container == "jsonl":
                    row = _json_row(row)
                record, chunk.shape = _read_row(where, row, path, container, chunk.shape, errors, chunk.report)
                if record is not None:
                    chunk.parsed.append(record)
                if chunk.shape != "auto":
                    report.shapes.setdefault(str(path), chunk.shape)
            else:
                chunk.lines.append((where, row))
            if len(chunk) >= chunk_rows:
                yield chunk
                chunk = RowChunk(str(path), container, chunk.shape, errors)
        if len(chunk):
            yield chunk
        report.shapes.setdefault(str(path), chunk.shape)


def with_system(records: Iterable[LogRecord], system: str | None, kept: list[int]) -> Iterator[LogRecord]:
    """`records` with `system` as the system prompt of each request that has none; `kept` counts the
    requests that had their own (and keep it)."""
    for record in records:
        if system is None:
            yield record
        elif record.request.system is not None or any(m.role in ("system", "developer") for m in record.request.messages):
            kept[0] += 1
            yield record
        else:
            yield dataclasses.replace(record, request=dataclasses.replace(record.request, system=system))


def read_log_records(paths: str | Source | Iterable[str | Source], **options: Any) -> tuple[list[LogRecord], LogReport]:
    """All records of small logs at once (tests, the dashboard); big logs use `iter_log_records`."""
    report = LogReport()
    return list(iter_log_records(paths, report=report, **options)), report
