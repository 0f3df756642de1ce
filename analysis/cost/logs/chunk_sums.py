"""Logged traffic priced under other models: each chunk of `LogRecord`s reduced to partial sums.

Unlike `workloads` (texts plus an assumed workload) and `records` (which reads them), this
module recounts each logged request under every target model through the one request counter
(`analysis.requests`: the content in the model's tokenizer plus its family's chat format, with
the count's exactness), the texts of a chunk counted in one batch call per tokenizer
(`cost.recount`), then reduces the chunk to sums before the next chunk is read, so memory stays
flat in the number of rows. Where a row carries the provider's usage, it also sums what the
serving model billed for it. `price_chunk(records, plan)` is a pure function (a
chunk and a plan in, a `TrafficPartial` out) and partials add up with `merge`, so a scale-out
engine can run chunks anywhere and combine them; `traffic_report.summarise` turns the total into a
report. A partial also keeps a few integers per row (prompt tokens, tier, output, cache marks, $
as float64) for the prompt-cache simulation and the percentiles; `stream.LogFold` folds them away
chunk by chunk as the partials come back, so a whole log's partial does not grow with its rows.
Totals are exact `Decimal`s rebuilt from integer token sums.
"""

from __future__ import annotations

import functools
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import numpy as np

from ..arithmetic import tier_rates
from ...models import TokenizerChoice
from ..prices import Price, get_price
from ..recount import (BatchTokenizer, RowShape, Shaped, batch_tokenizers, fast_counts, row_shape, shaped_memo,
                       target_counter)
from ..targets import check_fallback, choice_for
from ..workloads.workload import to_decimal
from ...requests import RequestCounter
from ...requests.media import parse_size
from ...tokenizers import Tokenizer
from .records import LogRecord
from ..usage import SERVICE_TIERS, as_billed_total
from ..bill import part_rates
from ..caching import cache_rule
from .cache_trace import BREAKPOINT_MODES, TraceChunk, block_ends, day_codes, row_days, trace_chunk
from ...errors import BadInput

CHUNK_ROWS = 4096
TOP_ROWS = 10  # calibration rows kept: the ones that differ most
# Columns of a sums vector, one vector per (day, tier) of a model: input is the request count's
# content and format tokens; an assumed output (--output-ratio) is a multiple of the content only.
SUM_FIELDS = ("rows", "content_in", "format_in", "logged_out", "rows_logged_out", "content_of_unlogged")
# Columns of a billed vector, one per tier of the serving model's price (the tier of the logged input).
BILLED_FIELDS = ("rows", "input", "cached", "output", "rows_without_output")
_F = {name: i for i, name in enumerate(SUM_FIELDS)}


@dataclass(frozen=True, slots=True)
class Target:
    """A model to price with: its price, its tokenizer choice, and the tier starts of its price."""

    ref: str
    price: Price
    choice: TokenizerChoice

    @property
    def starts(self) -> tuple[int, ...]:
        rates = (self.price.input, self.price.cached_input, self.price.output)
        return tuple(sorted({s for r in rates if r is not None for s, _ in r.tiers}))

    def counter(self) -> RequestCounter | None:
        """The request counter of this model (built once per process: a plan travels to workers without it)."""
        return _counter(self.ref, self.choice)


@functools.lru_cache(maxsize=256)
def _counter(ref: str, choice: TokenizerChoice) -> RequestCounter | None:
    return target_counter(ref, choice)


