"""The order of a cost table's rows, as `--sort` asks: by cost, by tokens or by model.

Unlike `report.cost` and `report.traffic` (which render a report), this module only orders a
table's rows, the same way for a workload estimate, one request's price and logged traffic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

SORTS = ("cost", "tokens", "model")  # the values of --sort
# --sort cost orders by the first of these a table has (a monthly figure where there is one)
_COST_COLUMNS = ("usd_per_month", "usd_per_request", "usd_total", "usd_input")
_TOKEN_COLUMNS = ("prompt_tokens_per_request", "prompt_tokens", "input_tokens")  # the whole prompt first


def sort_models(frame: pd.DataFrame, key: str | None) -> pd.DataFrame:
    """`frame`'s rows in the order --sort asks for; rows without a figure (no price) last."""
    if key is None or frame.empty:
        return frame
    if key == "model":
        return frame.sort_values("model", kind="stable", ignore_index=True)
    column = next(c for c in (_COST_COLUMNS if key == "cost" else _TOKEN_COLUMNS) if c in frame)
    values = frame[column].tolist()
    missing = [v is None or v != v for v in values]  # None, NaN: no price, no count
    order = sorted(range(len(values)), key=lambda i: (missing[i], 0 if missing[i] else values[i]))
    return frame.iloc[order].reset_index(drop=True)
