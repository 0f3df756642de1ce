"""Bounded memos, the one object that owns every cache a run uses, and the shelves of what a process
loads once (layer 1: imports nothing of ours).

A bounded memo keeps answers that depend only on a hashable key, up to a fixed number of keys.

Unlike `functools.lru_cache` (keyed on every argument of a function), the caller chooses the key:
what an answer depends on, which is often less than the arguments it is computed from (a usage
object's values, not the dict that holds them; the prices in force at a timestamp, not the
timestamp). When the memo is full it is emptied and fills again, so memory stays bounded and the
bookkeeping per lookup is one dictionary access. Hits and misses are counted, so a measurement
can say how much each memo saved.

A run (pricing one log, one workload) owns its caches: `open_run()` makes a `RunCaches`, every
module asks `run_caches()` for its memo by name, and the run's end empties them. No module keeps a
dict or memo of its own that a run fills, so two runs in one process cannot see each other's
entries, and tests clear nothing by hand. Outside a run, `run_caches()` is a fresh, empty set each
time (nothing is kept). A worker process joins the driver's run by its key (`joined_run`, called by
the engine's chunk functions): the chunks of one run share the worker's caches, and the first chunk
of another run starts an empty set.

A process resource is not a run's cache: a `Shelf` keeps what is loaded once and then only read
(a vocabulary's adapter, a tiktoken engine), shared by every run, every request of the API server
and every rerun of the dashboard, because loading it again would cost seconds. The shelves are
module-level by design, few (`git grep "= Shelf("` lists them), and never filled with a run's
answers; a run's end leaves them as they are.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")

__all__ = ["BoundedMemo", "IdentityKey", "ObjectMemo", "RunCaches", "Shelf", "joined_run", "open_run", "run_caches"]


class BoundedMemo(Generic[V]):
    """`memo.get(key, compute)`: the value kept for `key`, else `compute()` kept (at most `limit` keys).

    >>> m: BoundedMemo[int] = BoundedMemo(2)
    >>> m.get("a", lambda: 1), m.get("a", lambda: 2), m.hits, m.misses
    (1, 1, 1, 1)
    """

    __slots__ = ("limit", "_values", "hits", "misses")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a memo holds at least one key, got limit={limit}")
        self.limit = limit
        self._values: dict[Hashable, V] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, compute: Callable[[], V]) -> V:
        try:
            value = self._values[key]
        except KeyError:
            pass
        else:
            self.hits += 1
            return value
        value = compute()  # an exception is not kept: the next call computes again
        self.misses += 1
        if len(self._values) >= self.limit:
            self._values.clear()
        self._values[key] = value
        return value

    def peek(self, key: Hashable) -> V | None:
        """The value kept for `key`, or None (counted as a hit or a miss)."""
        value = self._values.get(key)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def put(self, key: Hashable, value: V) -> None:
        if len(self._values) >= self.limit:
            self._values.clear()
        self._values[key] = value

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        """Forget every key, and the hit and miss counts."""
        self._values.clear()
        self.hits = self.misses = 0


class ObjectMemo(Generic[T, V]):
    """`memo.get(obj, compute)`: the value kept for the object `obj` itself, else `compute(obj)` kept
    (at most `limit` objects; emptied when full, as `BoundedMemo`).

    Unlike `BoundedMemo` (keyed by a value), an object is found by its identity: for values that are
    costly to hash or compare but shared by the rows that hold them (one usage object's reading,
    one tools list's definitions). The object is kept beside its value, so its id cannot be reused
    by another object while the entry lives, and an entry found under an id is used only for the
    very object it was kept for.

    >>> m: ObjectMemo[list, int] = ObjectMemo(4)
    >>> a = [1, 2]
    >>> m.get(a, len), m.get(a, lambda x: 0), m.get([1, 2], lambda x: 0)
    (2, 2, 0)
    """

    __slots__ = ("limit", "_kept")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a memo holds at least one object, got limit={limit}")
        self.limit = limit
        self._kept: dict[int, tuple[T, V]] = {}

    def get(self, obj: T, compute: Callable[[T], V]) -> V:
        kept = self._kept.get(id(obj))
        if kept is not None and kept[0] is obj:
            return kept[1]
        value = compute(obj)
        if len(self._kept) >= self.limit:
            self._kept.clear()
        self._kept[id(obj)] = (obj, value)
        return value

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        self._kept.clear()


class RunCaches:
    """Every cache one run uses, by name: `memo(name, limit)` and `objects(name, limit)` make a memo on
    first use and return the same one after. `key` names the run (workers join it by this key).

    >>> run = RunCaches()
    >>> run.memo("squares", 8).get(3, lambda: 9), run.memo("squares", 8).get(3, lambda: 0)
    (9, 9)
    """

    __slots__ = ("_key", "_memos")

    def __init__(self, key: str | None = None) -> None:
        self._key = key
        self._memos: dict[Hashable, Any] = {}

    @property
    def key(self) -> str:
        if self._key is None:
            self._key = uuid.uuid4().hex
        return self._key

    def memo(self, name: Hashable, limit: int = 1 << 16) -> BoundedMemo[Any]:
        found = self._memos.get(name)
        if found is None:
            found = self._memos[name] = BoundedMemo(limit)
        return found

    def objects(self, name: Hashable, limit: int = 1 << 16) -> ObjectMemo[Any, Any]:
        found = self._memos.get(name)
        if found is None:
            found = self._memos[name] = ObjectMemo(limit)
        return found

    def items(self) -> list[tuple[Hashable, Any]]:
        """(name, memo) of every memo made so far."""
        return list(self._memos.items())

    def stats(self) -> dict[Hashable, tuple[int, int]]:
        """name -> (hits, misses) of each value memo, for a measurement."""
        return {n: (m.hits, m.misses) for n, m in self._memos.items() if isinstance(m, BoundedMemo)}

    def clear(self) -> None:
        for m in self._memos.values():
            m.clear()
        self._memos.clear()


_RUN: ContextVar[RunCaches | None] = ContextVar("tokenprism_run_caches", default=None)


def run_caches() -> RunCaches:
    """The caches of the run in progress in this context; outside a run, a fresh empty set."""
    run = _RUN.get()
    return run if run is not None else RunCaches()


@contextmanager
def open_run() -> Iterator[RunCaches]:
    """A run's caches for the `with` block (the run already open, if there is one): emptied at its end."""
    run = _RUN.get()
    if run is not None:  # a run inside a run (a workload priced through the logs' road) shares its caches
        yield run
        return
    run = RunCaches()
    token = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(token)
        run.clear()


class _Joined:
    """The run a worker process joined last (one slot, replaced by the next run's first chunk)."""

    run: RunCaches | None = None


@contextmanager
def joined_run(key: str) -> Iterator[RunCaches]:
    """The caches of run `key` in this process: the open run itself when the chunk runs where the run
    was opened (the in-process engine), else the worker's set for that run (made on its first chunk,
    replacing the set of the run before)."""
    run = _RUN.get()
    if run is not None and run.key == key:
        yield run
        return
    joined = _Joined.run
    if joined is None or joined.key != key:
        if joined is not None:
            joined.clear()
        joined = _Joined.run = RunCaches(key)
    token = _RUN.set(joined)
    try:
        yield joined
    finally:
        _RUN.reset(token)


_MISSING: Any = object()


class Shelf(Generic[K, V]):
    """`shelf.get(key, load)`: the value this process loaded for `key`, else `load(key)`, loaded once and kept.

    Unlike a run's caches (`RunCaches`: answers a run computes, emptied when it ends) and the bounded
    memos (emptied when full), a shelf holds process resources: loaded once, then only read, shared
    by every run and thread, and kept for the life of the process (a vocabulary's adapter, a
    tiktoken engine: seconds to load, so never loaded per run). Threads that ask for one key
    together wait for the first one's load and share its value; different keys load side by side
    (one lock per key, re-entrant, so a load may ask the shelf for another key, or its own); a
    loaded key is found without any lock. A load that raises keeps nothing: the next call loads
    again. Values are not copied: what a shelf returns must not be mutated.

    >>> shelf: Shelf[str, int] = Shelf("lengths")
    >>> shelf.get("abc", len), shelf.get("abc", lambda key: 0), "abc" in shelf
    (3, 3, True)
    """

    __slots__ = ("name", "_values", "_locks", "_guard")

    def __init__(self, name: str) -> None:
        self.name = name  # what it holds, for a reader and a repr
        self._values: dict[K, V] = {}
        self._locks: dict[K, threading.RLock] = {}
        self._guard = threading.Lock()  # guards only the making of the per-key locks

    def get(self, key: K, load: Callable[[K], V]) -> V:
        value = self._values.get(key, _MISSING)  # the hot path: one dict read (atomic), no lock
        if value is not _MISSING:
            return value
        with self._guard:
            lock = self._locks.setdefault(key, threading.RLock())
        with lock:  # a key is loaded once: a second thread waits here, then finds it
            value = self._values.get(key, _MISSING)
            if value is _MISSING:
                value = self._values.setdefault(key, load(key))  # a value `put` meanwhile wins
            return value

    def peek(self, key: K) -> V | None:
        """The value loaded for `key`, or None (nothing is loaded)."""
        return self._values.get(key)

    def put(self, key: K, value: V, *, replace: bool = True) -> V:
        """Keep `value` for `key` (made elsewhere: a trained adapter); `replace=False` keeps a value
        already there. Returns the value now kept."""
        with self._guard:
            if replace:
                self._values[key] = value
                return value
            return self._values.setdefault(key, value)

    def discard(self, key: K) -> None:
        """Forget `key` (a test that loads a name again, from other files)."""
        with self._guard:
            self._values.pop(key, None)

    def keys(self) -> list[K]:
        return list(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Shelf({self.name!r}, {len(self._values)} loaded)"


class IdentityKey:
    """A key (or part of one) that is an object itself, by identity, for objects that are costly to
    hash or compare (a rank table of 200,000 entries). It holds the object, so the object's id can
    never be another object's while the key is kept (a bare `id()` could be).

    >>> a, b = {1: 2}, {1: 2}
    >>> IdentityKey(a) == IdentityKey(a), IdentityKey(a) == IdentityKey(b)
    (True, False)
    """

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IdentityKey) and other.obj is self.obj
