"""One target's whole bill over a log: the recount's input and output, the target's own prompt
cache simulated over the log's sequence of requests, and reasoning, each part at its rate.

Unlike `report` (which assembles every table and note) and `chunk` (which keeps
the sums and the few integers per row this needs), this module takes one target's merged part
and returns its bill: tokens and USD per part, per day, and the percentiles of $ per request.
Money is `Decimal` from integer sums per (day, tier) at `cost.bill.rates_by_tier` (genai-prices'
own rates, with --batch/--service-tier), so a bill here equals genai-prices' calc_price summed
over the rows; only the percentiles are floats.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from .. import bill
from ..bill import PARTS, rates_by_tier
from ..caching import REASONING_NOT_INCLUDED, cache_rule, reasoning_rule
from ...money import format_usd
from .cache_replay import simulate_rows
from .fold import percentiles
from ..targets import Target, TrafficPlan
from .partial import SUM_FIELDS, ModelPart, TrafficPartial

_F = {name: i for i, name in enumerate(SUM_FIELDS)}


@dataclass(frozen=True)
class ReasoningFigure:
    """A target's reasoning: `per_request` tokens, or `ratio` x each request's visible output;
    `total` the whole log's (None: unknown, so not included); `source` says where it comes from."""

    total: int | None
    source: str
    per_request: Decimal = Decimal(0)
    ratio: Decimal = Decimal(0)


@dataclass
class TargetBill:
    """What a target would pay, by part (tokens, $/Mtok of the first tier, USD), per day, and its
    percentiles (unlike `usage.LoggedBill`, what the log billed)."""

    usd: Decimal | None
    tokens: dict[str, int]
    usd_parts: dict[str, Decimal | None]
    rates: dict[str, Decimal | None]
    days: dict[str, Decimal | None]
    p50: float
    p95: float
    top: float
    saving: Decimal | None = None  # what the simulated cache saves against no cache (negative: costs more)
    cache_label: str = ""
    simulated: bool = False
    notes: list[str] = field(default_factory=list)

    def exactness(self, part: str, recount: str | None, reasoning: str) -> str:
        if part in ("cache_read", "cache_write_5m", "cache_write_1h"):
            return f"estimate: simulated cache, {self.cache_label}" if self.simulated \
                else "--cached-share (a manual share)"
        if part == "reasoning":
            return reasoning
        return f"recount ({recount})" if recount else "recount"


def _concat(arrays: list[np.ndarray], dtype: Any) -> np.ndarray:
    return np.concatenate(arrays).astype(dtype) if arrays else np.empty(0, dtype=dtype)


def whole_bill(t: Target, plan: TrafficPlan, partial: TrafficPartial, part: ModelPart,
               reasoning: ReasoningFigure) -> TargetBill | None:
    """The whole bill of target `t` (None: it has no input price)."""
    if t.price.input is None:
        return None
    rates = rates_by_tier(t.price, plan.on, batch=plan.batch, service_tier=plan.service_tier)
    folded = partial.folded.bills.get(t.ref) if partial.folded is not None else None
    if folded is not None:
        return _folded_bill(t, plan, part, folded, reasoning, rates)
    prompts, tiers, outs = (_concat(x, d) for x, d in ((part.prompts, np.int64), (part.tiers, np.int64),
                                                       (part.outs, np.float64)))
    n = len(prompts)
    read = w5 = w1 = np.zeros(n, dtype=np.int64)
    rule = cache_rule(t.ref)
    notes: list[str] = []
    label, simulated = "", False
    if plan.simulates_cache and rule is not None and n and len(part.ends) == len(partial.traces):
        read, w5, w1, sim_notes = simulate_rows(rule, partial.traces, part.ends, part.prompts,
                                                per_lifetime=plan.per_lifetime(rule), by=plan.spaced_by,
                                                steps=part.steps if len(part.steps) == len(part.ends) else ())
        simulated, label = True, rule.label
        notes += sim_notes
    elif plan.simulates_cache and rule is None:
        label = "no prompt-cache rule is known for this model: nothing is read from a cache"
    elif not plan.simulates_cache:
        label = "--cached-share"
    day_of = [d for trace in partial.traces for d in trace.days]
    keys: dict[tuple[str | None, int], list[int]] = {}
    for i, (d, tier) in enumerate(zip(day_of, tiers.tolist())):
        keys.setdefault((d, tier), []).append(i)
    cache: dict[tuple[str | None, int], tuple[int, int, int]] = {}
    for at, rows in keys.items():
        idx = np.asarray(rows, dtype=np.int64)
        cache[at] = (int(read[idx].sum()), int(w5[idx].sum()), int(w1[idx].sum()))
    p50, p95, top = _percentiles(rates, prompts, tiers, outs, read, w5, w1, plan.cached_share, reasoning)
    return _target_bill(plan, part, rates, reasoning, cache, (p50, p95, top), rule, label, simulated, notes)


