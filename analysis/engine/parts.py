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

The work is in three modules: `plan` cuts the input into parts (as Dask's own readers cut
them), `worker` is what a worker runs on one part, and this module drives: it plans, maps the
parts over an engine and adds up what comes back.

The sums are exactly those of `run.measure(iter_corpus_chunks(paths), by=...)` (a test compares
them). Only sums come back. Per-row output (`tally_files(..., out=PartitionedParquet)`) is
written by the workers too, each part's rows into the dataset's staging folder, named by the
part's place in the input (`part-NNNNN-KKKK.parquet`), so the driver neither reads the files nor
receives their rows, and the dataset equals the one `run.measure(..., out=)` writes (tested).
That folder must be one the workers can write: this machine, not a Dask cluster elsewhere.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..compare import as_tokenizers
from ..corpora.files import check_errors, is_table_file
from ..corpora.sample import LoadReport
from ..errors import BadInput
from ..pipeline.metrics import DETECT_SCRIPT, check_metrics, count_columns, with_grouping
from ..pipeline.tally import PLAIN_METRICS, Tally, group_keys
from ..tokenizers import TokenizersArg
from .base import Engine
from .choose import resolve_engine
from .plan import Part, expand_inputs, is_url as is_url, part_bytes_for, plan_listed, plan_parts as plan_parts
from .read import SUMS_CHUNK_SAMPLES
from .worker import part_sums

if TYPE_CHECKING:
    from .output import PartitionedParquet
    from .run import MeasureRun


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
        listed = expand_inputs([paths] if isinstance(paths, (str, Path)) else list(paths))
        if part_bytes is None:
            part_bytes = part_bytes_for(listed, opened.workers)
        parts = plan_listed(listed, column=column, errors=errors, part_bytes=part_bytes)
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
            for i, result in enumerate(opened.map(part_sums, parts, names, params=params, size=lambda p: p.nbytes)):
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
