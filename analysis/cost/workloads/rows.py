"""A workload report's model rows and notes: what each priced model's row says, and why.

Unlike `estimate` (which counts and prices the requests and adds them up) and `workload` (the
assumed numbers), this module only words the results: a model's row (its price, tokenizer and
status beside the sums), its parts (input, cache read, output, reasoning, fee: tokens, rate, USD,
exactness), how many requests reached a price tier, and the notes a row and the report carry.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import pandas as pd

from ...models import TokenizerChoice
from ..bill import shown_rates
from ..caching import REASONING_NOT_INCLUDED
from ..prices import MTOK, Price
from ..targets import SPECIAL_TOKENS_NOTE
from .workload import Workload, percent


def model_row(ref: str, price: Price, choice: TokenizerChoice, status: str, summary: dict,
              notes: list[str], workload: Workload | None = None) -> dict:
    """One row of a report's per-model table. Its $/Mtok are the rates the workload is priced at:
    the first tier's, in the batch or service-tier variant the workload asks for."""
    rates = shown_rates(price, price.as_of or datetime.now(UTC).date(),
                        batch=workload.batch if workload else False,
                        service_tier=workload.service_tier if workload else None)
    return {
        "model": ref, "priced_as": price.key, "provider": price.provider, "tokenizer": choice.label,
        "status": status, **summary,
        "usd_per_mtok_input": rates[0], "usd_per_mtok_cached_input": rates[1], "usd_per_mtok_output": rates[2],
        "price_source": price.source, "price_as_of": price.as_of.isoformat() if price.as_of else "",
        "note": "; ".join(notes), "parts": workload_parts(price, summary, rates),
    }


def workload_parts(price: Price, summary: dict, rates: tuple[Any, Any, Any] | None = None) -> list[dict[str, Any]]:
    """A workload row's bill by part, per request (the JSON contract's `parts`): uncached input,
    cache read, visible output, reasoning and a fee, each with its tokens, rate, USD and exactness.

    The output USD of a request prices its reasoning with it (both at the output rate, in the
    request's tier); it is split between them by their tokens, exactly. A part's rate is what its
    USD per token comes to, to 10 significant digits (the price table's rate within one tier, the
    batch or tier rate with --batch or --service-tier: `rates`); that rate where the part has no
    tokens. Money is as exact as the bill; the JSON writer gives it the contract's 10 places.
    """
    if not summary or summary.get("usd_per_request") is None:
        return []
    out, reasoning = summary["output_tokens_per_request"], summary["reasoning_tokens_per_request"]
    usd_out = summary["usd_output_per_request"]
    both = Decimal(repr(out)) + Decimal(repr(reasoning))
    usd_reasoning = usd_out * Decimal(repr(reasoning)) / both if both else Decimal(0)  # exact where it can be
    r_in, r_cached, r_out = rates or shown_rates(price, price.as_of or datetime.now(UTC).date())
    counted = f"count ({summary['exactness']})"
    unknown = summary.get("reasoning") == REASONING_NOT_INCLUDED

    def rate(r: Any, tokens: float = 0.0, usd: Decimal | None = None) -> Decimal | None:
        if tokens and usd is not None:  # the table's figure: a ratio of sums has division noise past 20 digits
            return _figure(usd / Decimal(repr(tokens)) * MTOK)
        return r

    parts = [
        {"name": "input", "tokens_per_request": summary["input_tokens_per_request"],
         "usd_per_mtok": rate(r_in, summary["input_tokens_per_request"], summary["usd_input_per_request"]),
         "usd_per_request": summary["usd_input_per_request"], "exactness": counted},
        {"name": "cache read", "tokens_per_request": summary["cached_tokens_per_request"],
         "usd_per_mtok": rate(r_cached if r_cached is not None else r_in, summary["cached_tokens_per_request"],
                              summary["usd_cached_input_per_request"]),
         "usd_per_request": summary["usd_cached_input_per_request"],
         "exactness": "--cached-share (a manual share of the input)"},
        {"name": "output", "tokens_per_request": out, "usd_per_mtok": rate(r_out, out, usd_out - usd_reasoning),
         "usd_per_request": usd_out - usd_reasoning, "exactness": "the workload's output size"},
        {"name": "reasoning", "tokens_per_request": reasoning,
         "usd_per_mtok": rate(r_out, reasoning, usd_reasoning),
         "usd_per_request": usd_reasoning,
         "exactness": REASONING_NOT_INCLUDED if unknown else "--reasoning-tokens / --reasoning-ratio" if reasoning
         else "none: the model does not reason (or reasons only when asked)"},
    ]
    if summary.get("usd_fee_per_request"):
        parts.append({"name": "fee", "tokens_per_request": 0.0, "usd_per_mtok": None,
                      "usd_per_request": summary["usd_fee_per_request"], "exactness": "the price's fee per request"})
    return parts


