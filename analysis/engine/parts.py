"""Measuring files where they are read: each worker reads its own part of the input and returns sums.

Unlike `run.measure` (this process reads every file and ships chunks of text to the workers),
`measure_files` sends the workers *descriptions* of parts of the input: a group of whole files,
or a byte range of one JSON Lines file, cut at line ends. Each worker reads its part with the
same readers as this process (`read.file_items`), measures it chunk by chunk and returns its
sums (a `pipeline.Tally`) and its `LoadReport`. What travels is a few hundred bytes per task, so
the process that drives the run stays idle, and a Dask cluster whose workers see the same files
(a shared or network file system) reads in parallel. Text files are summed without pandas or
numpy, so `tally_files` over text runs without importing them (the command line's
`measure FILES` saves about 0.4 s of CPU that way); `measure_files` gives the same sums as frames.

Parts, as Dask's own readers cut them:

* JSON Lines read through Arrow (plain "\\n" lines, strict UTF-8): byte ranges of about
  `part_bytes`, found in one pass over the file's bytes here, with the line number each range
  starts at, so sample ids and error messages are those of the loader;
* every other file (text, CSV, Parquet, JSON Lines with other line breaks): whole, grouped with
  neighbours up to about `part_bytes`.

The sums are exactly those of `run.measure(iter_corpus_chunks(paths), by=...)` (a test compares
them). Only sums come back. Per-row output (`tally_files(..., out=PartitionedParquet)`) is
written by the workers too, each part's rows into the dataset's staging folder, named by the
part's place in the input (`part-NNNNN-KKKK.parquet`), so the driver neither reads the files nor
receives their rows, and the dataset equals the one `run.measure(..., out=)` writes (tested).
That folder must be one the workers can write: this machine, not a Dask cluster elsewhere.
"""

from __future__ import annotations

import importlib
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, fields, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..compare import as_tokenizers
from ..errors import BadInput
from .base import Engine
from .choose import resolve_engine
from .read import SUMS_CHUNK_SAMPLES, Span, TextBlock, arrow_jsonl, block_frame, file_items, jsonl_spans, row_ids_of
from ..corpora.files import check_errors, expand_paths, is_table_file
from ..corpora.sample import LoadReport, Sample, detect_script
from ..pipeline.metrics import DETECT_SCRIPT, UNKNOWN_SCRIPT, check_metrics, count_columns, with_grouping
from ..pipeline.tally import PLAIN_METRICS, ChunkCounts, Tally, group_keys
from ..tokenizers import Tokenizer, TokenizersArg

if TYPE_CHECKING:  # frames only for tables and numpy metrics: text files are summed without pandas
    import pandas as pd

    from .output import PartitionedParquet
    from .run import MeasureRun

PART_BYTES = 64 << 20
MIN_PART_BYTES = 2 << 20
# Parts per worker when the input is small: the run ends when the last part does, and with eight
# the other workers wait at most an eighth of a worker's share (5 MB parts for 40 MB on two
# workers left 0.1 s of wall more than 2.5 MB ones, docs/measuring.md; a task costs milliseconds).
PARTS_PER_WORKER = 8


@dataclass(frozen=True)
class FilePart:
    """One file (or one span of a JSON Lines file) of a part: its path or fsspec URL, id prefix, and how it was named."""

    path: str
    sid: str
    explicit: bool
    span: Span | None = None

    @property
    def url(self) -> bool:
        return is_url(self.path)


def is_url(path: str | Path) -> bool:
    """True for an fsspec URL such as s3://bucket/key or file:///data/x.jsonl (a local path is not one)."""
    return isinstance(path, str) and "://" in path


def _expand_url(url: str) -> list[tuple[str, str, int]]:
    """(file URL, sample id prefix, size) of the files an fsspec URL names: a file, a folder or a pattern."""
    import fsspec

    try:
        fs, root = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as e:  # an unknown protocol, or its package missing
        raise BadInput(f"cannot read {url}: {e}. Remote stores need their fsspec package "
                       "(s3fs for s3://, gcsfs for gs://, adlfs for az://); install it beside tokenprism") from None
    if any(ch in root for ch in "*?["):
        files = [(f, fs.unstrip_protocol(f)) for f in sorted(fs.glob(root)) if fs.isfile(f)]
        found = [(u, u) for _, u in files]
    elif fs.isdir(root):
        base = root.rstrip("/")
        rel = [(f, f[len(base) + 1:]) for f in sorted(fs.find(root))]
        found = [(fs.unstrip_protocol(f), f"{Path(base).name}/{r}") for f, r in rel
                 if not any(part.startswith(".") for part in r.split("/"))]
    elif fs.isfile(root):
        found = [(url, url)]
    else:
        raise BadInput(f"no such file or folder: {url}")
    if not found:
        raise BadInput(f"{url} names no file; give a file, a folder with files in it, or a pattern that matches some")
    return [(u, sid, int(fs.size(u))) for u, sid in found]


