"""Interactive cost charts (Vega-Lite, through Altair) from the frames `plots.cost` draws.

Unlike `plots.cost` (static matplotlib figures for the report folder's PNG/SVG files), these
return Altair charts for the dashboard, like `plots.charts`: a tooltip on every mark with the
exact dollars (as `format_usd` writes them, not a float's rounding), the model, its exactness
and status; axis titles with units; estimates in their own colour. A model without a cost is
left out of the chart and named by `not_drawn`, never drawn as $0.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import altair as alt
import pandas as pd

from ..cost import format_usd
# charts.FIT_X: the column's width and the height the bars, axes and legend need (Streamlit's default
# "fit" squeezed them into the height given: three bars were drawn in 78 px, their labels overlaid)
from .charts import FIT_X

EXACT, ESTIMATE = "#3b6ea8", "#d08c2e"  # as plots.cost: exact or documented count, estimate
# short, so that the legend under a phone's plot (which starts after the model names) fits its width;
# the tooltip says each model's exactness in full
_KINDS = ["exact or documented", "estimate (proxy)"]
_ROW = 26  # pixels per bar (a step: the chart grows with the models)


def _usd(v: Any) -> float | None:
    return float(v) if isinstance(v, Decimal) else None


def _kind(exactness: Any) -> str:
    return _KINDS[1] if exactness == "estimate" else _KINDS[0]


def _colour(title: str = "token count") -> alt.Color:
    # below the plot, one entry per line: each name whole at a phone's width
    return alt.Color("kind:N", title=title, scale=alt.Scale(domain=_KINDS, range=[EXACT, ESTIMATE]),
                     legend=alt.Legend(orient="bottom", direction="vertical", symbolLimit=0, labelLimit=0))


def not_drawn(models: pd.DataFrame, column: str) -> list[str]:
    """ "model (why)" for each row of `models` without a cost in `column`.

    >>> not_drawn(pd.DataFrame({"model": ["a", "b"], "usd": [Decimal(1), None], "status": ["ok", "no price"]}), "usd")
    ['b (no price)']
    """
    return [f"{m} ({s if s != 'ok' else 'no price'})" for m, v, s in zip(models["model"], models[column], models["status"])
            if _usd(v) is None]


def _bars(models: pd.DataFrame, column: str, *, x_title: str, title: str,
          extra: tuple[tuple[str, str], ...] = ()) -> alt.Chart:
    """Horizontal bars of `column` (Decimal dollars), cheapest at the top; `extra`: (column, title)
    pairs shown in the tooltip."""
    frame = models.assign(_v=models[column].map(_usd))
    data = pd.DataFrame({
        "model": frame["model"].astype(str), "usd": frame["_v"], "kind": frame["exactness"].map(_kind),
        "exactness": frame["exactness"].astype(str), "status": frame["status"].astype(str),
        "usd_text": frame[column].map(lambda v: format_usd(v) if isinstance(v, Decimal) else ""),
        **{name: frame[name] for name, _ in extra},
    })[lambda d: d["usd"].notna()].sort_values("usd", kind="stable")
    tooltip = [alt.Tooltip("model:N", title="model"), alt.Tooltip("usd_text:N", title=x_title),
               alt.Tooltip("exactness:N", title="exactness"), *(alt.Tooltip(f"{name}:N", title=t) for name, t in extra),
               alt.Tooltip("status:N", title="status")]
    return alt.Chart(data, title=title).mark_bar().encode(
        x=alt.X("usd:Q", title=x_title, axis=alt.Axis(format="$,.4~g")),
        y=alt.Y("model:N", sort=data["model"].tolist(), title="model",
                axis=alt.Axis(labelLimit=220, labelOverlap=False)),
        color=_colour(), tooltip=tooltip,
    ).properties(height=alt.Step(_ROW), autosize=FIT_X)


def monthly_cost_bar(models: pd.DataFrame) -> alt.Chart:
    """USD per month by model (a `CostReport.models` frame), cheapest at the top.

    >>> m = pd.DataFrame({"model": ["a", "b"], "exactness": ["exact", "estimate"], "status": ["ok", "ok"],
    ...                   "usd_per_month": [Decimal("12.5"), Decimal("3")]})
    >>> monthly_cost_bar(m).to_dict()["encoding"]["y"]["sort"]
    ['b', 'a']
    """
    return _bars(models, "usd_per_month", x_title="USD per month", title="Monthly cost by model (USD / month)")


def traffic_total_bar(models: pd.DataFrame) -> alt.Chart:
    """Total USD of logged traffic by model (a `TrafficReport.models` frame), with the change vs served."""
    frame = models.assign(vs_served=models["change_vs_served"].map(
        lambda c: "" if c is None or c != c else f"{c:+.1%}"))
    return _bars(frame, "usd_total", x_title="USD for the logged period (estimate)",
                 title="Logged traffic priced under each model (USD, estimate)",
                 extra=(("vs_served", "vs served"),))


def cost_vs_chars_per_token(models: pd.DataFrame) -> alt.Chart:
    """Input USD per million characters against characters per token, one point per model (log y)."""
    frame = models.assign(_y=models["usd_per_mchar_input"].map(_usd))
    data = pd.DataFrame({
        "model": frame["model"].astype(str), "usd": frame["_y"], "kind": frame["exactness"].map(_kind),
        "exactness": frame["exactness"].astype(str),
        "chars_per_token": pd.to_numeric(frame["chars_per_token"], errors="coerce"),
        "usd_text": frame["usd_per_mchar_input"].map(lambda v: format_usd(v) if isinstance(v, Decimal) else ""),
    })[lambda d: d["usd"].notna() & d["chars_per_token"].notna() & (d["usd"] > 0)]
    base = alt.Chart(data, title="Input cost per million characters vs characters per token").encode(
        x=alt.X("chars_per_token:Q", title="characters per token (higher: fewer tokens for the same text)",
                scale=alt.Scale(zero=False, padding=30)),
        y=alt.Y("usd:Q", title="USD per million input characters (log scale)",
                scale=alt.Scale(type="log"), axis=alt.Axis(format="$,.4~g")),
        tooltip=[alt.Tooltip("model:N", title="model"), alt.Tooltip("usd_text:N", title="USD per million characters"),
                 alt.Tooltip("chars_per_token:Q", title="characters per token", format=".3f"),
                 alt.Tooltip("exactness:N", title="exactness")])
    points = base.mark_point(size=90, filled=True).encode(color=_colour())
    labels = base.mark_text(align="left", dx=7, dy=-5, fontSize=10).encode(text="model:N")
    return (points + labels).properties(height=380, autosize=FIT_X)


def traffic_cost_per_day(days: pd.DataFrame) -> alt.Chart:
    """USD per day by model (a `TrafficReport.days` frame), one line per model, one tick per day."""
    data = pd.DataFrame({"model": days["model"].astype(str), "day": pd.to_datetime(days["day"]),
                         "usd": days["usd"].map(_usd),
                         "usd_text": days["usd"].map(lambda v: format_usd(v) if isinstance(v, Decimal) else ""),
                         "n_requests": days["n_requests"]})[lambda d: d["usd"].notna()]
    # one tick per day for up to a month (Vega-Lite picked 3-hourly ticks for a two-day log)
    ticks: dict[str, Any] | alt.UndefinedType = {"interval": "day", "step": 1} if data["day"].nunique() <= 31 else alt.Undefined
    pick = alt.selection_point(fields=["model"], bind="legend")
    return alt.Chart(data, title="Cost per day of the logged traffic, by model (USD, estimate)").mark_line(point=True).encode(
        x=alt.X("day:T", title="day (UTC)", axis=alt.Axis(format="%Y-%m-%d", tickCount=ticks, labelAngle=-30)),
        y=alt.Y("usd:Q", title="USD per day (estimate)", axis=alt.Axis(format="$,.4~g")),
        color=alt.Color("model:N", title="model (click to pick)",
                        legend=alt.Legend(orient="bottom", direction="vertical", symbolLimit=0, labelLimit=0)),
        opacity=alt.when(pick).then(alt.value(1.0)).otherwise(alt.value(0.15)),
        tooltip=[alt.Tooltip("model:N", title="model"), alt.Tooltip("day:T", title="day", format="%Y-%m-%d"),
                 alt.Tooltip("usd_text:N", title="USD that day"), alt.Tooltip("n_requests:Q", title="requests")],
    ).add_params(pick).properties(height=320, autosize=FIT_X)
