"""The traffic report: partial sums of logged traffic turned into tables, exact money and notes.

Unlike `chunk` (which reduces chunks of records to `TrafficPartial`s) and `report.traffic`
(which renders), this module takes the merged partial once, at the end: totals in `Decimal`
from integer token sums (tiers applied per request through the sums' tier keys), percentiles of
$ per request from the per-row floats, the change against the models that served the log, cost
per day, and the calibration against provider usage.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from .. import bill
from ..bill import Rates, table_rates
from ...money import format_usd
from ..prices import price_source
from ..recount import least_exact
from ..targets import SPECIAL_TOKENS_NOTE
from ..caching import REASONING_NOT_INCLUDED
from ..workloads.workload import percent
from ..bill import PARTS, shown_rates
from ..targets import Target, TrafficPlan, served_target
from .partial import LOGGED_BILL_FIELDS, SUM_FIELDS, LoggedBillPart, ModelPart, TrafficPartial
from .calibration import _calibrate_cache, _calibration
from .fold import FoldedTargetBill, percentiles
from .whole_bill import ReasoningFigure, reasoning_figure as _reasoning, whole_bill
from .read import LogReport

_F = {name: i for i, name in enumerate(SUM_FIELDS)}
_B = {name: i for i, name in enumerate(LOGGED_BILL_FIELDS)}
MODEL_COLUMNS = [
    "model", "priced_as", "tokenizer", "exactness", "exactness_reason", "status", "n_requests",
    "prompt_tokens", "input_tokens", "content_tokens", "format_tokens", "output_tokens", "reasoning_tokens",
    "reasoning_source",
    "cache_read_tokens", "cache_write_tokens", "cache_rule", "usd_text_only", "usd_reasoning", "usd_total",
    "usd_cache_saving", "parts",
    "usd_per_request_p50", "usd_per_request_p95", "usd_per_request_max", "change_vs_served",
    "usd_per_mtok_input", "usd_per_mtok_output", "price_source", "note",
]


@dataclass(frozen=True)
class TrafficReport:
    """What logged traffic costs under each model. Money is `Decimal` (None: no price); all estimates.

    Attributes:
        models: one row per target model (see `MODEL_COLUMNS`).
        days: model, day, n_requests, usd (rows with a timestamp).
        served: the models that served the log: model, n_requests, usd_as_served (our recount of
            every row), and where rows carry usage: n_billed, the billed tokens, usd_as_billed
            (the logged usage at the model's price) and usd_recounted_billed (our recount of those rows;
            None for a model no tokenizer counts, which is billed all the same and not calibrated).
        calibration: per serving model, our recount against the logged usage (median, worst).
        calibration_rows: the rows that differ most.
        served_total: our recount of the whole log on the models that served it (None when some
            rows cannot be priced so), the baseline of `change_vs_served`.
        billed_total, recounted_billed: what the rows with logged usage cost as billed (their usage
            at the serving model's price) and as we recount them; None when no row carries usage
            or one cannot be priced (recounted_billed also when a serving model has no tokenizer).
            billed_rows: how many rows that is.
        n_rows, log_summary, price_source, on, notes: for every rendering's header.
        source: "log" (logged traffic, read from files) or "requests" (request bodies and texts
            given on the command line: nothing was logged or served, so the words differ).
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
    billed_total: Decimal | None = None
    recounted_billed: Decimal | None = None
    billed_rows: int = 0
    source: str = "log"

    def billed_line(self) -> str:
        """ "as billed: $8.40; recounted: $8.37 (1,000 of 1,200 rows carry usage)", or "" without usage."""
        if self.billed_total is None:
            return ""
        recounted = ("not recounted: a model that served them has no tokenizer" if self.recounted_billed is None
                     else f"recounted: {format_usd(self.recounted_billed)}")
        return (f"as billed: {format_usd(self.billed_total)}; {recounted} "
                f"({self.billed_rows:,} of {self.n_rows:,} rows carry the provider's usage; on the models that served them)")

    def headlines(self) -> list[str]:
        """ "on gpt-4.1-mini this traffic would have cost 86% less ($1.20 instead of $8.40, estimate)", per model."""
        billed = [self.billed_line()] if self.billed_line() else []
        whole, how = ((self.billed_total, "as billed") if self.billed_total is not None and self.billed_rows == self.n_rows
                      else (self.served_total, "on the model each request names" if self.source == "requests"
                            else "as served, recounted"))
        if whole is None:
            return billed
        unknown = set(self.models.loc[self.models["reasoning_source"] == REASONING_NOT_INCLUDED, "model"])
        what = "these requests would cost" if self.source == "requests" else "this traffic would have cost"
        return billed + [f"on {m} {what} {_change(c)} ({format_usd(u)} instead of "
                f"{format_usd(whole)} {how}, estimate{'; ' + REASONING_NOT_INCLUDED if m in unknown else ''})"
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


def _money(target: Target, plan: TrafficPlan, sums: dict) -> tuple[Decimal | None, int, int, str]:
    """(usd total or None, input tokens, output tokens, status) of a model's sums.

    An assumed output (--output-tokens or --output-ratio times the content tokens) is priced exactly
    and reported as a whole number of tokens.
    """
    p = target.price
    reps = [0] + [s + 1 for s in target.starts]
    total, n_in_all, n_out_all, status = Decimal(0), Decimal(0), Decimal(0), "ok"
    for (_, tier), v in sums.items():
        n_in = Decimal(int(v[_F["content_in"]] + v[_F["format_in"]]))
        unlogged = Decimal(int(v[_F["rows"]] - v[_F["rows_logged_out"]]))
        n_out = Decimal(int(v[_F["logged_out"]])) + (plan.output_tokens * unlogged if plan.output_tokens is not None
                                                      else (plan.output_ratio or 0) * Decimal(int(v[_F["content_of_unlogged"]])))
        n_in_all += n_in
        n_out_all += n_out
        if p.input is None:
            status = "no price"
            continue
        if p.output is None and n_out > 0:
            status = "no output price"
            continue
        cached = n_in * plan.cached_share
        total += _usd(table_rates(p, reps[tier]), n_in - cached, cached, n_out, int(v[_F["rows"]]))
    return (total if status == "ok" else None), int(n_in_all), int(n_out_all.to_integral_value()), status


def _billed_money(target: Target, billed: LoggedBillPart) -> tuple[Decimal | None, dict[str, int], str]:
    """(usd as billed or None, billed token sums, status): the logged usage at the serving model's price."""
    p = target.price
    reps = [0] + [s + 1 for s in target.starts]
    tokens = {name: int(sum(v[_B[name]] for v in billed.sums.values())) for name in LOGGED_BILL_FIELDS}
    if p.input is None:
        return None, tokens, "no price"
    total = Decimal(0)
    for tier, v in billed.sums.items():
        n_in, cached, n_out = (Decimal(int(v[_B[k]])) for k in ("input", "cached", "output"))
        if p.output is None and n_out > 0:
            return None, tokens, "no output price"
        total += _usd(table_rates(p, reps[tier]), n_in - cached, cached, n_out, int(v[_B["rows"]]))
    return total, tokens, "ok"


def _usd(rates: Rates, uncached: Decimal, cached: Decimal, n_out: Decimal, rows: int) -> Decimal:
    """`bill.usd` of one tier's sums (the callers refuse output without a price first)."""
    total = bill.usd({"input": uncached, "cache_read": cached, "output": n_out}, rates, rows, summed=True)
    assert total is not None
    return total


def _sum(sums: dict, name: str) -> int:
    return int(sum(v[_F[name]] for v in sums.values()))


def _percentiles(part: ModelPart, folded: FoldedTargetBill | None = None) -> tuple[float, float, float]:
    if folded is not None:  # the rows' $ folded chunk by chunk (`fold.LogFold`): the same figures
        values, counts = folded.costs.rows[:, 0], folded.costs.counts
        if not len(values) or folded.costs_nan:
            return (float("nan"),) * 3
        p50, p95 = percentiles(values, counts)
        return tuple(float(f"{v:.10g}") for v in (p50, p95, values.max()))  # type: ignore[return-value]
    costs = np.concatenate(part.costs) if part.costs else np.empty(0)
    if not len(costs) or np.isnan(costs).any():
        return (float("nan"),) * 3
    p50, p95 = np.percentile(costs, [50, 95])
    # floats carry binary noise (0.00014000000000000001); 10 significant digits is far below a cent
    return tuple(float(f"{v:.10g}") for v in (p50, p95, costs.max()))  # type: ignore[return-value]


def _served_total(partial: TrafficPartial, plan: TrafficPlan, source: str = "log"
                  ) -> tuple[Decimal | None, pd.DataFrame, str, tuple[Decimal | None, Decimal | None, int]]:
    """Our recount of the log on the models that served it (or why there is no such baseline), and
    (as billed, recounted, rows) over the rows whose usage is logged."""
    rows, total, why = [], Decimal(0), ""
    billed_total: Decimal | None = Decimal(0)
    recounted: Decimal | None = Decimal(0)
    billed_rows = 0
    for ref, part in sorted(partial.served.items()):
        target = served_target(ref, plan.on, plan.overrides, plan.fallback_tokenizer)
        if isinstance(target, str):  # not priced: such rows were counted in `unpriced_served` instead
            continue
        usd, n_in, n_out, status = _money(target, plan, part.sums)
        row: dict[str, Any] = {"model": ref, "priced_as": target.price.key, "tokenizer": target.choice.label,
                               "n_requests": _sum(part.sums, "rows"), "input_tokens": n_in, "output_tokens": n_out,
                               "usd_as_served": usd, "status": status}
        billed = partial.billed.get(ref)
        if billed is not None:
            as_billed, n_billed, again = _billed_row(row, target, billed, _money(target, plan, billed.recount.sums)[0])
            billed_rows += n_billed
            billed_total = None if as_billed is None or billed_total is None else billed_total + as_billed
            recounted = None if again is None or recounted is None else recounted + again
        rows.append(row)
        if usd is None:
            why = f"{ref} has {status}"
        else:
            total += usd
    for label, n in partial.unpriced_served.most_common():
        model, reason = label.split(": ", 1)[0], label.split(": ", 1)[-1]
        row = {"model": model, "n_requests": n, "usd_as_served": None, "status": reason}
        billed = partial.billed.get(model) if model not in partial.served else None
        target = served_target(model, plan.on, plan.overrides, plan.fallback_tokenizer) if billed is not None else ""
        if billed is not None and isinstance(target, Target):
            # no tokenizer counts it, yet the logged usage is its bill: billed, neither recounted nor calibrated
            as_billed, n_billed, _ = _billed_row(row, target, billed, None)
            row.update(priced_as=target.price.key, tokenizer=target.choice.label,
                       status=f"{reason}: billed from the logged usage; not recounted, so no calibration")
            billed_rows += n_billed
            billed_total = None if as_billed is None or billed_total is None else billed_total + as_billed
            recounted = None
        rows.append(row)
        why = why or (f"{n:,} request(s) name a model that cannot be priced ({label})" if source == "requests"
                      else f"{n:,} row(s) cannot be priced on the model that served them ({label})")
    if source == "requests" and set(partial.unpriced_served) <= {"unknown: no model in the log"}:
        rows = [r for r in rows if r["model"] != "unknown"]  # texts, and bodies without a "model": nothing served
        why = "" if rows else why
    if not rows:
        why = ('no request names its model (the "model" field of a request body)' if source == "requests"
               else "the log names no serving model")
    if not billed_rows:
        billed_total = recounted = None
    return (None if why else total), pd.DataFrame(rows, columns=SERVED_COLUMNS), why, (billed_total, recounted, billed_rows)


def _billed_row(row: dict[str, Any], target: Target, billed: LoggedBillPart, again: Decimal | None
                ) -> tuple[Decimal | None, int, Decimal | None]:
    """Fill a served row's billed columns; (as billed, rows billed, `again`: our recount of them, or None)."""
    as_billed, tokens, _ = _billed_money(target, billed)
    if billed.usd is not None:  # genai-prices' calc_price per row: 5m/1h writes, batch, tiers
        as_billed = billed.usd
    row.update(n_billed=tokens["rows"], billed_input_tokens=tokens["input"],
               billed_cached_tokens=tokens["cached"], billed_output_tokens=tokens["output"],
               billed_cache_write_tokens=billed.parts["cache_write_5m_tokens"] + billed.parts["cache_write_1h_tokens"],
               billed_reasoning_tokens=billed.parts["reasoning_tokens"],
               usd_as_billed=as_billed, usd_recounted_billed=again)
    return as_billed, tokens["rows"], again


SERVED_COLUMNS = ["model", "priced_as", "tokenizer", "n_requests", "input_tokens", "output_tokens", "usd_as_served",
                  "n_billed", "billed_input_tokens", "billed_cached_tokens", "billed_cache_write_tokens",
                  "billed_output_tokens", "billed_reasoning_tokens", "usd_as_billed",
                  "usd_recounted_billed", "status"]


def summarise(partial: TrafficPartial, plan: TrafficPlan, log_report: LogReport | None = None, *,
              source: str = "log") -> TrafficReport:
    """Turn the merged partial of a whole log into a `TrafficReport`; `source` as `TrafficReport.source`."""
    origin = source  # `source` is a reasoning figure's source below
    baseline, served, no_baseline, (billed, recounted, billed_rows) = _served_total(partial, plan, origin)
    model_rows, day_rows = [], []
    for t in plan.targets:
        part = partial.models.get(t.ref)
        rate_in, _, rate_out = shown_rates(t.price, plan.on, batch=plan.batch, service_tier=plan.service_tier)
        row: dict[str, Any] = {"model": t.ref, "priced_as": t.price.key, "tokenizer": t.choice.label,
                               "usd_per_mtok_input": rate_in, "usd_per_mtok_output": rate_out,
                               "price_source": t.price.source}
        notes = ([t.choice.note] if t.choice.status != "ok" else []) + list(t.price.notes)
        if part is None:
            # no count, so no exactness: the status says why (as in a workload report)
            row.update(status=t.choice.status, n_requests=partial.rows, usd_total=None, exactness=None,
                       exactness_reason=None)
        else:
            usd, n_in, n_out, status = _money(t, plan, part.sums)
            p50, p95, top = _percentiles(part, partial.folded.bills.get(t.ref) if partial.folded is not None else None)
            exactness, reason = least_exact(part.exactness)
            # input_tokens: the uncached input once the cache is known (below); prompt_tokens: the whole prompt
            row.update(status=status, n_requests=_sum(part.sums, "rows"), input_tokens=n_in, prompt_tokens=n_in,
                       content_tokens=_sum(part.sums, "content_in"), format_tokens=_sum(part.sums, "format_in"),
                       output_tokens=n_out, usd_total=usd, usd_per_request_p50=p50, usd_per_request_p95=p95,
                       usd_per_request_max=top, exactness=exactness, exactness_reason="" if exactness == "exact" else reason)
            row["usd_text_only"] = usd
            figure = _reasoning(t, plan, partial, n_out, row["n_requests"])
            reasoning, source = figure.total, figure.source
            row.update(reasoning_tokens=reasoning, reasoning_source=source)
            if source == REASONING_NOT_INCLUDED:
                notes.append(f"{REASONING_NOT_INCLUDED}: {t.ref} bills reasoning as output and the log does not say "
                             "how much; give --reasoning-tokens N or --reasoning-ratio R (or MODEL=VALUE)")
                if exactness == "exact":
                    row.update(exactness="estimate", exactness_reason=REASONING_NOT_INCLUDED)
                else:
                    row["exactness_reason"] = f"{row['exactness_reason']}; {REASONING_NOT_INCLUDED}".strip("; ")
            elif reasoning:
                _estimate(row, f"reasoning: {source}")
            bill = whole_bill(t, plan, partial, part, figure) if usd is not None else None
            if bill is None:
                row.update(usd_reasoning=None, usd_total=None, cache_read_tokens=0, cache_write_tokens=0)
                row["parts"] = []
            else:
                row.update(usd_reasoning=bill.usd_parts["reasoning"] if reasoning is not None else None,
                           usd_total=bill.usd, input_tokens=bill.tokens["input"], cache_read_tokens=bill.tokens["cache_read"],
                           cache_write_tokens=bill.tokens["cache_write_5m"] + bill.tokens["cache_write_1h"],
                           cache_rule=bill.cache_label, usd_cache_saving=bill.saving,
                           usd_per_request_p50=bill.p50, usd_per_request_p95=bill.p95, usd_per_request_max=bill.top)
                row["parts"] = _json_parts([
                    {"name": name.replace("_", " "), "tokens": bill.tokens[name], "usd_per_mtok": bill.rates[name],
                     "usd": bill.usd_parts[name], "exactness": bill.exactness(name, exactness, source)}
                    for name in PARTS if bill.tokens[name] or name == "reasoning" or name == "input"])
                notes.extend(bill.notes)
                if bill.simulated and (row["cache_read_tokens"] or row["cache_write_tokens"]):
                    _estimate(row, f"prompt cache simulated: {bill.cache_label}")
            usd = row["usd_total"]
            whole = billed if billed is not None and billed_rows == partial.rows else baseline
            if usd is not None and whole:
                row["change_vs_served"] = float(usd / whole - 1)
            for day, usd_day in (bill.days if bill is not None else {}).items():
                day_rows.append({"model": t.ref, "day": day, "usd": usd_day,
                                 "n_requests": int(sum(v[0] for k, v in part.sums.items() if k[0] == day))})
        row["note"] = "; ".join(notes)
        model_rows.append(row)
    calibration, calibration_rows = _calibration(partial)
    models = pd.DataFrame(model_rows).reindex(columns=MODEL_COLUMNS)
    calibration = _calibrate_cache(calibration, partial, plan, models)
    summary = log_report.summary() if log_report is not None else f"{partial.rows:,} row(s) read"
    return TrafficReport(models, pd.DataFrame(day_rows, columns=["model", "day", "n_requests", "usd"]), served,
                         calibration, calibration_rows, partial.rows, summary, price_source().describe(), plan.on,
                         _notes(partial, plan, models, no_baseline, origin), baseline, billed, recounted, billed_rows,
                         origin)


def _json_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Parts with money as exact decimal strings (None kept), as the JSON contract writes money."""
    return [{k: str(v) if isinstance(v, Decimal) else v for k, v in p.items()} for p in parts]


def _estimate(row: dict[str, Any], why: str) -> None:
    """Lower a row to an estimate and add `why` to its reason."""
    row["exactness"] = "estimate" if row.get("exactness") in ("exact", "documented") else row.get("exactness")
    row["exactness_reason"] = "; ".join(x for x in (row.get("exactness_reason"), why) if x)


def _notes(partial: TrafficPartial, plan: TrafficPlan, models: pd.DataFrame, no_baseline: str,
           source: str = "log") -> tuple[str, ...]:
    logged = source == "log"
    notes = [("recounted: each logged request is counted" if logged else "counted: each request is counted") +
             " under each target model as `tokenprism count` counts it (its content in the model's tokenizer plus the "
             "model's chat format); providers bill their own count" +
             (", which the 'as billed' figures and the calibration show where the log carries usage" if logged else "")]
    for label in ("documented", "estimate"):
        named = models.loc[models["exactness"] == label, "model"].tolist()
        if named:
            notes.append(f"{label}: {', '.join(named)} (why: each model's exactness_reason)")
    if partial.not_counted:
        kinds = ", ".join(f"{n:,} {kind}(s)" for kind, n in sorted(partial.not_counted.items()))
        url = (f"images given by URL at {plan.image_size[0]}x{plan.image_size[1]} (--image-size)" if plan.image_size
               else "a URL image without --image-size")
        notes.append(f"media: {kinds} in {partial.rows_with_media:,} row(s), counted by each provider's rule "
                     "(inline images by their size, "
                     + (url + ", " if plan.image_size else "")
                     + "WAV audio by its length, PDFs by their pages) and added to the content tokens; a part a rule "
                     f"cannot price ({'' if plan.image_size else url + ', '}an MP3, a model with no rule) is missing "
                     "from the input figures and named in that model's exactness_reason")
    fallback = (f"{plan.output_tokens} tokens" if plan.output_tokens is not None
                else f"{plan.output_ratio} x content tokens" if plan.output_ratio is not None else None)
    if fallback and logged:
        notes.append(f"rows without a logged response are assumed to produce {fallback}; rows with one are recounted")
    elif fallback and plan.output_tokens != 0:  # 0: the input alone, which the caller says
        notes.append(f"each request is assumed to produce {fallback} of output")
    if plan.share_given:
        notes.append(f"{percent(plan.cached_share)} of each request's input is billed at the cached-input price "
                     "(--cached-share: a manual share, in place of each model's simulated cache)")
    if plan.batch or plan.service_tier:
        what = " and ".join(x for x in ("batch" if plan.batch else "", f"the {plan.service_tier} service tier"
                                         if plan.service_tier else "") if x)
        notes.append(f"every target is priced at genai-prices' {what} price (--batch/--service-tier); the "
                     "text-only column keeps the standard price")
    if no_baseline:
        notes.append(f"{'no change against the serving model' if logged else 'no vs served figure'}: {no_baseline}")
    if partial.rows_without_time and logged:
        notes.append(f"{partial.rows_without_time:,} row(s) have no timestamp and are left out of the cost per day")
    notes.append(f"prices in force on {plan.on} apply to every row, whatever its timestamp" if logged
                 else f"prices in force on {plan.on} (UTC)")
    notes.append("tiered prices: the tier is chosen per request from its input tokens (cached included)")
    notes.append(SPECIAL_TOKENS_NOTE)
    if partial.order_note:
        notes.append(partial.order_note)
    return tuple(notes)


def project(report: TrafficReport, requests_per_month: Decimal | int) -> TrafficReport:
    """`report` with `usd_per_request_mean` and `usd_per_month` columns: the sample's mean cost per
    request times `requests_per_month`, a projection (the log is taken as a sample of a month's
    requests), said so in the notes.

    >>> r = TrafficReport(pd.DataFrame({"usd_total": [Decimal("0.5"), None], "n_requests": [2, 2]}),
    ...                   *[pd.DataFrame()] * 4, n_rows=2, log_summary="", price_source="", on=None)
    >>> project(r, 1000).models["usd_per_month"].tolist()
    [Decimal('250.00'), None]
    """
    rate = Decimal(requests_per_month)
    m = report.models.copy()
    mean = [u / n if isinstance(u, Decimal) and n else None for u, n in zip(m["usd_total"], m["n_requests"])]
    m["usd_per_request_mean"] = mean
    m["usd_per_month"] = [v * rate if v is not None else None for v in mean]
    note = (f"projection: $/month = the mean $ per request of these {report.n_rows:,} request(s) x "
            f"{rate:,} requests per month (--requests-per-month); the requests are taken as a sample of the month")
    return dataclasses.replace(report, models=m, notes=(note, *report.notes))
