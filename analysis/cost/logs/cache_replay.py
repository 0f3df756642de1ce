"""Each target's prompt cache replayed over the marks the log's rows kept, once the whole log is read.

Unlike `cache_trace` (what a row keeps for the cache: its block marks, their token ends on each
target, the step cuts) and `cost.caching` (a provider's rule, simulated over `PrefixMarks` in
order), this module turns the kept marks back into `PrefixMarks` in the log's time order and has
`caching` simulate them: the whole log at once (`simulate_rows`, the cache's read and writes per
row) or one chunk's rows (`chunk_marks`, `active_rows`, for the fold). Only the rows that can use
the cache (`active_marks`: an end past the rule's minimum, or a breakpoint) are simulated in
Python. A log without timestamps is either one burst or, with --requests-per-lifetime, a stream
already running (`warm_prefixes`, `spaced_note`). It reads no request and counts no token.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..caching import ONE_BURST, CacheRule, CacheStream, PrefixMarks, filled_times_note, no_breakpoints_note, simulate
from .cache_trace import StepCuts, TraceChunk, with_steps

__all__ = ["active_marks", "active_rows", "chunk_marks", "simulate_rows", "spaced_note", "warm_prefixes"]


def simulate_rows(rule: CacheRule, traces: Sequence[TraceChunk], ends: Sequence[np.ndarray],
                  prompts: Sequence[np.ndarray], *, per_lifetime: float | None = None,
                  by: str = "--requests-per-lifetime", steps: Sequence[StepCuts | None] = ()
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(read, 5-minute write, 1-hour write) per row, in the order of `traces`, under `rule`, and the
    simulation's notes (`caching.simulate`'s).

    `ends[c]` are chunk c's block ends on the target (`block_ends`), `prompts[c]` its rows'
    prompt tokens on the target. `per_lifetime`: a row without a timestamp is placed so that
    this many rows fall in the rule's lifetime (the k-th such row, from 1, at k x lifetime /
    per_lifetime seconds), in place of one burst, as a stream already running (`warm_prefixes`).
    `steps[c]`: chunk c's step cuts on the target (`step_cuts`), joined to its marks (`with_steps`).
    """
    if steps:
        joined = [with_steps(t, e, s) for t, e, s in zip(traces, ends, steps)]
        traces, ends = [t for t, _ in joined], [e for _, e in joined]
    stamped = any((~np.isnan(trace.when)).any() for trace in traces)
    # only a log without any timestamp is spaced: mixed with real times, made-up ones would mislead
    spacing = rule.ttl_seconds / per_lifetime if per_lifetime and not stamped else None
    if spacing is None:
        return _simulate_active(rule, traces, ends, prompts)
    marks: list[PrefixMarks] = []
    unstamped = 0
    for trace, end, prompt in zip(traces, ends, prompts):
        ptr, keys, flags, end_list = trace.ptr.tolist(), trace.keys.tolist(), trace.flags.tolist(), end.tolist()
        when, n = trace.when.tolist(), prompt.tolist()
        for i in range(trace.rows):
            a, b = ptr[i], ptr[i + 1]
            seconds = when[i]
            if spacing is not None and seconds != seconds:
                seconds, unstamped = (unstamped + 1) * spacing, unstamped + 1
            marks.append(PrefixMarks(n[i], tuple(end_list[a:b]), tuple(keys[a:b]), tuple(flags[a:b]),
                                     None if seconds != seconds else seconds))
    warmed, rows = warm_prefixes(marks, spacing, set())
    sim = simulate(rule, warmed)
    sim.outcomes = [sim.outcomes[i] for i in rows]  # the earlier requests are not the log's: not billed
    if unstamped:
        sim.notes.append(spaced_note(rule, unstamped, per_lifetime or 0, by=by))
    read = np.fromiter((o.read for o in sim.outcomes), dtype=np.int64, count=len(marks))
    w5 = np.fromiter((o.write_5m for o in sim.outcomes), dtype=np.int64, count=len(marks))
    w1 = np.fromiter((o.write_1h for o in sim.outcomes), dtype=np.int64, count=len(marks))
    return read, w5, w1, sim.notes


def active_marks(rule: CacheRule, ends: np.ndarray, flags: np.ndarray, row_of: np.ndarray, n: np.ndarray
                 ) -> np.ndarray:
    """Per mark, whether `rule` can read or write at it: an end of at least the rule's minimum (for a
    breakpoint rule, also flagged and within the prompt). A row without such a mark neither reads,
    writes nor changes the cache: its outcome is (0, 0, 0, its prompt) whatever came before.
    `row_of` is each mark's row, `n` the rows' prompt tokens."""
    good = ends >= rule.minimum
    if rule.kind == "breakpoints":
        good &= (flags > 0) & (ends <= n[row_of])
    return good


