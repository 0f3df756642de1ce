"""One text as one request: what it costs under a model, without an assumed workload.

Unlike `estimate` (a workload of many requests, per model), this prices the text the user is
looking at, once: for the dashboard's Compare page (`input_cost`, next to each tokenizer's
count) and for `tokenprism cost TEXT -m MODEL` with no workload flags (`quick_frame`, shown
by `cost.display.display_quick`).
"""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from ..caching import REASONING_NOT_INCLUDED

from ..arithmetic import NoPriceError, request_cost
from ...money import format_usd
from ..prices import get_price
from ..targets import choice_for
from .estimate import CostReport


def input_cost(counts: pd.DataFrame, model: str) -> tuple[pd.DataFrame, str]:
    """What the compared text costs as the input of one request to `model`, under each row's count.

    Every row is priced with `model`'s input price (tiers by that row's token count), so the
    rows show what the same text would cost if `model` counted like each tokenizer; the row of
    the tokenizer `model` really uses is labelled in `for_model` ("exact" or "estimate").

    Args:
        counts: a `compare.compare` frame.
        model: a model reference `get_price` accepts ("gpt-4o", "openai:gpt-4o").

    Returns:
        (counts plus `usd_input` (Decimal, None when unpriced) and `for_model`, a one-line note).

    Raises:
        UnknownName: an unknown model (the message names the closest ones).

    >>> from analysis import load_tokenizer
    >>> from analysis.compare import compare
    >>> df, note = input_cost(compare("hello world", [load_tokenizer("o200k_base")]), "openai:gpt-4o")
    >>> df[["usd_input", "for_model"]].values.tolist()
    [[Decimal('0.000005'), 'exact']]
    """

    price = get_price(model)
    choice = choice_for(price, model, None)
    usd: list[Decimal | None] = []
    for n in counts["n_tokens"]:
        try:
            usd.append(request_cost(price, input_tokens=int(n), output_tokens=0).usd_total)
        except NoPriceError:
            usd.append(None)
    mine = counts["tokenizer"] == choice.tokenizer
    out = counts.assign(usd_input=usd, for_model=[choice.exactness if m else "" for m in mine])
    rate = f"${price.input.base}/M input tokens" if price.input else "no input price"
    if choice.usable and mine.any():
        own = out.loc[mine, "usd_input"].iloc[0]
        note = (f"{price.key} ({rate}, {price.source}, {price.as_of}) counts with {choice.label} "
                f"({choice.exactness}): this text as one request's input costs {format_usd(own)}.")
    else:
        note = f"{price.key} ({rate}, {price.source}): {choice.note or choice.status}."
    return out, note


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
        row = {"model": r["model"], "priced_as": model["priced_as"], "tokenizer": model["tokenizer"],
               "exactness": r["exactness"], "exactness_reason": r["exactness_reason"],
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