def _expand(path_list: list[str | Path]) -> list[tuple[str, str, bool, int]]:
    """(path or URL, id prefix, named directly, size) of every input file, in order."""
    out: list[tuple[str, str, bool, int]] = []
    for raw in path_list:
        if is_url(raw):
            out.extend((u, sid, u == raw, size) for u, sid, size in _expand_url(str(raw)))
        else:
            out.extend((str(p), sid, p == Path(raw), p.stat().st_size) for p, sid in expand_paths([raw]))
    return out


@dataclass(frozen=True)
class Part:
    """What one task reads: files (or spans), and their size in bytes (for progress and balance)."""

    files: tuple[FilePart, ...]
    nbytes: int
    index: int = 0  # its place in the input: per-row parts written by workers are named by it


def plan_parts(paths: str | Path | Iterable[str | Path], *, column: str | None = None, errors: str = "strict",
               part_bytes: int = PART_BYTES) -> list[Part]:
    """Cut the input into parts of about `part_bytes` (see the module docstring).

    Raises:
        ValueError: a path that does not exist, a pattern or folder with no file (as `expand_paths`).
    """
    check_errors(errors)
    return _plan(_expand([paths] if isinstance(paths, (str, Path)) else list(paths)), column=column, errors=errors,
                 part_bytes=part_bytes)


def _plan(listed: list[tuple[str, str, bool, int]], *, column: str | None, errors: str, part_bytes: int) -> list[Part]:
    """`plan_parts` of input files already listed (`_expand`)."""
    parts: list[Part] = []
    group: list[FilePart] = []
    size = 0

    def flush() -> None:
        nonlocal group, size
        if group:
            parts.append(Part(tuple(group), size, len(parts)))
        group, size = [], 0

    seen: set[str] = set()
    for path, sid, named, nbytes in listed:
        if sid in seen:  # as `pipeline.UniqueIds` says it when the driver reads
            raise BadInput(f"sample id {sid!r} occurs more than once; ids must be unique (rename the sample, or "
                           "load the corpus once)")
        seen.add(sid)
        # local JSON Lines: byte ranges (their line numbers are counted here); a URL is read whole by one worker
        if not is_url(path) and nbytes > part_bytes and arrow_jsonl(Path(path), column=column, explicit=named,
                                                                     errors=errors):
            flush()
            for span in jsonl_spans(Path(path), part_bytes):
                parts.append(Part((FilePart(path, sid, named, span),), span[1] - span[0], len(parts)))
            continue
        group.append(FilePart(path, sid, named))
        size += nbytes
        if size >= part_bytes:
            flush()
    flush()
    return parts


@dataclass(frozen=True)
class PartResult:
    """What a worker returns for a part: its sums, what it read, and the per-row parts it wrote (if asked)."""

    tally: Tally
    report: LoadReport
    rows: int = 0
    files: int = 0


