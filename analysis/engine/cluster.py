"""The Dask engine: chunks measured on a Dask cluster, or on a LocalCluster started for the run.

Unlike the local engine (a process pool this process owns), the workers here belong to a
Dask scheduler: `scheduler="tcp://host:8786"` joins a running cluster (started with
`dask scheduler` and `dask worker`), and no address starts a `LocalCluster` of one
single-threaded worker process per core and stops it afterwards. Its workers are forks of this
process where the local engine would fork (`_worker_start`), so they start with the package
imported and the tokenizers loaded.

Each task is one chunk: `run_chunk(fn, chunk, names, params)`. A worker loads each tokenizer
once, through the per-process cache in `base`, and keeps it for every later task; adapters
never travel. A worker that dies mid-task is replaced by the scheduler, which runs its tasks
elsewhere (up to its `allowed-failures`); a task that raises is retried twice. Results come
back in chunk order with at most two chunks per worker in flight, so memory on this side stays
bounded. A scheduler that does not answer within `timeout` seconds is an `EngineError`.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from concurrent.futures import CancelledError
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

from .base import WORKER_ENV, ChunkFn, EngineError, SizeFn, default_workers, frame_chars, run_chunk

RETRIES = 2
MAX_LOST = 8  # chunks lost with dying workers before the run is an error, not a loop
# Dask's own periodic work, slowed on a cluster we start (a user's cluster keeps its settings). Idle,
# a LocalCluster of two workers spent about 3.6% of a core in each of this process and the two
# workers (the event loops' 20 ms tick, the 0.5 s system and 0.1 s memory monitors): about 1.4 CPU s
# of a 20 s run; with these, close to none (docs/performance.md, issue 44). The statistical
# profiler, sampling every thread every 10 ms, is off. The tick only measures how long the event
# loop was blocked; the system monitor feeds the dashboard's plots; the memory monitor checks the
# workers' memory limit every second instead of ten times a second.
QUIET = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s",
         "distributed.admin.system-monitor.interval": "5s", "distributed.worker.memory.monitor-interval": "1s"}
_START = ("Start a scheduler (`dask scheduler`, then `dask worker ADDRESS` on each machine), check the address, "
          "or leave out --scheduler to start a cluster on this machine")
# The first message of a Dask scheduler (its handshake) is a few hundred bytes; Dask reads the
# first 8 bytes as the length of what follows, so a larger "length" is someone else talking.
_HANDSHAKE_MAX = 1 << 20


def probe_scheduler(address: str, timeout: float) -> None:
    """Refuse, within `timeout` seconds, a tcp:// address where no Dask scheduler answers.

    A Dask scheduler sends its handshake as soon as a connection opens. A closed port, a server
    that says nothing (an HTTP server waits for a request) or one whose first bytes are not a
    Dask frame (an SSH banner, a database greeting) is an `EngineError` naming the address and
    what answered; Dask itself would hang or try to allocate the "length" it read. Addresses of
    other transports (tls://, ucx://) are left to Dask.
    """
    import socket
    import struct
    import time

    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return
    host, _, port = rest.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        raise EngineError(f"--scheduler {address}: write the address as tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)") from None
    deadline = time.monotonic() + timeout
    first: bytes | None = None  # None: not connected
    try:
        with socket.create_connection((host.strip("[]") or "127.0.0.1", number), timeout=timeout) as conn:
            first = b""
            while len(first) < 8:
                conn.settimeout(max(deadline - time.monotonic(), 0.001))
                got = conn.recv(8 - len(first))
                if not got:
                    break
                first += got
    except TimeoutError:
        if first is None:
            raise EngineError(f"no Dask scheduler answers at {address} within {timeout:g} s (the connection was not "
                              f"accepted). {_START}") from None
        raise EngineError(f"something accepts connections at {address} but is not a Dask scheduler: it sent "
                          f"{repr(first) if first else 'nothing'} within {timeout:g} s, where a scheduler sends its "
                          f"handshake at once (an HTTP server or another service on that port?). {_START}") from None
    except OSError as e:
        raise EngineError(f"no Dask scheduler answers at {address} within {timeout:g} s ({e}). {_START}") from None
    if len(first) < 8:
        raise EngineError(f"something at {address} closed the connection after {len(first)} byte(s) "
                          f"({first!r}): not a Dask scheduler. {_START}")
    (length,) = struct.unpack("Q", first)
    if not 0 < length <= _HANDSHAKE_MAX:
        raise EngineError(f"something at {address} is not a Dask scheduler: it answered {first!r}, which is not "
                          f"the start of a Dask message. {_START}")


class _OneCorePerTask(WorkerPlugin):
    """A Dask worker plugin: each task encodes on one core (the worker's task threads are the parallelism)."""

    def setup(self, worker: object) -> None:
        os.environ.update(WORKER_ENV)


class _Warm(WorkerPlugin):
    """A Dask worker plugin: `warm()` once on each worker (and on workers that join later) before
    its tasks, e.g. the counters a plan's chunks use; on a forked worker that has them, a no-op."""

    def __init__(self, warm: Callable[[], None]) -> None:
        self.warm = warm

    def setup(self, worker: object) -> None:
        self.warm()


class DaskEngine:
    """Chunks as Dask tasks; see the module docstring."""

    name = "dask"
    # four times the pool's rows per task: Dask's own cost is about 0.1 CPU s a task (scheduler,
    # client, nannies); 100,000 short chats on 2 workers went from 0.83x to 0.86-0.89x the local
    # engine's speed (2026-12-04, docs/performance.md)
    rows_per_task = 16384

    def __init__(self, scheduler: str | None = None, *, workers: int | None = None, timeout: float = 10.0,
                 dashboard: bool = True) -> None:
        from dask.distributed import Client, LocalCluster

        self.scheduler = scheduler
        self.cluster = None
        if scheduler:
            probe_scheduler(scheduler, timeout)
            try:
                self.client = Client(scheduler, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError) as e:
                raise EngineError(f"no Dask scheduler answers at {scheduler} within {timeout:g} s ({e}). {_START}") from None
            except Exception as e:  # the handshake failed: what answered is not a Dask scheduler of this version
                raise EngineError(f"what answers at {scheduler} does not speak Dask's protocol ({type(e).__name__}: "
                                  f"{e}). {_START}") from None
        else:
            # a free port for the dashboard (it is served only when bokeh is installed; starting it
            # costs about 0.4 s of CPU, so a run nobody watches goes without)
            address = ":0" if dashboard else None
            import dask

            with dask.config.set({"distributed.worker.multiprocessing-method": _worker_start(), **QUIET}):
                self.cluster = LocalCluster(n_workers=workers or default_workers(), threads_per_worker=1,
                                            processes=True, dashboard_address=address, silence_logs=logging.ERROR,
                                            env=dict(WORKER_ENV))
                self.client = Client(self.cluster, set_as_default=False)
        # workers started by someone else get one core per task too (and so do workers that
        # join later: the scheduler runs a registered plugin on every worker it meets)
        self.client.register_plugin(_OneCorePerTask(), name="tokenprism-one-core-per-task")
        self.workers = max(1, len(self.client.scheduler_info()["workers"]))
        self._direct = True  # chunks and results straight between this process and the workers

    @property
    def dashboard_link(self) -> str | None:
        """The Dask dashboard's address, when the scheduler runs one."""
        try:
            return self.client.dashboard_link if self.client.scheduler_info().get("services", {}).get("dashboard") else None
        except (KeyError, OSError):
            return None

    def worker_pids(self) -> dict[str, int]:
        """Worker address -> process id (for tests that kill one)."""
        return self.client.run(os.getpid)

    def prepare(self, warm: Callable[[], None], name: str) -> None:
        """Run `warm` on every worker before the next tasks (and on workers that join later);
        `name` identifies it, so preparing twice with one name runs it once per worker."""
        self.client.register_plugin(_Warm(warm), name=f"tokenprism-warm-{name}")

    def map(self, fn: ChunkFn, chunks: Iterable[Any], names: Sequence[str], *,
            params: Mapping[str, Any] | None = None, size: SizeFn = frame_chars) -> Iterator[Any]:
        params = dict(params or {})
        names = tuple(names)
        window = 2 * max(self.workers, len(self.client.scheduler_info()["workers"]))
        pending: deque[list[Any]] = deque()  # [chunk, its future]: a chunk is held until its result is back
        it = iter(chunks)
        lost = 0
        try:
            while True:
                while len(pending) < window:
                    chunk = next(it, None)
                    if chunk is None:
                        break
                    pending.append([chunk, self._submit(fn, chunk, names, params)])
                if not pending:
                    return
                try:
                    result = self.client.gather(pending[0][1], direct=self._direct)
                except CancelledError:  # its worker died with the chunk, which no task can recompute: send it again
                    lost += 1
                    if lost > MAX_LOST:
                        raise EngineError(f"Dask lost {lost} chunks with their workers; is memory short? Try "
                                          "fewer or larger workers") from None
                    pending[0][1] = self._submit(fn, pending[0][0], names, params)
                    continue
                pending.popleft()
                yield result
        except BaseException:  # Ctrl-C, a failed task or an early stop: drop the queued work
            self.client.cancel([entry[1] for entry in pending])
            raise

    def _submit(self, fn: ChunkFn, chunk: Any, names: tuple[str, ...], params: dict[str, Any]) -> Any:
        """One chunk as a task. The chunk goes straight to a worker (`scatter(direct=True)`, round
        robin) and the task runs there, so its bytes cross one connection instead of two through
        the scheduler; results come back the same way. Where this process cannot reach the
        workers, both go through the scheduler, as Dask does by default."""
        data = chunk
        if self._direct:
            try:
                data = self.client.scatter(chunk, direct=True, hash=False)
            except OSError:
                self._direct = False
        # pure=False: two equal chunks are two tasks (and a retried chunk is not a cache hit)
        return self.client.submit(run_chunk, fn, data, names, params, retries=RETRIES, pure=False)

    def describe(self) -> str:
        where = f"Dask scheduler {self.scheduler}" if self.scheduler else "Dask LocalCluster"
        link = self.dashboard_link
        return f"{where}, {self.workers} worker(s)" + (f"; dashboard {link}" if link else "")

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()

    def __enter__(self) -> "DaskEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _worker_start() -> str:
    """How a LocalCluster starts its worker processes: "fork" when the local engine would fork here, else "spawn".

    A forked worker inherits this process's imports (pandas, the package) and the tokenizers it
    has loaded, as the local engine's workers do; a spawned one imports and loads them all again:
    about 3 s of CPU per worker for o200k_base + cl100k_base with Dask's own imports, 4-5 s of CPU
    on a 2-worker run (docs/measuring.md). The rule is the local engine's (`local.start_method`):
    a process that already runs other threads (a server, a dashboard) spawns. The cluster's own
    event-loop thread forks the workers while the caller's thread waits for it.
    """
    from .local import start_method

    return start_method()
