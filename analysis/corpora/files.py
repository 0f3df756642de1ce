"""Loading the user's own corpora: files, folders, globs, and tables with a text column.

Unlike `builtin` (the built-in corpora) and `textio` (one text for one command), this module
streams whole corpora: files are read in chunks of about 1 MB cut at line boundaries, so a
multi-GB file is never held in memory at once, and every chunk or table row becomes one
`Sample`. What was skipped or repaired (binary files, invalid UTF-8) is counted in a
`LoadReport`; invalid UTF-8 is an error naming the file and byte offset unless the caller
asks for `errors="replace"` or `"skip"`.
"""

from __future__ import annotations

import csv
import glob
import itertools
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # `load_corpus` builds a frame; reading files needs no pandas
    import pandas as pd

from ..errors import BadInput
from .sample import LoadReport, Sample, detect_script, samples_to_frame
from ..textio.lines import GZIP_MAGIC, OTHER_COMPRESSION, LineBounds, Stream, csv_records, iter_lines, open_decompressed
from ..textio import ERRORS, decode_utf8
from ..textio import regular_file_problem

CHUNK_BYTES = 1 << 20
BINARY_SNIFF_BYTES = 8192
TABLE_SUFFIXES = (".jsonl", ".csv", ".parquet")

# File extension -> programming language, for category "code" when no category is given.
CODE_EXTENSIONS: Mapping[str, str] = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript", ".java": "java", ".kt": "kotlin",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".rs": "rust", ".go": "go", ".sql": "sql", ".html": "html", ".htm": "html", ".css": "css",
    ".scss": "css", ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".md": "markdown", ".rst": "restructuredtext",
    ".rb": "ruby", ".php": "php", ".cs": "csharp", ".swift": "swift", ".scala": "scala",
    ".lua": "lua", ".r": "r", ".jl": "julia", ".hs": "haskell", ".ml": "ocaml", ".xml": "xml",
    ".tex": "latex", ".dart": "dart", ".ex": "elixir", ".erl": "erlang", ".pl": "perl",
}


def check_errors(errors: str) -> None:
    if errors not in ERRORS:
        raise BadInput(f"errors must be one of {ERRORS}, got {errors!r}")


def content_suffix(path: Path) -> str:
    """The suffix that says what a file holds: `a.jsonl.gz` holds JSON Lines, read through gzip.

    >>> content_suffix(Path("a.jsonl.gz")), content_suffix(Path("notes.TXT"))
    ('.jsonl', '.txt')
    """
    suffix = path.suffix.lower()
    return Path(path.stem).suffix.lower() if suffix == ".gz" else suffix


def open_file(path: Path) -> Stream:
    """The bytes of a file as a binary stream, gzip decompressed when its magic bytes say so
    (within the run's `LineBounds`); another compression is refused by name."""
    if compressed_kind(path) is None:
        return open(path, "rb")
    fh = open(path, "rb")
    try:
        return open_decompressed(fh, where=str(path), size=path.stat().st_size, bounds=LineBounds.from_env())
    except BaseException:
        fh.close()
        raise


def compressed_kind(path: Path) -> str | None:
    """"gzip", or the name of another compression we do not read ("bzip2", "zstd"...), or None."""
    with open(path, "rb") as fh:
        head = fh.read(6)
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    return next((kind for magic, kind in OTHER_COMPRESSION.items() if head.startswith(magic)), None)


def is_binary(path: Path) -> bool:
    """True when the first 8 KB of the file (decompressed, for gzip) contain a NUL byte (text files never do).

    UTF-16/32 files contain NULs too and are treated as binary: convert them to UTF-8 first.
    """
    with open_file(path) as fh:
        return b"\x00" in fh.read(BINARY_SNIFF_BYTES)


def _utf8_cut(buf: bytes, end: int) -> int:
    """Largest cut <= end that does not split a UTF-8 character (the bytes after `end` may be unread)."""
    for p in range(end - 1, max(end - 5, -1), -1):
        lead = buf[p]
        if lead & 0xC0 != 0x80:  # ASCII or a lead byte: the last character starts here
            need = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
            return end if p + need <= end or p == 0 else p
    return end  # only continuation bytes: invalid anyway, let the decoder report it


def _decode(data: bytes, *, path: Path, offset: int, errors: str, report: LoadReport) -> tuple[str, int]:
    text, n_bad = decode_utf8(data, where=str(path), errors=errors, offset=offset)
    if errors == "replace":
        report.decode_errors_replaced += n_bad
    else:
        report.decode_errors_skipped += n_bad
    return text, n_bad