def _part_sums(part: Part, toks: Sequence[Tokenizer], *, by: list[str], category: str | None, language: str,
               script: str | None, column: str | None, errors: str, chunk_chars: int,
               chunk_samples: int, metrics: tuple[str, ...], out: str | None = None,
               out_base: int = 0) -> PartResult:
    """What a worker runs: read the part, chunk by chunk, and reduce it to a `Tally`.

    Text samples are summed as they are (`Tally.add_samples`); table frames, and text samples
    when words or graphemes are asked for, go through `pipeline.chunk_sums` (pandas, numpy).
    With `out` (a `PartitionedParquet`'s staging folder), each chunk's rows are also written
    there as a part of their own (`_PartRows`), named by the part's place in the input.
    """
    report = LoadReport()
    tally = Tally(by, count_columns(metrics))
    plain = set(metrics) <= PLAIN_METRICS
    rows = _PartRows(out, f"part-{out_base + part.index:05d}", toks, by, metrics, tally) if out else None
    samples: list[Sample] = []  # text files come as samples: measured in chunks of about 4M characters
    chars = 0

    def flush() -> None:
        nonlocal samples, chars
        if samples:
            if rows is not None and plain:
                rows.add_samples(samples)
            elif plain:
                tally.add_samples(samples, toks, metrics)
            else:
                from ..pipeline import iter_sample_chunks

                add(next(iter_sample_chunks(samples, chunk_chars=chars + 1, chunk_samples=len(samples))))
        samples, chars = [], 0

    def add(frame: pd.DataFrame) -> None:
        from ..pipeline import chunk_sums

        if rows is not None:
            rows.add_frame(frame)
        else:
            tally.add_frame(chunk_sums(frame, toks, by, metrics))

    def add_block(block: TextBlock) -> None:  # a table's texts, read through Arrow
        if rows is not None:
            rows.add_block(block)
        elif plain:
            ids = row_ids_of(block).to_pylist() if "sample_id" in by else None
            tally.add_texts(block.texts, block.labels, toks, metrics, ids=ids)
        else:
            add(block_frame(block, row_ids="sample_id" in by))

    for fp in part.files:
        with _local(fp, report) as local:
            for item in file_items(local, fp.sid, explicit=fp.explicit, category=category, language=language,
                                   script=script, column=column, errors=errors, report=report,
                                   chunk_samples=chunk_samples, chunk_chars=chunk_chars, span=fp.span,
                                   blocks=True):
                if not isinstance(item, Sample):  # a block of a table
                    flush()  # in input order, so groups come out in order of first appearance
                    add_block(item)
                    continue
                samples.append(item)
                chars += len(item.text)
                if chars >= chunk_chars or len(samples) >= chunk_samples:
                    flush()
    flush()
    return PartResult(tally, report, rows.rows if rows else 0, rows.files if rows else 0)


class _PartRows:
    """A part's per-row output, written where it is measured: a Parquet file per chunk, into `out`.

    The rows are those `run.measure(..., out=DIR)` writes for the same input (`output.rows_table`),
    and the chunk's sums go to `tally` from the same counts. Text files need pyarrow and numpy
    here, not pandas; table frames come with pandas already.
    """

    def __init__(self, out: str, name: str, toks: Sequence[Tokenizer], by: list[str], metrics: tuple[str, ...],
                 tally: Tally) -> None:
        self.out, self.name, self.toks, self.by, self.metrics, self.tally = out, name, toks, by, metrics, tally
        self.names = [t.name for t in toks]
        self.rows = self.files = 0

    def _write(self, chunk: Any, counts: ChunkCounts) -> None:
        from .output import rows_table, write_part

        table = rows_table(chunk, counts, self.names)
        if table.num_rows:
            write_part(self.out, f"{self.name}-{self.files:04d}", table)
            self.rows += table.num_rows
            self.files += 1

    def add_samples(self, samples: list[Sample]) -> None:
        detect = "scripts" in self.metrics
        samples = [s if s.script != DETECT_SCRIPT else
                   replace(s, script=detect_script(s.text) if detect else UNKNOWN_SCRIPT) for s in samples]
        texts = [s.text for s in samples]
        counts = [tok.count_batch(texts) for tok in self.toks]
        n_bytes = _utf8_sizes(texts)
        self.tally.add_samples(samples, self.toks, self.metrics, counts=counts, n_bytes=n_bytes)
        labels = {"sample_id": [s.id for s in samples], **{c: [getattr(s, c) for s in samples]
                                                           for c in ("category", "language", "script", "kind")},
                  "group": "", "variant": ""}
        self._write(labels, self._counts(texts, n_bytes, counts))

    def _counts(self, texts: list[str], n_bytes: list[int], counts: list[list[int]]) -> ChunkCounts:
        import numpy as np

        sizes = {"n_chars": np.fromiter(map(len, texts), np.int64, count=len(texts)),
                 "n_bytes": np.array(n_bytes, np.int64)}
        return ChunkCounts(sizes, np.array(counts, np.int64).T.reshape(len(texts), len(self.toks)))

    def add_block(self, block: TextBlock) -> None:
        if not set(self.metrics) <= PLAIN_METRICS:  # words, graphemes: counted in numpy, over a frame
            self.add_frame(block_frame(block))
            return
        texts = block.texts
        counts = [tok.count_batch(texts) for tok in self.toks]
        n_bytes = _utf8_sizes(texts)
        ids = row_ids_of(block)
        self.tally.add_texts(texts, block.labels, self.toks, self.metrics, counts=counts, n_bytes=n_bytes,
                             ids=ids.to_pylist() if "sample_id" in self.by else None)
        script: str | list[str] = block.labels["script"]
        if script == DETECT_SCRIPT:
            script = [detect_script(t) for t in texts] if "scripts" in self.metrics else UNKNOWN_SCRIPT
        labels = {"sample_id": ids, **{c: block.labels[c] for c in ("category", "language", "kind")},
                  "script": script, "group": "", "variant": ""}
        self._write(labels, self._counts(texts, n_bytes, counts))

    def add_frame(self, frame: pd.DataFrame) -> None:
        from ..pipeline import chunk_counts, chunk_counts_sums

        counts = chunk_counts(frame, self.toks, metrics=self.metrics)
        self.tally.add_frame(chunk_counts_sums(frame, counts, self.names, self.by))
        self._write(frame, counts)


