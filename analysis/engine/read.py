"""Reading the user's corpus as chunk frames for an engine: Arrow for tables, the loaders for the rest.

Unlike `corpora.iter_samples` (one `Sample` object per row, with `json.loads` per line), this
reader turns JSON Lines and Parquet tables into chunk frames through Arrow's C++ readers, so
the process that feeds the workers spends microseconds per chunk, not per row. Text files and
CSV go through `corpora.files.iter_file_samples` unchanged. Ids, labels, skipped rows and the
`LoadReport` are exactly those of `iter_samples` (tests compare the two):

* JSON Lines: the Arrow path is taken for a file whose line breaks are plain "\\n" (no "\\r",
  no raw control character that JSON forbids, no BOM), so that row numbers are line numbers.
  A block Arrow cannot read as strings (nulls, numbers, objects, a bad line) is read line by
  line with `json.loads`, with `iter_samples`' errors. Invalid UTF-8 with errors other than
  "strict" takes the loaders' path.
* Parquet: batches of the text column; rows of other types go through `str`, as the loader does.

Script detection is deferred to the workers (`pipeline.DETECT_SCRIPT`) unless a script is given.
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..corpora.files import (CHUNK_BYTES, check_errors, expand_paths, file_labels, is_table_file, jsonl_field,
                             iter_file_samples, open_parquet, parquet_batches)
from ..corpora.sample import LoadReport, Sample
from ..pipeline.metrics import DETECT_SCRIPT
from ..pipeline.tally import SAMPLE_META
from ..textio.lines import LineBounds, line_too_long
from ..textio import decode_utf8

if TYPE_CHECKING:  # imported by the readers of tables: text files are read without them
    import numpy as np
    import pandas as pd
    import pyarrow as pa

BLOCK_BYTES = 16 << 20  # JSON Lines read per Arrow call
# Rows per chunk frame (with at most `chunk_chars` characters). Chunks that become per-row frames
# or priced requests (one row per sample and tokenizer, Decimals per request and model) stay at
# 4,096 rows; chunks reduced to sums where they are read (`parts`) take 65,536: each chunk pays a
# fixed cost (a frame, a groupby, numpy set-up, a batch call), which at 4,096 rows of ~50
# characters doubled the per-row cost of 1M short JSON lines.
CHUNK_SAMPLES = 4096
SUMS_CHUNK_SAMPLES = 1 << 16
PARQUET_BATCH_ROWS = 4096
# Bytes that send a JSON Lines file to the loaders' path: "\r" (the loaders end lines there too,
# Arrow does not) and the control characters JSON forbids raw in a string (the loaders name the
# line). U+0085, U+2028 and U+2029, valid raw in JSON strings, are no line break on either path.
_BREAK_BYTES = (b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e")


# A byte range of a JSON Lines file that starts and ends at line boundaries, and the line number
# of its first line: (start, end, first_row). Engines give spans to workers, which read them.
Span = tuple[int, int, int]


class TextBlock(NamedTuple):
    """Texts of a table, read through Arrow, that share their labels: the file's id, the row
    (line) number of each text, the texts, and the labels (category, kind, language, script).
    `block_frame` makes it a chunk frame; a worker that only sums, or writes its own rows, reads
    it as it is (`parts`), without pandas."""

    sid: str
    rows: "np.ndarray"
    texts: list[str]
    labels: dict[str, str]


class Chunks:
    """Chunk frames ready for an engine (columns `pipeline.SAMPLE_META` + text), passed as `samples`."""

    def __init__(self, frames: Iterable[pd.DataFrame]) -> None:
        self._frames = frames

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return iter(self._frames)


def _plain_lines(path: Path) -> bool:
    """True when the file's only line break is "\\n", with no BOM and none of `_BREAK_BYTES` (a bytes scan)."""
    with open(path, "rb") as fh:
        first = True
        while block := fh.read(BLOCK_BYTES):
            if first and block.startswith(b"\xef\xbb\xbf"):
                return False
            first = False
            if any(b in block for b in _BREAK_BYTES):
                return False
    return True


def block_frame(block: TextBlock, row_ids: bool = True) -> pd.DataFrame:
    # the ids "file:row" are joined by Arrow, and the labels are constants broadcast once: built
    # per row in Python and converted to pandas' Arrow strings, they cost a tenth of tokenizing
    # short rows. Without `row_ids` every row carries the file's id: for a reader that only
    # sums (`parts`), which never looks at ids.
    import pandas as pd

    sid, rows, texts, labels = block
    index = pd.RangeIndex(len(rows))
    ids = row_ids_of(block).to_pandas() if row_ids and len(rows) else pd.Series(sid, index=index, dtype="str")
    constant = {c: pd.Series(labels.get(c, ""), index=index, dtype="str") for c in SAMPLE_META[1:]}
    return pd.DataFrame({"sample_id": ids, **constant, "text": pd.Series(texts, index=index, dtype=object)}, copy=False)


