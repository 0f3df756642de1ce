"""A cost report as people read it: money rounded for display, tables of strings, notes per model.

Unlike `estimate` (which computes in exact `Decimal` and never rounds), this module only formats:
every face (CLI, reports, dashboard, service) shows the same strings through it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pandas as pd

from .estimate import CostReport


def format_usd(value: Decimal | None) -> str:
    """Money for display only: "no price" for None; 2 decimals from $1, 4 significant digits below.

    >>> format_usd(Decimal("1234.5678")), format_usd(Decimal("0.000123456")), format_usd(None)
    ('$1,234.57', '$0.0001235', 'no price')
    >>> format_usd(Decimal("0.000088")), format_usd(Decimal("0.00000012345"))
    ('$0.00008800', '$0.0000001234')
    """
    if value is None or (isinstance(value, float) and value != value):
        return "no price"
    if value == 0:
        return "$0"
    if abs(value) >= 1:
        return f"${value:,.2f}"
    if abs(value) >= Decimal("1e-4"):
        return f"${value:.4g}"
    # plain decimals, never scientific notation: 4 significant digits after the leading zeros
    digits = -Decimal(abs(value)).adjusted() + 3
    return f"${value:.{digits}f}"


def display_models(report: CostReport) -> pd.DataFrame:
    """The per-model table as people read it: rounded strings, "no price" where unpriced."""
    m = report.models
    out = pd.DataFrame({
        "model": m["model"], "tokenizer": m["tokenizer"], "exactness": m["exactness"],
        "in_tok/req": m["input_tokens_per_request"].map(_tok), "out_tok/req": m["output_tokens_per_request"].map(_tok),
        "chars/tok": m["chars_per_token"].map(lambda v: "" if pd.isna(v) else f"{v:.2f}"),
        "$/Mtok in / out": [_pair(a, b) for a, b in zip(m["usd_per_mtok_input"], m["usd_per_mtok_output"])],
        "$/request": m["usd_per_request"].map(_money_or_status),
        "$/month": m["usd_per_month"].map(_money_or_status),
        "$/M chars in": m["usd_per_mchar_input"].map(_money_or_status),
        "status": m["status"],
    })
    unusable = m["status"].str.startswith(("not fetched", "no tokenizer"))
    for col in ("$/request", "$/month", "$/M chars in"):
        out.loc[unusable & m["usd_per_mtok_input"].notna(), col] = "no count"
    return out


def _tok(v: Any) -> str:
    return "" if v is None or pd.isna(v) else f"{v:,.1f}"


def _pair(a: Decimal | None, b: Decimal | None) -> str:
    return f"{'n/a' if a is None else a} / {'n/a' if b is None else b}"


def _money_or_status(v: Any) -> str:
    return format_usd(v if v is None or isinstance(v, Decimal) else None)


def display_categories(report: CostReport) -> pd.DataFrame:
    """The per-category table as people read it: rounded strings."""
    c = report.categories
    return pd.DataFrame({
        "model": c["model"], "category": c["category"], "requests": c["n_requests"],
        "tokenizer": c["tokenizer"], "chars/tok": c["chars_per_token"].map(lambda v: f"{v:.2f}"),
        "in_tok/req": c["input_tokens_per_request"].map(lambda v: f"{v:,.1f}"),
        "$/request": c["usd_per_request"].map(format_usd), "$/month": c["usd_per_month"].map(format_usd),
        "$/M chars in": c["usd_per_mchar_input"].map(format_usd),
    })


def model_notes(report: CostReport) -> list[str]:
    """"model: note" for every model whose row carries a note."""
    return [f"{m}: {n}" for m, n in zip(report.models["model"], report.models["note"]) if isinstance(n, str) and n]
