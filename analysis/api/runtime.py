"""What one service process holds while it runs: its tokenizers, its encoding threads, its metrics.

Unlike `settings` (what was asked for) this is what is: the tokenizers loaded at startup (in
parallel, in the background, so /healthz answers at once and /readyz turns ready when they are
in), the thread pool that runs encoding off the event loop, and the Prometheus metrics. The
Rust engines release the GIL while they encode, so a pool of one thread per core keeps the
cores busy while the event loop keeps accepting requests.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import struct
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, Callable, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from ..errors import MAX_NAME, closest, shown
from ..tokenizers import CATALOGUE, Tokenizer, available_tokenizers, build_engines, load_tokenizer
from .problems import Problem, check_limit
from .settings import Settings

T = TypeVar("T")
_log = logging.getLogger("tokenprism.api")
# Buckets from 0.5 ms: a 1 KB count answers in about a millisecond.
# Work up to this many characters x tokenizers runs on the event loop itself: encoding 4,096
# characters takes tens of microseconds, less than handing it to a thread and back, and a
# thread that holds the GIL makes the loop wait up to the interpreter's switch interval (5 ms)
# for it. Anything larger goes to the pool. (bench_api measures both sides of this line.)
INLINE_WORK = 4_096
_READ_TRIES = 20  # reads of the workers' metrics files before /metrics answers 503 (see `exposition`)
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """The service's Prometheus metrics, in a registry of their own (one per app).

    With several workers, `tokenprism serve` sets PROMETHEUS_MULTIPROC_DIR and each worker's
    values go to files there, which /metrics adds up.
    """

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter("tokenprism_http_requests", "HTTP requests answered", ["method", "route", "status"], registry=r)
        self.latency = Histogram("tokenprism_http_request_duration_seconds", "Time to answer a request",
                                 ["route"], buckets=_BUCKETS, registry=r)
        self.tokens = Counter("tokenprism_tokens_counted", "Tokens counted, per tokenizer", ["tokenizer"], registry=r)
        self._token_series: dict[str, Any] = {}
        self.loaded = Gauge("tokenprism_tokenizers_loaded", "Tokenizers loaded and served", registry=r,
                            multiprocess_mode="max")
        self.ready = Gauge("tokenprism_ready", "1 when every tokenizer is loaded", registry=r, multiprocess_mode="min")

    def count_tokens(self, tokenizer: str, n: int) -> None:
        """Add `n` to the tokens counted by `tokenizer` (its series resolved once, then reused)."""
        child = self._token_series.get(tokenizer)
        if child is None:
            child = self._token_series[tokenizer] = self.tokens.labels(tokenizer)
        child.inc(n)

    def exposition(self) -> tuple[bytes, str]:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
            # The workers' files are read while their owners write them. A file read just after
            # it was created (empty) or while its owner grows it (its header already counts
            # entries past the bytes read) fails to unpack: a struct.error, once 1 start in 6.
            # The file is whole again microseconds later, so read again.
            for attempt in range(_READ_TRIES):
                try:
                    return generate_latest(registry), CONTENT_TYPE_LATEST
                except struct.error:
                    time.sleep(0.005 * (attempt + 1))
            raise Problem(503, "the workers' metrics files were being written during every read; retry",
                          type_="metrics-busy", headers={"Retry-After": "1"})
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


class Runtime:
    """Tokenizers, threads and metrics of one process; `start` and `stop` run in the app's lifespan."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.metrics = Metrics()
        self.tokenizers: dict[str, Tokenizer] = {}
        self.names: tuple[str, ...] = tuple(settings.tokenizers) or tuple(available_tokenizers())
        self.error: str | None = None
        self.unavailable: dict[str, str] = {}  # name -> why it failed to load (the others are served)
        self.started = time.monotonic()
        self.seconds_to_ready: float | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._loading: asyncio.Task | None = None
        self._building: asyncio.Future | None = None
        self.engines_built = False  # set once the background build after ready has finished

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        self.started = time.monotonic()
        self._pool = ThreadPoolExecutor(max_workers=self.settings.encode_threads, thread_name_prefix="tokenprism-encode")
        self._loading = asyncio.get_running_loop().create_task(self._load())

    async def _load(self) -> None:
        loop = asyncio.get_running_loop()
        results = await asyncio.gather(*(loop.run_in_executor(self._pool, load_tokenizer, n) for n in self.names),
                                       return_exceptions=True)
        # One vocabulary that fails (a truncated fetched file) costs only itself: the rest are
        # served, /readyz names it, and only requests that name it are refused.
        for name, result in zip(self.names, results):
            if isinstance(result, BaseException):
                if not isinstance(result, Exception):
                    raise result  # cancelled: the server is stopping
                self.unavailable[name] = f"{type(result).__name__}: {result}"
                _log.error("tokenizer %s failed to load: %s", name, self.unavailable[name])
            else:
                self.tokenizers[name] = result
        if not self.tokenizers:  # reported by /readyz and the log; the process keeps answering /healthz
            self.error = "; ".join(f"{n}: {m}" for n, m in self.unavailable.items()) or "no tokenizer to load"
            return
        # The vocabularies are millions of long-lived objects. Moved out of the collector's
        # reach, they are never traversed again; otherwise every full collection walks them
        # all, a pause of tens of milliseconds in the middle of some request.
        gc.collect()
        gc.freeze()
        self.seconds_to_ready = time.monotonic() - self.started
        self.metrics.loaded.set(len(self.tokenizers))
        self.metrics.ready.set(1)
        _log.info("ready: %d tokenizers loaded in %.2f s", len(self.tokenizers), self.seconds_to_ready)
        # Ready at once: short texts are encoded from the rank tables (`tokenizers.cold`). The
        # engines that long texts and heavy traffic need are built next, off the event loop.
        self._building = loop.run_in_executor(self._pool, build_engines, list(self.tokenizers.values()))
        self._building.add_done_callback(self._built)

    def _built(self, done: asyncio.Future) -> None:
        if done.cancelled():
            return
        if done.exception() is not None:  # the request that needs the engine meets the error again, with its message
            _log.error("building the tokenizers' engines failed: %s", done.exception())
            return
        self.engines_built = True

    async def stop(self) -> None:
        for task in (self._loading, self._building):
            if task is not None and not task.done():
                task.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    @property
    def ready(self) -> bool:
        return bool(self.tokenizers) and self.error is None

    # -- serving -----------------------------------------------------------------------------
    def not_ready(self) -> Problem:
        """The 503 answered while the tokenizers load (or after they failed to)."""
        if self.error:
            return Problem(503, f"the tokenizers failed to load ({self.error}); fix the server's --tokenizers "
                           "and restart it", type_="not-ready")
        return Problem(503, "the tokenizers are still loading; retry when /readyz answers 200",
                       type_="not-ready", headers={"Retry-After": "1"})

    def tokenizer(self, name: str) -> Tokenizer:
        """A served tokenizer by name, or a 404 Problem naming the served ones and the closest."""
        if not self.ready:
            raise self.not_ready()
        tok = self.tokenizers.get(name)
        if tok is not None:
            return tok
        if len(name) > MAX_NAME:
            raise Problem(422, f"the tokenizer name {shown(name)} is longer than {MAX_NAME} characters; no tokenizer "
                          "name is. Fix: name one from GET /v1/tokenizers", type_="invalid-input")
        if name in self.unavailable:
            raise Problem(503, f"tokenizer {name!r} failed to load on this server ({self.unavailable[name]}); the "
                          f"others are served. Fix: repair it (e.g. tokenprism vocab fetch {name}) and restart the "
                          "server, or name another", type_="tokenizer-unavailable", valid=list(self.tokenizers))
        served = list(self.tokenizers)
        if name in CATALOGUE:
            detail = (f"tokenizer {name!r} is not loaded by this server; it serves {', '.join(served)}. "
                      f"Fix: use one of those, or restart the server with --tokenizers including {name}")
        else:
            close = closest(name, served)
            detail = (f"unknown tokenizer {shown(name)}." + (f" Did you mean {', '.join(close)}?" if close else "")
                      + f" This server serves: {', '.join(served)} (GET /v1/tokenizers lists them)")
        raise Problem(404, detail, type_="unknown-tokenizer", valid=served)

    def select(self, names: list[str] | None) -> list[Tokenizer]:
        """The tokenizers a request names (all served ones for None), checked against the limit."""
        if names is None:
            if not self.ready:
                raise self.not_ready()
            return list(self.tokenizers.values())
        check_limit(self.settings.limits, "max_tokenizers", len(names), "{n:,} tokenizers named", "split the request")
        if not names:
            raise Problem(422, "tokenizers is an empty list; name at least one, or leave it out for all",
                          type_="invalid-input")
        return [self.tokenizer(n) for n in dict.fromkeys(names)]

    async def run(self, fn: Callable[..., T], *args: Any, work: int | None = None, **kwargs: Any) -> T:
        """Run `fn` in the encoding pool (inline when `work`, characters x tokenizers, is at
        most INLINE_WORK). Its errors pass through: `problems.handle` answers UnknownName and
        BadInput as 404 and 422, and anything else as the bug it is (500)."""
        if self._pool is None:
            raise self.not_ready()
        if work is not None and work <= INLINE_WORK:
            return fn(*args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._pool, partial(fn, *args, **kwargs))
