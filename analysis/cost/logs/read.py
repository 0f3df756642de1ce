"""Chat logs as one record type: read request logs of several shapes, streamed, into `LogRecord`s.

Unlike `workloads` (texts plus an assumed workload), `files` (which opens a container and cuts it
into rows) and `chunk` (which prices records), this module only reads rows into records. Each file
is a container (JSON Lines, plain or gzip; CSV or Parquet with a
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
import dataclasses
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import (CONTAINERS, LogUpload, Source, _decoded, _json, _json_row, _orjson_exact, _raw_rows, _row_lines,
                    container_of)
from .shapes import SHAPES, LogRecord, RowError, Usage, chat_row, detect_shape, parse_row
from ...errors import BadInput
from ...textio import regular_file_problem
from ...textio.lines import LineBounds

__all__ = ["SHAPES", "LogRecord", "LogReport", "LogUpload", "RowChunk", "Usage", "iter_log_chunks", "iter_log_records",
           "read_log_records", "with_system"]

MESSAGES_COLUMN = "messages"
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
    (`read`), so JSON and request parsing run on every core and only text crosses processes.

    `parsed` holds the records this process read already (a table's rows, the rows before a file's
    shape is known); `lines` the (where, line) of the rest, in file order after them; `report` the
    rows read and skipped so far, which `read` goes on counting.
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
        """`read` of an OpenAI chat JSON Lines file: each row that orjson reads exactly and that
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
    """`read` with `system` as the system prompt of each request that has none; `kept` counts the
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
