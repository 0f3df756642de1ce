"""What a prompt cache needs of each logged row, kept as a few integers as the chunks are priced.

Unlike `chunk` (which recounts every row under every target and keeps only sums), `cache_replay`
(each target's cache simulated over what the rows kept, once the whole log is read) and
`cost.caching` (the providers' rules), this module only decides what a row keeps for the cache,
and simulates nothing. A cache matches prefixes, and a chat prompt is a run of blocks (the
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

A rule of ``granularity = "step"`` (OpenAI's: 128-token steps from 1,024) matches prefixes that end
anywhere, within a message or across messages. For such a target, each row whose prompt reaches the
rule's minimum also keeps its step cuts (`StepCuts`, from `step_cuts`): an end every `step` tokens
from the minimum up to the prompt, keyed by a BLAKE2b chain over the target's own token ids of the
rendered prompt (a cut's key names the whole prefix up to it), at most `MAX_STEP_CUTS` a row (past
them, the block ends still match). `with_steps` joins them to the row's block marks for the
simulation, which is unchanged: the longest live end, rounded down to the step.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...memo import run_caches
from ..caching import CacheRule
from ...requests.batch import cache_ids, cache_ids_key, count_request, fast_counts
from ...requests import Request, RequestCounter, TextPart
from ...tokenizers import Tokenizer
from .read import LogRecord

__all__ = ["BREAKPOINT_MODES", "MAX_STEP_CUTS", "StepCuts", "TraceChunk", "block_ends", "day_codes", "row_days",
           "step_cuts", "trace_chunk", "with_steps"]

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
            if end is None:  # by arithmetic where the family allows (`requests.batch.fast_counts`)
                content, fmt, _, _ = fast_counts(counter, _cut(r.request, int(trace.blocks[j])), tokenizer,
                                                 add_generation_prompt=False, image_size=image_size)
                end = known[keys[j]] = content + fmt
            out[j] = end
    return out


_MAX_ENDS = 200_000  # per model: a few MB, then started again


def _new_ends(render: object) -> dict[tuple[str | None, str, tuple[int, int] | None], dict[int, int]]:
    return {}


# step cuts kept per row on a step target: 64 cover a prompt's first 1,024 + 63 x 128 = 9,088 tokens
# (on OpenAI's rule); a prefix shared further than that is matched at block ends only. 12 bytes a cut.
MAX_STEP_CUTS = 64


@dataclass
class StepCuts:
    """The step cuts of a chunk's rows on one target: row i's are `ends[ptr[i]:ptr[i+1]]` (token
    offsets, increasing) and `keys[...]` (a chained BLAKE2b of the token ids up to each cut)."""

    ptr: np.ndarray  # int64, rows + 1
    ends: np.ndarray  # int32
    keys: np.ndarray  # int64

    @classmethod
    def empty(cls, rows: int) -> StepCuts:
        return cls(np.zeros(rows + 1, dtype=np.int64), np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int64))


def _cut_keys(ids: Sequence[int], minimum: int, step: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(cuts, keys) of one prompt's token ids: every `step` from `minimum` up to its length, at most
    `MAX_STEP_CUTS`; each key chains the one before it, so equal keys are equal id prefixes."""
    cuts = tuple(range(minimum, len(ids) + 1, step))[:MAX_STEP_CUTS]
    data = np.asarray(ids, dtype=np.int64).tobytes()
    keys: list[int] = []
    prev, at = b"step cuts", 0
    for cut in cuts:
        prev = hashlib.blake2b(prev + data[at * 8:cut * 8], digest_size=8).digest()
        at = cut
        keys.append(int.from_bytes(prev, "little", signed=True))
    return cuts, tuple(keys)


def step_cuts(counter: RequestCounter, records: Sequence[LogRecord], trace: TraceChunk, prompts: np.ndarray,
              rule: CacheRule, image_size: tuple[int, int] | None = None) -> StepCuts:
    """The step cuts (`StepCuts`) of the rows of `trace` whose prompt on `counter`'s model (`prompts`)
    reaches `rule.minimum`, from its ids as a prefix cache matches them (`requests.batch.cache_ids`:
    with the reply priming, as sent). A row without such ids (media; a family counted by rules
    other than OpenAI's), or whose ids are not as many as its count, keeps none. A prompt is
    rendered once per run, per chat format and tokenizer (per tokenizer and rule set where models
    share their layout, `requests.batch.cache_ids_key`): its cuts are kept by its whole text's key
    (the row's last block mark), at most `_MAX_ENDS` prompts, then started again."""
    shared = cache_ids_key(counter)
    if shared is not None:  # models whose prompts are laid out alike (gpt-4o, gpt-4.1-mini) share the cuts
        known = run_caches().memo("cache_trace.steps.shared", 64).get((shared, image_size, rule.minimum, rule.step),
                                                                      dict)
    else:
        by_format = run_caches().objects("cache_trace.steps", 256).get(counter.render, _new_steps)
        known = by_format.setdefault((counter.family, counter.tokenizer.name, image_size, rule.minimum, rule.step), {})
    if len(known) > _MAX_ENDS:
        known.clear()
    counts = np.zeros(trace.rows, dtype=np.int64)
    ends: list[int] = []
    keys: list[int] = []
    ptr = trace.ptr.tolist()
    whole = trace.keys.tolist()
    for i in np.flatnonzero(prompts >= rule.minimum).tolist():
        if ptr[i + 1] == ptr[i]:
            continue
        key = whole[ptr[i + 1] - 1]  # the row's last mark: the whole conversation
        found = known.get(key)
        if found is None:
            ids = cache_ids(counter, records[i].request, image_size=image_size)
            found = known[key] = _cut_keys(ids, rule.minimum, rule.step) \
                if ids is not None and len(ids) == int(prompts[i]) else ((), ())
        ends += found[0]
        keys += found[1]
        counts[i] = len(found[0])
    return StepCuts(np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(counts))),
                    np.asarray(ends, dtype=np.int32), np.asarray(keys, dtype=np.int64))


def _new_steps(render: object) -> dict[tuple[object, ...], dict[int, tuple[tuple[int, ...], tuple[int, ...]]]]:
    return {}


def with_steps(trace: TraceChunk, end: np.ndarray, steps: StepCuts | None) -> tuple[TraceChunk, np.ndarray]:
    """The chunk's marks on a target with its step cuts joined: each row's block marks, then its
    step cuts (flag 0, block -1), as one `TraceChunk` and its ends. Without cuts, `trace` and `end`."""
    if steps is None or not len(steps.ends):
        return trace, end
    a, b = np.diff(trace.ptr), np.diff(steps.ptr)
    ptr = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(a + b)))
    total = int(ptr[-1])
    at_a = np.repeat(ptr[:-1], a) + (np.arange(len(trace.keys)) - np.repeat(trace.ptr[:-1], a))
    at_b = np.repeat(ptr[:-1] + a, b) + (np.arange(len(steps.keys)) - np.repeat(steps.ptr[:-1], b))
    blocks = np.full(total, -1, dtype=np.int32)
    keys = np.empty(total, dtype=np.int64)
    flags = np.zeros(total, dtype=np.int8)
    ends = np.empty(total, dtype=end.dtype)
    blocks[at_a], keys[at_a], flags[at_a], ends[at_a] = trace.blocks, trace.keys, trace.flags, end
    keys[at_b], ends[at_b] = steps.keys, steps.ends
    return dataclasses.replace(trace, ptr=ptr, blocks=blocks, keys=keys, flags=flags), ends
