"""The engine interface, the per-process tokenizer shelf, and the in-process engine.

Unlike `local` (a process pool) and `cluster` (Dask), nothing here starts a process: this
module defines what every engine promises (`Engine.map`: chunk results in chunk order, a
bounded number of chunks in flight) and the shelf through which a worker process loads each
tokenizer once, by name, however many chunks and runs it measures (a `memo.Shelf`: a process
resource, not a run's cache, which the run's own caches, `memo.RunCaches`, are).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from ..errors import BadInput
from ..memo import Shelf
from ..tokenizers import Tokenizer, load_tokenizer
from ..tokenizers.base import ENCODE_THREADS_ENV

ENGINES = ("local", "dask", "inprocess")
# A chunk function: (chunk of records, loaded tokenizers, **params) -> small sums (a frame, or an
# object with a `merge`, such as chat-log pricing's partial sums).
ChunkFn = Callable[..., Any]
# How many characters a chunk holds (for the local engine's "small input" rule).
SizeFn = Callable[[Any], int]


def frame_chars(chunk: Any) -> int:
    """Characters in a chunk frame's `text` column (0 for anything else)."""
    pd = sys.modules.get("pandas")  # a chunk can be a frame only once pandas is imported
    if pd is not None and isinstance(chunk, pd.DataFrame) and "text" in chunk and len(chunk):
        # `len` over the list, not `.str.len()`, which maps a Python function over an object column
        return sum(map(len, chunk["text"].tolist()))
    return 0

# The environment of every worker process (pool or cluster): one core each, because the workers
# are the parallelism; thread pools inside each (tiktoken's batch, HF's rayon) would only compete.
WORKER_ENV = {"RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", ENCODE_THREADS_ENV: "1"}

# This process's tokenizers, by name: a worker loads each once (initializer or first chunk) and
# reuses it for every chunk of every run. The in-process engine may add adapters that are not in
# the registry (`provide_tokenizers`).
_LOADED: Shelf[str, Tokenizer] = Shelf("the engine's tokenizers by name")


class EngineError(BadInput, OSError):
    """An engine could not run the work (a scheduler that does not answer, workers that keep dying).

    A BadInput: the fix is the caller's (another scheduler address, fewer workers, smaller
    chunks), and the message names it. Still an OSError, as it always was, for callers that
    catch that.
    """


def worker_tokenizers(names: Sequence[str]) -> tuple[Tokenizer, ...]:
    """The tokenizers called `names`, loaded once per process and cached.

    >>> worker_tokenizers(["gpt2"])[0] is worker_tokenizers(("gpt2",))[0]
    True
    """
    return tuple(_LOADED.get(name, load_tokenizer) for name in names)


def provide_tokenizers(toks: Iterable[Tokenizer]) -> None:
    """Make adapters that are not in the registry (trained, custom) known to this process by name."""
    for tok in toks:
        _LOADED.put(tok.name, tok)


def run_chunk(fn: ChunkFn, chunk: Any, names: Sequence[str], params: Mapping[str, Any]) -> Any:
    """What a worker runs for one chunk: tokenizers from the per-process cache, then the chunk function."""
    return fn(chunk, worker_tokenizers(names), **params)


def default_workers() -> int:
    """Worker processes for the local engine: one per core."""
    return os.cpu_count() or 1


class Engine(Protocol):
    """Where chunks are measured. Used as a context manager; `close` stops whatever it started."""

    name: str
    workers: int
    # log rows per task: a task's fixed cost is small in a process pool, about 0.1 CPU s on Dask
    rows_per_task: int

    def map(self, fn: ChunkFn, chunks: Iterable[Any], names: Sequence[str], *,
            params: Mapping[str, Any] | None = None, size: SizeFn = frame_chars) -> Iterator[Any]:
        """`fn(chunk, tokenizers, **params)` for each chunk; results in chunk order, few chunks in flight.

        `size(chunk)` counts a chunk's characters (the local engine keeps small inputs in this process).
        """
        ...

    def prepare(self, warm: Callable[[], None], name: str) -> None:
        """Run `warm` (build what the chunks will use, e.g. a plan's counters) once in every process
        that will run chunks, before them: here before a pool forks (the workers inherit it), on each
        worker of a cluster. `name` identifies the preparation."""
        ...

    def describe(self) -> str:
        """One line for humans: where the work runs (and the Dask dashboard address, if any)."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> "Engine": ...

    def __exit__(self, *exc: object) -> None: ...


class InProcessEngine:
    """Chunk after chunk in this process (the tokenizers' own threads still run in parallel)."""

    name = "inprocess"
    workers = 1
    rows_per_task = 4096

    def map(self, fn: ChunkFn, chunks: Iterable[Any], names: Sequence[str], *,
            params: Mapping[str, Any] | None = None, size: SizeFn = frame_chars) -> Iterator[Any]:
        for chunk in chunks:
            yield run_chunk(fn, chunk, names, params or {})

    def prepare(self, warm: Callable[[], None], name: str) -> None:
        warm()

    def describe(self) -> str:
        return "in this process"

    def close(self) -> None:
        pass

    def __enter__(self) -> "InProcessEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