def _figure(rate: Decimal) -> Decimal:
    """A rate as a price table writes it: 10 significant digits, trailing zeros dropped.

    >>> _figure(Decimal("8.000000000000000464")), _figure(Decimal("14.99999999999999966409266409"))
    (Decimal('8'), Decimal('15'))
    """
    if not rate:
        return Decimal(0)
    places = 9 - rate.adjusted()
    return rate.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN).normalize()



def tier_requests(price: Price, rows: Iterable[dict]) -> int:
    """How many of these request rows pass the first tier threshold of the price."""
    starts = [t for rate in (price.input, price.output) if rate for t, _ in rate.tiers]
    return sum(1 for r in rows if starts and r["prompt_tokens"] > min(starts))


def row_notes(price: Price, choice: TokenizerChoice, n_requests: int, over: int, workload: Workload) -> list[str]:
    """What a reader of a model's row must know, most important first: `n_requests` priced, `over` of
    them past the first tier."""
    notes = list(price.notes)
    if choice.status != "ok" or choice.note.startswith("tokenizer stated"):
        notes.insert(0, choice.note)
    if n_requests and workload.cached_share > 0:
        if price.input is not None and price.cached_input is None:
            notes.append("no cached-input price: cached tokens are billed at the input price")
        if price.cache_write is not None:
            notes.append(f"cache writes (${price.cache_write.base}/Mtok) are not included")
    starts = [t for rate in (price.input, price.output) if rate for t, _ in rate.tiers]
    if over:
        notes.append(f"{over} of {n_requests} requests exceed {min(starts):,} input tokens and pay the tier price")
    return notes



def report_notes(models: pd.DataFrame, workload: Workload) -> tuple[str, ...]:
    notes = []
    n = workload.messages_per_request
    if n == 1:
        notes.append("each text is one request: one user message in each model's chat format, counted as "
                     "`tokenprism count` counts it (content plus the format's tokens)")
    elif n > 1:
        notes.append(f"ESTIMATE: {n} messages per request is a described workload: each model's format tokens are "
                     f"those of {n} turns with the text in the last one")
    else:
        notes.append("0 messages per request: the raw text, no chat format")
    for label in ("documented", "estimate"):
        named = models.loc[models["exactness"] == label, "model"].tolist()
        if named:
            notes.append(f"{label.upper() if label == 'estimate' else label}: {', '.join(named)} "
                         "(why: each model's exactness_reason; ~ marks a proxy tokenizer)")
    if "reasoning" in models:
        unknown = models.loc[models["reasoning"] == REASONING_NOT_INCLUDED, "model"].tolist()
        if unknown:
            notes.append(f"{REASONING_NOT_INCLUDED.upper()}: {', '.join(unknown)} bill their reasoning as output tokens "
                         "and no reasoning figure was given, so their output cost is understated; give "
                         "--reasoning-tokens N or --reasoning-ratio R")
    missing = models.loc[models["status"] != "ok", ["model", "status"]]
    for model, status in missing.itertuples(index=False):
        notes.append(f"{model}: {status}")
    if workload.output_ratio is not None:
        notes.append(f"output = {workload.output_ratio:f} x each request's content tokens (the chat format's tokens "
                     "are not part of the answer's length)")
    if workload.cached_share > 0:
        notes.append(f"{percent(workload.cached_share)} of each request's input tokens are billed at the "
                     "cached-input price; cache-write charges are not included")
    if workload.batch or workload.service_tier:
        what = " and ".join(x for x in ("batch" if workload.batch else "",
                                         f"the {workload.service_tier} service tier" if workload.service_tier else "") if x)
        notes.append(f"every model is priced at genai-prices' {what} price (--batch/--service-tier); the rates "
                     "shown ($/Mtok) are those rates")
    notes.append("tiered prices: the tier is chosen per request from its input tokens (cached included)")
    notes.append(SPECIAL_TOKENS_NOTE)
    return tuple(notes)
