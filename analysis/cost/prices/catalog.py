"""The model catalogue: every priced model with its prices, its tokenizer and how exact its counts are.

Unlike `lookup` (prices alone) and `analysis.models` (which tokenizer stands for a model), this module
joins the two into the rows `tokenprism models` prints and the HTTP service's `/v1/models`
returns, so both faces list the same models with the same exactness.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Iterable

import pandas as pd

from .lookup import list_prices, price_source, provider_ids
from ...contract import text_exactness
from ...models import choose, explicit_choice, load_rules, rule_for
from .records import Price
from ...errors import BadInput, UnknownName, closest, shown

COLUMNS = ["model", "name", "usd_per_mtok_input", "usd_per_mtok_cached_input", "usd_per_mtok_output", "tiers",
           "price_remark", "tokenizer", "exactness", "tokenizer_status", "price_source", "price_as_of", "note"]


def model_table(*, contains: str | None = None, provider: str | None = None, all_providers: bool = False,
                exactness: str | None = None, include_deprecated: bool = False, overrides: Iterable[Price] = (),
                on: date | datetime | None = None) -> tuple[pd.DataFrame, str]:
    """The priced models with their tokenizer and its exactness, and the price-source line.

    Args:
        contains: only models whose "provider:model" or name contains this.
        provider: only this provider id.
        all_providers: include hosts and resellers, not only the model makers' own APIs.
        exactness: only rows whose text count is this: "exact", "estimate" (a proxy tokenizer; the
            former word "approximate" is taken too) or "none".
        include_deprecated: include models the price data marks deprecated.
        overrides: the user's price rows, listed first.
        on: the day whose prices apply (default today, UTC).

    Returns:
        (rows with COLUMNS, money as Decimal or None; "price source; override files").

    Raises:
        KeyError: an unknown provider (closest ids and the valid ones listed).
        ValueError: an unknown exactness, or no model matches the filters.

    >>> frame, _ = model_table(contains="gpt-4o-mini", provider="openai")
    >>> frame.loc[frame["model"] == "openai:gpt-4o-mini", ["tokenizer", "exactness"]].values.tolist()
    [['o200k_base', 'exact']]
    """
    if provider and provider not in provider_ids():
        close = closest(provider, provider_ids())
        raise UnknownName("provider", provider, provider_ids(), message=f"unknown provider {shown(provider)}"
                          + (f"; did you mean {', '.join(close)}?" if close else "") + f" Valid: {', '.join(provider_ids())}")
    # "approximate", the former word for a proxy's estimate, is still taken as the filter.
    wanted = text_exactness(exactness) if exactness is not None else None
    if exactness is not None and wanted is None:
        raise BadInput(f"exactness must be one of exact, estimate, none, got {exactness!r}")
    overrides = list(overrides)
    prices = list_prices(on=on, provider=provider, contains=contains, all_providers=all_providers,
                         overrides=overrides, include_deprecated=include_deprecated)
    rules = load_rules()
    rows = []
    for p in prices:
        c = (explicit_choice(p.model, p.tokenizer, p.exactness or "exact", "stated in the price file") if p.tokenizer
             else choose(rule_for((p.model,), rules), p.model))
        if wanted and c.exactness != wanted:
            continue
        tiers = sorted({start for r in (p.input, p.output) if r for start, _ in r.tiers})
        rows.append({
            "model": p.key, "name": p.name,
            "usd_per_mtok_input": p.input.base if p.input else None,
            "usd_per_mtok_cached_input": p.cached_input.base if p.cached_input else None,
            "usd_per_mtok_output": p.output.base if p.output else None,
            "tiers": ", ".join(f">{t:,}" for t in tiers),
            "price_remark": ", ".join(filter(None, ["peak-hour price" if p.time_of_day else "",
                                                    f"changes {p.next_change}" if p.next_change else ""])),
            "tokenizer": c.label, "exactness": c.exactness,
            "tokenizer_status": c.status,
            "price_source": p.source, "price_as_of": p.as_of.isoformat() if p.as_of else "",
            "note": "; ".join(([c.note] if c.exactness != "exact" or c.status != "ok" else []) + list(p.notes)),
        })
    if not rows:
        raise BadInput("no model matches these filters; try without them, or include all providers (--all-providers)")
    sources = [price_source().describe()] + sorted({p.source for p in overrides})
    return pd.DataFrame(rows, columns=COLUMNS), "; ".join(sources)
