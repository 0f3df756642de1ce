"""The traffic report: partial sums of logged traffic turned into tables, exact money and notes.

Unlike `chunk_sums` (which reduces chunks of records to `TrafficPartial`s) and `report.traffic`
(which renders), this module takes the merged partial once, at the end: totals in `Decimal`
from integer token sums (tiers applied per request through the sums' tier keys), percentiles of
$ per request from the per-row floats, the change against the models that served the log, cost
per day, and the calibration against provider usage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from ..arithmetic import tier_rates
from ..display.money import format_usd
from ..prices import MTOK, price_source
from ..targets import SPECIAL_TOKENS_NOTE, chat_label
from ..workloads.workload import percent
from .chunk_sums import SUM_FIELDS, ModelPart, Target, TrafficPartial, TrafficPlan, served_target
from .records import LogReport

_F = {name: i for i, name in enumerate(SUM_FIELDS)}
MODEL_COLUMNS = [
    "model", "estimate", "priced_as", "tokenizer", "exactness", "chat_overhead", "status", "n_requests",
    "input_tokens", "overhead_tokens", "approx_tokens", "output_tokens", "usd_total",
    "usd_per_request_p50", "usd_per_request_p95", "usd_per_request_max", "change_vs_served",
    "usd_per_mtok_input", "usd_per_mtok_output", "price_source", "note",
]


@dataclass(frozen=True)
class TrafficReport:
    """What logged traffic costs under each model. Money is `Decimal` (None: no price); all estimates.

    Attributes:
        models: one row per target model (see `MODEL_COLUMNS`).
        days: model, day, n_requests, usd (rows with a timestamp).
        served: the models that served the log: model, n_requests, usd_as_served (our recount).
        calibration: per serving model, our recount against the logged usage (median, worst).
        calibration_rows: the rows that differ most.
        served_total: our recount of the whole log on the models that served it (None when some
            rows cannot be priced so), the baseline of `change_vs_served`.
        n_rows, log_summary, price_source, on, notes: for every rendering's header.
    """

    models: pd.DataFrame
    days: pd.DataFrame
    served: pd.DataFrame
    calibration: pd.DataFrame
    calibration_rows: pd.DataFrame
    n_rows: int
    log_summary: str
    price_source: str
    on: Any
    notes: tuple[str, ...] = field(default_factory=tuple)
    served_total: Decimal | None = None

    def headlines(self) -> list[str]:
        """ "on gpt-4.1-mini this traffic would have cost 86% less ($1.20 instead of $8.40, estimate)", per model."""
        if self.served_total is None:
            return []
        return [f"on {m} this traffic would have cost {_change(c)} ({format_usd(u)} instead of "
                f"{format_usd(self.served_total)} as served, estimate)"
                for m, u, c in zip(self.models["model"], self.models["usd_total"], self.models["change_vs_served"])
                if isinstance(u, Decimal) and c == c and c is not None]


def _change(c: float) -> str:
    """A relative change in words: "86% less", "12% more", "the same".

    >>> _change(-0.857), _change(0.12), _change(0.0001)
    ('86% less', '12% more', 'the same')
    """
    if round(abs(c), 2) == 0:
        return "the same"
    return f"{abs(c):.0%} {'less' if c < 0 else 'more'}"


def _money(target: Target, plan: TrafficPlan, sums: dict) -> tuple[Decimal | None, Decimal, Decimal, str]:
    """(usd total or None, input tokens, output tokens, status) of a model's sums."""
    p = target.price
    reps = [0] + [s + 1 for s in target.starts]
    total, n_in_all, n_out_all, status = Decimal(0), Decimal(0), Decimal(0), "ok"
    for (_, tier), v in sums.items():
        n_in = Decimal(int(v[_F["text_in"]] + v[_F["approx_in"]] + v[_F["overhead_in"]]))
        unlogged = Decimal(int(v[_F["rows"]] - v[_F["rows_logged_out"]]))
        n_out = Decimal(int(v[_F["logged_out"]])) + (plan.output_tokens * unlogged if plan.output_tokens is not None
                                                      else (plan.output_ratio or 0) * Decimal(int(v[_F["in_of_unlogged"]])))
        n_in_all += n_in
        n_out_all += n_out
        if p.input is None:
            status = "no price"
            continue
        if p.output is None and n_out > 0:
            status = "no output price"
            continue
        cached = n_in * plan.cached_share
        r_in, r_cached, r_out = tier_rates(p, reps[tier])
        total += ((n_in - cached) * r_in + cached * r_cached + n_out * r_out) / MTOK
        total += (p.per_request or Decimal(0)) * int(v[_F["rows"]])
    return (total if status == "ok" else None), n_in_all, n_out_all, status


