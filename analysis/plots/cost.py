"""Cost figures: monthly cost by model, input cost against characters per token, and logged traffic.

Unlike `figures` (token-count figures from measurement frames), these take the per-model frame of
a `cost.CostReport`. Each function returns a matplotlib `Figure` built without pyplot (no global
state, no `show()`); the CLI saves it and the dashboard renders the same object. Approximate
rows (proxy tokenizer) are hatched and hollow, and models without a cost are named on the
chart with the reason, never drawn as $0.
"""

from __future__ import annotations

import textwrap
from decimal import Decimal
from typing import Any

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from ..money import format_usd

_EXACT, _APPROX = "#3b6ea8", "#d08c2e"


def _value(v: Any) -> float | None:
    if isinstance(v, Decimal):
        return float(v)
    return None  # None or NaN: no cost


def _reason(row: pd.Series) -> str:
    status = str(row.get("status", ""))
    if status.startswith("not fetched"):
        return "no count: " + status
    if status == "ok":
        return "no price"
    return status


def monthly_cost_bar(models: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Horizontal bars of USD per month, cheapest at the top; estimates hatched.

    Args:
        models: `CostReport.models` (columns model, exactness, status, usd_per_month).
        title: figure title (default says the unit).

    Returns:
        A matplotlib Figure.

    >>> fig = monthly_cost_bar(pd.DataFrame({"model": ["a", "b"], "exactness": ["exact", "estimate"],
    ...     "status": ["ok", "ok"], "usd_per_month": [Decimal("12.5"), Decimal("3")]}))
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['b', 'a']
    """
    frame = models.assign(_v=models["usd_per_month"].map(_value))
    priced = frame[frame["_v"].notna()].sort_values("_v", kind="stable")
    unpriced = frame[frame["_v"].isna()]
    rows = pd.concat([priced, unpriced])
    fig = Figure(figsize=(8, 0.45 * len(rows) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    ypos = list(range(len(rows)))[::-1]  # first row at the top
    top = max(priced["_v"], default=0.0) or 1.0
    for y, (_, row) in zip(ypos, rows.iterrows()):
        approx = row["exactness"] == "estimate"
        if pd.notna(row["_v"]):
            ax.barh(y, row["_v"], color=_APPROX if approx else _EXACT, hatch="//" if approx else None,
                    edgecolor="white" if approx else None, alpha=0.8 if approx else 1.0)
            label = format_usd(Decimal(str(row["usd_per_month"]))) + ("  (estimate)" if approx else "")
            ax.text(row["_v"] + top * 0.01, y, label, va="center", fontsize=8)
        else:
            ax.text(top * 0.01, y, _reason(row), va="center", fontsize=8, color="#a33", style="italic")
    ax.set_yticks(ypos, rows["model"].tolist())
    ax.set_xlim(0, top * 1.35)
    ax.set_xlabel("USD per month")
    ax.set_title(title or "Monthly cost by model (USD / month)")
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=_EXACT, label="exact or documented count"),
                       Patch(facecolor=_APPROX, hatch="//", edgecolor="white", label="estimate (a proxy tokenizer or format)")],
              loc="upper right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    return fig


def cost_vs_chars_per_token(models: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Input cost per million characters against characters per token, one point per model.

    Points further right spend fewer tokens on the same text; lower points pay less for it.
    The y axis is logarithmic because prices span orders of magnitude.

    Args:
        models: `CostReport.models` (model, exactness, chars_per_token, usd_per_mchar_input).
        title: figure title.

    Returns:
        A matplotlib Figure (models without a cost are listed under the axes).
    """
    frame = models.assign(_y=models["usd_per_mchar_input"].map(_value))
    shown = frame[frame["_y"].notna() & frame["chars_per_token"].notna()]
    fig = Figure(figsize=(8, 5.5), layout="constrained")
    ax = fig.add_subplot()
    for labels, marker_face, label in ((("exact", "documented"), _EXACT, "exact or documented count"),
                                       (("estimate",), "none", "estimate (a proxy tokenizer or format)")):
        part = shown[shown["exactness"].isin(labels)]
        if len(part):
            ax.scatter(part["chars_per_token"].astype(float), part["_y"], s=50, label=label,
                       facecolors=marker_face, edgecolors=_EXACT if labels[0] == "exact" else _APPROX, linewidths=1.5)
    # models at the same point (same tokenizer, same price) share one label instead of overprinting
    spots: dict[tuple[float, float], list[str]] = {}
    for _, row in shown.iterrows():
        spots.setdefault((round(float(row["chars_per_token"]), 6), row["_y"]), []).append(row["model"])
    for (x, y), names in spots.items():
        ax.annotate(", ".join(names), (x, y), textcoords="offset points", xytext=(5, 3), fontsize=7)
    if (shown["_y"] > 0).any():
        ax.set_yscale("log")
        dollars = FuncFormatter(lambda v, _: f"${v:g}")
        ax.yaxis.set_major_formatter(dollars)
        ax.yaxis.set_minor_formatter(dollars)
        ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.margins(x=0.25)  # room for the labels right of the points
    ax.set_xlabel("characters per token (higher: fewer tokens for the same text)")
    ax.set_ylabel("USD per million input characters")
    ax.set_title(title or "Input cost per million characters vs characters per token")
    ax.grid(alpha=0.3, which="both")
    if len(shown):
        ax.legend(fontsize=8)
    missing = frame[~frame.index.isin(shown.index)]
    if len(missing):
        text = "not shown: " + "; ".join(f"{r['model']} ({_reason(r)})" for _, r in missing.iterrows())
        fig.supxlabel(textwrap.fill(text, 130), fontsize=7, color="#a33")
    return fig


# -- logged traffic ------------------------------------------------------------------------------
def traffic_total_bar(models: pd.DataFrame, *, title: str | None = None) -> Figure:
    """Total $ of logged traffic per model (a `TrafficReport.models` frame), with the change vs served.

    Bars are labelled "estimate" (every figure recounts logged text); estimate rows are
    hatched; a model without a cost is named with the reason, never drawn as $0.

    >>> fig = traffic_total_bar(pd.DataFrame({"model": ["a", "b"], "exactness": ["exact", "estimate"],
    ...     "status": ["ok", "ok"], "usd_total": [Decimal("2"), Decimal("1")], "change_vs_served": [0.0, -0.5]}))
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['b', 'a']
    """
    frame = models.assign(_v=models["usd_total"].map(_value))
    priced = frame[frame["_v"].notna()].sort_values("_v", kind="stable")
    rows = pd.concat([priced, frame[frame["_v"].isna()]])
    fig = Figure(figsize=(8, 0.45 * len(rows) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    ypos = list(range(len(rows)))[::-1]
    top = max(priced["_v"], default=0.0) or 1.0
    for y, (_, row) in zip(ypos, rows.iterrows()):
        approx = row["exactness"] == "estimate"
        if pd.notna(row["_v"]):
            ax.barh(y, row["_v"], color=_APPROX if approx else _EXACT, hatch="//" if approx else None,
                    edgecolor="white" if approx else None)
            change = row.get("change_vs_served")
            label = format_usd(Decimal(str(row["usd_total"]))) + " (estimate)"
            if change is not None and pd.notna(change):
                label += f", {change:+.0%} vs served"
            ax.text(row["_v"] + top * 0.01, y, label, va="center", fontsize=8)
        else:
            ax.text(top * 0.01, y, _reason(row), va="center", fontsize=8, color="#a33", style="italic")
    ax.set_yticks(ypos, rows["model"].tolist())
    ax.set_xlim(0, top * 1.6)
    ax.set_xlabel("USD for the logged period (estimate)")
    ax.set_title(title or "Logged traffic priced under each model (USD, estimate)")
    ax.grid(axis="x", alpha=0.3)
    return fig


def traffic_cost_per_day(days: pd.DataFrame, *, title: str | None = None) -> Figure:
    """USD per day per model (a `TrafficReport.days` frame: model, day, usd), one line per model."""
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    frame = days.assign(_v=days["usd"].map(_value), _day=pd.to_datetime(days["day"]))
    for model, part in frame.groupby("model", sort=False):
        part = part[part["_v"].notna()].sort_values("_day")
        if len(part):
            ax.plot(part["_day"], part["_v"], marker="o", markersize=3, label=str(model))
    ax.set_ylabel("USD per day (estimate)")
    ax.set_title(title or "Cost per day of the logged traffic, by model (USD, estimate)")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"${v:g}"))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.autofmt_xdate()
    return fig
