"""Where measuring runs: in this process, on every core of this machine, or on a Dask cluster.

Unlike `analysis.pipeline` (what one chunk of samples measures to, and how sums become
ratios), this package decides *where* chunks are measured and how their results come back.
The numbers never depend on it: every engine runs the same pure chunk functions, and
aggregates are integer sums added up group by group, with ratios taken once at the end.

Engines (`--engine` on the command line, `engine=` in Python):

* ``inprocess``: this process, chunk after chunk. Small inputs always run here.
* ``local`` (the default): a process pool over ``os.cpu_count()`` workers. Each worker has
  its tokenizers once (a per-process shelf, `memo.Shelf`: inherited when the workers are forks of
  this process, which loaded them first; filled by the pool's initializer when they are spawned)
  and receives chunks of samples, never a pickled adapter. A worker that dies is replaced and its chunks
  are run again.
* ``dask``: a Dask cluster (``scheduler="tcp://host:8786"``) or, with no address, a
  ``LocalCluster`` on this machine. Workers load tokenizers once through the same
  per-process shelf; the scheduler retries the chunks of a worker that dies.

The API, for measuring and for anything else that reduces chunks of records to sums (chat-log
pricing, for example)::

    from analysis.engine import open_engine

    def my_chunk_fn(chunk: pd.DataFrame, toks: tuple[Tokenizer, ...], **params) -> pd.DataFrame:
        ...                                          # pure: same chunk in, same frame out
        return partial_sums_frame                    # small: sums, not one row per record

    with open_engine("local") as engine:             # or "dask", scheduler=...; "inprocess"
        for result in engine.map(my_chunk_fn, chunks, ("o200k_base",), params={...}):
            ...                                      # results in chunk order

`engine.map` sends the tokenizer *names*; in each worker process they are loaded once
(`worker_tokenizers`, from a per-process `memo.Shelf`: a process resource kept for every run, not
one of a run's caches, which `memo.RunCaches` holds and empties when the run ends) and passed to
the function as adapters, in the order given. `count_tokens`, `price_corpus` and `price_logs`
(cost) and `measure` are built this way.

Rules for a chunk function: a module-level function (pickled by reference), arguments and
result are plain frames, names and numbers; it must be pure, because a chunk whose worker died
is run again; it must return counts or sums, never ratios, so that partial results add up.
`engine.map` holds only a bounded number of chunks in flight, so an endless iterator of chunks
streams through in bounded memory.

`measure` (in `run`) is measuring on an engine: the full per-row frame, aggregates only
(`by=`), or rows streamed to a partitioned Parquet dataset (`out=`); this process reads the
input. `measure_files` (in `parts`) gives the same aggregates, but each worker reads its own
part of the user's files (whole files, or byte ranges of JSON Lines), so only small
descriptions and sums travel; `tally_files` gives them as plain integers (no pandas), and
writes the per-row dataset from the workers when asked (`out=`). `measure_sources` (in
`sources`) plans a whole run of `tokenprism measure`: the built-in corpora, a parallel corpus and
the user's files on one engine, each read the way it must be, into one tally.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .base import (
        ENGINES as ENGINES,
        Engine as Engine,
        EngineError as EngineError,
        worker_tokenizers as worker_tokenizers,
    )
    from .choose import open_engine as open_engine
    from .parts import measure_files as measure_files, tally_files as tally_files
    from .sources import Sources as Sources, SourcesRun as SourcesRun, measure_sources as measure_sources
    from .run import (coalesce_chunks as coalesce_chunks, count_tokens as count_tokens, measure as measure, MeasureRun as MeasureRun,
                      price_corpus as price_corpus, price_log_chunks as price_log_chunks,
                      price_logs as price_logs)

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('ENGINES', 'Engine', 'EngineError', 'worker_tokenizers'), '.base'),
    **dict.fromkeys(('open_engine',), '.choose'),
    **dict.fromkeys(('measure_files', 'tally_files'), '.parts'),
    **dict.fromkeys(('Sources', 'SourcesRun', 'measure_sources'), '.sources'),
    **dict.fromkeys(('coalesce_chunks', 'count_tokens', 'measure', 'MeasureRun', 'price_corpus', 'price_log_chunks', 'price_logs'), '.run'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
