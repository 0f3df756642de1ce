"""Logged traffic folded chunk by chunk, in the log's order, so memory stays flat in the rows.

Unlike `chunk` (each chunk reduced to sums and a few integers per row: prompt tokens, tier,
output tokens, cache marks, $ per row) and `whole_bill` (one target's bill from the merged
part), this module keeps those per-row integers from piling up. The partials of a log arrive
in order (every engine yields them so); `LogFold.add` takes each one and

* runs each target's prompt-cache simulation over the chunk's rows with the cache carried
  from the chunks before (`caching.CacheStream`, which keeps only what is alive within one
  lifetime), when the log is in time order; the reads and writes are summed per (day, tier);
* keeps each row's whole-bill inputs (prompt tokens, tier, output tokens, cache read, writes)
  as distinct tuples with counts (`Distinct`), and the recount-only $ per row and the
  calibration's relative errors as distinct values with counts, so the percentiles and medians
  stay exact (`percentiles`, `median` equal numpy's on the rows themselves);
* then drops the chunk's per-row arrays.

What still grows: the distinct tuples (bounded by the spread of prompt and reply sizes, not by
the rows), the live cache entries of one lifetime (all of them when no row has a timestamp:
then nothing expires), and the partial's few sums per (day, tier).

A log of at most `STREAM_AFTER` rows is held whole and summarised as before (the simulation sorts it by
time, so its order does not matter). Where a target simulates a cache, every partial's times are
checked as it comes (`TimeOrder`). A longer log found out of time order within its first
`STREAM_AFTER` rows is kept whole to the end, as before, and its partial's `order_note` says so.
One found out of order later, when its first rows are folded already, raises `NotInTimeOrder`:
the caller prices it again with `fold=False` on the engine's `price_log_chunks` (every row kept),
and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..caching import ONE_BURST, CacheRule, CacheStream, cache_rule, filled_times_note, no_breakpoints_note
from .cache_replay import active_rows, chunk_marks, spaced_note, warm_prefixes
from .cache_trace import TraceChunk, with_steps
from ..targets import TrafficPlan
from .partial import CalibrationPart, ModelPart, TrafficPartial

__all__ = ["STREAM_AFTER", "Distinct", "FoldedCalibration", "FoldedTargetBill", "LogFold", "NotInTimeOrder",
           "TimeOrder", "distinct_rows", "median", "order_note", "percentiles"]

STREAM_AFTER = 65_536  # rows held whole before the fold starts: 16 chunks
_COMPACT_ROWS = 65_536  # rows added before the distinct tuples are made distinct again


class NotInTimeOrder(Exception):
    """A log longer than `STREAM_AFTER` rows whose requests go back in time (or that the fold
    cannot order): its cache must be simulated over the whole log at once."""


def order_note(why: str, second_pass: bool) -> str:
    """The note of a log longer than `STREAM_AFTER` rows priced with every row kept to the end."""
    return (f"the log is not in time order ({why}), so each target's prompt cache was simulated over the whole "
            "log at once, sorted by time, " + ("on a second pass that kept" if second_pass else "keeping")
            + " every row's cache marks until the end (memory grows with the rows; a log in time order is "
            "simulated as it is read, in flat memory)")


class TimeOrder:
    """Whether the rows, chunk after chunk, come in the order `caching.simulate` sorts them into.

    The times are those the simulation takes: a row without a time takes the one before it (0
    before the first); a log with no time at all is in order (one burst, or spaced by
    --requests-per-lifetime in the log's order).
    """

    def __init__(self) -> None:
        self.last = -np.inf
        self.previous: float | None = None
        self.why = ""  # the first reason the order is broken, once it is

    def times(self, when: np.ndarray) -> list[float | None]:
        """The chunk's times as the simulation takes them (None: no time yet); sets `why` when broken."""
        out: list[float | None] = []
        for w in when.tolist():
            if w != w:
                out.append(self.previous)
            else:
                if w == 0.0 and not self.why:  # `simulate` takes a time of 0 as none where rows lack one
                    self.why = "a row's timestamp is the Unix epoch (0)"
                out.append(w)
                self.previous = w
        seconds = [0.0 if t is None else t for t in out]
        if seconds and not self.why and (seconds[0] < self.last or any(b < a for a, b in zip(seconds, seconds[1:]))):
            self.why = "a row's timestamp is earlier than the row's before it"
        if seconds:
            self.last = max(self.last, max(seconds))
        return out


def distinct_rows(rows: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct rows of a float64 table, the summed weights of each): `np.unique(rows, axis=0)`'s
    rows, in its order (ascending, the first column first), with the weights added per distinct row.

    Sorted by `np.lexsort` on the columns, where `np.unique` sorts the rows as one structured value
    each, which costs several times as much. Where the order alone does not fix which row stands for
    its equals (a NaN, or a -0.0 beside 0.0), `np.unique` itself is used.

    >>> rows, weights = distinct_rows(np.array([[2.0, 1.0], [1.0, 5.0], [2.0, 1.0]]), np.array([1, 1, 3]))
    >>> rows.tolist(), weights.tolist()
    ([[1.0, 5.0], [2.0, 1.0]], [1, 4])
    """
    if not len(rows) or np.isnan(rows).any() or (np.signbit(rows) & (rows == 0)).any():
        uniq, inverse = np.unique(rows, axis=0, return_inverse=True)
        counts = np.zeros(len(uniq), dtype=np.int64)
        np.add.at(counts, inverse.ravel(), weights)
        return uniq, counts
    order = np.lexsort(rows.T[::-1])  # lexsort's last key sorts first
    ordered = rows[order]
    starts = np.flatnonzero(np.concatenate(([True], (ordered[1:] != ordered[:-1]).any(axis=1))))
    return ordered[starts], np.add.reduceat(weights[order], starts)


class Distinct:
    """Rows of `k` float64 columns kept as the distinct rows and how often each came.

    Integers below 2**53 and the floats themselves are kept exactly, so anything computed row by
    row from them (then weighted by the counts) is what the rows would give.
    """

    def __init__(self, k: int) -> None:
        self.k = k
        self._rows = np.empty((0, k), dtype=np.float64)
        self._counts = np.empty(0, dtype=np.int64)
        self._held: list[np.ndarray] = []
        self._held_rows = 0

    def add(self, table: np.ndarray) -> None:
        """Add rows (n x k, or n values when k is 1)."""
        table = np.asarray(table, dtype=np.float64).reshape(-1, self.k)
        if len(table):
            self._held.append(table)
            self._held_rows += len(table)
            if self._held_rows >= _COMPACT_ROWS:
                self._compact()

    def _compact(self) -> None:
        if not self._held:
            return
        rows = np.concatenate([self._rows, *self._held])
        weights = np.concatenate([self._counts, np.ones(self._held_rows, dtype=np.int64)])
        self._rows, self._counts = distinct_rows(rows, weights)
        self._held, self._held_rows = [], 0

    @property
    def rows(self) -> np.ndarray:
        self._compact()
        return self._rows

    @property
    def counts(self) -> np.ndarray:
        self._compact()
        return self._counts

    @property
    def n(self) -> int:
        return int(self._counts.sum()) + self._held_rows

    def __len__(self) -> int:
        return len(self.rows)


def percentiles(values: np.ndarray, counts: np.ndarray, qs: tuple[float, ...] = (50, 95)) -> list[float]:
    """`np.percentile(np.repeat(values, counts), qs)` (its default, linear method), bit for bit,
    without building the repeated array. `values` must hold no NaN.

    >>> v, c = np.array([3.0, 1.0, 2.0]), np.array([1, 2, 5])
    >>> percentiles(v, c) == np.percentile(np.repeat(v, c), [50, 95]).tolist()
    True
    """
    order = np.argsort(values, kind="stable")
    v, ends = values[order], np.cumsum(counts[order])
    n = int(ends[-1])
    # numpy's steps: q / 100, the virtual index (n - 1) q, its floor and the next one, clipped
    virtual = (n - 1) * np.true_divide(np.asarray(qs, dtype=np.float64), 100)
    below = np.floor(virtual)
    above = below + 1
    last = virtual >= n - 1
    below[last] = above[last] = n - 1
    below[virtual < 0] = above[virtual < 0] = 0
    gamma = virtual - below.astype(np.intp)
    out = []
    for i in range(len(qs)):
        a = v[np.searchsorted(ends, int(below[i]), side="right")]
        b = v[np.searchsorted(ends, int(above[i]), side="right")]
        diff = b - a
        out.append(float(b - diff * (1 - gamma[i]) if gamma[i] >= 0.5 else a + diff * gamma[i]))
    return out


def median(values: np.ndarray, counts: np.ndarray) -> float:
    """`np.median(np.repeat(values, counts))`, bit for bit (no NaN among `values`).

    >>> v, c = np.array([0.5, -0.25, 0.125]), np.array([2, 1, 1])
    >>> median(v, c) == float(np.median(np.repeat(v, c)))
    True
    """
    order = np.argsort(values, kind="stable")
    v, ends = values[order], np.cumsum(counts[order])
    n = int(ends[-1])
    middle = [n // 2] if n % 2 else [n // 2 - 1, n // 2]
    return float(np.mean(v[np.searchsorted(ends, middle, side="right")]))


@dataclass
class FoldedTargetBill:
    """What one target's `whole_bill.TargetBill` needs of its rows, folded: cache reads and writes per
    (day, tier), each row's bill inputs as distinct tuples, and its recount-only $ per row."""

    rows: int = 0
    cache: dict[tuple[str | None, int], np.ndarray] = field(default_factory=dict)  # read, write 5m, write 1h
    # prompt tokens, tier, output tokens, cache read, write 5m, write 1h
    inputs: Distinct = field(default_factory=lambda: Distinct(6))
    costs: Distinct = field(default_factory=lambda: Distinct(1))
    costs_nan: bool = False
    simulated: bool = False
    notes: list[str] = field(default_factory=list)

    def add(self, trace: TraceChunk, prompts: np.ndarray, tiers: np.ndarray, outs: np.ndarray, costs: np.ndarray,
            read: np.ndarray, w5: np.ndarray, w1: np.ndarray) -> None:
        self.rows += len(prompts)
        keys = trace.day_codes.astype(np.int64) * 256 + tiers.astype(np.int64)
        uniq, inverse = np.unique(keys, return_inverse=True)
        sums = np.zeros((len(uniq), 3), dtype=np.int64)
        np.add.at(sums, inverse.ravel(), np.stack([read, w5, w1], axis=1).astype(np.int64))
        for key, vec in zip(uniq.tolist(), sums):
            at = (trace.day_names[key // 256], key % 256)
            self.cache[at] = self.cache[at] + vec if at in self.cache else vec
        self.inputs.add(np.stack([prompts.astype(np.float64), tiers.astype(np.float64), outs.astype(np.float64),
                                  read.astype(np.float64), w5.astype(np.float64), w1.astype(np.float64)], axis=1))
        nan = np.isnan(costs)
        self.costs_nan = self.costs_nan or bool(nan.any())
        self.costs.add(costs[~nan])


@dataclass
class FoldedCalibration:
    """A serving model's relative errors, folded: per side (input, output) the rows, the distinct
    non-NaN errors with counts, and the first of the largest in the log's order."""

    rows: int = 0
    errors: dict[str, Distinct] = field(default_factory=lambda: {"input": Distinct(1), "output": Distinct(1)})
    worst: dict[str, float | None] = field(default_factory=lambda: {"input": None, "output": None})

    def add(self, side: str, rel: np.ndarray) -> None:
        ok = rel[~np.isnan(rel)]
        self.errors[side].add(ok)
        if len(ok):
            top = float(ok[np.argmax(np.abs(ok))])
            had = self.worst[side]
            if had is None or abs(top) > abs(had):  # argmax keeps the first of equal ones
                self.worst[side] = top


@dataclass
class Folded:
    """The folded per-row state of a whole log (`TrafficPartial.folded`)."""

    bills: dict[str, FoldedTargetBill] = field(default_factory=dict)
    calibration: dict[str, FoldedCalibration] = field(default_factory=dict)


class _Sim:
    """One target's cache simulated over the log as it comes (see `simulate_rows` for the times)."""

    def __init__(self, rule: CacheRule, per_lifetime: float | None, by: str = "--requests-per-lifetime") -> None:
        self.rule = rule
        self.per_lifetime = per_lifetime
        self.by = by
        self.main = CacheStream(rule)
        # a log with no timestamp at all is spaced per --requests-per-lifetime; until a row with a
        # time shows up, both are simulated, and the spaced one is dropped at the first time seen
        self.spaced: CacheStream | None = CacheStream(rule) if per_lifetime else None
        self.spaced_bill = FoldedTargetBill()
        self.warmed: set[int] = set()  # the prefixes the spaced stream found cached before their first row
        self.stamped = self.unstamped = 0
        self.flagged = False

    def run(self, trace: TraceChunk, ends: np.ndarray, prompts: np.ndarray, times: list[float | None]
            ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...] | None]:
        """(read, w5, w1) of the chunk's rows at `times` (`TimeOrder.times`: in order), and the same
        spaced (None once the log has a time)."""
        when = trace.when.tolist()
        stamped_here = int((~np.isnan(trace.when)).sum())
        spaced = None
        if self.spaced is not None and not self.stamped and not stamped_here:
            spacing = self.rule.ttl_seconds / (self.per_lifetime or 1)
            at = [(self.unstamped + i + 1) * spacing for i in range(len(when))]
            # a stream already running, as `simulate_rows` has it: each prefix cached one spacing before its first row
            marks, rows = warm_prefixes(chunk_marks(trace, ends, prompts, at), spacing,  # type: ignore[arg-type]
                                        self.warmed)
            spaced = tuple(a[rows] for a in self._outcomes(self.spaced, marks))
        elif self.spaced is not None:
            self.spaced = None
        self.stamped += stamped_here
        self.unstamped += len(when) - stamped_here
        self.flagged = self.flagged or bool(trace.flags.any())
        # only the rows that can use the cache are simulated: the others read and write nothing
        active = active_rows(self.rule, trace, ends, prompts)
        outcomes = self._outcomes(self.main, chunk_marks(trace, ends, prompts, times, active.tolist()))
        full = tuple(np.zeros(trace.rows, dtype=np.int64) for _ in outcomes)
        for whole, part in zip(full, outcomes):
            whole[active] = part
        return full, spaced

    @staticmethod
    def _outcomes(stream: CacheStream, marks: list) -> tuple[np.ndarray, ...]:
        outcomes = stream.feed(marks)
        return tuple(np.fromiter((getattr(o, name) for o in outcomes), dtype=np.int64, count=len(outcomes))
                     for name in ("read", "write_5m", "write_1h"))

    def notes(self) -> list[str]:
        """`simulate_rows`' notes for the whole log."""
        spaced = self.per_lifetime is not None and not self.stamped and self.unstamped
        notes = [] if spaced or (self.stamped and not self.unstamped) else \
            [ONE_BURST] if not self.stamped else [filled_times_note(self.unstamped)]
        if self.rule.kind == "breakpoints" and not self.flagged:
            notes.append(no_breakpoints_note(self.rule))
        if spaced:
            notes.append(spaced_note(self.rule, self.unstamped, self.per_lifetime or 0, by=self.by))
        return notes


class LogFold:
    """The partials of a log, in order, merged into one with the per-row state folded (see the
    module docstring). `add` each chunk's partial, then take `result()`."""

    def __init__(self, plan: TrafficPlan, *, stream_after: int = STREAM_AFTER) -> None:
        self.plan = plan
        self.stream_after = stream_after
        self.total = TrafficPartial()
        self.held: list[tuple[TrafficPartial, list]] = []  # each with its rows' times
        self.held_rows = 0
        self.streaming = False
        self.folded = Folded()
        self.order = TimeOrder()
        self.whole = False  # found out of time order while held: kept whole to the end, as before
        self.sims: dict[str, _Sim] = {}
        for t in plan.targets:
            rule = cache_rule(t.ref)
            if plan.simulates_cache and rule is not None:
                self.sims[t.ref] = _Sim(rule, plan.per_lifetime(rule), plan.spaced_by)

    def add(self, partial: TrafficPartial) -> None:
        """Take the next chunk's partial. Raises `NotInTimeOrder` (see the module docstring)."""
        times = [self.order.times(trace.when) for trace in partial.traces] if self.sims and not self.whole else []
        if self.streaming:
            if self.order.why:
                raise NotInTimeOrder(self.order.why)
            self._fold(partial, times)
            return
        self.held.append((partial, times))
        self.held_rows += partial.rows
        if self.held_rows > self.stream_after and not self.whole:
            if self.order.why:
                self.whole = True  # kept whole to the end, as before; `result` says so
                return
            self.streaming = True
            held, self.held = self.held, []
            for p, t in held:
                self._fold(p, t)

    def result(self) -> TrafficPartial:
        """The merged partial: a log held whole merged as `TrafficPartial.merge` does, else with `folded` set."""
        if not self.streaming:
            total = TrafficPartial()
            for p, _ in self.held:
                total.merge(p)
            if self.whole:
                total.order_note = order_note(self.order.why, second_pass=False)
            return total
        for ref, sim in self.sims.items():
            bill = self.folded.bills.get(ref)
            if bill is None:  # a target that could not be counted (no tokenizer here): no rows, no bill
                continue
            if sim.spaced is not None and not sim.stamped:  # no row has a time: the spaced simulation holds
                sim.spaced_bill.simulated = True
                self.folded.bills[ref] = bill = sim.spaced_bill
            bill.notes = sim.notes()
        self.total.folded = self.folded
        return self.total

    def _fold(self, partial: TrafficPartial, times: list[list[float | None]]) -> None:
        for ref, part in partial.models.items():
            self._fold_model(ref, part, partial.traces, times)
        for ref, cal in partial.calibration.items():
            self._fold_calibration(ref, cal)
        partial.traces = []
        self.total.merge(partial)

    def _fold_model(self, ref: str, part: ModelPart, traces: list[TraceChunk], times: list[list[float | None]]
                    ) -> None:
        bill = self.folded.bills.setdefault(ref, FoldedTargetBill())
        sim = self.sims.get(ref)
        if sim is not None and len(part.ends) != len(traces):
            raise NotInTimeOrder(f"{ref}: cache marks missing")  # cannot happen; `summarise` would not simulate
        for c, (trace, prompts, tiers, outs, costs) in enumerate(zip(traces, part.prompts, part.tiers, part.outs,
                                                                     part.costs)):
            if sim is None:
                zeros = np.zeros(len(prompts), dtype=np.int64)
                bill.add(trace, prompts, tiers, outs, costs, zeros, zeros, zeros)
                continue
            marks, ends = with_steps(trace, part.ends[c], part.steps[c] if len(part.steps) == len(traces) else None)
            (read, w5, w1), spaced = sim.run(marks, ends, prompts, times[c])
            bill.simulated = True
            bill.add(trace, prompts, tiers, outs, costs, read, w5, w1)
            if spaced is not None:
                sim.spaced_bill.add(trace, prompts, tiers, outs, costs, *spaced)
        for rows in (part.prompts, part.tiers, part.outs, part.ends, part.costs):
            rows.clear()
        part.steps.clear()

    def _fold_calibration(self, ref: str, cal: CalibrationPart) -> None:
        folded = self.folded.calibration.setdefault(ref, FoldedCalibration())
        for rel_in, rel_out in zip(cal.rel_in, cal.rel_out):
            folded.rows += len(rel_in)
            folded.add("input", rel_in)
            folded.add("output", rel_out)
        cal.rel_in.clear()
        cal.rel_out.clear()