def _utf8_sizes(texts: list[str]) -> list[int]:
    """Each text's UTF-8 bytes (a lone surrogate counts 3, as `pipeline.metrics.text_stats` counts it)."""
    return [len(t.encode("utf-8", "surrogatepass")) for t in texts]


@contextmanager
def _local(fp: FilePart, report: LoadReport) -> Iterator[Path]:
    """A local path for a part's file: the file itself, or a copy of a URL's file in a folder of our own.

    The readers then work as on any local file; messages and the report name the URL, not the copy.
    """
    if not fp.url:
        yield Path(fp.path)
        return
    import fsspec

    with tempfile.TemporaryDirectory(prefix="tokenprism-part-") as folder:
        local = Path(folder) / PurePosixPath(fp.path.split("://", 1)[1]).name  # its suffix labels it
        with fsspec.open(fp.path, "rb") as src, open(local, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        try:
            yield local
        except ValueError as e:  # the message names the remote file, not its local copy
            raise (BadInput if isinstance(e, BadInput) else ValueError)(str(e).replace(str(local), fp.path)) from None
        except OSError as e:
            raise OSError(str(e).replace(str(local), fp.path)) from None
        finally:
            for names in (report.skipped_files, report.decode_error_files):
                names[:] = [fp.path if n == str(local) else n for n in names]


def _merge_report(into: LoadReport, other: LoadReport) -> None:
    for f in fields(LoadReport):
        setattr(into, f.name, getattr(into, f.name) + getattr(other, f.name))


@dataclass(frozen=True)
class FilesTally:
    """What `tally_files` found: the sums (`tally`), the tokenizers' names, the input's size and where it ran."""

    tally: Tally
    tokenizers: tuple[str, ...]
    n_samples: int
    n_bytes: int
    engine: str


def _worker_modules(parts: Sequence[Part], column: str | None, metrics: Sequence[str], out: bool) -> list[str]:
    """What the workers will import, imported here once, before they fork, instead of by each of them:
    pandas for the numpy metrics (frames), Arrow's readers for tables, pyarrow's Parquet writer for
    rows. pyarrow imports pandas itself on its first conversion (`pa.array`, a scalar, a compute
    call with a Python value): forked workers that each did so spent 0.2 s apiece on it."""
    tables = any(fp.span is not None or is_table_file(Path(fp.path), column=column, explicit=fp.explicit)
                 for part in parts for fp in part.files)
    arrow = ["pandas", "pyarrow.compute"] + (["pyarrow.json", "pyarrow.parquet"] if tables else []) \
        + (["pyarrow.parquet", f"{__package__}.output"] if out else [])
    return arrow if tables or out else [] if set(metrics) <= PLAIN_METRICS else ["pandas"]


def tally_files(paths: str | Path | Iterable[str | Path], tokenizers: TokenizersArg = None, *,
                by: str | Sequence[str], engine: str | Engine = "local", scheduler: str | None = None,
                workers: int | None = None, category: str | None = None, language: str = "und",
                script: str | None = None, column: str | None = None, errors: str = "strict",
                report: LoadReport | None = None, progress: bool = False, part_bytes: int | None = None,
                chunk_chars: int = 4_000_000, chunk_samples: int = SUMS_CHUNK_SAMPLES,
                metrics: str | Sequence[str] | None = None, out: PartitionedParquet | None = None) -> FilesTally:
    """The sums of `measure_files`, as a `Tally`: text files are measured without pandas or numpy.

    Arguments as `measure_files`. The tally's `summary_rows` is `measure_files`' summary, row
    for row (a test compares them). `out`: the per-row dataset, written by the workers into its
    staging folder, so it must be on a file system they share (this machine: not for a
    `scheduler` elsewhere). The rows are those `run.measure(..., out=)` writes; the caller commits.
    """
    toks = as_tokenizers(tokenizers)
    names = tuple(t.name for t in toks)
    keys = group_keys(by)
    wanted = with_grouping(check_metrics(metrics), keys)
    report = report if report is not None else LoadReport()
    if out is not None and scheduler:
        raise BadInput("per-row output from a Dask scheduler elsewhere: its workers cannot write into this "
                       "machine's folder; measure with run.measure(..., out=), which writes here")
    opened, owned = resolve_engine(engine, toks, scheduler, workers)
    try:
        check_errors(errors)
        listed = _expand([paths] if isinstance(paths, (str, Path)) else list(paths))
        if part_bytes is None:
            total = sum(size for *_, size in listed)
            share = total // (PARTS_PER_WORKER * max(opened.workers, 1))
            part_bytes = max(MIN_PART_BYTES, min(PART_BYTES, share or 1))
        parts = _plan(listed, column=column, errors=errors, part_bytes=part_bytes)
        for module in _worker_modules(parts, column, wanted, out is not None):
            importlib.import_module(module)
        params = {"by": keys, "category": category, "language": language, "script": script or DETECT_SCRIPT,
                  "column": column, "errors": errors, "chunk_chars": chunk_chars, "chunk_samples": chunk_samples,
                  "metrics": wanted}
        out_base = out.next_part if out is not None else 0
        if out is not None:
            params.update(out=str(out.staging), out_base=out_base)
        tally = Tally(keys, count_columns(wanted))
        with _bar(progress, total=sum(p.nbytes for p in parts), desc=f"measure x{len(toks)} ({opened.name})") as bar:
            # enumerate, not zip: zip would leave the map unfinished, and an engine stops its
            # workers when a caller abandons a map
            for i, result in enumerate(opened.map(_part_sums, parts, names, params=params, size=lambda p: p.nbytes)):
                tally.merge(result.tally)
                _merge_report(report, result.report)
                if out is not None:
                    out.adopt(result.rows, result.files, out_base + parts[i].index + 1)
                if bar is not None:
                    bar.update(parts[i].nbytes)
    finally:
        if owned:
            opened.close()
    n = len(names)
    n_samples = tally.total("n_samples") // n if tally.groups else 0
    n_bytes = tally.total("n_bytes") // n if tally.groups else 0
    return FilesTally(tally, names, n_samples, n_bytes, opened.name)


def _bar(progress: bool, **options: Any) -> Any:
    """A tqdm bar over input bytes on stderr, or a context of None when no one watches (no tqdm import)."""
    if not progress:
        return nullcontext(None)
    from tqdm.auto import tqdm

    return tqdm(unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, dynamic_ncols=True, **options)


def measure_files(paths: str | Path | Iterable[str | Path], tokenizers: TokenizersArg = None, *,
                  by: str | Sequence[str], engine: str | Engine = "local", scheduler: str | None = None,
                  workers: int | None = None, category: str | None = None, language: str = "und",
                  script: str | None = None, column: str | None = None, errors: str = "strict",
                  report: LoadReport | None = None, progress: bool = False, part_bytes: int | None = None,
                  chunk_chars: int = 4_000_000, chunk_samples: int = SUMS_CHUNK_SAMPLES,
                  metrics: str | Sequence[str] | None = None) -> MeasureRun:
    """Aggregates of the user's files, each part read and measured by a worker (see the module docstring).

    Args:
        paths, category, language, script, column, errors: as `read.iter_corpus_chunks`.
        by: aggregate by these columns (as `pipeline.summarize`).
        engine, scheduler, workers: as `run.measure`.
        report: filled with what was read (files, rows skipped, decode repairs).
        progress: one tqdm bar over input bytes on stderr, advanced as parts finish.
        part_bytes: the size of a part; default: `PART_BYTES`, smaller when the input is small,
            so that every worker gets several parts.
        chunk_chars, chunk_samples: what a worker measures at once (its memory is about that much text).
        metrics: as `run.measure`.

    Returns:
        A `MeasureRun` with `summary` and `sums` (no rows).
    """
    from ..pipeline import empty_sums, summary_from_sums
    from .run import MeasureRun

    keys = group_keys(by)
    empty_sums(keys, with_grouping(check_metrics(metrics), keys))  # bad keys fail now
    found = tally_files(paths, tokenizers, by=keys, engine=engine, scheduler=scheduler, workers=workers,
                        category=category, language=language, script=script, column=column, errors=errors,
                        report=report, progress=progress, part_bytes=part_bytes, chunk_chars=chunk_chars,
                        chunk_samples=chunk_samples, metrics=metrics)
    total_sums = found.tally.frame()
    return MeasureRun(None, summary_from_sums(total_sums, keys, found.tokenizers), total_sums, None, found.n_samples,
                      found.n_bytes, found.engine)
