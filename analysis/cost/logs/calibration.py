"""Calibration: our recount of a log's rows against what their usage logged.

Unlike `report` (the whole `TrafficReport`) and `chunk` (which collects the relative errors chunk
by chunk), this module only turns them into the report's calibration tables: per serving model, the
median and worst error of our input and output counts (from the rows kept, or folded by `fold`),
the reasoning the usage billed that no text shows, and, where one model served the whole log, the
simulated cache reads against the logged ones.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..caching import cache_rule
from ..targets import TrafficPlan, served_target
from .fold import median
from .partial import TrafficPartial


def _calibration(partial: TrafficPartial) -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, worst = [], []
    for ref, part in sorted(partial.calibration.items()):
        folded = partial.folded.calibration.get(ref) if partial.folded is not None else None
        if folded is not None:  # folded chunk by chunk (`fold.LogFold`): the same figures
            row = {"served_by": ref, "n_rows": folded.rows}
            for name in ("input", "output"):
                errors, worst_error = folded.errors[name], folded.worst[name]
                row[f"{name}_rows"] = errors.n
                row[f"{name}_median_error"] = median(errors.rows[:, 0], errors.counts) if errors.n else float("nan")
                row[f"{name}_worst_error"] = float("nan") if worst_error is None else worst_error
        else:
            rel_in, rel_out = np.concatenate(part.rel_in), np.concatenate(part.rel_out)
            row = {"served_by": ref, "n_rows": int(len(rel_in))}
            for name, rel in (("input", rel_in), ("output", rel_out)):
                ok = rel[~np.isnan(rel)]
                row[f"{name}_rows"] = int(len(ok))
                row[f"{name}_median_error"] = float(np.median(ok)) if len(ok) else float("nan")
                row[f"{name}_worst_error"] = float(ok[np.argmax(np.abs(ok))]) if len(ok) else float("nan")
        billed = partial.billed.get(ref)
        if billed is not None:  # reasoning is billed as output and never shows in the response text
            row["reasoning_tokens"] = int(billed.parts["reasoning_tokens"])
            row["rows_reasoning_unknown"] = billed.reasoning_unknown
        rows.append(row)
        worst.extend(part.top)
    top = sorted(worst, key=lambda r: -r["worst"])[:10]
    cols = ["served_by", "n_rows", "input_rows", "input_median_error", "input_worst_error", "output_rows",
            "output_median_error", "output_worst_error", "reasoning_tokens", "rows_reasoning_unknown"]
    return pd.DataFrame(rows, columns=cols), pd.DataFrame(top).drop(columns=["worst"], errors="ignore")



def _calibrate_cache(calibration: pd.DataFrame, partial: TrafficPartial, plan: TrafficPlan,
                     models: pd.DataFrame) -> pd.DataFrame:
    """The cache part of the calibration: the simulated cache read of the model that served the
    whole log (a target priced as the same model) against the cache reads its usage logged.

    Only where one model served every row and every row carries usage, so the two cover the same
    requests; elsewhere the columns are empty.
    """
    calibration = calibration.assign(cache_read_logged=None, cache_read_simulated=None, cache_read_error=float("nan"))
    if len(partial.served) != 1 or not plan.simulates_cache:
        return calibration
    (ref, part), = partial.served.items()
    billed = partial.billed.get(ref)
    served = served_target(ref, plan.on, plan.overrides, plan.fallback_tokenizer)
    if billed is None or isinstance(served, str) or int(sum(v[0] for v in billed.sums.values())) != partial.rows:
        return calibration
    same = [t.ref for t in plan.targets if t.price.key == served.price.key and cache_rule(t.ref) is not None]
    rows = models.set_index("model")
    if not same or same[0] not in rows.index or calibration.empty:
        return calibration
    logged = int(billed.parts["cache_read_tokens"])
    simulated = int(rows.loc[same[0], "cache_read_tokens"])
    at = calibration["served_by"] == ref
    calibration.loc[at, "cache_read_logged"] = logged
    calibration.loc[at, "cache_read_simulated"] = simulated
    calibration.loc[at, "cache_read_error"] = (simulated - logged) / logged if logged else float("nan")
    return calibration
