"""What a prompt cache needs of each logged row, kept as a few integers, and each target's cache
simulated from them once the whole log is read.

Unlike `chunk` (which recounts every row under every target and keeps only sums) and
`cost.caching` (the providers' rules, simulated over `PrefixMarks`), this module decides what a
row keeps for the cache. A cache matches prefixes, and a chat prompt is a run of blocks (the
system prompt and tools, then one block per message), so a row keeps, for a few block ends:

* a key of the text up to that end (8 bytes of BLAKE2b, the same on every target and in every
  worker process: equal keys are equal prefixes);
* the token offset of that end on each target (the request cut there, counted as `tokenprism
  count` counts it, without the reply priming);
* whether a ``cache_control`` breakpoint ends there (the request's own, Anthropic logs) or one a
  careful user would place (``--cache-breakpoints auto``: after the system prompt and tools, with
  the system messages that open the list, and after the last message).

The block ends kept are the system prompt and tools (with the system messages that open the
list), the end of the conversation before the last exchange (what this turn shares with the one
before it), the end of the prompt (what the next turn shares) and every breakpoint; a log of
conversations thus counts almost nothing again, as each turn's prefix is the last turn's prompt. The token ids are never kept:
a prefix that ends inside a block (two questions that begin alike) is not seen, so the simulated
read is at most a few tokens short of the provider's, and always an estimate.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...memo import run_caches
from ..caching import (ONE_BURST, CacheRule, CacheStream, PrefixMarks, filled_times_note, no_breakpoints_note,
                       simulate)
from ...requests.batch import count_request, fast_counts
from ...requests import Request, RequestCounter, TextPart
from ...tokenizers import Tokenizer
from .read import LogRecord

__all__ = ["BREAKPOINT_MODES", "TraceChunk", "block_ends", "chunk_marks", "day_codes", "row_days", "simulate_rows",
           "spaced_note", "trace_chunk"]

BREAKPOINT_MODES = ("request", "auto")


def _key(prev: bytes, item: object) -> bytes:
    text = item if isinstance(item, str) else repr(item)
    return hashlib.blake2b(prev + text.encode("utf-8", "surrogatepass"), digest_size=8).digest()


class _Keys:
    """`_key`, each distinct (prefix key, block) hashed once per chunk: a system prompt shared by
    the rows, or the conversation the next turn repeats, is a lookup (the keys are `_key`'s own)."""

    def __init__(self) -> None:
        self.known: dict[tuple[bytes, str], bytes] = {}

    def key(self, prev: bytes, item: object) -> bytes:
        text = item if isinstance(item, str) else repr(item)
        found = self.known.get((prev, text))
        if found is None:
            found = self.known[(prev, text)] = hashlib.blake2b(prev + text.encode("utf-8", "surrogatepass"),
                                                               digest_size=8).digest()
        return found


_OPENING = ("system", "developer")
_NO_SYSTEM = repr((None, ()))  # the system block of a request without a system prompt or tools


def _blocks(record: LogRecord, mode: str, keys: _Keys | None = None) -> tuple[list[int], list[int], list[int]]:
    """(block indexes kept, their keys, their breakpoint flags) of one row; block j ends after the
    system prompt, the tools and the first j messages."""
    key = _key if keys is None else keys.key
    request = record.request
    messages = request.messages
    k = len(messages)
    flags = dict.fromkeys(range(k + 1), 0) if record.cache_control or mode == "auto" else None
    if flags is not None:
        for block, long in record.cache_control:
            if 0 <= block <= k:
                flags[block] = max(flags[block], 2 if long else 1)
    # the system block: the system prompt and tools, and the system or developer messages that open the list
    head = k
    for i, m in enumerate(messages):
        if m.role not in _OPENING:
            head = i
            break
    if mode == "auto":
        assert flags is not None
        for block in ((head, k) if request.system or request.tools or head else (k,)):
            flags[block] = flags[block] or 1
    kept = {b for b in (0, head, k - 2, k) if 0 <= b <= k}
    if flags is not None:
        kept |= {b for b, f in flags.items() if f}
    order = sorted(kept)
    chain = [key(b"", _NO_SYSTEM if request.system is None and not request.tools else (request.system, request.tools))]
    for message in messages[: order[-1]]:
        # a message of text parts by its texts (repr of a tuple of str is fast), anything else whole
        parts = message.parts
        if len(parts) == 1 and type(parts[0]) is TextPart:  # the common case, as the join below writes it
            chain.append(key(chain[-1], f"{message.role}\x00{message.name or ''}\x00{parts[0].text}\x00\x02"))
            continue
        texts = tuple(p.text for p in parts if isinstance(p, TextPart))
        chain.append(key(chain[-1], "\x00".join((message.role, message.name or "", "\x01".join(texts), "\x02"))
                         if len(texts) == len(parts) else message))
    return (order, [int.from_bytes(chain[b], "little", signed=True) for b in order],
            [flags[b] for b in order] if flags is not None else [0] * len(order))


@dataclass
class TraceChunk:
    """The cache marks of a chunk's rows, the same for every target (see the module docstring).

    Row i's marks are `blocks[ptr[i]:ptr[i+1]]` (block index), `keys[...]` and `flags[...]`.
    """

    when: np.ndarray  # float64 Unix seconds, NaN without a timestamp
    ptr: np.ndarray  # int64, rows + 1
    blocks: np.ndarray  # int32
    keys: np.ndarray  # int64
    flags: np.ndarray  # int8
    # each row's day: an index into `day_names` (a few bytes a row, where a string per row costs more)
    day_codes: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    day_names: list[str | None] = field(default_factory=list)

    @property
    def days(self) -> list[str | None]:
        return [self.day_names[c] for c in self.day_codes.tolist()]

    @property
    def rows(self) -> int:
        return len(self.when)


def trace_chunk(records: Sequence[LogRecord], mode: str | None = "request",
                day_of: Sequence[str | None] | None = None, short: np.ndarray | None = None) -> TraceChunk:
    """The marks of `read` (a chunk), under breakpoint `mode` ("request" or "auto"); None: no
    marks (no target simulates a cache), only the times and days (`day_of`: each row's day, if known).

    `short` (per row, optional): the prompt is below the minimum of every target's cache rule, so
    no target can read or write it; such a row is not hashed, and keeps at most one mark (block 0,
    key 0, at end 0 on every target: below any minimum) that says whether it had a breakpoint, so
    "no request carries a breakpoint" stays true or false as without `short`."""
    marks = np.zeros(len(records), dtype=np.int64)  # per row
    blocks: list[int] = []
    keys: list[int] = []
    flags: list[int] = []
    memo = _Keys()
    skip = short.tolist() if short is not None else None
    rows: Sequence[int] = range(len(records) if mode is not None else 0)
    if skip is not None and mode == "request":  # a short row without a breakpoint has no mark: passed over
        rows = [i for i, (r, s) in enumerate(zip(records, skip)) if not s or r.cache_control]
    for i in rows:
        r = records[i]
        if skip is not None and skip[i]:
            flag = 1 if mode == "auto" else 0
            last = len(r.request.messages)
            for block, long in r.cache_control:
                if 0 <= block <= last:
                    flag = max(flag, 2 if long else 1)
            if flag:
                blocks.append(0)
                keys.append(0)
                flags.append(flag)
                marks[i] = 1
            continue
        assert mode is not None  # by `rows`
        b, k, f = _blocks(r, mode, memo)
        blocks += b
        keys += k
        flags += f
        marks[i] = len(b)
    ptr = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(marks)))
    when = np.fromiter((r.timestamp.timestamp() if r.timestamp else np.nan for r in records), dtype=np.float64,
                       count=len(records))
    names, days = day_codes(row_days(records) if day_of is None else day_of)
    return TraceChunk(when, ptr, np.asarray(blocks, dtype=np.int32),
                      np.asarray(keys, dtype=np.int64), np.asarray(flags, dtype=np.int8), days.astype(np.int32), names)