def iter_text_chunks(path: str | Path, *, errors: str = "strict", chunk_bytes: int = CHUNK_BYTES,
                     report: LoadReport | None = None) -> Iterator[str]:
    """Decode a UTF-8 file piece by piece, each piece about `chunk_bytes` and ending at a newline.

    A UTF-8 BOM at the start is dropped. A line longer than `chunk_bytes` is cut at a character
    boundary. Concatenating the pieces gives the whole text.

    Args:
        path: the file.
        errors: "strict" (ValueError naming file and byte offset), "replace" (U+FFFD) or "skip".
        chunk_bytes: target size of a piece in bytes.
        report: counts of repaired sequences are added to it.

    Returns:
        An iterator of str pieces.

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".txt", delete=False) as f:
    ...     _ = f.write(b"one\\ntwo\\nthree\\n")
    >>> list(iter_text_chunks(f.name, chunk_bytes=6)); os.unlink(f.name)
    ['one\\n', 'two\\n', 'three\\n']
    """
    check_errors(errors)
    if chunk_bytes < 4:
        raise BadInput(f"chunk_bytes must be at least 4, got {chunk_bytes}")
    report = report if report is not None else LoadReport()
    path = Path(path)
    bad_before = report.decode_errors_replaced + report.decode_errors_skipped
    offset = 0
    buf = b""
    with open_file(path) as fh:
        first = True
        while block := fh.read(chunk_bytes):
            if first and block.startswith(b"\xef\xbb\xbf"):
                block, offset = block[3:], 3
            first = False
            buf += block
            while len(buf) >= chunk_bytes:
                cut = buf.rfind(b"\n", 0, chunk_bytes) + 1 or _utf8_cut(buf, chunk_bytes)
                piece, buf = buf[:cut], buf[cut:]
                yield _decode(piece, path=path, offset=offset, errors=errors, report=report)[0]
                offset += len(piece)
        if buf:
            yield _decode(buf, path=path, offset=offset, errors=errors, report=report)[0]
    if report.decode_errors_replaced + report.decode_errors_skipped > bad_before:
        report.files_with_decode_errors += 1
        report.decode_error_files.append(str(path))


def _table_lines(path: Path, *, errors: str, report: LoadReport) -> Iterator[str]:
    r"""The lines of a table file, with their ends, each within the line bound (`lines.LineBounds`).

    Lines end at "\n", "\r\n" and "\r" (universal newlines, as `open(newline="")` gives them to
    `csv`). Not `str.splitlines`, which also breaks at U+0085, U+2028 and the like: JSON allows
    those raw inside strings and `json.dumps(ensure_ascii=False)` writes them so, and a CSV field
    may hold them. A UTF-8 BOM at the start is dropped.
    """
    bad_before = report.decode_errors_replaced + report.decode_errors_skipped
    offset = 0
    with open_file(path) as fh:
        for n, raw in iter_lines(fh, where=str(path), bounds=LineBounds.from_env(), universal=True):
            if n == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw, offset = raw[3:], 3
            yield _decode(raw, path=path, offset=offset, errors=errors, report=report)[0]
            offset += len(raw)
    if report.decode_errors_replaced + report.decode_errors_skipped > bad_before:
        report.files_with_decode_errors += 1
        report.decode_error_files.append(str(path))


def _folder_files(folder: Path, recursive: bool) -> list[tuple[str, ...]]:
    """The files under `folder` as relative parts, hidden files and folders left out, sorted as
    `Path`s sort (part by part). One `scandir` per folder: `Path.rglob` with a `stat` per file
    took 0.05 s for 1,700 files, as much as tokenizing 40 kB."""
    out: list[tuple[str, ...]] = []

    def walk(where: str, rel: tuple[str, ...]) -> None:
        with os.scandir(where) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_file():  # follows a link to a file, as `Path.is_file`
                    out.append((*rel, entry.name))
                elif recursive and entry.is_dir(follow_symlinks=False):  # as `rglob`: links to folders are not walked
                    walk(entry.path, (*rel, entry.name))

    walk(str(folder), ())
    return sorted(out)


