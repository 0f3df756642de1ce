"""A workload's cost report as people read it: tables of strings and the notes per model.

Unlike `cost.workloads.estimate` (which computes in exact `Decimal` and never rounds) and
`analysis.money` (one amount), this module only lays tables out: every face (CLI, reports,
dashboard) shows the same strings through it. `cost` (the report) and `traffic` (logged traffic)
render their documents from these tables.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pandas as pd

from ..cost import CostReport
from ..money import format_usd


def display_models(report: CostReport) -> pd.DataFrame:
    """The per-model table as people read it: rounded strings, "no price" where unpriced."""
    m = report.models
    out = pd.DataFrame({
        "model": m["model"], "tokenizer": m["tokenizer"], "exactness": exactness_shown(m["exactness"], m["status"]),
        "in_tok/req": m["prompt_tokens_per_request"].map(_tok), "of which format": m["format_tokens_per_request"].map(_tok),
        # cached input is its own column (the JSON's input_tokens is the uncached part)
        **({"of which cached": m["cached_tokens_per_request"].map(_tok)}
           if (m["cached_tokens_per_request"].fillna(0) > 0).any() else {}),
        "out_tok/req": m["output_tokens_per_request"].map(_tok),
        "reasoning/req": [r if isinstance(r, str) and r else _tok(v)
                          for r, v in zip(m["reasoning"], m["reasoning_tokens_per_request"])],
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


def exactness_shown(exactness: Any, status: Any) -> list[str]:
    """The exactness column as people read it: a model that was not counted reads why, in the
    status's first words ("no tokenizer", "not fetched"), never NaN.

    >>> exactness_shown(["exact", float("nan")], ["ok", "no tokenizer: give the tokenizer column"])
    ['exact', 'no tokenizer']
    """
    return [e if isinstance(e, str) and e else str(s).split(":", 1)[0] if isinstance(s, str) and s else "no count"
            for e, s in zip(exactness, status)]


def _tok(v: Any) -> str:
    """A mean per request: whole as a count ("1,024"), else one decimal ("12.5")."""
    if v is None or pd.isna(v):
        return ""
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.1f}"


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
        "in_tok/req": c["prompt_tokens_per_request"].map(_tok),
        "$/request": c["usd_per_request"].map(format_usd), "$/month": c["usd_per_month"].map(format_usd),
        "$/M chars in": c["usd_per_mchar_input"].map(format_usd),
    })


def model_notes(report: CostReport) -> list[str]:
    """The per-model notes of a workload report (see `frame_notes`)."""
    return frame_notes(report.models)


def frame_notes(models: pd.DataFrame) -> list[str]:
    """"model (estimate): why" for every count that is not exact, then "model: note" for every row
    that carries a note (a workload's or a traffic report's models table)."""
    why = [f"{model} ({e}): {r}" for model, e, r in zip(models["model"], models["exactness"], models["exactness_reason"])
           if isinstance(e, str) and e != "exact" and isinstance(r, str) and r]
    return why + [f"{model}: {n}" for model, n in zip(models["model"], models["note"]) if isinstance(n, str) and n]


def display_quick(frame: pd.DataFrame) -> pd.DataFrame:
    """`workloads.one_request.quick_frame` as people read it: rounded money, "no price" where unpriced, "~" for estimates."""
    money = [c for c in ("usd_input", "usd_output", "usd_per_request", "usd_per_month") if c in frame]
    tokens = [c for c in ("input_tokens", "format_tokens", "output_tokens") if c in frame]
    # the reasons are long: `quick_reasons` lists them under the table
    shown = frame.drop(columns=["priced_as", "note", "exactness_reason", "content_tokens"], errors="ignore").assign(
        exactness=exactness_shown(frame["exactness"], frame["status"]),
        **{c: frame[c].map(lambda v: format_usd(v if isinstance(v, Decimal) else None)) for c in money},
        **{c: frame[c].map(lambda v: "" if pd.isna(v) else f"{v:,.0f}") for c in tokens},
        **({"reasoning_tokens": frame["reasoning_tokens"].map(lambda v: v if isinstance(v, str) else
                                                              "" if pd.isna(v) else f"{v:,.0f}")}
           if "reasoning_tokens" in frame else {}))
    return shown.rename(columns={"input_tokens": "input tokens", "format_tokens": "of which format", "usd_input": "$ input", "output_tokens": "output tokens",
                                 "reasoning_tokens": "reasoning", "usd_output": "$ output", "usd_per_request": "$/request", "usd_per_month": "$/month"})


def quick_reasons(frame: pd.DataFrame) -> list[str]:
    """ "model: why its count is documented or an estimate", once per model, for the lines under the quick table."""
    rows = frame.dropna(subset=["exactness"]).drop_duplicates("model")
    return [f"{m} ({e}): {r}" for m, e, r in zip(rows["model"], rows["exactness"], rows["exactness_reason"])
            if e != "exact" and r]


def cost_headline(models: Any, amounts: Any, per: str) -> str:
    """The answer of a cost table in one sentence: the cheapest and the dearest priced model, and
    how many times the one costs the other (`per`: what an amount is for, "a month").

    >>> cost_headline(["a", "b", "c"], [Decimal("0.5"), None, Decimal("2")], "a month")
    'Cheapest: a at $0.5 a month; dearest: c at $2.00 (4.0x).'
    >>> cost_headline(["a"], [Decimal("0.0012")], "a request")
    'a: $0.0012 a request.'
    """
    priced = [(str(m), a) for m, a in zip(models, amounts) if isinstance(a, Decimal)]
    if not priced:
        return "No model has a price here: see each model's status."
    low = min(priced, key=lambda p: p[1])
    high = max(priced, key=lambda p: p[1])
    if len(priced) == 1 or low[1] == high[1]:
        same = "" if len(priced) == 1 else f" (all {len(priced)} models)"
        return f"{low[0]}: {format_usd(low[1])} {per}{same}."
    times = f"{high[1] / low[1]:,.1f}x" if low[1] > 0 else "the cheapest is free"
    return f"Cheapest: {low[0]} at {format_usd(low[1])} {per}; dearest: {high[0]} at {format_usd(high[1])} ({times})."
