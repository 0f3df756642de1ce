"""The partial sums of logged traffic: what a chunk of rows reduces to, and how partials add up.

Unlike `chunk` (which reduces one chunk of `LogRecord`s to a partial) and `fold` (which folds the
partials' per-row state away as they come back in time order), this module only holds the sums'
shapes and their `merge`: a `ModelPart` per target and per serving model (a vector of `SUM_FIELDS`
per (day, price tier), and a few integers per row for the cache simulation and the percentiles),
a `LoggedBillPart` per serving model (what the log billed, beside our recount of the same rows), a
`CalibrationPart` (our counts against the logged ones), and the `TrafficPartial` of them all.
Partials are plain data: an engine sends them back from any process, and `merge` is associative.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from .cache_trace import StepCuts, TraceChunk

__all__ = ["LOGGED_BILL_FIELDS", "SUM_FIELDS", "CalibrationPart", "LoggedBillPart", "ModelPart", "TrafficPartial"]

TOP_ROWS = 10  # calibration rows kept: the ones that differ most
# Columns of a sums vector, one vector per (day, tier) of a model: input is the request count's
# content and format tokens; an assumed output (--output-ratio) is a multiple of the content only.
SUM_FIELDS = ("rows", "content_in", "format_in", "logged_out", "rows_logged_out", "content_of_unlogged")
# Columns of a logged bill's vector, one per tier of the serving model's price (the tier of the logged input).
LOGGED_BILL_FIELDS = ("rows", "input", "cached", "output", "rows_without_output")
_F = {name: i for i, name in enumerate(SUM_FIELDS)}


@dataclass
class ModelPart:
    """One model's sums: a vector of `SUM_FIELDS` per (day, tier), the $ of each row (float64), and
    how many rows each (exactness, reason) of the request count covers."""

    sums: dict[tuple[str | None, int], np.ndarray] = field(default_factory=dict)
    costs: list[np.ndarray] = field(default_factory=list)
    exactness: Counter = field(default_factory=Counter)
    # per row of a target (chunk after chunk, as `TrafficPartial.traces`): prompt tokens, price
    # tier, output tokens (logged or assumed), and the block ends of the cache marks
    prompts: list[np.ndarray] = field(default_factory=list)
    tiers: list[np.ndarray] = field(default_factory=list)
    outs: list[np.ndarray] = field(default_factory=list)
    ends: list[np.ndarray] = field(default_factory=list)
    # per chunk, the step cuts of a target whose cache rule matches in steps (`cache_trace.step_cuts`), else None
    steps: list[StepCuts | None] = field(default_factory=list)

    def merge(self, other: ModelPart) -> None:
        for key, vec in other.sums.items():
            self.sums[key] = self.sums[key] + vec if key in self.sums else vec.copy()
        self.costs.extend(other.costs)
        self.exactness.update(other.exactness)
        for mine, theirs in ((self.prompts, other.prompts), (self.tiers, other.tiers), (self.outs, other.outs),
                             (self.ends, other.ends)):
            mine.extend(theirs)
        self.steps.extend(other.steps)


@dataclass
class LoggedBillPart:
    """What the log billed for a serving model's rows, summed: their `cost.usage.LoggedBill`s as a
    vector of `LOGGED_BILL_FIELDS` per tier, the billed parts' tokens and genai-prices' price of them,
    beside our recount of the same rows (a `ModelPart`), so the two compare like for like. A model
    that no tokenizer counts is billed all the same (the bill needs only the usage and its price);
    its recount is then empty, and it has no calibration."""

    sums: dict[int, np.ndarray] = field(default_factory=dict)
    recount: ModelPart = field(default_factory=ModelPart)
    # genai-prices' calc_price per row, summed, and the rows it could not price (the price is the
    # user's --prices row, or genai-prices has none); the billed parts' tokens (`cost.usage.LoggedBill`)
    usd_genai: Decimal = Decimal(0)
    unpriced: int = 0
    parts: Counter = field(default_factory=Counter)
    reasoning_unknown: int = 0

    @property
    def usd(self) -> Decimal | None:
        """The bill as genai-prices computes it row by row, or None when a row could not be priced so."""
        return None if self.unpriced else self.usd_genai

    def merge(self, other: LoggedBillPart) -> None:
        for key, vec in other.sums.items():
            self.sums[key] = self.sums[key] + vec if key in self.sums else vec.copy()
        self.recount.merge(other.recount)
        self.usd_genai += other.usd_genai
        self.unpriced += other.unpriced
        self.parts.update(other.parts)
        self.reasoning_unknown += other.reasoning_unknown


@dataclass
class CalibrationPart:
    """Relative errors (ours - logged) / logged of one serving model's rows, and the worst rows."""

    rel_in: list[np.ndarray] = field(default_factory=list)
    rel_out: list[np.ndarray] = field(default_factory=list)
    top: list[dict[str, Any]] = field(default_factory=list)

    def merge(self, other: CalibrationPart) -> None:
        self.rel_in.extend(other.rel_in)
        self.rel_out.extend(other.rel_out)
        self.top = sorted(self.top + other.top, key=lambda r: -r["worst"])[:TOP_ROWS]


@dataclass
class TrafficPartial:
    """Everything `summarise` needs, for any number of rows; `merge` adds another partial in place."""

    rows: int = 0
    models: dict[str, ModelPart] = field(default_factory=dict)
    served: dict[str, ModelPart] = field(default_factory=dict)
    billed: dict[str, LoggedBillPart] = field(default_factory=dict)
    unpriced_served: Counter = field(default_factory=Counter)  # "model: reason" -> rows
    calibration: dict[str, CalibrationPart] = field(default_factory=dict)
    not_counted: Counter = field(default_factory=Counter)
    rows_with_media: int = 0
    rows_without_time: int = 0
    traces: list[TraceChunk] = field(default_factory=list)  # aligned with the targets' per-row lists
    # the per-row state folded chunk by chunk (`fold.Folded`), where `fold.LogFold` merged the
    # partials; then the per-row lists above are empty
    folded: Any = None
    order_note: str = ""  # a long log out of time order priced with every row kept (`fold.order_note`)

    def merge(self, other: TrafficPartial) -> TrafficPartial:
        self.rows += other.rows
        self.traces.extend(other.traces)
        for mine, theirs in ((self.models, other.models), (self.served, other.served)):
            for key, part in theirs.items():
                mine.setdefault(key, ModelPart()).merge(part)
        for key, billed in other.billed.items():
            self.billed.setdefault(key, LoggedBillPart()).merge(billed)
        for key, cal in other.calibration.items():
            self.calibration.setdefault(key, CalibrationPart()).merge(cal)
        self.unpriced_served.update(other.unpriced_served)
        self.not_counted.update(other.not_counted)
        self.rows_with_media += other.rows_with_media
        self.rows_without_time += other.rows_without_time
        return self