def _sum(sums: dict, name: str) -> int:
    return int(sum(v[_F[name]] for v in sums.values()))


def _percentiles(part: ModelPart) -> tuple[float, float, float]:
    costs = np.concatenate(part.costs) if part.costs else np.empty(0)
    if not len(costs) or np.isnan(costs).any():
        return (float("nan"),) * 3
    p50, p95 = np.percentile(costs, [50, 95])
    # floats carry binary noise (0.00014000000000000001); 10 significant digits is far below a cent
    return tuple(float(f"{v:.10g}") for v in (p50, p95, costs.max()))  # type: ignore[return-value]


def _served_total(partial: TrafficPartial, plan: TrafficPlan) -> tuple[Decimal | None, pd.DataFrame, str]:
    """Our recount of the log on the models that served it, or why there is no such baseline."""
    rows, total, why = [], Decimal(0), ""
    for ref, part in sorted(partial.served.items()):
        target = served_target(ref, plan.on, plan.overrides, plan.fallback_tokenizer)
        if isinstance(target, str):  # not priced: such rows were counted in `unpriced_served` instead
            continue
        usd, n_in, n_out, status = _money(target, plan, part.sums)
        rows.append({"model": ref, "priced_as": target.price.key, "tokenizer": target.choice.label,
                     "n_requests": _sum(part.sums, "rows"), "input_tokens": n_in, "output_tokens": n_out,
                     "usd_as_served": usd, "status": status})
        if usd is None:
            why = f"{ref} has {status}"
        else:
            total += usd
    for label, n in partial.unpriced_served.most_common():
        rows.append({"model": label.split(": ", 1)[0], "n_requests": n, "usd_as_served": None,
                     "status": label.split(": ", 1)[-1]})
        why = why or f"{n:,} row(s) cannot be priced on the model that served them ({label})"
    if not rows:
        why = "the log names no serving model"
    return (None if why else total), pd.DataFrame(rows), why


def _calibration(partial: TrafficPartial) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, worst = [], []
    for ref, part in sorted(partial.calibration.items()):
        rel_in, rel_out = np.concatenate(part.rel_in), np.concatenate(part.rel_out)
        row = {"served_by": ref, "n_rows": int(len(rel_in))}
        for name, rel in (("input", rel_in), ("output", rel_out)):
            ok = rel[~np.isnan(rel)]
            row[f"{name}_rows"] = int(len(ok))
            row[f"{name}_median_error"] = float(np.median(ok)) if len(ok) else float("nan")
            row[f"{name}_worst_error"] = float(ok[np.argmax(np.abs(ok))]) if len(ok) else float("nan")
        rows.append(row)
        worst.extend(part.top)
    top = sorted(worst, key=lambda r: -r["worst"])[:10]
    cols = ["served_by", "n_rows", "input_rows", "input_median_error", "input_worst_error", "output_rows",
            "output_median_error", "output_worst_error"]
    return pd.DataFrame(rows, columns=cols), pd.DataFrame(top).drop(columns=["worst"], errors="ignore")