@dataclass(frozen=True)
class TrafficPlan:
    """What to price logged traffic with: picklable, so each worker of an engine can hold one.

    Attributes:
        targets: the models to price every row under.
        output_tokens, output_ratio: the output of rows without a logged response (at most one).
        cached_share: share of each request's input billed at the cached-input price.
        share_given: whether `cached_share` was given (0 included: no cache), in place of each
            target's own cache rule simulated over the log.
        on: the day whose prices apply.
        overrides, fallback_tokenizer: as `workloads.estimate`, also used for the models that served the rows.
        reasoning_tokens, reasoning_ratio: reasoning per request on a target that reasons (tokens,
            or a multiple of its visible output), where the log's own reasoning does not serve.
        reasoning_for: per-model reasoning figures, (model, "tokens" or "ratio", value); a model
            named here takes its figure in place of the log's or the plan-wide one.
        cache_breakpoints: "request" (a breakpoint rule caches at the request's own cache_control
            marks) or "auto" (also after the system prompt and tools and after the last message).
        batch, service_tier: price every target at genai-prices' batch or service-tier price.
        requests_per_lifetime: rows without a timestamp (requests given on the command line, or a
            log that has none) are spaced so that this many fall in each target's cache lifetime,
            in place of one burst.
        image_size: (width, height) of the images a row gives by URL (never fetched), priced at that
            size by each model's rule; None leaves them unsized (not counted, and said so).
    """

    targets: tuple[Target, ...]
    output_tokens: Decimal | None = None
    output_ratio: Decimal | None = None
    cached_share: Decimal = Decimal(0)
    on: date = field(default_factory=lambda: datetime.now(UTC).date())
    overrides: tuple[Price, ...] = ()
    fallback_tokenizer: str | None = None
    reasoning_tokens: Decimal | None = None
    reasoning_ratio: Decimal | None = None
    reasoning_for: tuple[tuple[str, str, Decimal], ...] = ()
    cache_breakpoints: str = "request"
    batch: bool = False
    service_tier: str | None = None
    requests_per_lifetime: Decimal | None = None
    image_size: tuple[int, int] | None = None
    share_given: bool = False

    @property
    def simulates_cache(self) -> bool:
        """Each target's own cache rule is simulated over the log unless --cached-share is given
        (--cached-share 0: no cache at all)."""
        return not self.share_given


def plan_traffic(models: Sequence[str] | str, *, output_tokens: Any = None, output_ratio: Any = None,
                 cached_share: Any = None, overrides: Iterable[Price] = (), on: date | None = None,
                 fallback_tokenizer: str | None = None, reasoning_tokens: Any = None,
                 reasoning_ratio: Any = None, reasoning_for: Iterable[tuple[str, str, Any]] = (),
                 cache_breakpoints: str = "request", batch: bool = False,
                 service_tier: str | None = None, requests_per_lifetime: Any = None,
                 image_size: tuple[int, int] | str | None = None) -> TrafficPlan:
    """Resolve model references to prices and tokenizers once, before any row is read.

    `image_size` is the (width, height), or "WxH", of the images rows give by URL. `cached_share`
    None simulates each target's own prompt cache; a share (0 included) replaces the simulation.

    Raises:
        KeyError: an unknown model (with the closest names) or fallback tokenizer.
        ValueError: no models, both output fallbacks, a bad number or a bad image size.

    >>> plan_traffic("gpt-4o", output_tokens=10).targets[0].choice.tokenizer
    'o200k_base'
    """
    refs = [m.strip() for m in (models.split(",") if isinstance(models, str) else models) if m.strip()]
    refs = list(dict.fromkeys(refs))
    if not refs:
        raise BadInput("no models selected; name some with --models or see `tokenprism models`")
    if output_tokens is not None and output_ratio is not None:
        raise BadInput("give at most one of output_tokens and output_ratio")
    if reasoning_tokens is not None and reasoning_ratio is not None:
        raise BadInput("give at most one of --reasoning-tokens and --reasoning-ratio")
    check_fallback(fallback_tokenizer)
    if cache_breakpoints not in BREAKPOINT_MODES:
        raise BadInput(f"cache breakpoints must be one of {', '.join(BREAKPOINT_MODES)}, got {cache_breakpoints!r}")
    if service_tier is not None and service_tier not in SERVICE_TIERS:
        raise BadInput(f"unknown service tier {service_tier!r}; valid: {', '.join(SERVICE_TIERS)}")
    day = on or datetime.now(UTC).date()
    overrides = tuple(overrides)
    targets = []
    for ref in refs:
        price = get_price(ref, on=day, overrides=overrides)
        targets.append(Target(ref, price, choice_for(price, ref, fallback_tokenizer)))
        if batch or service_tier:
            part_rates(price, day, batch=batch, service_tier=service_tier)  # refuses a model without that price
    per_model = []
    for ref, kind, value in reasoning_for:
        if ref not in refs:
            raise BadInput(f"--reasoning-tokens/--reasoning-ratio name {ref!r}, which is not among the models "
                           f"priced ({', '.join(refs)}); name one of them")
        per_model.append((ref, kind, to_decimal(f"reasoning for {ref}", value)))
    return TrafficPlan(
        tuple(targets),
        None if output_tokens is None else to_decimal("output_tokens", output_tokens),
        None if output_ratio is None else to_decimal("output_ratio", output_ratio),
        to_decimal("cached_share", 0 if cached_share is None else cached_share, maximum=Decimal(1)), day, overrides,
        fallback_tokenizer,
        None if reasoning_tokens is None else to_decimal("reasoning_tokens", reasoning_tokens),
        None if reasoning_ratio is None else to_decimal("reasoning_ratio", reasoning_ratio),
        tuple(per_model), cache_breakpoints, batch, service_tier,
        None if requests_per_lifetime is None else _positive("requests_per_lifetime", requests_per_lifetime),
        _image_size(image_size), cached_share is not None)


