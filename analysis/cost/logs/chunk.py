"""Logged traffic priced under other models: each chunk of `LogRecord`s reduced to partial sums.

Unlike `workloads` (texts plus an assumed workload) and `read` (which reads them), this
module recounts each logged request under every target model through the one request counter
(`analysis.requests`: the content in the model's tokenizer plus its family's chat format, with
the count's exactness), the texts of a chunk counted in one batch call per tokenizer
(`requests.batch`), then reduces the chunk to sums before the next chunk is read, so memory stays
flat in the number of rows. Where a row carries the provider's usage, it also sums what the
serving model billed for it. `price_chunk(records, plan)` is a pure function (a
chunk and a plan in, a `TrafficPartial` out) and partials add up with `merge`, so a scale-out
engine can run chunks anywhere and combine them; `report.summarise` turns the total into a
report. A partial also keeps a few integers per row (prompt tokens, tier, output, cache marks, $
as float64) for the prompt-cache simulation and the percentiles; `fold.LogFold` folds them away
chunk by chunk as the partials come back, so a whole log's partial does not grow with its rows.
Totals are exact `Decimal`s rebuilt from integer token sums.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from ...requests.batch import RowShape, Shaped, batch_tokenizers, fast_counts, row_shape, shaped_memo
from ...tokenizers.batch import BatchTokenizer
from ..targets import Target, TrafficPlan, served_target
from ...requests import RequestCounter
from ...tokenizers import Tokenizer
from .read import LogRecord
from ...memo import open_run
from ..billed_sum import as_billed_total
from ..bill import table_rates, usd_per_row
from ..caching import cache_rule
from .cache_trace import block_ends, day_codes, row_days, step_cuts, trace_chunk
from .partial import TOP_ROWS, LoggedBillPart, CalibrationPart, ModelPart, TrafficPartial
from ...errors import BadInput

CHUNK_ROWS = 4096
# -- one chunk -------------------------------------------------------------------------------
@dataclass
class Recount:
    """One model's recount of a chunk: content and format tokens in, tokens out, per row."""

    content: np.ndarray
    format: np.ndarray
    out: np.ndarray
    exactness: Counter


@dataclass
class ChunkShapes:
    """A chunk's rows as the counts read them: each row's `recount.row_shape`, its structure as an
    index into the chunk's distinct structures (each looked up once per model, not once per row), and
    the texts of the requests and of the logged responses in two flat lists (counted in one pass each).

    Row i's request texts are `texts[text_ends[i-1]:text_ends[i]]` (from 0 for the first row), its
    response's `replies[reply_ends[i-1]:reply_ends[i]]`: the text, then the tool calls as JSON, each
    where there is one.
    """

    shapes: list[RowShape]
    codes: np.ndarray  # int64 per row: its structure's index in `keys`, -1 for a row without one (media)
    keys: list[tuple[object, ...]]  # the distinct structures, in the order of their first rows
    firsts: list[int]  # the first row of each structure
    texts: list[str]
    text_ends: np.ndarray
    replies: list[str]
    reply_ends: np.ndarray

    @classmethod
    def of(cls, records: Sequence[LogRecord]) -> ChunkShapes:
        shapes = [row_shape(r.request) for r in records]
        index: dict[tuple[object, ...], int] = {}
        firsts: list[int] = []
        codes = []
        for i, (key, _) in enumerate(shapes):
            if key is None:
                codes.append(-1)
                continue
            code = index.get(key)
            if code is None:
                code = index[key] = len(firsts)
                firsts.append(i)
            codes.append(code)
        replies = [(r.response, r.response_json) for r in records]
        return cls(shapes, np.asarray(codes, dtype=np.int64), list(index), firsts,
                   [t for shape in shapes for t in shape[1]],
                   np.cumsum(np.fromiter((len(shape[1]) for shape in shapes), dtype=np.int64, count=len(shapes))),
                   [t for pair in replies for t in pair if t],
                   np.cumsum(np.fromiter((bool(a) + bool(b) for a, b in replies), dtype=np.int64, count=len(replies))))


def _counts(tok: Tokenizer, texts: list[str]) -> np.ndarray:
    counts = tok.counts(texts) if isinstance(tok, BatchTokenizer) else list(map(tok.count, texts))
    return np.asarray(counts, dtype=np.int64)


