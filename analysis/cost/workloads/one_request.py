"""One text as one request: what it costs under a model, without an assumed workload.

Unlike `estimate` (a workload of many requests, per model), this prices the text the user is
looking at, once: for the dashboard's Compare page (`input_cost`, next to each tokenizer's
count) and for `tokenprism cost TEXT -m MODEL` with no workload flags (`quick_frame`, shown
by `cost.display.display_quick`).
"""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from ..arithmetic import NoPriceError, request_cost
from ..display.money import format_usd
from ...models import tokenizer_for_model
from ..prices import get_price
from .estimate import CostReport


def input_cost(counts: pd.DataFrame, model: str) -> tuple[pd.DataFrame, str]:
    """What the compared text costs as the input of one request to `model`, under each row's count.

    Every row is priced with `model`'s input price (tiers by that row's token count), so the
    rows show what the same text would cost if `model` counted like each tokenizer; the row of
    the tokenizer `model` really uses is labelled in `for_model` ("exact" or "approximate").

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
    choice = tokenizer_for_model(price.model, also=(model.split(":", 1)[-1],))
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
    """One request's price per model from an `estimate` report: input always, output and month on request.

    `tokenprism cost TEXT -m MODEL` prices one request without an assumed workload: its input
    tokens (text plus the documented chat-format overhead of one message) and input cost; the
    output columns when an output size was given, the monthly column when a request rate was.
    Money stays `Decimal` (None: no price).

    >>> from analysis.cost import Workload, estimate
    >>> r = estimate("hi", ["gpt-4o"], workload=Workload(requests_per_month=1, output_tokens=0))
    >>> quick_frame(r, output=False, monthly=False)[["model", "input_tokens"]].values.tolist()
    [['gpt-4o', 8.0]]
    """
    m = report.models
    usd_in = [None if a is None or b is None else a + b
              for a, b in zip(m["usd_input_per_request"], m["usd_cached_input_per_request"])]
    out = pd.DataFrame({"model": m["model"], "priced_as": m["priced_as"], "tokenizer": m["tokenizer"],
                        "exactness": m["exactness"], "input_tokens": m["input_tokens_per_request"], "usd_input": usd_in})
    if output:
        out = out.assign(output_tokens=m["output_tokens_per_request"], usd_output=m["usd_output_per_request"],
                         usd_per_request=m["usd_per_request"])
    if monthly:
        out = out.assign(usd_per_month=m["usd_per_month"])
    return out.assign(status=m["status"], note=m["note"])