def _simulate_active(rule: CacheRule, traces: Sequence[TraceChunk], ends: Sequence[np.ndarray],
                     prompts: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """`simulate_rows` of a log with its own times (or one burst): `caching.simulate`'s order, times
    and notes, with only the rows that can use the cache (`active_marks`) simulated in Python."""
    n = np.concatenate([p.astype(np.int64) for p in prompts]) if prompts else np.empty(0, dtype=np.int64)
    when = np.concatenate([t.when for t in traces]) if traces else np.empty(0)
    counts = np.concatenate([np.diff(t.ptr) for t in traces]) if traces else np.empty(0, dtype=np.int64)
    ptr = np.concatenate(([0], np.cumsum(counts)))
    end = np.concatenate(ends).astype(np.int64) if ends else np.empty(0, dtype=np.int64)
    keys = np.concatenate([t.keys for t in traces]) if traces else np.empty(0, dtype=np.int64)
    flags = np.concatenate([t.flags for t in traces]) if traces else np.empty(0, dtype=np.int8)
    row_of = np.repeat(np.arange(len(n)), counts)
    active = np.zeros(len(n), dtype=bool)
    active[row_of[active_marks(rule, end, flags, row_of, n)]] = True
    notes: list[str] = []
    has = ~np.isnan(when)
    if not has.any():
        notes.append(ONE_BURST)
        seconds, order = np.zeros(len(n)), np.arange(len(n))
    else:
        seconds = when
        if not has.all():  # as `simulate`: a row without a time takes the last truthy time before it (or 0)
            notes.append(filled_times_note(int((~has).sum())))
            valid = has & (when != 0)
            last = np.maximum.accumulate(np.where(valid, np.arange(len(n)), -1))
            seconds = np.where(last >= 0, when[np.maximum(last, 0)], 0.0)
        order = np.argsort(seconds, kind="stable")  # stable: requests at the same instant keep the log's order
    if rule.kind == "breakpoints" and not flags.any():
        notes.append(no_breakpoints_note(rule))
    order = order[active[order]]
    at, end_list, key_list, flag_list = ptr.tolist(), end.tolist(), keys.tolist(), flags.tolist()
    sizes, times = n.tolist(), seconds.tolist()
    marks = [PrefixMarks(sizes[i], tuple(end_list[at[i]:at[i + 1]]), tuple(key_list[at[i]:at[i + 1]]),
                         tuple(flag_list[at[i]:at[i + 1]]), times[i]) for i in order.tolist()]
    outcomes = CacheStream(rule).feed(marks)
    read, w5, w1 = (np.zeros(len(n), dtype=np.int64) for _ in range(3))
    read[order] = np.fromiter((o.read for o in outcomes), dtype=np.int64, count=len(outcomes))
    w5[order] = np.fromiter((o.write_5m for o in outcomes), dtype=np.int64, count=len(outcomes))
    w1[order] = np.fromiter((o.write_1h for o in outcomes), dtype=np.int64, count=len(outcomes))
    return read, w5, w1, notes


def warm_prefixes(marks: Sequence[PrefixMarks], spacing: float, seen: set[int]
                  ) -> tuple[list[PrefixMarks], list[int]]:
    """Spaced rows (`marks`, times from one `spacing` on) as a stream already running: before the
    first row of each system prompt and tools (a row's first mark, the request's system field and
    tools; its key is added to `seen`), a request of that prefix alone, one spacing earlier, has
    cached it. Returns the marks with those requests, and the positions of the rows among them.

    >>> rows = [PrefixMarks(3000, (2000, 3000), (7, 8), (0, 0), 300.0), PrefixMarks(3100, (2000, 3100), (7, 9), (0, 0), 600.0)]
    >>> marks, at = warm_prefixes(rows, 300.0, set())
    >>> [(m.n, m.when) for m in marks], at
    ([(2000, 0.0), (3000, 300.0), (3100, 600.0)], [1, 2])
    """
    out: list[PrefixMarks] = []
    rows: list[int] = []
    for m in marks:
        if m.ends and m.ends[0] and m.keys[0] not in seen and isinstance(m.when, float):
            seen.add(m.keys[0])
            out.append(PrefixMarks(m.ends[0], m.ends[:1], m.keys[:1], m.flags[:1], m.when - spacing))
        rows.append(len(out))
        out.append(m)
    return out, rows


def spaced_note(rule: CacheRule, unstamped: int, per_lifetime: float, *, by: str = "--requests-per-lifetime") -> str:
    """The note of a log without timestamps spaced by --requests-per-lifetime (or `by`: the --rate it came from)."""
    return (f"{unstamped:,} request(s) without a timestamp are spaced {per_lifetime:g} per cache "
            f"lifetime of {rule.ttl_seconds:,} s ({by}), as a stream already running: its "
            "system prompt and tools were cached by a request one spacing before the first that uses them")


def chunk_marks(trace: TraceChunk, end: np.ndarray, prompt: np.ndarray, when: list[float | None],
                rows: Sequence[int] | None = None) -> list[PrefixMarks]:
    """The `PrefixMarks` of one chunk's rows on a target (`simulate_rows`' rows), at the times `when`;
    `rows`: only these rows (all when None)."""
    ptr, keys, flags, end_list, n = trace.ptr.tolist(), trace.keys.tolist(), trace.flags.tolist(), end.tolist(), \
        prompt.tolist()
    return [PrefixMarks(n[i], tuple(end_list[ptr[i]:ptr[i + 1]]), tuple(keys[ptr[i]:ptr[i + 1]]),
                        tuple(flags[ptr[i]:ptr[i + 1]]), when[i]) for i in (range(trace.rows) if rows is None else rows)]


def active_rows(rule: CacheRule, trace: TraceChunk, end: np.ndarray, prompt: np.ndarray) -> np.ndarray:
    """The rows of one chunk that can use `rule`'s cache (`active_marks`), as indices in order."""
    counts = np.diff(trace.ptr)
    row_of = np.repeat(np.arange(trace.rows), counts)
    active = np.zeros(trace.rows, dtype=bool)
    active[row_of[active_marks(rule, end.astype(np.int64), trace.flags, row_of, prompt.astype(np.int64))]] = True
    return np.flatnonzero(active)