def expand_paths(paths: str | Path | Iterable[str | Path], *, recursive: bool = True) -> list[tuple[Path, str]]:
    """Resolve files, folders and glob patterns into (file, sample id prefix) pairs.

    Folders are walked (recursively unless `recursive=False`), skipping hidden files and
    folders; a pattern such as "notes/**/*.md" is expanded with `glob`. The id prefix of a
    file found in folder `docs` is "docs/<relative path>"; of a file given directly, the path
    as given.

    Raises:
        ValueError: a path that does not exist, a pattern or folder that matches no file.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    found: list[tuple[Path, str]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            found.append((p, str(raw)))
        elif p.is_dir():
            rels = _folder_files(p, recursive)
            if not rels:
                raise BadInput(f"folder {p} contains no files{'' if recursive else ' (not recursive)'}; "
                               "give a folder with text files in it")
            found.extend((p.joinpath(*rel), f"{p.name}/{'/'.join(rel)}") for rel in rels)
        elif any(ch in str(raw) for ch in "*?["):
            files = sorted(Path(m) for m in glob.glob(str(raw), recursive=True) if Path(m).is_file())
            if not files:
                raise BadInput(f"pattern {str(raw)!r} matches no files; check the pattern "
                               "(use ** for subfolders, e.g. 'docs/**/*.md')")
            found.extend((f, f.as_posix()) for f in files)
        elif p.exists():  # a FIFO, device or socket: reading it could block or never end
            raise BadInput(regular_file_problem(p) or f"cannot read {raw}")
        else:
            raise BadInput(f"no such file or folder: {raw}")
    return found


def open_parquet(path: Path, column: str | None = None) -> Any:
    """`path` as a `pyarrow.parquet.ParquetFile`, checked to hold `column` when one is given.

    A file that is not Parquet (or is cut short) is refused naming it, not left to pyarrow's
    ArrowInvalid, which a bug could raise just as well.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.suffix.lower() == ".gz":
        raise BadInput(f"{path}: a gzip-compressed Parquet file; Parquet compresses its own pages, so this reads it "
                       "uncompressed only. Fix: decompress it first (gunzip)")
    try:
        pf = pq.ParquetFile(path)
    except pa.ArrowException as e:
        raise BadInput(f"{path} is not a readable Parquet file ({e}); check the file, or export it again") from None
    if column is not None and column not in pf.schema_arrow.names:
        raise missing_column_error(path, column, list(pf.schema_arrow.names))
    return pf


def parquet_batches(pf: Any, path: Path, column: str, *, batch_size: int) -> Iterator[Any]:
    """The values of `column` in `pf` (from `open_parquet`), one Arrow array per batch; a
    damaged page is refused naming the file."""
    import pyarrow as pa

    try:
        for batch in pf.iter_batches(batch_size=batch_size, columns=[column]):
            yield batch.column(0)
    except pa.ArrowException as e:
        raise BadInput(f"{path}: a damaged Parquet page ({e}); check the file, or export it again") from None


def _table_columns(path: Path) -> list[str]:
    suffix = content_suffix(path)
    if suffix == ".parquet":
        return list(open_parquet(path).schema_arrow.names)
    with open_file(path) as fh:  # the first line, within the line bound (a line ends at \n, \r\n or \r)
        raw = fh.readline(LineBounds.from_env().max_line_bytes)
    first = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n").split("\n", 1)[0]
    if suffix == ".csv":
        return next(csv.reader([first]), [])
    try:
        record = json.loads(first) if first.strip() else {}
    except json.JSONDecodeError:
        return []
    return list(record) if isinstance(record, dict) else []


def missing_column_error(path: Path, column: str | None, columns: list[str]) -> BadInput:
    what = f"has no column {column!r}" if column else "is a table"
    return BadInput(f"{path} {what}; columns found: {columns}. "
                    "Fix: pass column=NAME naming the column that holds the text")


def jsonl_field(path: object, row: int, line: str, column: str) -> object:
    """The `column` value of one JSON Lines row, or a ValueError naming the file, the line and the fix.

    >>> jsonl_field("a.jsonl", 3, '{"text": "hi"}', "text")
    'hi'
    """
    try:
        record = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadInput(f"{path}: line {row} is not valid JSON ({e.msg} at column {e.colno}); "
                       "each line of a .jsonl file must be one JSON object") from e
    except RecursionError:
        raise BadInput(f"{path}: line {row} is nested too deeply to read (arrays or objects thousands of "
                       "levels deep); fix or remove the line") from None
    except ValueError as e:  # an integer of more digits than Python converts (sys.int_max_str_digits)
        raise BadInput(f"{path}: line {row} holds a number too long to read ({str(e).split(':')[0]}); "
                       "write it as a string, or remove the line") from None
    if not isinstance(record, dict) or column not in record:
        keys = list(record) if isinstance(record, dict) else type(record).__name__
        raise BadInput(f"{path}: line {row} has no key {column!r} (found: {keys}); "
                       "pass column=NAME naming the text field") from None
    return record[column]