def _folded_bill(t: Target, plan: TrafficPlan, part: ModelPart, folded: Any, reasoning: ReasoningFigure,
                 rates: Any) -> TargetBill:
    """`whole_bill` from the rows folded chunk by chunk (`fold.FoldedTargetBill`): the same numbers."""
    rule = cache_rule(t.ref)
    label = ""
    if folded.simulated and rule is not None:
        label = rule.label
    elif plan.simulates_cache and rule is None:
        label = "no prompt-cache rule is known for this model: nothing is read from a cache"
    elif not plan.simulates_cache:
        label = "--cached-share"
    cache = {at: (int(v[0]), int(v[1]), int(v[2])) for at, v in folded.cache.items()}
    rows, counts = folded.inputs.rows, folded.inputs.counts
    usd = _usd_per_row(rates, rows[:, 0], rows[:, 1].astype(np.int64), rows[:, 2], rows[:, 3], rows[:, 4], rows[:, 5],
                       plan.cached_share, reasoning) if len(rows) else np.empty(0)
    figures: tuple[float, float, float] = (float("nan"),) * 3
    if len(usd) and not np.isnan(usd).any():
        p50, p95 = percentiles(usd, counts)
        figures = _ten_digits(p50, p95, float(usd.max()))
    return _target_bill(plan, part, rates, reasoning, cache, figures, rule, label, folded.simulated, list(folded.notes))


def _ten_digits(p50: float, p95: float, top: float) -> tuple[float, float, float]:
    # floats carry binary noise (0.00014000000000000001); 10 significant digits is far below a cent
    return float(f"{p50:.10g}"), float(f"{p95:.10g}"), float(f"{top:.10g}")


def _target_bill(plan: TrafficPlan, part: ModelPart, rates: Any, reasoning: ReasoningFigure,
                 cache: dict[tuple[str | None, int], tuple[int, int, int]], figures: tuple[float, float, float],
                 rule: Any, label: str, simulated: bool, notes: list[str]) -> TargetBill:
    """The target's bill from the sums per (day, tier) and the cache's (read, write 5m, write 1h) per (day, tier)."""
    share = plan.cached_share
    tokens = dict.fromkeys(PARTS, Decimal(0))
    no_cache = Decimal(0)
    usd_parts: dict[str, Decimal | None] = dict.fromkeys(PARTS, Decimal(0))
    total: Decimal | None = Decimal(0)
    days: dict[str, Decimal | None] = {}
    for (day, tier), v in part.sums.items():
        read_sum, w5_sum, w1_sum = cache.get((day, tier), (0, 0, 0))
        n_in = Decimal(int(v[_F["content_in"]] + v[_F["format_in"]]))
        unlogged = Decimal(int(v[_F["rows"]] - v[_F["rows_logged_out"]]))
        n_out = Decimal(int(v[_F["logged_out"]])) + (plan.output_tokens * unlogged if plan.output_tokens is not None
                                                      else (plan.output_ratio or 0) * Decimal(int(v[_F["content_of_unlogged"]])))
        requests = int(v[_F["rows"]])
        r = Decimal(0) if reasoning.total is None else reasoning.per_request * requests + reasoning.ratio * n_out
        cached = (n_in * share) if share else Decimal(read_sum)
        write5 = Decimal(w5_sum)
        write1 = Decimal(w1_sum)
        here = {"input": n_in - cached - write5 - write1, "cache_read": cached, "cache_write_5m": write5,
                "cache_write_1h": write1, "output": n_out, "reasoning": r}
        usd = bill.usd(here, rates[tier], requests)
        flat = bill.usd({"input": n_in, "output": n_out, "reasoning": r}, rates[tier], requests)
        by_part = bill.usd_by_part(here, rates[tier])
        for name, x in here.items():
            tokens[name] += x
            had, of_part = usd_parts[name], by_part[name]
            usd_parts[name] = None if had is None or of_part is None else had + of_part
        total = None if total is None or usd is None else total + usd
        no_cache = no_cache + flat if flat is not None else no_cache
        if day is not None:
            so_far = days.get(day, Decimal(0))
            days[day] = None if usd is None or so_far is None else so_far + usd
    p50, p95, top = figures
    ints = {name: int(x.to_integral_value()) for name, x in tokens.items()}
    saving = None if total is None or not simulated else no_cache - total
    if simulated:
        how = ("saves " + format_usd(saving)) if saving is not None and saving >= 0 else \
            ("costs " + format_usd(-saving) + " more") if saving is not None else "cannot be priced"
        notes.append(f"prompt cache simulated over the log's requests in time order (an estimate; "
                     f"{rule.label if rule else ''}): {ints['cache_read']:,} tokens read, "
                     f"{ints['cache_write_5m'] + ints['cache_write_1h']:,} written; against no cache it {how}")
    return TargetBill(total, ints, usd_parts, {name: rates[0].rate(name) for name in PARTS}, days, p50, p95, top,
                     saving, label, simulated, notes)


