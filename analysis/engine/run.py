"""Measuring (and counting for cost) on an engine: rows, streamed aggregates, or a Parquet dataset.

Unlike `pipeline.measure` (this process, the whole frame in memory), `measure` here sends
chunks of samples to an engine and keeps only what was asked for:

* `rows=True`: the per-row frame, identical to `pipeline.measure`'s;
* `by=[...]`: aggregates built from integer sums per chunk (the workers return sums, not
  rows), identical to `pipeline.summarize(pipeline.measure(...), by)`;
* `out=DIR`: per-row results streamed to a partitioned Parquet dataset, part by part.

With `rows=False` memory is bounded whatever the corpus size: a few chunks in flight plus
one row of sums per group. Sample ids are checked for uniqueness here, as they stream by, in
linear time (`pipeline.UniqueIds`).
"""

from __future__ import annotations

import sys
from collections import deque
from typing import TYPE_CHECKING, Any, TypeAlias
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from ..errors import BadInput
from ..memo import joined_run, open_run
from .base import Engine, InProcessEngine, frame_chars
from .choose import open_engine, resolve_engine
from .output import PartitionedParquet, rows_table
from .read import SUMS_CHUNK_SAMPLES, Chunks
from ..corpora.sample import Labeled, Sample
from ..pipeline.metrics import with_grouping
from ..pipeline import (DETECT_SCRIPT, UniqueIds, as_tokenizers, check_metrics, chunk_counts, chunk_counts_sums, chunk_sums,
                        combine_sums, empty_sums, finish_measured, iter_sample_chunks, resolve_scripts,
                        rows_from_counts, summary_from_sums)
from ..tokenizers import Tokenizer, TokenizersArg

if TYPE_CHECKING:  # pricing imports the cost package when it runs: measuring never needs it
    from ..cost import CorpusCost, CostReport, LogRecord, LogReport, RowChunk, TrafficPartial, TrafficPlan

Samples: TypeAlias = pd.DataFrame | Iterable[Sample | Labeled] | Chunks
# combine partial sums every this many chunks, so the list of partials never grows with the corpus
_FOLD_EVERY = 64


@dataclass(frozen=True)
class MeasureRun:
    """What `measure` kept. `rows`: the per-row frame (or None); `summary`: aggregates (or None);
    `sums`: the integer sums behind the summary (add runs with `pipeline.combine_sums`);
    `out`: the Parquet dataset written (or None); `n_samples`, `n_bytes`: input size; `engine`: where it ran."""

    rows: pd.DataFrame | None
    summary: pd.DataFrame | None
    sums: pd.DataFrame | None
    out: Path | None
    n_samples: int
    n_bytes: int
    engine: str


def _measure_task(chunk: pd.DataFrame, toks: Sequence[Tokenizer], *, by: list[str] | None, rows: bool,
                  metrics: tuple[str, ...]) -> Any:
    if rows:  # counts only: the driver holds the labels and builds the rows (`_slim`)
        return chunk_counts(chunk, toks, metrics=metrics)
    return chunk_sums(chunk, toks, by or [], metrics)  # sums without the rows (scripts only if grouped by)


def _slim(chunk: pd.DataFrame) -> pd.DataFrame:
    """What a worker needs to count a chunk's rows: its texts, and its scripts if some are to be resolved.

    The labels (ids, categories, ...) stay with the driver, so neither they nor the rows built
    from them (one per tokenizer) are pickled across processes: on short rows that was about a
    tenth of the tokenizing.
    """
    return chunk[["text", "script"]] if (chunk["script"] == DETECT_SCRIPT).any() else chunk[["text"]]