def _iter_table(path: Path, column: str, *, errors: str, chunk_bytes: int,
                report: LoadReport) -> Iterator[tuple[int, str]]:
    """(row number, text) for each non-empty value of `column`; rows count from 1."""
    suffix = content_suffix(path)
    if suffix == ".parquet":
        row = 0
        for values in parquet_batches(open_parquet(path, column), path, column, batch_size=4096):
            for value in values.to_pylist():
                row += 1
                if value is None or value == "":
                    report.rows_skipped_empty += 1
                    continue
                yield row, value if isinstance(value, str) else str(value)
        return
    lines = _table_lines(path, errors=errors, report=report)
    if suffix == ".csv":
        reader = csv_records(csv.reader(lines), str(path), bounds=LineBounds.from_env(),
                             otherwise="check the quoting of that line")
        header = next(reader, None)
        if header is None or column not in header:
            raise missing_column_error(path, column, header or [])
        idx = header.index(column)
        for row, record in enumerate(reader, start=1):
            value = record[idx] if idx < len(record) else ""
            if value == "":
                report.rows_skipped_empty += 1
                continue
            yield row, value
        return
    for row, line in enumerate(lines, start=1):  # JSON Lines
        if not line.strip():
            continue
        value = jsonl_field(path, row, line, column)
        if value is None or value == "":
            report.rows_skipped_empty += 1
            continue
        yield row, value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def iter_samples(
    paths: str | Path | Iterable[str | Path],
    *,
    category: str | None = None,
    kind: str | None = None,
    language: str = "und",
    script: str | None = None,
    column: str | None = None,
    errors: str = "strict",
    recursive: bool = True,
    chunk_bytes: int = CHUNK_BYTES,
    extension_map: Mapping[str, str] | None = None,
    report: LoadReport | None = None,
) -> Iterator[Sample]:
    """Stream the user's files as samples: one per file, per ~1 MB chunk of a large file, or
    per row of a table.

    Category: `category` if given; otherwise "code" for extensions in `extension_map`
    (default `CODE_EXTENSIONS`, kind = the programming language) and "prose" for the rest.
    Tables (.jsonl, .csv, .parquet) need `column`; inside folders they are read as tables only
    when `column` is given, as plain text otherwise. Binary files (a NUL byte in the first
    8 KB) are skipped and counted in `report`.

    Args:
        paths: files, folders (walked recursively) and glob patterns.
        category: category for every sample; None to infer it from the extension.
        kind: kind for every sample; None for the programming language, or "text".
        language: BCP-47 tag for every sample ("und": undetermined).
        script: ISO 15924 script; None to detect it per sample.
        column: the text column of .jsonl/.csv/.parquet tables.
        errors: invalid UTF-8 handling: "strict" (error with file and byte offset), "replace", "skip".
        recursive: walk subfolders.
        chunk_bytes: size of the pieces large files are cut into.
        extension_map: extension -> programming language, for inferring "code".
        report: a LoadReport to fill in (pass one to read the counts after iterating).

    Returns:
        An iterator of `Sample`.

    Raises:
        ValueError: missing path, empty folder, unmatched pattern, missing column, invalid
            UTF-8 with errors="strict", bad `errors` value.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "a.py").write_text("x = 1\\n")
    >>> [(s.id, s.category, s.kind) for s in iter_samples(d)]  # doctest: +ELLIPSIS
    [('.../a.py', 'code', 'python')]
    """
    check_errors(errors)
    report = report if report is not None else LoadReport()
    path_list = [paths] if isinstance(paths, (str, Path)) else list(paths)
    explicit = {Path(p) for p in path_list}  # tables given by name need a column; in folders, only if given
    for path, sid in expand_paths(path_list, recursive=recursive):
        yield from iter_file_samples(path, sid, explicit=path in explicit, category=category, kind=kind,
                                     language=language, script=script, column=column, errors=errors,
                                     chunk_bytes=chunk_bytes, extension_map=extension_map, report=report)


# Markup that holds documents (README.md, docs/*.rst, a paper's .tex): prose of that kind, not code.
DOCUMENT_KINDS = frozenset({"markdown", "restructuredtext", "latex"})