def row_days(records: Sequence[LogRecord]) -> list[str | None]:
    """Each row's UTC day as ISO text (None: a row without a timestamp)."""
    return [r.timestamp.date().isoformat() if r.timestamp else None for r in records]


def day_codes(day_of: Sequence[str | None]) -> tuple[list[str | None], np.ndarray]:
    """(the distinct days in the order they first come, each row's index among them as int64).

    >>> day_codes(["2026-03-02", None, "2026-03-02"])
    (['2026-03-02', None], array([0, 1, 0]))
    """
    names = list(dict.fromkeys(day_of))
    code = {d: i for i, d in enumerate(names)}
    return names, np.fromiter((code[d] for d in day_of), dtype=np.int64, count=len(day_of))


def _cut(request: Request, block: int) -> Request:
    return dataclasses.replace(request, messages=request.messages[:block])


def block_ends(counter: RequestCounter, tokenizer: Tokenizer | None, records: Sequence[LogRecord],
               trace: TraceChunk, prompts: np.ndarray | None = None, minimum: int = 0,
               image_size: tuple[int, int] | None = None) -> np.ndarray:
    """The token offset of each mark of `trace` on `counter`'s model: the request cut after that
    block, counted without the reply priming (int32, aligned with `trace.keys`).

    `prompts` (each row's whole prompt on the model) spares work: a row shorter than the rule's
    `minimum` can never be cached, so its ends are left 0; the last block ends where the prompt's
    reply priming begins (the prompt less the priming, which every chat format adds at the end).
    `image_size` sizes URL images, as in the whole request's count.
    """
    out = np.zeros(len(trace.blocks), dtype=np.int32)
    # equal keys are equal prefixes, so equal counts on one model: a shared system prompt, or the
    # conversation so far that the next turn repeats, is counted once per process
    # kept by the run per chat format (the render function itself, held beside its entry, so its id is
    # never another object's), then per family, tokenizer and --image-size
    by_format = run_caches().objects("cache_trace.ends", 256).get(counter.render, _new_ends)
    known = by_format.setdefault((counter.family, counter.tokenizer.name, image_size), {})
    if len(known) > _MAX_ENDS:
        known.clear()
    keys = trace.keys.tolist()
    priming = None
    for i, r in enumerate(records):
        if prompts is not None and prompts[i] < minimum:
            continue
        last = len(r.request.messages)
        for j in range(int(trace.ptr[i]), int(trace.ptr[i + 1])):
            end = known.get(keys[j])
            if end is None and prompts is not None and int(trace.blocks[j]) == last:
                if priming is None:
                    empty = Request(system=r.request.system)
                    priming = (count_request(counter, empty, tokenizer).input_tokens
                               - count_request(counter, empty, tokenizer, add_generation_prompt=False).input_tokens)
                end = known[keys[j]] = int(prompts[i]) - priming
            if end is None:  # by arithmetic where the family allows (`recount.fast_counts`): the render's numbers
                content, fmt, _, _ = fast_counts(counter, _cut(r.request, int(trace.blocks[j])), tokenizer,
                                                 add_generation_prompt=False, image_size=image_size)
                end = known[keys[j]] = content + fmt
            out[j] = end
    return out


_MAX_ENDS = 200_000  # per model: a few MB, then started again


def _new_ends(render: object) -> dict[tuple[str | None, str, tuple[int, int] | None], dict[int, int]]:
    return {}


def simulate_rows(rule: CacheRule, traces: Sequence[TraceChunk], ends: Sequence[np.ndarray],
                  prompts: Sequence[np.ndarray], *, per_lifetime: float | None = None,
                  by: str = "--requests-per-lifetime") -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(read, 5-minute write, 1-hour write) per row, in the order of `traces`, under `rule`, and the
    simulation's notes (`caching.simulate`'s).

    `ends[c]` are chunk c's block ends on the target (`block_ends`), `prompts[c]` its rows'
    prompt tokens on the target. `per_lifetime`: a row without a timestamp is placed so that
    this many rows fall in the rule's lifetime (the k-th such row, from 1, at k x lifetime /
    per_lifetime seconds), in place of one burst, as a stream already running (`warm_prefixes`).
    """
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