def coalesce_chunks(frames: Iterable[pd.DataFrame], chunk_chars: int, chunk_samples: int) -> Iterator[pd.DataFrame]:
    """Consecutive chunk frames joined into tasks of up to `chunk_samples` rows and about `chunk_chars` characters.

    A reader cuts short rows into frames of 4,096 (`read.CHUNK_SAMPLES`); each task then pays
    fixed costs (a frame built, labels converted, a groupby, a Parquet part) that, at ~50
    characters a row, cost about half as much again as tokenizing them. Joining frames here
    keeps the rows and their order, so the numbers are the same.
    """
    held: list[pd.DataFrame] = []
    rows = chars = 0
    for frame in frames:
        n, c = len(frame), frame_chars(frame)
        if held and (rows + n > chunk_samples or chars + c > chunk_chars):
            yield held[0] if len(held) == 1 else pd.concat(held, ignore_index=True)
            held, rows, chars = [], 0, 0
        held.append(frame)
        rows, chars = rows + n, chars + c
    if held:
        yield held[0] if len(held) == 1 else pd.concat(held, ignore_index=True)


def _checked(chunks: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    ids = UniqueIds()
    for chunk in chunks:
        ids.add(chunk["sample_id"])
        yield chunk


def measure(samples: Samples, tokenizers: TokenizersArg = None, *, engine: str | Engine = "local",
            scheduler: str | None = None, workers: int | None = None, by: str | Sequence[str] | None = None,
            out: str | Path | PartitionedParquet | None = None, rows: bool | None = None, progress: bool = False,
            total_bytes: int | None = None, chunk_chars: int = 4_000_000,
            chunk_samples: int = SUMS_CHUNK_SAMPLES, metrics: str | Sequence[str] | None = None) -> MeasureRun:
    """Measure `samples` x `tokenizers` on an engine, keeping rows, aggregates or a Parquet dataset.

    Args:
        samples: a samples frame, an iterable of `Sample`/`Labeled` (streamed), or `Chunks`
            (e.g. `read.iter_corpus_chunks(paths)`: the fast reader of the user's files).
        tokenizers: names, a comma-separated string, adapters (registry ones for local/dask), or None.
        engine: "local" (all cores), "dask", "inprocess", or an open `Engine`.
        scheduler: Dask scheduler address (engine "dask"); None starts a LocalCluster.
        workers: worker processes (local engine or LocalCluster); default one per core.
        by: aggregate by these columns (as `pipeline.summarize`); None for no aggregates.
        out: a new folder for the per-row Parquet dataset (written only if the run completes), or
            an open `PartitionedParquet` that the caller commits (several runs, one dataset).
        rows: keep the per-row frame in memory; default: only when neither `by` nor `out` is given.
        progress: one tqdm bar over input bytes on stderr.
        total_bytes: the input size, for the bar's total (e.g. the sum of file sizes).
        chunk_chars, chunk_samples: the size of a chunk (a task); `Chunks` frames are joined up to it.
        metrics: optional metrics (`pipeline.METRICS`: words, graphemes, scripts), names or a
            comma-separated string; None: words and scripts, as `pipeline.measure`. A grouping
            by script detects scripts whatever is asked.

    Returns:
        A `MeasureRun`.

    Raises:
        ValueError: duplicate sample ids, a bad engine name or output folder.
        KeyError: unknown tokenizer or grouping column.
        EngineError: the engine could not run the work.

    >>> run = measure([Sample("a", "prose", "en", "Latn", "note", "Hello world", "me")], "gpt2",
    ...               engine="inprocess", by="tokenizer")
    >>> run.summary[["tokenizer", "n_tokens", "chars_per_token_of_sums"]].to_dict("records")
    [{'tokenizer': 'gpt2', 'n_tokens': 2, 'chars_per_token_of_sums': 5.5}]
    """
    toks = as_tokenizers(tokenizers)
    names = tuple(t.name for t in toks)
    by_keys = None if by is None else ([by] if isinstance(by, str) else list(by))
    wanted = with_grouping(check_metrics(metrics), by_keys)
    keep_rows = (by_keys is None and out is None) if rows is None else rows
    need_rows = keep_rows or out is not None
    if not need_rows and by_keys is None:
        raise BadInput("nothing to keep: pass by=[...] for aggregates, out=DIR for a Parquet dataset, or rows=True")
    if by_keys is not None:
        empty_sums(by_keys, wanted)  # bad keys fail now
    own_writer = not isinstance(out, PartitionedParquet)
    writer = out if isinstance(out, PartitionedParquet) else PartitionedParquet(out) if out is not None else None
    opened, owned = resolve_engine(engine, toks, scheduler, workers)
    kept: list[pd.DataFrame] = []
    sums: list[pd.DataFrame] = []
    n_samples = n_bytes = 0
    try:
        chunks = _checked(coalesce_chunks(samples, chunk_chars, chunk_samples) if isinstance(samples, Chunks) else
                          iter_sample_chunks(samples, chunk_chars=chunk_chars, chunk_samples=chunk_samples))
        with tqdm(total=total_bytes, disable=not progress, unit="B", unit_scale=True, unit_divisor=1024,
                  desc=f"measure x{len(toks)} ({opened.name})", file=sys.stderr, dynamic_ncols=True) as bar:
            params = {"by": by_keys, "rows": need_rows, "metrics": wanted}
            held: deque[pd.DataFrame] = deque()  # chunks whose counts are out on the workers, in order

            def sent(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
                for frame in frames:
                    if need_rows:
                        if "scripts" not in wanted:  # 'Zzzz' set here: no script column travels either way
                            frame = resolve_scripts(frame, False)
                        held.append(frame)
                        frame = _slim(frame)
                    yield frame

            for result in opened.map(_measure_task, sent(chunks), names, params=params):
                if need_rows:  # counts back from a worker, labels held here: rows, sums, Parquet from the two
                    chunk = held.popleft()
                    if by_keys is not None:
                        sums.append(chunk_counts_sums(chunk, result, names, by_keys))
                    if writer is not None:
                        writer.write(rows_table(chunk, result, names))
                    if keep_rows:
                        kept.append(rows_from_counts(chunk, result, names))
                    n_samples += len(chunk)
                    chunk_bytes = int(result.sizes["n_bytes"].sum())
                else:
                    sums.append(result)
                    # every sample has one row per tokenizer, whatever the grouping
                    n_samples += int(result["n_samples"].sum()) // len(names)
                    chunk_bytes = int(result["n_bytes"].sum()) // len(names)
                n_bytes += chunk_bytes
                bar.update(chunk_bytes)
                if by_keys is not None and len(sums) >= _FOLD_EVERY:
                    sums = [combine_sums(sums, by_keys)]
    except BaseException:
        if writer is not None and own_writer:
            writer.abort()
        raise
    finally:
        if owned:
            opened.close()
    written = (writer.commit() if own_writer else writer.target) if writer is not None else None
    total = combine_sums(sums, by_keys) if by_keys is not None else None
    summary = summary_from_sums(total, by_keys, names) if total is not None and by_keys is not None else None
    frame = finish_measured(kept, names, wanted) if keep_rows else None
    return MeasureRun(frame, summary, total, written, n_samples, n_bytes, opened.name)


# -- counting for cost -------------------------------------------------------------------------
def _count_task(chunk: pd.DataFrame, toks: Sequence[Tokenizer]) -> pd.DataFrame:
    from ..pipeline import token_counts

    texts = chunk["text"].tolist()
    # `len` over the list (C-level), not `.str.len()`, a Python call per text of an object column
    return pd.DataFrame({"n_chars": np.fromiter(map(len, texts), np.int64, count=len(texts)),
                         **{t.name: token_counts(t, texts) for t in toks}}, index=chunk.index)


def count_tokens(chunks: Iterable[pd.DataFrame], tokenizer_names: Sequence[str], *,
                 engine: Engine | None = None) -> Iterator[tuple[pd.DataFrame, pd.DataFrame]]:
    """(chunk, counts) per chunk of requests: counts has n_chars and one int64 column per tokenizer.

    The chunks are whatever the caller reads (e.g. id, category, text frames); only their
    `text` column travels to the workers. Pricing consumes each pair and keeps sums, so memory
    does not grow with the corpus.

    >>> chunk = pd.DataFrame({"id": ["a"], "category": ["x"], "text": ["hello world"]})
    >>> [c.to_dict("list") for _, c in count_tokens([chunk], ["gpt2"])]
    [{'n_chars': [11], 'gpt2': [2]}]
    """
    engine = engine or InProcessEngine()
    pending: list[pd.DataFrame] = []

    def texts() -> Iterator[pd.DataFrame]:
        for chunk in chunks:
            pending.append(chunk)
            yield chunk[["text"]]

    for counts in engine.map(_count_task, texts(), tuple(tokenizer_names)):
        yield pending.pop(0), counts


def price_corpus(chunks: Iterable[pd.DataFrame], cost: CorpusCost, *, engine: str | Engine = "local",
                 scheduler: str | None = None, workers: int | None = None, progress: bool = False,
                 total_bytes: int | None = None) -> CostReport:
    """Feed chunks of requests (id, category, text) through `cost`, counting tokens on an engine.

    Each chunk is counted (on the workers), priced and reduced to sums before the next one is
    read, so memory stays bounded; the figures equal `cost.estimate` on the same requests.

    Raises:
        ValueError: no requests, or the errors of `CorpusCost.add`.
        EngineError: the engine could not run the work.
    """
    opened = open_engine(engine, scheduler=scheduler, workers=workers) if isinstance(engine, str) else engine
    try:
        with tqdm(total=total_bytes, disable=not progress, unit="B", unit_scale=True, unit_divisor=1024,
                  desc=f"cost x{len(cost.tokenizers)} tokenizers ({opened.name})", file=sys.stderr,
                  dynamic_ncols=True) as bar:
            for chunk, counts in count_tokens(chunks, cost.tokenizers, engine=opened):
                cost.add(chunk, counts)
                bar.update(int(chunk["text"].str.encode("utf-8", "surrogatepass").str.len().sum()) if progress else 0)
    finally:
        if isinstance(engine, str):
            opened.close()
    return cost.report()


# -- pricing chat logs ---------------------------------------------------------------------------
def _traffic_task(chunk: list[LogRecord], toks: Sequence[Tokenizer], *, plan: TrafficPlan, run: str) -> TrafficPartial:
    from ..cost import price_chunk

    with joined_run(run):  # the run's caches in this process (`analysis.memo`)
        return price_chunk(chunk, plan)  # tokenizers come from the worker's registry, by the plan's names


def _log_chars(chunk: list[LogRecord]) -> int:
    from ..requests.batch import counted_texts

    return sum(len(text) for record in chunk for text in counted_texts(record.request))


def _warm_plan(plan: TrafficPlan) -> None:
    from ..cost import warm_counters

    warm_counters([], plan)


def _prepare(engine: Engine, plan: TrafficPlan) -> None:
    """The plan's counters built wherever chunks will run, before the first chunk (`Engine.prepare`):
    a cluster's workers then do not each load the vocabularies while their first task waits."""
    import functools
    import hashlib
    import pickle

    name = hashlib.blake2b(pickle.dumps(tuple((t.ref, t.choice) for t in plan.targets)), digest_size=8).hexdigest()
    engine.prepare(functools.partial(_warm_plan, plan), name)


def _fold(plan: TrafficPlan, fold: bool, stream_after: int | None) -> Any:
    """Where the partials go as they come back, in order: a `LogFold` (memory flat in the rows of a
    log in time order), or, with `fold=False`, one partial that keeps every row's marks."""
    from ..cost.logs.fold import STREAM_AFTER, LogFold

    return LogFold(plan, stream_after=STREAM_AFTER if stream_after is None else stream_after) if fold else None


def price_logs(records: Iterable[LogRecord], plan: TrafficPlan, *, engine: str | Engine = "local",
               scheduler: str | None = None, workers: int | None = None, chunk_rows: int | None = None,
               progress: Callable[[int], None] | None = None, fold: bool = True,
               stream_after: int | None = None) -> TrafficPartial:
    """Chat-log pricing (`cost.price_records`) on an engine: each chunk of records is
    reduced to partial sums where it is counted, and the partials are merged here in order.

    The report of the result equals `price_records(records, plan)`'s on every engine; `progress(rows)`
    after each chunk. `chunk_rows`: records per task (None: `cost.CHUNK_ROWS`). `fold`: the partials
    folded as they come (`cost.logs.fold.LogFold`, after `stream_after` rows); a log longer than
    that whose rows go back in time raises `NotInTimeOrder`, and is priced again with `fold=False`.
    """
    from ..cost import CHUNK_ROWS, chunked, warm_counters

    chunk_rows = CHUNK_ROWS if chunk_rows is None else chunk_rows

    def warmed(chunks: Iterable[list[LogRecord]]) -> Iterator[list[LogRecord]]:
        # every model's counter (its tokenizer and format) built here before the pool forks, so each
        # worker inherits them instead of loading the vocabularies again
        for chunk in chunks:
            warm_counters(chunk, plan)
            yield chunk

    partial, _, _ = _price_chunks(_traffic_task, warmed(chunked(records, chunk_rows)), plan, {}, _log_chars,
                                  engine=engine, scheduler=scheduler, workers=workers, progress=progress, fold=fold,
                                  stream_after=stream_after)
    return partial


def _price_chunks(task: Callable[..., Any], chunks: Iterable[Any], plan: TrafficPlan, params: dict[str, Any],
                  size: Callable[[Any], int], *, engine: str | Engine, scheduler: str | None, workers: int | None,
                  progress: Callable[[int], None] | None, fold: bool, stream_after: int | None
                  ) -> tuple[TrafficPartial, LogReport, int]:
    """The one loop of log pricing: the chunks priced by `task` on the engine inside one run (its
    caches, `analysis.memo`), the partials folded or merged here in order, with the chunks' reports."""
    from ..cost import LogReport, TrafficPartial

    opened = open_engine(engine, scheduler=scheduler, workers=workers) if isinstance(engine, str) else engine
    total, report, kept = TrafficPartial(), LogReport(), 0
    try:
        with open_run() as run:
            _prepare(opened, plan)
            folder = _fold(plan, fold, stream_after)
            for result in opened.map(task, chunks, (), params={"plan": plan, "run": run.key, **params}, size=size):
                partial, part_report, part_kept = result if isinstance(result, tuple) else (result, None, 0)
                rows = partial.rows
                if folder is None:
                    total.merge(partial)
                else:
                    folder.add(partial)
                if part_report is not None:
                    report.merge(part_report)
                kept += part_kept
                if progress is not None:
                    progress(rows)
            if folder is not None:
                total = folder.result()
    finally:
        if isinstance(engine, str):
            opened.close()
    return total, report, kept


def _log_chunk_task(chunk: RowChunk, toks: Sequence[Tokenizer], *, plan: TrafficPlan, run: str,
                    system: str | None) -> tuple[TrafficPartial, LogReport, int]:
    from ..cost import price_chunk, with_system

    with joined_run(run):  # the run's caches in this process (`analysis.memo`)
        records, report = chunk.records()  # the rows are parsed here, on the worker
        kept = [0]
        return price_chunk(list(with_system(records, system, kept)), plan), report, kept[0]


def price_log_chunks(chunks: Iterable[RowChunk], plan: TrafficPlan, *, system: str | None = None,
                     engine: str | Engine = "local", scheduler: str | None = None, workers: int | None = None,
                     progress: Callable[[int], None] | None = None, fold: bool = True,
                     stream_after: int | None = None) -> tuple[TrafficPartial, LogReport, int]:
    """`price_logs` of the rows of `cost.iter_log_chunks`, each chunk parsed where it is priced (so
    JSON and request parsing run on every core, and only lines cross processes).

    Returns the merged partial, the rows read and skipped (the chunks' reports, merged in order)
    and how many requests kept their own system prompt where `system` was given (`cost.with_system`).
    The numbers equal `price_logs(iter_log_records(...))`'s on every engine; `fold` and
    `stream_after` as there.
    """
    from ..cost import warm_counters

    def warmed(chunks: Iterable[RowChunk]) -> Iterator[RowChunk]:
        # the counters the chunk will use built here before the pool forks (see `price_logs`): the
        # targets', and the serving models' of the rows read here and of the chunk's first line
        for chunk in chunks:
            warm_counters(chunk.parsed + chunk.sample(), plan)
            yield chunk

    return _price_chunks(_log_chunk_task, warmed(chunks), plan, {"system": system}, lambda chunk: chunk.chars,
                         engine=engine, scheduler=scheduler, workers=workers, progress=progress, fold=fold,
                         stream_after=stream_after)