def _per_row(counts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The sum of each row's run of `counts`, the runs ending at `ends` (a row with none: 0)."""
    total = np.concatenate(([0], np.cumsum(counts)))
    return np.diff(total[np.concatenate(([0], ends))])


def _text_counts(tok: Tokenizer, shapes: ChunkShapes) -> tuple[np.ndarray, np.ndarray]:
    """(the tokens of each row's request texts, of its logged response) under `tok`: the same for every
    model of the chunk that counts with that tokenizer, so counted once per tokenizer."""
    return _per_row(_counts(tok, shapes.texts), shapes.text_ends), _per_row(_counts(tok, shapes.replies),
                                                                            shapes.reply_ends)


def _recount(counter: RequestCounter, batch: Tokenizer | None, records: Sequence[LogRecord],
             shapes: ChunkShapes, image_size: tuple[int, int] | None = None,
             text_counts: tuple[np.ndarray, np.ndarray] | None = None) -> Recount:
    """Every row's request counted under one model (the batch, where there is one, answers the texts'
    counts); `image_size` sizes the images given by URL. A row whose structure the model's format has
    counted before is `fast_counts`' arithmetic, done here for all the rows of that structure at once
    from `text_counts` (`_text_counts` of the same tokenizer, computed here if not given); the others
    are counted one by one, as `fast_counts` counts them."""
    tok = counter.tokenizer if batch is None else batch
    texts, out = _text_counts(tok, shapes) if text_counts is None else text_counts
    n = len(records)
    content = np.zeros(n, dtype=np.int64)
    fmt = np.zeros(n, dtype=np.int64)
    alone = np.zeros(n, dtype=bool)  # rows counted one by one
    labels: list[tuple[int, tuple[str, str], int]] = []  # (first row, (exactness, reason), rows)

    def one_by_one(i: int) -> None:
        c, f, exactness, reason = fast_counts(counter, records[i].request, tok, shape=shapes.shapes[i],
                                              image_size=image_size)
        content[i], fmt[i], alone[i] = c, f, True
        labels.append((i, (exactness, reason), 1))

    memo = shaped_memo(counter)
    # per structure, plus a last slot that stays empty for the rows without one (code -1)
    shaped_of: list[Shaped | None] = [None] * (len(shapes.keys) + 1)
    if memo is not None:
        for code, key in enumerate(shapes.keys):
            shaped = memo.peek(key)
            if shaped is None:  # as row by row: its first row is counted, and the memo keeps the render
                one_by_one(shapes.firsts[code])
                shaped = memo.peek(key)
            shaped_of[code] = shaped
    added = np.fromiter((s is not None for s in shaped_of), dtype=bool, count=len(shaped_of))
    by_adding = added[shapes.codes] & ~alone
    rows = np.flatnonzero(by_adding)
    if len(rows):
        codes = shapes.codes[rows]
        content[rows] = texts[rows]
        fmt[rows] = np.fromiter((0 if s is None else s.format_tokens for s in shaped_of), dtype=np.int64,
                                count=len(shaped_of))[codes]
        found, first, many = np.unique(codes, return_index=True, return_counts=True)
        for code, at, m in zip(found.tolist(), rows[first].tolist(), many.tolist()):
            shaped = shaped_of[code]
            assert shaped is not None  # by `added`
            labels.append((at, (shaped.exactness, shaped.reason), m))
    for i in np.flatnonzero(~by_adding & ~alone).tolist():
        one_by_one(i)
    seen: Counter = Counter()
    for _, label, m in sorted(labels, key=lambda x: x[0]):  # in the order of the rows, as row by row
        seen[label] += m
    return Recount(content, fmt, out, seen)


def _reduce(target: Target, counted: Recount, mask: np.ndarray, logged: np.ndarray, days: np.ndarray,
            day_names: list[str | None], plan: TrafficPlan, *, keep_costs: bool) -> ModelPart:
    """Sums per (day, tier) of the rows in `mask`, and their $ per row as floats."""
    content, fmt, out, logged, days = (a[mask] for a in (counted.content, counted.format, counted.out, logged, days))
    n_in = content + fmt
    out_logged = np.where(logged, out, 0)
    starts = np.asarray(target.starts, dtype=np.int64)
    tier = np.searchsorted(starts, n_in, side="left")  # number of starts the request exceeds
    cols = np.stack([np.ones_like(n_in), content, fmt, out_logged, logged.astype(np.int64),
                     np.where(logged, 0, content)], axis=1)
    keys = days * (len(starts) + 1) + tier
    part = ModelPart(exactness=counted.exactness.copy() if mask.all() else Counter())
    uniq, inverse = np.unique(keys, return_inverse=True)
    for j, key in enumerate(uniq):
        part.sums[(day_names[key // (len(starts) + 1)], int(key % (len(starts) + 1)))] = cols[inverse == j].sum(axis=0)
    if keep_costs:
        part.costs.append(_row_costs(target, plan, n_in, content, out_logged, logged, tier))
        part.prompts.append(n_in.astype(np.int32))  # a prompt is far below 2**31 tokens
        part.tiers.append(tier.astype(np.int8))
        part.outs.append(_row_outs(plan, content, out_logged, logged))
    return part


def _row_outs(plan: TrafficPlan, content: np.ndarray, out_logged: np.ndarray, logged: np.ndarray) -> np.ndarray:
    """Output tokens per row, for the percentiles: the recount of the logged response, or the assumed output
    (float32: totals come from the exact sums)."""
    if plan.output_tokens is not None:
        return np.where(logged, out_logged, float(plan.output_tokens)).astype(np.float32)
    return np.where(logged, out_logged, float(plan.output_ratio or 0) * content).astype(np.float32)


def _row_costs(target: Target, plan: TrafficPlan, n_in: np.ndarray, content: np.ndarray, out_logged: np.ndarray,
               logged: np.ndarray, tier: np.ndarray) -> np.ndarray:
    """$ per row as float64, for percentiles only (totals are exact Decimals from the sums)."""
    p = target.price
    if p.input is None:
        return np.full(len(n_in), np.nan)
    fallback = float(plan.output_tokens) if plan.output_tokens is not None else None
    n_out = np.where(logged, out_logged, fallback if fallback is not None else float(plan.output_ratio or 0) * content)
    reps = [0] + [s + 1 for s in target.starts]  # an input size inside each tier
    return usd_per_row(n_in, n_out, float(plan.cached_share), tier, [table_rates(p, x) for x in reps],
                       p.output is not None)


def _logged_sums(records: Sequence[LogRecord], idx: np.ndarray, target: Target) -> dict[int, np.ndarray]:
    """The logged usage of the rows in `idx`, summed per tier of the serving model's price (a
    `LoggedBillPart`'s `sums`: a vector of `LOGGED_BILL_FIELDS` per tier)."""
    usage = [records[i].usage for i in idx]
    logged_in = np.asarray([u.input_tokens for u in usage if u is not None], dtype=np.int64)
    cached = np.asarray([u.cached_tokens for u in usage if u is not None], dtype=np.int64)
    out = np.asarray([u.output_tokens or 0 for u in usage if u is not None], dtype=np.int64)
    missing = np.asarray([u.output_tokens is None for u in usage if u is not None], dtype=np.int64)
    tier = np.searchsorted(np.asarray(target.starts, dtype=np.int64), logged_in, side="left")
    cols = np.stack([np.ones_like(logged_in), logged_in, cached, out, missing], axis=1)
    return {int(t): cols[tier == t].sum(axis=0) for t in np.unique(tier)}


_LOGGED_BILL_PARTS = ("input_tokens", "cache_read_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens",
               "output_tokens", "reasoning_tokens")


def _as_billed(records: Sequence[LogRecord], idx: np.ndarray, target: Target) -> tuple[Decimal, int, Counter, int]:
    """(genai-prices' calc_price summed over the rows, each with its timestamp, batch and service tier;
    rows it could not price; the billed parts' token sums; rows whose usage does not say their reasoning).
    The sum is `cost.usage.as_billed_total`'s: rows that share their prices priced once as their sum."""
    parts: Counter = Counter()
    genai = target.price.source.startswith("genai-prices")
    billed = [r for r in map(records.__getitem__, idx.tolist()) if r.logged_bill is not None]
    unpriced = len(idx) - (len(billed) if genai else 0)
    # rows share the LoggedBill of one usage object: its parts are added once, times its rows
    bills = [r.logged_bill for r in billed]
    times = Counter(map(id, bills))
    first = dict(zip(map(id, bills), bills))
    unknown = 0
    for key, n in times.items():  # in the order of the rows
        bill = first[key]
        assert bill is not None  # by `billed`
        for name in _LOGGED_BILL_PARTS:
            parts[name] += (getattr(bill, name) or 0) * n
        unknown += n * (bill.reasoning_tokens is None)
    total = Decimal(0)
    if genai:
        total, refused = as_billed_total(map(_LOGGED_BILL_ROW, billed), target.price.model,
                                         provider=target.price.provider)
        unpriced += refused
    return total, unpriced, parts, unknown


# a record as a `cost.usage.LoggedBillRow`
_LOGGED_BILL_ROW = operator.attrgetter("logged_bill", "timestamp", "batch", "service_tier")


def _visible_out(record: LogRecord) -> int:
    """The logged output our recount of the response can match: without the reasoning the usage names."""
    assert record.usage is not None and record.usage.output_tokens is not None
    bill = record.logged_bill
    return record.usage.output_tokens - (bill.reasoning_tokens or 0 if bill is not None else 0)


def _calibrate(records: Sequence[LogRecord], idx: np.ndarray, counted: Recount) -> CalibrationPart:
    """Our recount in the serving model's format against the provider's usage, for rows in `idx`."""
    part = CalibrationPart()
    ours_in = counted.content[idx] + counted.format[idx]
    ours_out = counted.out[idx]
    logged_in = np.asarray([records[i].usage.input_tokens for i in idx], dtype=np.float64)
    logged_out = np.asarray([np.nan if records[i].usage.output_tokens is None or records[i].response is None
                             else _visible_out(records[i]) for i in idx], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_in = np.where(logged_in > 0, (ours_in - logged_in) / logged_in, np.nan)
        rel_out = np.where(logged_out > 0, (ours_out - logged_out) / logged_out, np.nan)
    part.rel_in.append(rel_in)
    part.rel_out.append(rel_out)
    worst = np.fmax(np.abs(rel_in), np.abs(rel_out))
    # stable: rows that differ as much keep the log's order, in a chunk as across chunks (`merge`), so
    # the worst rows are the same however the log is chunked
    for k in np.argsort(-np.nan_to_num(worst, nan=-1.0), kind="stable")[:TOP_ROWS]:
        if np.isnan(worst[k]):
            break
        r = records[idx[k]]
        part.top.append({"where": r.where, "served_by": r.model,
                         "input_ours": int(ours_in[k]), "input_logged": int(logged_in[k]), "input_error": float(rel_in[k]),
                         "output_ours": int(ours_out[k]),
                         "output_logged": None if np.isnan(logged_out[k]) else int(logged_out[k]),
                         "output_error": float(rel_out[k]), "worst": float(worst[k])})
    return part


def price_chunk(records: Sequence[LogRecord], plan: TrafficPlan) -> TrafficPartial:
    """Reduce a chunk of records to partial sums under every target model (a pure function).

    Raises:
        BadInput: a row has no logged response and the plan has no output fallback (the
            message names the row and the flags that fix it).
    """
    records = list(records)
    n = len(records)
    out = TrafficPartial(rows=n)
    if not n:
        return out
    logged = np.fromiter((r.response is not None for r in records), dtype=bool, count=n)
    if plan.output_tokens is None and plan.output_ratio is None and not logged.all():
        first = records[int(np.argmin(logged))]
        raise BadInput(f"{first.where}: no logged response, so its output tokens are unknown; give an output "
                         "size for rows without one: --output-tokens N or --output-ratio R")
    day_of = row_days(records)
    day_names, days = day_codes(day_of)
    shapes = ChunkShapes.of(records)
    for i in np.flatnonzero(shapes.codes < 0).tolist():  # a structure holds no media part
        media = records[i].not_counted
        out.not_counted.update(dict(media))
        out.rows_with_media += bool(media)
    out.rows_without_time = day_of.count(None)

    # a model that is also a target is served by the target's own Target (its counter, never another one)
    own = {t.ref: t for t in plan.targets}
    by_model = {m: own.get(m) or served_target(m, plan.on, plan.overrides, plan.fallback_tokenizer)
                for m in dict.fromkeys(r.model for r in records) if m}
    served = [by_model[r.model] if r.model else "no model in the log" for r in records]
    wanted = {t.ref: t for t in plan.targets if t.counter() is not None}
    for s in by_model.values():
        if isinstance(s, Target) and s.counter() is not None:
            wanted.setdefault(s.ref, s)
    counters = {ref: t.counter() for ref, t in wanted.items()}
    batches = batch_tokenizers([c for c in counters.values() if c is not None], shapes.texts)
    for batch in batches.values():
        batch.fill(shapes.replies)
    per_tokenizer: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # the models of one tokenizer share its counts
    recounts = {}
    for ref, c in counters.items():
        if c is not None:
            tok = batches.get(c.tokenizer.name) or c.tokenizer
            if id(tok) not in per_tokenizer:
                per_tokenizer[id(tok)] = _text_counts(tok, shapes)
            recounts[ref] = _recount(c, batches.get(c.tokenizer.name), records, shapes, plan.image_size,
                                     per_tokenizer[id(tok)])

    everyone = np.ones(n, dtype=bool)
    caching = plan.simulates_cache and any(cache_rule(t.ref) is not None for t in plan.targets)
    # a row below every simulated rule's minimum can use no cache: its marks are not worked out
    minimums = [(recounts[t.ref], rule.minimum) for t in plan.targets
                if t.ref in recounts and (rule := cache_rule(t.ref)) is not None] if caching else []
    short = np.logical_and.reduce([r.content + r.format < low for r, low in minimums]) if minimums else None
    trace = trace_chunk(records, plan.cache_breakpoints if caching else None, day_of, short=short)
    out.traces.append(trace)
    for t in plan.targets:
        if t.ref in recounts:
            part = out.models[t.ref] = _reduce(t, recounts[t.ref], everyone, logged, days, day_names, plan,
                                               keep_costs=True)
            counter = counters[t.ref]
            if caching and cache_rule(t.ref) is not None and counter is not None:
                rule = cache_rule(t.ref)
                prompts = recounts[t.ref].content + recounts[t.ref].format
                part.ends.append(block_ends(counter, batches.get(counter.tokenizer.name), records, trace, prompts,
                                            rule.minimum if rule is not None else 0, plan.image_size))
                part.steps.append(step_cuts(counter, records, trace, prompts, rule, plan.image_size)
                                  if rule is not None and rule.granularity == "step" else None)
            else:
                part.ends.append(np.zeros(len(trace.keys), dtype=np.int32))
                part.steps.append(None)
    by_served: dict[str, list[int]] = {}
    not_recounted: dict[str, list[int]] = {}  # priced, but no tokenizer: billed from the usage all the same
    for i, s in enumerate(served):
        if isinstance(s, Target) and s.ref in recounts:
            by_served.setdefault(s.ref, []).append(i)
        else:
            reason = s if isinstance(s, str) else s.choice.status
            out.unpriced_served[f"{records[i].model or 'unknown'}: {reason}"] += 1
            if isinstance(s, Target) and records[i].usage is not None:
                not_recounted.setdefault(s.ref, []).append(i)
    for ref, rows in not_recounted.items():
        target = served[rows[0]]
        assert isinstance(target, Target)  # by `not_recounted`
        with_usage = np.asarray(rows, dtype=np.int64)
        out.billed[ref] = LoggedBillPart(_logged_sums(records, with_usage, target), ModelPart(),
                                         *_as_billed(records, with_usage, target))
    for ref, rows in by_served.items():
        target = served[rows[0]]
        assert isinstance(target, Target)  # by `by_served`
        mask = np.zeros(n, dtype=bool)
        mask[rows] = True
        out.served[ref] = _reduce(target, recounts[ref], mask, logged, days, day_names, plan, keep_costs=False)
        with_usage = np.asarray([i for i in rows if records[i].usage is not None], dtype=np.int64)
        if len(with_usage):
            out.calibration[ref] = _calibrate(records, with_usage, recounts[ref])
            usage_mask = np.zeros(n, dtype=bool)
            usage_mask[with_usage] = True
            out.billed[ref] = LoggedBillPart(_logged_sums(records, with_usage, target),
                                             _reduce(target, recounts[ref], usage_mask, logged, days, day_names, plan,
                                                     keep_costs=False), *_as_billed(records, with_usage, target))
    return out


def chunked(records: Iterable[LogRecord], size: int = CHUNK_ROWS) -> Iterator[list[LogRecord]]:
    """Lists of at most `size` records, in order."""
    chunk: list[LogRecord] = []
    for r in records:
        chunk.append(r)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def price_records(records: Iterable[LogRecord], plan: TrafficPlan, *, chunk_rows: int = CHUNK_ROWS,
                  progress: Callable[[int], None] | None = None) -> TrafficPartial:
    """Price a stream of records in this process, one chunk at a time, in one run (its caches,
    `analysis.memo`); `progress(rows)` after each chunk."""
    total = TrafficPartial()
    with open_run():
        for chunk in chunked(records, chunk_rows):
            total.merge(price_chunk(chunk, plan))
            if progress is not None:
                progress(len(chunk))
    return total
