"""The local engine: a pool of worker processes, one per core, fed chunks of samples.

Unlike the in-process engine (one process; pure-Python work such as word counts and ownbpe
holds the GIL) and Dask (many machines, a scheduler in between), this engine is a
`ProcessPoolExecutor` on this machine. Each worker has its tokenizers once, by name, from its
initializer, and then receives chunks of samples (never an adapter). Inputs too small to
repay the start-up are measured in this process.

Start-up: where the platform forks and this process runs no other Python thread, the workers
are forks of this process, taken after it has loaded the tokenizers, so they inherit the
imported modules and the loaded vocabularies and start in milliseconds. A spawned worker
imports pandas and the package and loads every tokenizer itself: about 1.1 s of CPU per worker
for o200k_base + cl100k_base, as much as tokenizing 3 MB (see docs/measuring.md). A process
running other threads (a server, a Dask client) spawns, because a fork copies only
the forking thread and any lock another thread held stays held in the child.

Faults: a worker that dies (killed, out of memory) breaks the pool; the pool is started again
and every chunk not yet returned is sent again, so the results are the same. Ctrl-C (or any
error) terminates the workers at once. Workers ignore SIGINT themselves: the terminal sends it
to the whole process group, and the parent, not each worker, decides what happens.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any


from .base import WORKER_ENV, ChunkFn, EngineError, SizeFn, frame_chars, run_chunk, worker_tokenizers

# Below this many characters in all, an input is measured in this process: starting the
# workers (a second or so) would cost more than it saves.
SMALL_INPUT_CHARS = 4_000_000
# ... or chunks: a chunk's size may count no characters at all (log rows with empty messages),
# and without a count bound such an input would be held here whole before any work started.
SMALL_INPUT_CHUNKS = 16
MAX_RESTARTS = 3  # a chunk that kills every worker it meets is an error, not a loop


def start_method() -> str:
    """"fork" where the platform has it and this process runs no other Python thread, else "spawn".

    tqdm's monitor thread does not count: any bar starts it (a disabled one too), and it only
    sleeps and takes tqdm's own lock, which no worker uses.
    """
    from tqdm._monitor import TMonitor

    others = [t for t in threading.enumerate() if t is not threading.current_thread() and not isinstance(t, TMonitor)]
    return "fork" if "fork" in mp.get_all_start_methods() and not others else "spawn"


def _init_worker(names: Sequence[str]) -> None:
    from ..tokenizers import build_engines

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.update(WORKER_ENV)
    build_engines(worker_tokenizers(names))  # after a fork: already built, nothing to do


class LocalEngine:
    """A process pool over `workers` processes (default: os.cpu_count())."""

    name = "local"
    rows_per_task = 4096

    def __init__(self, workers: int, *, small_input_chars: int = SMALL_INPUT_CHARS,
                 small_input_chunks: int = SMALL_INPUT_CHUNKS) -> None:
        self.workers = workers
        self.small_input_chars = small_input_chars
        self.small_input_chunks = small_input_chunks
        self.restarts = 0  # pools started again after a worker died (for tests and reports)
        self.start_method = ""  # how the last pool's workers started ("fork" or "spawn"), once started
        self._pool: ProcessPoolExecutor | None = None
        self._names: tuple[str, ...] = ()

    # -- the pool ---------------------------------------------------------------------------
    def _start(self, names: Sequence[str]) -> ProcessPoolExecutor:
        if self._pool is None:
            # either way the workers are our children, so their CPU time shows in this process's rusage
            method = start_method()
            ctx = mp.get_context(method)
            self._names = tuple(names)
            self.start_method = method
            if method == "fork":  # loaded and built once, here: every fork inherits them
                from ..tokenizers import build_engines

                build_engines(worker_tokenizers(self._names))
            self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_init_worker,
                                             initargs=(self._names,))
        return self._pool

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers (empty before the pool starts)."""
        # ProcessPoolExecutor keeps its processes in a private dict; there is no public accessor
        procs = (self._pool._processes or {}).values() if self._pool else ()
        return [p.pid for p in procs if p.pid is not None]

    def _kill(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for proc in list((pool._processes or {}).values()):
            if proc.is_alive():
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)

    # -- the work ---------------------------------------------------------------------------
    def map(self, fn: ChunkFn, chunks: Iterable[Any], names: Sequence[str], *,
            params: Mapping[str, Any] | None = None, size: SizeFn = frame_chars) -> Iterator[Any]:
        params = dict(params or {})
        it = iter(chunks)
        head: list[Any] = []
        chars = 0
        for chunk in it:
            head.append(chunk)
            chars += size(chunk)
            if chars >= self.small_input_chars or len(head) >= self.small_input_chunks:
                break
        else:  # the whole input fitted under the threshold: measure it here
            for chunk in head:
                yield run_chunk(fn, chunk, names, params)
            return
        yield from self._pooled(fn, _chain(head, it), names, params, size)

    def _pooled(self, fn: ChunkFn, chunks: Iterator[Any], names: Sequence[str],
                params: dict[str, Any], size: SizeFn) -> Iterator[Any]:
        window = 2 * self.workers  # every worker busy, one chunk queued behind it; memory stays bounded
        pending: deque[list[Any]] = deque()

        def submit(chunk: Any) -> Future:
            return self._start(names).submit(run_chunk, fn, chunk, tuple(names), params)

        try:
            while True:
                while len(pending) < window:
                    chunk = next(chunks, None)
                    if chunk is None:
                        break
                    pending.append([chunk, submit(chunk)])
                if not pending:
                    return
                try:
                    result = pending[0][1].result()
                except BrokenProcessPool:
                    self.restarts += 1
                    if self.restarts > MAX_RESTARTS:
                        # `size`, not len: a chunk may be a part description (files), not a frame
                        raise EngineError(f"worker processes died {self.restarts} times; the last chunk held "
                                          f"{size(pending[0][0]):,} characters. Is memory short? Try fewer workers "
                                          "(--workers) or smaller inputs") from None
                    self._kill()
                    for entry in pending:  # chunk functions are pure: running a chunk twice is safe
                        entry[1] = submit(entry[0])
                    continue
                pending.popleft()
                yield result
        except BaseException:  # Ctrl-C, a bad chunk, or the consumer stopping early: stop the workers now
            self._kill()
            raise

    def prepare(self, warm: Callable[[], None], name: str) -> None:
        """`warm` here, now: the workers, forked when the pool starts, inherit what it built (a spawned
        worker builds it on its first chunk)."""
        warm()

    def describe(self) -> str:
        return f"local process pool, {self.workers} worker(s)"

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> "LocalEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is not None:
            self._kill()
        self.close()


def _chain(head: list[Any], rest: Iterator[Any]) -> Iterator[Any]:
    while head:
        yield head.pop(0)  # drop our reference as we go, so a chunk lives only while in flight
    yield from rest