def _positive(name: str, value: Any) -> Decimal:
    number = to_decimal(name, value)
    if number <= 0:
        raise BadInput(f"{name} must be positive (requests per cache lifetime), got {value!r}")
    return number


def _image_size(value: tuple[int, int] | str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return parse_size(value)
    w, h = value
    return parse_size(f"{w}x{h}")  # the same check (positive whole pixels) and message as "WxH"


def served_target(model: str, on: date, overrides: tuple[Price, ...], fallback: str | None) -> Target | str:
    """The `Target` for the model a row was served by, or why it cannot be priced. The price is
    looked up once per process; the tokenizer is chosen on each call, so a vocabulary fetched since
    (`tokenprism vocab fetch` beside a running server) counts, as it does for the plan's targets."""
    price = _served_price(model, on, overrides)
    if isinstance(price, str):
        return price
    return Target(model, price, choice_for(price, model, fallback))


@functools.lru_cache(maxsize=256)
def _served_price(model: str, on: date, overrides: tuple[Price, ...]) -> Price | str:
    try:
        return get_price(model, on=on, overrides=overrides)
    except KeyError as e:
        return f"unknown model ({e.args[0].split(':', 1)[0] if e.args else 'no price'})"


def warm_counters(records: Iterable[LogRecord], plan: TrafficPlan) -> None:
    """Build the counters `price_chunk` will use for these records (the targets', and the serving
    models'), so that worker processes forked afterwards inherit them."""
    for t in plan.targets:
        t.counter()
    for model in {r.model for r in records if r.model}:
        served = served_target(model, plan.on, plan.overrides, plan.fallback_tokenizer)
        if isinstance(served, Target):
            served.counter()


# -- partial sums ----------------------------------------------------------------------------
@dataclass
class ModelPart:
    """One model's sums: a vector of `SUM_FIELDS` per (day, tier), the $ of each row (float64), and
    how many rows each (exactness, reason) of the request count covers."""

    sums: dict[tuple[str | None, int], np.ndarray] = field(default_factory=dict)
    costs: list[np.ndarray] = field(default_factory=list)
    exactness: Counter = field(default_factory=Counter)
    # per row of a target (chunk after chunk, as `TrafficPartial.traces`): prompt tokens, price
    # tier, output tokens (logged or assumed), and the block ends of the cache marks
    prompts: list[np.ndarray] = field(default_factory=list)
    tiers: list[np.ndarray] = field(default_factory=list)
    outs: list[np.ndarray] = field(default_factory=list)
    ends: list[np.ndarray] = field(default_factory=list)

    def merge(self, other: ModelPart) -> None:
        for key, vec in other.sums.items():
            self.sums[key] = self.sums[key] + vec if key in self.sums else vec.copy()
        self.costs.extend(other.costs)
        self.exactness.update(other.exactness)
        for mine, theirs in ((self.prompts, other.prompts), (self.tiers, other.tiers), (self.outs, other.outs),
                             (self.ends, other.ends)):
            mine.extend(theirs)


@dataclass
class BilledPart:
    """What the serving model billed, from the logged usage: a vector of `BILLED_FIELDS` per tier,
    and our recount of the same rows (a `ModelPart`), so the two compare like for like. A model that
    no tokenizer counts is billed all the same (the bill needs only the usage and its price); its
    recount is then empty, and it has no calibration."""

    sums: dict[int, np.ndarray] = field(default_factory=dict)
    recount: ModelPart = field(default_factory=ModelPart)
    # genai-prices' calc_price per row, summed, and the rows it could not price (the price is the
    # user's --prices row, or genai-prices has none); the billed parts' tokens (`cost.usage.BillUsage`)
    usd_genai: Decimal = Decimal(0)
    unpriced: int = 0
    parts: Counter = field(default_factory=Counter)
    reasoning_unknown: int = 0

    @property
    def usd(self) -> Decimal | None:
        """The bill as genai-prices computes it row by row, or None when a row could not be priced so."""
        return None if self.unpriced else self.usd_genai

    def merge(self, other: BilledPart) -> None:
        for key, vec in other.sums.items():
            self.sums[key] = self.sums[key] + vec if key in self.sums else vec.copy()
        self.recount.merge(other.recount)
        self.usd_genai += other.usd_genai
        self.unpriced += other.unpriced
        self.parts.update(other.parts)
        self.reasoning_unknown += other.reasoning_unknown


@dataclass
class CalibrationPart:
    """Relative errors (ours - logged) / logged of one serving model's rows, and the worst rows."""

    rel_in: list[np.ndarray] = field(default_factory=list)
    rel_out: list[np.ndarray] = field(default_factory=list)
    top: list[dict[str, Any]] = field(default_factory=list)

    def merge(self, other: CalibrationPart) -> None:
        self.rel_in.extend(other.rel_in)
        self.rel_out.extend(other.rel_out)
        self.top = sorted(self.top + other.top, key=lambda r: -r["worst"])[:TOP_ROWS]


@dataclass
class TrafficPartial:
    """Everything `summarise` needs, for any number of rows; `merge` adds another partial in place."""

    rows: int = 0
    models: dict[str, ModelPart] = field(default_factory=dict)
    served: dict[str, ModelPart] = field(default_factory=dict)
    billed: dict[str, BilledPart] = field(default_factory=dict)
    unpriced_served: Counter = field(default_factory=Counter)  # "model: reason" -> rows
    calibration: dict[str, CalibrationPart] = field(default_factory=dict)
    not_counted: Counter = field(default_factory=Counter)
    rows_with_media: int = 0
    rows_without_time: int = 0
    traces: list[TraceChunk] = field(default_factory=list)  # aligned with the targets' per-row lists
    # the per-row state folded chunk by chunk (`stream.Folded`), where `stream.LogFold` merged the
    # partials; then the per-row lists above are empty
    folded: Any = None
    order_note: str = ""  # a long log out of time order priced with every row kept (`stream.order_note`)

    def merge(self, other: TrafficPartial) -> TrafficPartial:
        self.rows += other.rows
        self.traces.extend(other.traces)
        for mine, theirs in ((self.models, other.models), (self.served, other.served)):
            for key, part in theirs.items():
                mine.setdefault(key, ModelPart()).merge(part)
        for key, billed in other.billed.items():
            self.billed.setdefault(key, BilledPart()).merge(billed)
        for key, cal in other.calibration.items():
            self.calibration.setdefault(key, CalibrationPart()).merge(cal)
        self.unpriced_served.update(other.unpriced_served)
        self.not_counted.update(other.not_counted)
        self.rows_with_media += other.rows_with_media
        self.rows_without_time += other.rows_without_time
        return self


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
    table = np.asarray([[float(r) for r in tier_rates(p, x)] for x in reps])  # (tiers, 3): input, cached, output
    r_in, r_cached = table[tier, 0], table[tier, 1]
    r_out = table[tier, 2] if p.output is not None else np.full(len(n_in), np.nan)
    share = float(plan.cached_share)
    usd = (n_in * (1 - share) * r_in + n_in * share * r_cached) / 1e6 + np.where(n_out > 0, n_out * r_out / 1e6, 0.0)
    return usd + float(p.per_request or 0)


def _billed(records: Sequence[LogRecord], idx: np.ndarray, target: Target) -> dict[int, np.ndarray]:
    """The logged usage of the rows in `idx`, summed per tier of the serving model's price."""
    usage = [records[i].usage for i in idx]
    logged_in = np.asarray([u.input_tokens for u in usage if u is not None], dtype=np.int64)
    cached = np.asarray([u.cached_tokens for u in usage if u is not None], dtype=np.int64)
    out = np.asarray([u.output_tokens or 0 for u in usage if u is not None], dtype=np.int64)
    missing = np.asarray([u.output_tokens is None for u in usage if u is not None], dtype=np.int64)
    tier = np.searchsorted(np.asarray(target.starts, dtype=np.int64), logged_in, side="left")
    cols = np.stack([np.ones_like(logged_in), logged_in, cached, out, missing], axis=1)
    return {int(t): cols[tier == t].sum(axis=0) for t in np.unique(tier)}


_BILL_PARTS = ("input_tokens", "cache_read_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens",
               "output_tokens", "reasoning_tokens")


def _as_billed(records: Sequence[LogRecord], idx: np.ndarray, target: Target) -> tuple[Decimal, int, Counter, int]:
    """(genai-prices' calc_price summed over the rows, each with its timestamp, batch and service tier;
    rows it could not price; the billed parts' token sums; rows whose usage does not say their reasoning).
    The sum is `cost.usage.as_billed_total`'s: rows that share their prices priced once as their sum."""
    parts: Counter = Counter()
    genai = target.price.source.startswith("genai-prices")
    billed = [r for r in map(records.__getitem__, idx.tolist()) if r.bill is not None]
    unpriced = len(idx) - (len(billed) if genai else 0)
    # rows share the BillUsage of one usage object: its parts are added once, times its rows
    bills = [r.bill for r in billed]
    times = Counter(map(id, bills))
    first = dict(zip(map(id, bills), bills))
    unknown = 0
    for key, n in times.items():  # in the order of the rows
        bill = first[key]
        assert bill is not None  # by `billed`
        for name in _BILL_PARTS:
            parts[name] += (getattr(bill, name) or 0) * n
        unknown += n * (bill.reasoning_tokens is None)
    total = Decimal(0)
    if genai:
        total, refused = as_billed_total(map(_BILLED_ROW, billed), target.price.model, provider=target.price.provider)
        unpriced += refused
    return total, unpriced, parts, unknown


_BILLED_ROW = operator.attrgetter("bill", "timestamp", "batch", "service_tier")  # `cost.usage.BilledRow`


def _visible_out(record: LogRecord) -> int:
    """The logged output our recount of the response can match: without the reasoning the usage names."""
    assert record.usage is not None and record.usage.output_tokens is not None
    bill = record.bill
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
            else:
                part.ends.append(np.zeros(len(trace.keys), dtype=np.int32))
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
        out.billed[ref] = BilledPart(_billed(records, with_usage, target), ModelPart(),
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
            out.billed[ref] = BilledPart(_billed(records, with_usage, target),
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
    """Price a stream of records in this process, one chunk at a time; `progress(rows)` after each chunk."""
    total = TrafficPartial()
    for chunk in chunked(records, chunk_rows):
        total.merge(price_chunk(chunk, plan))
        if progress is not None:
            progress(len(chunk))
    return total
