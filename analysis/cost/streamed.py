"""Pricing a corpus chunk by chunk: each chunk is reduced to sums before the next one is read.

Unlike `estimate` (every request of the input in memory at once, with one row per request in
the report), `CorpusCost` receives chunks of requests with their token counts (counted
anywhere: in this process, on all cores or on a Dask cluster, see `analysis.engine`) and keeps
only running sums per model and per model x category. Memory therefore does not grow with the
corpus; the report has no per-request rows. The arithmetic is `estimate`'s, in the same order
(each request priced with `request_cost`, sums started from Decimal(0) and added request after
request), so the figures are identical to `estimate` on the same requests.

    >>> import pandas as pd
    >>> from datetime import date
    >>> cc = CorpusCost(["gpt-4o"], workload=Workload(requests_per_month=1000, output_tokens=10), on=date(2025, 1, 1))
    >>> cc.tokenizers
    ['o200k_base']
    >>> cc.add(pd.DataFrame({"id": ["a"], "category": ["x"], "text": ["Hello, world"]}), {"o200k_base": [3]})
    >>> cc.report().models.loc[0, "usd_per_month"]
    Decimal('0.125000')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pandas as pd

from .estimate import (CATEGORY_COLUMNS, MODEL_COLUMNS, CostReport, Workload, report_notes,
                       request_rows, source_line, model_row, plan_models, row_notes, tier_requests)
from .prices import MTOK, Price

_DECIMALS = ("chars", "text_tokens", "overhead_tokens", "input_tokens", "cached_tokens", "output_tokens")
_MONEY_PARTS = ("usd_input", "usd_cached_input", "usd_output", "usd_fee")


@dataclass
class _Totals:
    """Running sums of request rows (one model, or one model x category)."""

    n: int = 0
    raw_chars: int = 0
    raw_tokens: int = 0
    sums: dict[str, Decimal] = field(default_factory=lambda: {k: Decimal(0) for k in (*_DECIMALS, *_MONEY_PARTS,
                                                                                        "usd_total", "spent_in")})
    unpriced: bool = False

    def add(self, rows: Iterable[dict]) -> None:
        s = self.sums
        for r in rows:  # request by request, as `estimate` sums them
            self.n += 1
            self.raw_chars += r["raw_chars"]
            self.raw_tokens += r["raw_tokens"]
            for k in _DECIMALS:
                s[k] += r[k]
            if r["usd_total"] is None:
                self.unpriced = True
            elif not self.unpriced:
                for k in _MONEY_PARTS:
                    s[k] += r[k]
                s["usd_total"] += r["usd_total"]
                s["spent_in"] += r["usd_input"] + r["usd_cached_input"]

    def summary(self, workload: Workload) -> dict[str, Any]:
        """The same fields as `estimate._summary`, from the sums."""
        n, s = self.n, self.sums
        out: dict[str, Any] = {
            "n_requests": n, "chars_per_request": float(s["chars"] / n),
            "chars_per_token": self.raw_chars / self.raw_tokens if self.raw_tokens else float("nan"),
            **{f"{k}_per_request": float(s[k] / n) for k in _DECIMALS if k != "chars"},
        }
        if self.unpriced:
            out.update({f"{m}_per_request": None for m in _MONEY_PARTS},
                       usd_per_request=None, usd_per_month=None, usd_per_mchar_input=None)
            return out
        for m in _MONEY_PARTS:
            out[f"{m}_per_request"] = s[m] / n
        out["usd_per_request"] = s["usd_total"] / n
        out["usd_per_month"] = out["usd_per_request"] * workload.requests_per_month
        out["usd_per_mchar_input"] = s["spent_in"] / s["chars"] * MTOK if s["chars"] else None
        return out


class CorpusCost:
    """Cost of a workload per model, fed chunk by chunk (see the module docstring).

    Args:
        models, workload, overrides, on, fallback_tokenizer: as `estimate`.

    Attributes:
        tokenizers: the tokenizer names whose counts `add` needs (registry names).
    """

    def __init__(self, models: Sequence[str] | str | None = None, *, workload: Workload, overrides: Iterable[Price] = (),
                 on: date | datetime | None = None, fallback_tokenizer: str | None = None) -> None:
        self.workload = workload
        self.refs, self.day, self.prices, self.choices = plan_models(models, overrides=overrides, on=on,
                                                                      fallback_tokenizer=fallback_tokenizer)
        self.tokenizers: list[str] = list(dict.fromkeys(c.tokenizer for c in self.choices if c.usable and c.tokenizer))
        self._models = [_Totals() for _ in self.refs]
        self._over = [0] * len(self.refs)
        self._status = [c.status for c in self.choices]
        self._categories: list[dict[str, _Totals]] = [{} for _ in self.refs]
        self.n_samples = 0
        self.n_chars = 0

    def add(self, chunk: pd.DataFrame, counts: Mapping[str, Sequence[int]]) -> None:
        """One chunk of requests (id, category, text) and its token counts per tokenizer name.

        Raises:
            ValueError: an empty text while the workload scales texts (chars_per_request).
        """
        chunk = chunk.reset_index(drop=True)
        lengths = chunk["text"].str.len()
        if self.workload.chars_per_request and not lengths.all():
            raise ValueError(f"cannot scale empty texts to chars_per_request: {chunk['id'][lengths == 0].tolist()[:5]}")
        self.n_samples += len(chunk)
        self.n_chars += int(lengths.sum())
        for i, (ref, price, choice) in enumerate(zip(self.refs, self.prices, self.choices)):
            if not choice.usable or choice.tokenizer is None:
                continue
            rows, status = request_rows(ref, price, choice, list(counts[choice.tokenizer]), chunk, self.workload)
            if status != "ok":
                self._status[i] = status
            self._models[i].add(rows)
            self._over[i] += tier_requests(price, rows)
            for category in sorted({r["category"] for r in rows}):
                self._categories[i].setdefault(category, _Totals()).add(r for r in rows if r["category"] == category)

    def report(self) -> CostReport:
        """The `CostReport` of everything added; `requests` is empty (not kept, by design).

        Raises:
            ValueError: nothing was added.
        """
        if not self.n_samples:
            raise ValueError("no input text: give a text, files or a corpus")
        model_rows, category_rows = [], []
        categories = set()
        for i, (ref, price, choice) in enumerate(zip(self.refs, self.prices, self.choices)):
            totals = self._models[i]
            status = self._status[i]
            if not choice.usable and price.input is None:
                status = f"no price; {status}"
            model_rows.append(model_row(ref, price, choice, status,
                                        totals.summary(self.workload) if totals.n else {},
                                        row_notes(price, choice, totals.n, self._over[i], self.workload)))
            for category in sorted(self._categories[i]):
                categories.add(category)
                category_rows.append({"model": ref, "category": category, "tokenizer": choice.label,
                                      "exactness": choice.exactness, "status": status,
                                      **self._categories[i][category].summary(self.workload)})
        models = pd.DataFrame(model_rows).reindex(columns=MODEL_COLUMNS)
        cats = pd.DataFrame(category_rows).reindex(columns=CATEGORY_COLUMNS)
        if len(categories) < 2:
            cats = cats.iloc[0:0]
        return CostReport(models, cats, pd.DataFrame(), self.workload, self.day, source_line(self.prices),
                          self.n_samples, self.n_chars, report_notes(models, self.choices, self.workload))