def row_ids_of(block: TextBlock) -> "pa.Array":
    """The sample ids of a block's texts, "file:row", joined by Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(f"{block.sid}:", pc.cast(pa.array(block.rows, pa.int64()), pa.string()), "")


def _slow_block(path: Path, data: bytes, offset: int, first_row: int, column: str) -> tuple[list[int], list[str], int]:
    """A block the loader's way, line by line: (rows, texts, empty rows); errors as `iter_samples`'."""
    text, _ = decode_utf8(data, where=str(path), errors="strict", offset=offset)
    rows, texts, empty = [], [], 0
    for row, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"), start=first_row):
        if not line.strip():  # blank lines count as rows, and hold no sample
            continue
        value = jsonl_field(path, row, line, column)
        if value is None or value == "":
            empty += 1
            continue
        rows.append(row)
        texts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return rows, texts, empty


def _jsonl_blocks(path: Path, sid: str, column: str, labels: dict[str, str], report: LoadReport,
                  chunk_samples: int, chunk_chars: int, span: Span | None = None) -> Iterator[TextBlock]:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pj

    start, end, row = span if span is not None else (0, path.stat().st_size, 1)
    report.files_read += start == 0  # a file split into spans counts once
    report.bytes_read += end - start
    offset, carry, left = start, b"", end - start
    # only the text column is converted (other fields are parsed, not built, which saves time);
    # a text that is not a string makes Arrow fail, and the block takes the loader's path
    line_limit = LineBounds.from_env().max_line_bytes
    parse = pj.ParseOptions(explicit_schema=pa.schema([(column, pa.string())]), unexpected_field_behavior="ignore")
    with open(path, "rb") as fh:
        fh.seek(start)
        while True:
            block = fh.read(min(BLOCK_BYTES, left))
            left -= len(block)
            data = carry + block
            if not data:
                return
            cut = data.rfind(b"\n") + 1 if block else len(data)
            if cut == 0:  # one line longer than a block: read on, within the line bound
                carry = data
                if len(carry) > line_limit:
                    raise line_too_long(str(path), row, line_limit)
                continue
            data, carry = data[:cut], data[cut:]
            n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
            try:
                table = pj.read_json(io.BytesIO(data), parse_options=parse,
                                     read_options=pj.ReadOptions(use_threads=False, block_size=len(data) + 1))
                values = table.column(column).combine_chunks()
                if table.num_rows != n_lines or values.null_count or not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
                    raise ValueError("not a plain string column")
                # "" is skipped; both steps stay in Arrow until the texts become Python strings
                # (`to_pylist`, since `to_numpy` is much slower on string arrays)
                keep = pc.not_equal(values, "").to_numpy(zero_copy_only=False)
                rows = np.arange(row, row + n_lines)[keep]
                texts = values.filter(pa.array(keep)).to_pylist()
                empty = int(n_lines - keep.sum())
            except (pa.ArrowInvalid, KeyError, ValueError, TypeError):
                rows_l, texts, empty = _slow_block(path, data, offset, row, column)
                rows = np.asarray(rows_l, dtype=np.int64)
            report.rows_skipped_empty += empty
            report.samples += len(rows)
            for a, b in _cuts(texts, chunk_chars, chunk_samples):
                yield TextBlock(sid, rows[a:b], texts[a:b], labels)
            row += n_lines
            offset += len(data)
            if not block and not carry:
                return


def _cuts(texts: list[str], chunk_chars: int, chunk_samples: int) -> Iterator[tuple[int, int]]:
    """(start, stop) of frames of at most `chunk_samples` texts and about `chunk_chars` characters."""
    import numpy as np

    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    chunk_no = np.maximum((np.cumsum(lengths) - 1) // max(chunk_chars, 1), np.arange(len(texts)) // chunk_samples)
    starts = np.flatnonzero(np.diff(chunk_no, prepend=-1)).tolist()
    yield from zip(starts, [*starts[1:], len(texts)])


def _parquet_blocks(path: Path, sid: str, column: str, labels: dict[str, str], report: LoadReport,
                    chunk_samples: int) -> Iterator[TextBlock]:
    import numpy as np

    pf = open_parquet(path, column)
    report.files_read += 1
    report.bytes_read += path.stat().st_size
    row = 1
    # a batch is read whole before its size is known: rows, not characters, bound it
    for values in parquet_batches(pf, path, column, batch_size=min(chunk_samples, PARQUET_BATCH_ROWS)):
        n = len(values)
        as_list = values.to_pylist()
        keep = np.array([v is not None and v != "" for v in as_list], dtype=bool)
        texts = [v if isinstance(v, str) else str(v) for v, k in zip(as_list, keep) if k]
        report.rows_skipped_empty += int(n - keep.sum())
        report.samples += len(texts)
        yield TextBlock(sid, np.arange(row, row + n)[keep], texts, labels)
        row += n


def file_items(path: Path, sid: str, *, explicit: bool, category: str | None, language: str, script: str | None,
               column: str | None, errors: str, report: LoadReport, chunk_samples: int, chunk_chars: int,
               span: Span | None = None, row_ids: bool = True,
               blocks: bool = False) -> Iterator[Sample | pd.DataFrame | TextBlock]:
    """One file found by `expand_paths`, as chunk frames (tables through Arrow) or `Sample`s (the loaders').

    `span`: only that byte range of a JSON Lines file read through Arrow (`jsonl_spans` makes them).
    `row_ids`: False gives Arrow frames the file's id on every row, for readers that only sum.
    `blocks`: tables come as `TextBlock`s, not frames (no pandas).
    """
    cat, knd = file_labels(path, category=category)
    labels = {"category": cat, "kind": knd, "language": language, "script": script or DETECT_SCRIPT}
    table: Iterator[TextBlock] | None = None
    if span is not None or arrow_jsonl(path, column=column, explicit=explicit, errors=errors):
        assert column is not None
        table = _jsonl_blocks(path, sid, column, labels, report, chunk_samples, chunk_chars, span)
    elif is_table_file(path, column=column, explicit=explicit) and column is not None and path.suffix.lower() == ".parquet":
        table = _parquet_blocks(path, sid, column, labels, report, chunk_samples)
    if table is not None:
        yield from table if blocks else (block_frame(b, row_ids) for b in table)
    else:
        yield from iter_file_samples(path, sid, explicit=explicit, category=category, language=language,
                                     script=script or DETECT_SCRIPT, column=column, errors=errors,
                                     chunk_bytes=CHUNK_BYTES, report=report)


def arrow_jsonl(path: Path, *, column: str | None, explicit: bool, errors: str) -> bool:
    """True when a file is JSON Lines read through Arrow: a table with a column, strict UTF-8, plain "\\n" lines."""
    return (is_table_file(path, column=column, explicit=explicit) and column is not None
            and path.suffix.lower() == ".jsonl" and errors == "strict" and _plain_lines(path))


def jsonl_spans(path: Path, target_bytes: int) -> list[Span]:
    """Cut a JSON Lines file into spans of about `target_bytes`, at line ends (one pass over its bytes)."""
    spans: list[Span] = []
    start, row, pos = 0, 1, 0
    lines_before = 0  # lines that end before `pos`
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK_BYTES):
            base = pos
            pos += len(block)
            cut_from = 0
            while pos - start >= target_bytes:
                nl = block.find(b"\n", max(cut_from, start + target_bytes - 1 - base))
                if nl < 0:
                    break
                end = base + nl + 1
                lines = lines_before + block.count(b"\n", 0, nl + 1)
                spans.append((start, end, row))
                start, row, cut_from = end, lines + 1, nl + 1
            lines_before += block.count(b"\n")
    if pos > start:
        spans.append((start, pos, row))
    return spans


def iter_corpus_chunks(paths: str | Path | Iterable[str | Path], *, category: str | None = None,
                       language: str = "und", script: str | None = None, column: str | None = None,
                       errors: str = "strict", report: LoadReport | None = None, chunk_chars: int = 4_000_000,
                       chunk_samples: int = CHUNK_SAMPLES) -> Chunks:
    """The user's files as chunk frames, with `iter_samples`' ids, labels and report (see the module docstring).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "t.jsonl").write_text('{"text": "hi"}\\n{"text": ""}\\n')
    >>> [c[["sample_id", "text"]].values.tolist() for c in iter_corpus_chunks(d / "t.jsonl", column="text")]
    ... # doctest: +ELLIPSIS
    [[['.../t.jsonl:1', 'hi']]]
    """
    import pandas as pd

    from ..pipeline.rows import iter_sample_chunks

    check_errors(errors)
    report = report if report is not None else LoadReport()
    path_list = [paths] if isinstance(paths, (str, Path)) else list(paths)
    explicit = {Path(p) for p in path_list}

    def items() -> Iterator[Sample | pd.DataFrame]:
        for path, sid in expand_paths(path_list):
            yield from file_items(path, sid, explicit=path in explicit, category=category, language=language,
                                  script=script, column=column, errors=errors, report=report,
                                  chunk_samples=chunk_samples, chunk_chars=chunk_chars)

    def frames() -> Iterator[pd.DataFrame]:
        for is_frame, group in itertools.groupby(items(), key=lambda x: isinstance(x, pd.DataFrame)):
            if is_frame:
                yield from group
            else:
                yield from iter_sample_chunks(group, chunk_chars=chunk_chars, chunk_samples=chunk_samples)

    return Chunks(frames())
