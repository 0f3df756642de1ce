"""One text as the input of one request: what it costs under a model, next to each tokenizer's count.

Unlike `estimate` (a workload of many requests, per model), this prices the text the user is
looking at, once, for the dashboard's Compare page.
"""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from .display import format_usd
from .estimate import NoPriceError, request_cost
from .genai import get_price
from .models import tokenizer_for_model


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
        KeyError: an unknown model (the message names the closest ones).

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
