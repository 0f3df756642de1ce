"""Measuring a run's sources on one open engine, into one tally: the built-in corpora, a parallel corpus, the user's files.

Unlike `run.measure` (one stream of samples) and `parts.tally_files` (the user's files, each
part read by a worker), this module plans a whole run as `tokenprism measure` asks for it, and
chooses for each source how it is read:

* the built-in corpora and a parallel corpus: read here and streamed to the engine
  (`run.measure`); the parallel corpus's rows are always kept (its language premium needs them);
* the user's files: each worker reads its own part (`parts.tally_files`), which also writes the
  part's rows into a Parquet dataset when one is asked for, unless the rows must come back here
  (`rows`, a table file) or the dataset's folder is not the workers' (a Dask scheduler elsewhere).
  Then this process reads the files chunk by chunk, tables through Arrow.

Every source's sums add up in one `pipeline.Tally`: with only text files and no rows, nothing
here imports pandas.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..corpora.sample import LoadReport
from ..pipeline.tally import Tally
from ..pipeline.metrics import count_columns
from ..tokenizers import Tokenizer
from .base import Engine

if TYPE_CHECKING:
    import pandas as pd

    from .output import PartitionedParquet


@dataclass(frozen=True)
class Sources:
    """What one run measures, and how the user's files are read."""

    builtin: bool = False  # the built-in corpora
    categories: str | Sequence[str] | None = None  # only these built-in categories (as `load_builtin`); None: all
    parallel: str | None = None  # a parallel corpus's folder: its texts joined per language
    files: tuple[str, ...] = ()  # the user's files, folders, patterns or fsspec URLs
    category: str | None = None  # the user's files' labels (as `read.iter_corpus_chunks`)
    language: str = "und"
    column: str | None = None
    errors: str = "strict"  # UTF-8 errors, in the files and the parallel corpus

    def describe(self) -> list[str]:
        """The sources in words, in the order they are measured."""
        return (["built-in corpora"] if self.builtin else []) + ([f"parallel {self.parallel}"] if self.parallel else []) \
            + list(self.files)


@dataclass
class SourcesRun:
    """What `measure_sources` found: the sums of every source, and what the caller shows beside them."""

    tally: Tally
    rows: list[pd.DataFrame] = field(default_factory=list)  # per-row frames kept, in source order
    parallel: Any = None  # the parallel corpus as measured (its samples frame), for its language premium
    parallel_rows: pd.DataFrame | None = None
    report: LoadReport | None = None  # what was read of the user's files (None: no files)
    file_samples: int = 0  # samples read from the user's files


def measure_sources(sources: Sources, toks: Sequence[Tokenizer], *, engine: Engine, keys: list[str],
                    metrics: tuple[str, ...], out: PartitionedParquet | None = None, rows: bool = False,
                    scheduler: str | None = None, progress: bool = False) -> SourcesRun:
    """Measure every source of `sources` x `toks` on the open `engine`, grouped by `keys` (the tokenizer last).

    Args:
        out: a Parquet dataset that every source's rows go to (the caller commits or aborts it).
        rows: keep every source's per-row frame (for a table file).
        scheduler: the Dask scheduler's address when the engine's workers are elsewhere: they
            cannot write into this machine's dataset, so the files are then read here.
        progress: progress bars on stderr.
    """
    from .. import corpora as corpus

    found = SourcesRun(Tally(keys, count_columns(metrics)))

    def run(samples: Any, *, keep: bool = False, total: int | None = None) -> Any:
        from .run import measure  # frames: only for a source read here (text files read by workers need none)

        r = measure(samples, toks, engine=engine, by=keys, out=out, rows=keep or rows, progress=progress,
                    total_bytes=total, metrics=metrics)
        found.tally.add_frame(r.sums)
        if r.rows is not None:
            found.rows.append(r.rows)
        return r

    if sources.builtin:
        run(corpus.load_builtin(sources.categories or None))
    if sources.parallel:
        found.parallel = corpus.load_parallel(sources.parallel, joined=True, join=" ", errors=sources.errors)
        found.parallel_rows = run(found.parallel, keep=True).rows
    if sources.files:
        report = found.report = LoadReport()
        paths, src = list(sources.files), sources
        if not rows and not (out is not None and scheduler):
            # each worker reads its own part of the files and returns sums; with a dataset it also
            # writes the part's rows into the dataset's folder
            from .parts import tally_files

            files = tally_files(paths, toks, by=keys, engine=engine, category=src.category, language=src.language,
                                column=src.column, errors=src.errors, report=report, progress=progress,
                                metrics=metrics, out=out)
            found.tally.merge(files.tally)
            found.file_samples = files.n_samples
        else:
            from ..corpora.files import expand_paths
            from .read import SUMS_CHUNK_SAMPLES, iter_corpus_chunks

            total = sum(p.stat().st_size for p, _ in expand_paths(paths))
            # rows held here, or a remote cluster: the files are read chunk by chunk here (tables
            # through Arrow), scripts detected by the workers; frames as large as the tasks
            chunks = iter_corpus_chunks(paths, category=src.category, language=src.language, column=src.column,
                                        errors=src.errors, report=report, chunk_samples=SUMS_CHUNK_SAMPLES)
            found.file_samples = run(chunks, total=total).n_samples
    return found
