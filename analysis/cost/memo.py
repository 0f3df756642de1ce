"""A bounded memo: answers that depend only on a hashable key, kept up to a fixed number of keys.

Unlike `functools.lru_cache` (keyed on every argument of a function), the caller chooses the key:
what an answer depends on, which is often less than the arguments it is computed from (a usage
object's values, not the dict that holds them; the prices in force at a timestamp, not the
timestamp). When the memo is full it is emptied and fills again, so memory stays bounded and the
bookkeeping per lookup is one dictionary access. Hits and misses are counted, so a measurement
can say how much each memo saved.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")
T = TypeVar("T")

__all__ = ["BoundedMemo", "ObjectMemo"]


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