def _percentiles(rates: Any, prompts: np.ndarray, tiers: np.ndarray, outs: np.ndarray, read: np.ndarray,
                 w5: np.ndarray, w1: np.ndarray, share: Decimal, reasoning: ReasoningFigure
                 ) -> tuple[float, float, float]:
    """p50, p95 and max of the whole bill per request (floats: only for these, never for totals)."""
    if not len(prompts):
        return (float("nan"),) * 3
    usd = _usd_per_row(rates, prompts, tiers, outs, read, w5, w1, share, reasoning)
    if np.isnan(usd).any():
        return (float("nan"),) * 3
    p50, p95 = np.percentile(usd, [50, 95])
    # floats carry binary noise (0.00014000000000000001); 10 significant digits is far below a cent
    return tuple(float(f"{v:.10g}") for v in (p50, p95, usd.max()))  # type: ignore[return-value]


def _usd_per_row(rates: Any, prompts: np.ndarray, tiers: np.ndarray, outs: np.ndarray, read: np.ndarray,
                 w5: np.ndarray, w1: np.ndarray, share: Decimal, reasoning: ReasoningFigure) -> np.ndarray:
    """The whole bill of each row in float64 (the same floats row by row, whatever the other rows)."""
    cached = prompts * float(share) if share else read.astype(np.float64)
    rsn = np.zeros(len(prompts)) if reasoning.total is None else \
        float(reasoning.per_request) + float(reasoning.ratio) * outs
    return bill.usd_rows(np.stack([prompts - cached - w5 - w1, cached, w5, w1, outs, rsn], axis=1), tiers, rates)


def reasoning_figure(t: Target, plan: TrafficPlan, partial: TrafficPartial, visible_out: int, n_requests: int
                     ) -> ReasoningFigure:
    """The reasoning on target `t` and where the figure comes from: the model's own figure
    (MODEL=VALUE), the plan-wide one, the log's reasoning carried over, or unknown."""
    if reasoning_rule(t.ref) is None:
        return ReasoningFigure(0, "the model does not reason")
    own = {kind: value for ref, kind, value in plan.reasoning_for if ref == t.ref}
    tokens = own.get("tokens", plan.reasoning_tokens if not own else None)
    ratio = own.get("ratio", plan.reasoning_ratio if not own else None)
    named = f" for {t.ref}" if own else ""
    if tokens is not None:
        return ReasoningFigure(int(tokens * n_requests), f"--reasoning-tokens {tokens}{named} per request",
                               per_request=tokens)
    if ratio is not None:
        return ReasoningFigure(int(ratio * visible_out), f"--reasoning-ratio {ratio}{named} x visible output",
                               ratio=ratio)
    # the recounted serving models only: the ratio below is over their visible output
    recounted = [b for ref, b in partial.billed.items() if ref in partial.served]
    known = sum(int(b.parts["reasoning_tokens"]) for b in recounted)
    rows = sum(int(sum(v[0] for v in b.sums.values())) - b.reasoning_unknown for b in recounted)
    if rows > 0 and known > 0:
        # the same reasoning in the target's tokens: our recounts' ratio on the visible output
        ours = _logged_out(partial.models[t.ref].sums) if t.ref in partial.models else 0
        theirs = sum(_logged_out(p.sums) for p in partial.served.values())
        scale = Decimal(ours) / theirs if ours and theirs else Decimal(1)
        per_row = Decimal(known) / rows
        return ReasoningFigure(int(per_row * scale * n_requests), (
            f"carried from the log: {float(per_row):,.0f} reasoning tokens per request on the serving models "
            f"({rows:,} rows report it), x {float(scale):.3g} (the tokenizers' ratio on the visible output)"),
            per_request=per_row * scale)
    return ReasoningFigure(None, REASONING_NOT_INCLUDED)


def _logged_out(sums: dict) -> int:
    return int(sum(v[_F["logged_out"]] for v in sums.values()))
