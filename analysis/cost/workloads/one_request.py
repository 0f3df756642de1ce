"""One text as one request: what it costs under a model, without an assumed workload; and a
report's models worded by their counts.

Unlike `estimate` (a workload of many requests, per model), this shapes the price of the text
the user is looking at, once: for `tokenprism cost TEXT -m MODEL` with no workload flags
(`quick_frame`, shown by `report.tables.display_quick`). `with_count_exactness` gives a report's
models the exactness of their counts, as `count` says it (the dashboard's Cost page).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

import pandas as pd

from ..caching import REASONING_NOT_INCLUDED
from ..recount import least_exact
from .estimate import COUNT_EXACTNESS, COUNT_REASON, CostReport
from .rows import report_notes


def quick_frame(report: CostReport, *, output: bool, monthly: bool) -> pd.DataFrame:
    """One request's price per model (and per text, when several are given) from an `estimate` report.

    `tokenprism cost TEXT -m MODEL` prices one request without an assumed workload: its input
    tokens, the same number `tokenprism count TEXT -m MODEL` gives (content plus the model's
    chat format, with its exactness), and its input cost; the output columns when an output size
    was given, the monthly column when a request rate was. Token counts are ints; money stays
    `Decimal` (None: no price).

    >>> from analysis.cost import Workload, estimate
    >>> r = estimate("hi", ["gpt-4o"], workload=Workload(requests_per_month=1, output_tokens=0))
    >>> quick_frame(r, output=False, monthly=False)[["model", "input_tokens"]].values.tolist()
    [['gpt-4o', 8]]
    """
    m = report.models.set_index("model")
    rows = []
    for r in report.requests.to_dict("records"):
        model = m.loc[r["model"]]
        # the input alone is priced without an output size: the count's own exactness, as `count` says it
        exact_key, reason_key = ("exactness", "exactness_reason") if output else (COUNT_EXACTNESS, COUNT_REASON)
        row = {"model": r["model"], "priced_as": model["priced_as"], "tokenizer": model["tokenizer"],
               "exactness": r[exact_key], "exactness_reason": r[reason_key],
               "input_tokens": int(r["input_tokens"]), "content_tokens": int(r["content_tokens"]),
               "format_tokens": int(r["format_tokens"]),
               "usd_input": None if r["usd_input"] is None else r["usd_input"] + r["usd_cached_input"]}
        if report.n_samples > 1:
            row = {"id": r["id"], **row}
        if output:
            row.update(output_tokens=int(r["output_tokens"]),
                       reasoning_tokens=int(r["reasoning_tokens"]) if r["reasoning_known"] else REASONING_NOT_INCLUDED,
                       usd_output=r["usd_output"], usd_per_request=r["usd_total"])
        if monthly:
            row["usd_per_month"] = None if r["usd_total"] is None else r["usd_total"] * report.workload.requests_per_month
        rows.append({**row, "status": model["status"], "note": model["note"]})
    unusable = [{"model": ref, "priced_as": mr["priced_as"], "tokenizer": mr["tokenizer"], "exactness": None,
                 "exactness_reason": "", "input_tokens": None, "usd_input": None, "status": mr["status"], "note": mr["note"]}
                for ref, mr in m.iterrows() if not mr["n_requests"] or mr["n_requests"] != mr["n_requests"]]
    return pd.DataFrame(rows + unusable)


def with_count_exactness(report: CostReport) -> CostReport:
    """`report` with each model's exactness that of its requests' counts (`COUNT_EXACTNESS`, the least
    exact of them), its notes written again from those words.

    A count's word is the one `tokenprism count` says for the same model and request (and the
    dashboard's Compare page): one word per model on every face that counts. A report's own word
    for a model also takes in what its count cannot see, a reasoning model's unknown reasoning;
    that stays said by the model's `reasoning` ("reasoning not included") and the notes. A model
    with no counted request keeps its row as it is; no money changes.
    """
    if report.requests.empty or COUNT_EXACTNESS not in report.requests:
        return report
    words = {model: least_exact(Counter(zip(rows[COUNT_EXACTNESS], rows[COUNT_REASON])))
             for model, rows in report.requests.groupby("model", sort=False)}
    models = report.models.copy()
    for i, model in zip(models.index, models["model"]):
        if model in words:
            word, reason = words[model]
            models.loc[i, ["exactness", "exactness_reason"]] = [word, "" if word == "exact" else reason]
    return dataclasses.replace(report, models=models, notes=report_notes(models, report.workload))