def file_labels(path: Path, *, category: str | None = None, kind: str | None = None,
                extension_map: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(category, kind) of the samples of one file, as `iter_samples` infers them: code for a
    programming language's extension, prose for documents (.md, .rst, .tex: kind markdown...) and
    for the rest.

    >>> file_labels(Path("a.py")), file_labels(Path("README.md")), file_labels(Path("notes.txt"))
    (('code', 'python'), ('prose', 'markdown'), ('prose', 'text'))
    """
    lang_code = (CODE_EXTENSIONS if extension_map is None else extension_map).get(content_suffix(path))
    inferred = "code" if lang_code and lang_code not in DOCUMENT_KINDS else "prose"
    return category or inferred, kind or lang_code or "text"


def is_table_file(path: Path, *, column: str | None, explicit: bool) -> bool:
    """True when `iter_samples` reads this file as a table (a row per sample), not as text."""
    return content_suffix(path) in TABLE_SUFFIXES and (column is not None or explicit)


def iter_file_samples(path: Path, sid: str, *, explicit: bool, category: str | None = None, kind: str | None = None,
                      language: str = "und", script: str | None = None, column: str | None = None,
                      errors: str = "strict", chunk_bytes: int = CHUNK_BYTES,
                      extension_map: Mapping[str, str] | None = None, report: LoadReport) -> Iterator[Sample]:
    """The samples of one file found by `expand_paths` (id prefix `sid`), as `iter_samples` reads it.

    `explicit`: the file was named itself (not found in a folder), so a table suffix makes it
    a table even without `column` (and then an error naming its columns).
    """
    cat, knd = file_labels(path, category=category, kind=kind, extension_map=extension_map)

    def make(id_: str, text: str) -> Sample:
        report.samples += 1
        return Sample(id_, cat, language, script or detect_script(text), knd, text, str(path))

    if is_table_file(path, column=column, explicit=explicit):
        if column is None:
            raise missing_column_error(path, None, _table_columns(path))
        report.files_read += 1
        report.bytes_read += path.stat().st_size
        for row, text in _iter_table(path, column, errors=errors, chunk_bytes=chunk_bytes, report=report):
            yield make(f"{sid}:{row}", text)
        return
    kind = compressed_kind(path)
    if kind not in (None, "gzip") and explicit:
        raise BadInput(f"{path}: compressed with {kind}; this reads plain text and gzip only. Fix: decompress it "
                       "first (or recompress it with gzip)")
    if kind not in (None, "gzip") or is_binary(path):  # in a folder, another compression is a binary file
        report.files_skipped_binary += 1
        report.skipped_files.append(str(path))
        return
    report.files_read += 1
    size = path.stat().st_size
    report.bytes_read += size
    chunks = iter_text_chunks(path, errors=errors, chunk_bytes=chunk_bytes, report=report)
    if kind == "gzip":  # its size on disk says nothing of its text's: one sample unless it is cut
        first, second = next(chunks, None), next(chunks, None)
        if not first:
            report.files_skipped_empty += 1
            report.skipped_files.append(str(path))
        elif second is None:
            yield make(sid, first)
        else:
            for n, text in enumerate(itertools.chain([first, second], chunks)):
                yield make(f"{sid}#{n}", text)
        return
    if not size:
        report.files_skipped_empty += 1
        report.skipped_files.append(str(path))
        return
    if size <= chunk_bytes:
        yield make(sid, "".join(chunks))
    else:
        for n, text in enumerate(chunks):
            yield make(f"{sid}#{n}", text)


def load_samples(paths: str | Path | Iterable[str | Path], **options) -> tuple[list[Sample], LoadReport]:
    """`iter_samples` collected into a list, with its report.

    Args:
        paths: as `iter_samples`.
        **options: keyword options of `iter_samples` (except `report`).

    Returns:
        (samples, report)

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "bin.dat").write_bytes(b"\\x00\\x01")
    >>> _ = (d / "note.txt").write_text("hello")
    >>> samples, report = load_samples(d); len(samples), report.files_skipped_binary
    (1, 1)
    """
    report = LoadReport()
    samples = list(iter_samples(paths, report=report, **options))
    return samples, report


def load_corpus(paths: str | Path | Iterable[str | Path], **options) -> pd.DataFrame:
    """The user's corpus as a DataFrame (columns = `Sample` fields); the `LoadReport` is in
    `frame.attrs["load_report"]`.

    Raises:
        ValueError: as `iter_samples`, and when nothing could be loaded (every file binary
            or every row empty).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "t.txt").write_text("Hi there")
    >>> df = load_corpus(d); df.loc[0, ["category", "script", "text"]].tolist(), df.attrs["load_report"].files_read
    (['prose', 'Latn', 'Hi there'], 1)
    """
    samples, report = load_samples(paths, **options)
    if not samples:
        raise BadInput(f"no text loaded from {paths}: {report.summary()}; "
                       f"skipped: {report.skipped_files[:5]}")
    frame = samples_to_frame(samples)
    frame.attrs["load_report"] = report
    return frame