def summarise(partial: TrafficPartial, plan: TrafficPlan, log_report: LogReport | None = None) -> TrafficReport:
    """Turn the merged partial of a whole log into a `TrafficReport`."""
    baseline, served, no_baseline = _served_total(partial, plan)
    model_rows, day_rows = [], []
    for t in plan.targets:
        part = partial.models.get(t.ref)
        row: dict[str, Any] = {"model": t.ref, "estimate": True, "priced_as": t.price.key, "tokenizer": t.choice.label,
                               "exactness": t.choice.exactness, "chat_overhead": chat_label(t.choice),
                               "usd_per_mtok_input": t.price.input.base if t.price.input else None,
                               "usd_per_mtok_output": t.price.output.base if t.price.output else None,
                               "price_source": t.price.source}
        notes = ([t.choice.note] if t.choice.exactness != "exact" or t.choice.status != "ok" else []) + list(t.price.notes)
        if part is None:
            row.update(status=t.choice.status, n_requests=partial.rows, usd_total=None)
        else:
            usd, n_in, n_out, status = _money(t, plan, part.sums)
            p50, p95, top = _percentiles(part)
            row.update(status=status, n_requests=_sum(part.sums, "rows"), input_tokens=n_in,
                       overhead_tokens=_sum(part.sums, "overhead_in"), approx_tokens=_sum(part.sums, "approx_in"),
                       output_tokens=n_out, usd_total=usd, usd_per_request_p50=p50, usd_per_request_p95=p95,
                       usd_per_request_max=top)
            if usd is not None and baseline:
                row["change_vs_served"] = float(usd / baseline - 1)
            if t.choice.chat is None:
                notes.append("chat-format overhead unknown, not counted")
            for day in sorted({d for d, _ in part.sums if d is not None}):
                usd_day = _money(t, plan, {k: v for k, v in part.sums.items() if k[0] == day})[0]
                day_rows.append({"model": t.ref, "day": day, "usd": usd_day,
                                 "n_requests": int(sum(v[0] for k, v in part.sums.items() if k[0] == day))})
        row["note"] = "; ".join(notes)
        model_rows.append(row)
    calibration, calibration_rows = _calibration(partial)
    models = pd.DataFrame(model_rows).reindex(columns=MODEL_COLUMNS)
    summary = log_report.summary() if log_report is not None else f"{partial.rows:,} row(s) read"
    return TrafficReport(models, pd.DataFrame(day_rows, columns=["model", "day", "n_requests", "usd"]), served,
                         calibration, calibration_rows, partial.rows, summary, price_source().describe(), plan.on,
                         _notes(partial, plan, models, no_baseline), baseline)


def _notes(partial: TrafficPartial, plan: TrafficPlan, models: pd.DataFrame, no_baseline: str) -> tuple[str, ...]:
    notes = ["ESTIMATE: every figure recounts the logged text in each target model's tokenizer; providers "
             "bill their own count, which calibration compares where the log carries usage"]
    approx = models.loc[models["exactness"] == "approximate", "model"].tolist()
    if approx:
        notes.append(f"ESTIMATE: {', '.join(approx)}: no exact tokenizer; counts come from a proxy (marked ~)")
    if partial.approximate_rows:
        notes.append(f"approximate: {partial.approximate_rows:,} row(s) carry tool definitions, tool calls or tool "
                     "results, counted as JSON text (the providers' exact tool formatting is not public)")
    if partial.not_counted:
        kinds = ", ".join(f"{n:,} {kind}(s)" for kind, n in sorted(partial.not_counted.items()))
        notes.append(f"not counted: {kinds} in {partial.rows_with_media:,} row(s); their tokens are missing from "
                     "every input figure, which is therefore understated")
    fallback = (f"{plan.output_tokens} tokens" if plan.output_tokens is not None
                else f"{plan.output_ratio} x input tokens" if plan.output_ratio is not None else None)
    if fallback:
        notes.append(f"rows without a logged response are assumed to produce {fallback}; rows with one are recounted")
    if plan.cached_share:
        notes.append(f"{percent(plan.cached_share)} of each request's input is billed at the cached-input price")
    if no_baseline:
        notes.append(f"no change against the serving model: {no_baseline}")
    if partial.rows_without_time:
        notes.append(f"{partial.rows_without_time:,} row(s) have no timestamp and are left out of the cost per day")
    notes.append(f"prices in force on {plan.on} apply to every row, whatever its timestamp")
    notes.append("tiered prices: the tier is chosen per request from its input tokens (cached included)")
    notes.append(SPECIAL_TOKENS_NOTE)
    return tuple(notes)
