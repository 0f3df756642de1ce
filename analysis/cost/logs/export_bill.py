"""What the rows of an export were billed, three ways: genai-prices on the logged usage, the tool's or
provider's own cost beside it, and the rows where the two differ with the parts that explain it.

Unlike `chunk` (request logs, recounted under each target model and cache-simulated), this
module prices what a tool *recorded* (`exports.ExportRow`): a request row as genai-prices prices its
usage (`cost.usage.as_billed`, the same call a request log's "as billed" makes), and a report's
bucket of many requests by its parts at the rates of the tier it names (`cost.bill`), never by its
summed prompt (a day of 10,000 requests is not one request of 2 billion tokens). Rows without
content and reports are re-priced, not recounted: their parts carry to a target model as they are
(no tokenizer sees them and no cache is simulated), and every output says so. A model genai-prices
does not know is never summed as $0: it is named, with its rows and tokens, in the headline.
"""

from __future__ import annotations

import dataclasses
import heapq
import textwrap
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from ...errors import BadInput
from ...memo import open_run, run_caches
from ..bill import Rates, rates_for, usd as usd_of
from ...models import genai
from ..usage import LoggedBill, as_billed
from .export_rules import Parts
from .exports import ExportRow

__all__ = ["TOLERANCE", "Difference", "ExportLoggedBill", "Unknown", "bill_of_rows", "row_usage"]

TOLERANCE = Decimal("0.005")  # a tool's own cost within 0.5% of genai-prices' agrees with it
LISTED = 50  # the differing rows listed (the largest gaps); all are counted
EXACT = "as billed: genai-prices on the logged usage"
REPRICED = "re-priced, not recounted"
_TIERS = {"0-200k": 1, "200k-1M": 200_001}


@dataclass(frozen=True, slots=True)
class Difference:
    """A row (or a report's day and model) whose own cost differs from genai-prices' by more than 0.5%."""

    where: str
    model: str
    ours: Decimal
    theirs: Decimal
    why: str

    @property
    def ratio(self) -> Decimal:
        return self.theirs / self.ours if self.ours else Decimal(0)


@dataclass
class Unknown:
    """A model genai-prices has no price for: its rows and tokens, never summed as $0."""

    model: str
    rows: int = 0
    tokens: int = 0
    own_cost: Decimal = Decimal(0)


@dataclass
class ModelLine:
    model: str
    rows: int = 0
    requests: int = 0
    parts: Counter = field(default_factory=Counter)
    usd: Decimal = Decimal(0)
    own_cost: Decimal = Decimal(0)
    own_rows: int = 0


@dataclass
class ExportLoggedBill:
    """What the export rows billed (each row's `cost.usage.LoggedBill`, priced as billed), per model, with
    the tool's own cost beside it, the differences, unknown models, and `targets` re-priced per part."""

    models: dict[str, ModelLine] = field(default_factory=dict)
    unknown: dict[str, Unknown] = field(default_factory=dict)
    differences: list[Difference] = field(default_factory=list)
    n_differences: int = 0
    cost_rows: int = 0
    rows: int = 0
    requests: int = 0
    aggregate_rows: int = 0
    without_content: int = 0
    notes: Counter = field(default_factory=Counter)
    targets: dict[str, Decimal | None] = field(default_factory=dict)

    @property
    def total(self) -> Decimal:
        return sum((m.usd for m in self.models.values()), Decimal(0))

    @property
    def own_total(self) -> Decimal:
        return sum((m.own_cost for m in self.models.values()), Decimal(0))

    @property
    def exactness(self) -> str:
        """"as billed" for request rows with content; "re-priced, not recounted" where any row is a
        report's bucket or has no content (no tokenizer sees those rows and no cache is simulated)."""
        return REPRICED if (self.aggregate_rows or self.without_content) else EXACT

    def warnings(self) -> list[str]:
        return [f"{u.model!r} is a model genai-prices does not know: {u.rows:,} row(s), {u.tokens:,} tokens are not "
                f"priced (never counted as $0)" for u in self.unknown.values()]

    def headline(self) -> str:
        line = (f"{self.requests:,} request(s) in {self.rows:,} row(s) cost ${_usd(self.total)} "
                f"({'re-priced, not recounted' if self.exactness == REPRICED else 'as billed, genai-prices on the logged usage'})")
        if any(m.own_rows for m in self.models.values()):
            line += f"; their own cost says ${_usd(self.own_total)}, {self.n_differences:,} differ by more than 0.5%"
        for warning in self.warnings():
            line += f"; WARNING: {warning}"
        return line

    def to_dict(self) -> dict[str, Any]:
        return {
            "headline": self.headline(),
            "exactness": self.exactness,
            "rows": self.rows,
            "requests": self.requests,
            "rows_without_content": self.without_content,
            "aggregate_rows": self.aggregate_rows,
            "as_billed_usd": str(self.total),
            "own_cost_usd": str(self.own_total),
            "models": [{"model": m.model, "rows": m.rows, "requests": m.requests, "as_billed_usd": str(m.usd),
                        "own_cost_usd": str(m.own_cost) if m.own_rows else None, "own_cost_rows": m.own_rows,
                        "tokens": dict(sorted(m.parts.items()))} for m in self.models.values()],
            "unknown_models": [{"model": u.model, "rows": u.rows, "tokens": u.tokens,
                                "own_cost_usd": str(u.own_cost)} for u in self.unknown.values()],
            "warnings": self.warnings(),
            "n_differences": self.n_differences,
            "differences": [{"where": d.where, "model": d.model, "as_billed_usd": str(d.ours),
                             "own_cost_usd": str(d.theirs), "why": d.why} for d in self.differences],
            "re_priced": {k: None if v is None else str(v) for k, v in self.targets.items()},
            "notes": dict(self.notes),
        }

    def text(self, width: int | None = 100, explain: bool = False) -> str:
        """The report as terminal text whose lines fit `width` (None: unbounded). The headline and the
        warnings wrap; a difference or note line is cut with an ellipsis unless `explain` asks for
        each in full."""
        lines = [*(textwrap.wrap(self.headline(), width) if width else [self.headline()]),
                 f"exactness: {self.exactness}", ""]
        lines.append(f"{'model':<32} {'rows':>7} {'requests':>9} {'as billed $':>14} {'own cost $':>14}")
        for m in self.models.values():
            own = _usd(m.own_cost) if m.own_rows else "-"
            lines.append(f"{m.model:<32} {m.rows:>7,} {m.requests:>9,} {_usd(m.usd):>14} {own:>14}")
        for u in self.unknown.values():
            lines.append(f"{u.model:<32} {u.rows:>7,} {'':>9} {'NOT PRICED':>14} {_usd(u.own_cost):>14}")
        for warning in self.warnings():  # a warning wraps, never cut: its row count and volume stay
            lines += textwrap.wrap(f"WARNING: {warning}", width, subsequent_indent="  ") if width else [f"WARNING: {warning}"]
        if self.differences:
            shown = f" (the {len(self.differences)} largest)" if self.n_differences > len(self.differences) else ""
            lines += ["", f"rows whose own cost differs from genai-prices' by more than 0.5%{shown}:"]
            lines += [f"  {d.where}: {d.model}: ${_usd(d.ours)} against their ${_usd(d.theirs)}: {d.why}"
                      for d in self.differences]
        if self.targets:
            lines += ["", f"re-priced per part under each model ({REPRICED}: no tokenizer saw these rows, no cache was simulated):"]
            lines += [f"  {k}: {'not priced' if v is None else '$' + _usd(v)}" for k, v in self.targets.items()]
        for note, n in self.notes.most_common():
            lines.append(f"note ({n:,} row(s)): {note}")
        if not width or explain:
            return "\n".join(lines)
        cut = [line if len(line) <= width else line[:width - 1] + "\u2026" for line in lines]
        if cut != lines:
            cut.append("(--explain for each line in full)")
        return "\n".join(cut)


def _usd(value: Decimal) -> str:
    return f"{value:,.6f}" if abs(value) < 1 else f"{value:,.4f}"


def row_usage(parts: Parts) -> LoggedBill:
    """The genai-prices usage of a row's parts (the whole prompt, cache parts and reasoning inside),
    built once per distinct parts in a run (a month of rows repeats its sizes)."""
    key = dataclasses.replace(parts, notes=())
    return run_caches().memo("exports.usage").get(key, lambda: _row_usage(key))


def _row_usage(parts: Parts) -> LoggedBill:
    media = dict(parts.media)
    usage = genai.new_usage(input_tokens=parts.prompt, cache_read_tokens=parts.cache_read,
                  cache_write_tokens=parts.cache_write_5m + parts.cache_write_1h,
                  cache_write_1h_tokens=parts.cache_write_1h, output_tokens=parts.billed_output,
                  output_reasoning_tokens=parts.reasoning or 0, **media)
    return LoggedBill(parts.input, parts.cache_read, parts.cache_write_5m, parts.cache_write_1h, parts.output,
                     parts.reasoning, parts.media, usage)


def _price(model: str, on: date) -> Any:
    """The model's price on a day, looked up once per run (a missing model's KeyError too)."""
    from ..prices import get_price

    def look() -> Any:
        try:
            return get_price(model, on=on)
        except KeyError as e:
            return e
    found = run_caches().memo("exports.price", 4096).get((model, on), look)
    if isinstance(found, KeyError):
        raise found
    return found


def _day(row: ExportRow) -> date:
    return (row.timestamp or datetime.now(tz=UTC)).astimezone(UTC).date()


def _tier(row: ExportRow) -> tuple[bool, str | None]:
    """(batch, genai-prices service tier) of a row: the providers' own names mapped to genai-prices'."""
    tier = (row.service_tier or "").lower()
    batch = row.batch or tier == "batch"
    return batch, tier if tier in ("flex", "priority") else None


def _tokens(parts: Parts) -> dict[str, int]:
    return {"input": parts.input, "cache_read": parts.cache_read, "cache_write_5m": parts.cache_write_5m,
            "cache_write_1h": parts.cache_write_1h, "output": parts.output, "reasoning": parts.reasoning or 0}


def _size(row: ExportRow, parts: Parts) -> int:
    """The prompt size that chooses a row's price tier: its own prompt, or for a report's bucket
    (many requests) the context window it names (the base tier when it names none)."""
    return _TIERS.get(row.context_window or "", 1) if row.aggregate else parts.prompt


def _rates(model: str, row: ExportRow, prompt: int) -> Rates:
    batch, tier = _tier(row)
    return rates_for(_price(model, _day(row)), _day(row), prompt, batch=batch, service_tier=tier)


def _aggregate_usd(model: str, row: ExportRow, parts: Parts, notes: Counter) -> Decimal:
    """A report bucket's USD: by parts, at the rates of the context window it names (the base tier
    when it names none: said so where the model has tiers)."""
    price = _price(model, _day(row))
    tiered = any(r is not None and r.tiers for r in (price.input, price.cached_input, price.output))
    size = _size(row, parts)
    if tiered and row.context_window is None:
        notes["a report without its context window is priced at the base tier (requests above the first tier "
              "cost more): group the report by context window"] += 1
    if parts.media:
        notes["a report's audio or image tokens are priced as text input (genai-prices' rates of a report are per text part)"] += 1
    rates = _rates(model, row, size)
    usd = usd_of(_tokens(parts), rates, row.requests)
    if usd is None:
        raise BadInput(f"{model} has no output price in genai-prices, and the report gives it output tokens")
    return usd


def _explain(model: str, row: ExportRow, ours: Decimal, theirs: Decimal) -> str:
    """The part whose price accounts for `theirs - ours`, in words (within 0.5% of the row's bill)."""
    parts = row.parts
    if parts is None:
        return "no parts to compare"
    try:
        rates = _rates(model, row, _size(row, parts))
        base = _rates(model, row, 1)
    except (KeyError, BadInput):
        return "the parts cannot be priced one by one"
    gap = theirs - ours
    per = Decimal(1_000_000)
    r_in, r_out = rates.input, rates.output or Decimal(0)
    candidates: list[tuple[str, Decimal]] = [
        ("the cache reads billed again at the full input rate (counted twice)", parts.cache_read * r_in / per),
        ("the cache reads billed at the full input rate", parts.cache_read * (r_in - rates.cache_read) / per),
        ("the cache reads left out", -parts.cache_read * rates.cache_read / per),
        ("the reasoning tokens billed twice (inside and beside the output)", (parts.reasoning or 0) * r_out / per),
        ("the reasoning tokens left out", -(parts.reasoning or 0) * r_out / per),
        ("only the reasoning billed as output (the visible output left out)", -parts.output * r_out / per),
        ("the 1-hour cache writes billed at the 5-minute rate",
         -parts.cache_write_1h * (rates.cache_write_1h - rates.cache_write_5m) / per),
        ("the cache writes billed as plain input", -(parts.cache_write_5m * (rates.cache_write_5m - r_in)
                                                     + parts.cache_write_1h * (rates.cache_write_1h - r_in)) / per),
        ("the media (image, audio) input left out, billed as $0",
         -sum(n for k, n in parts.media if k.startswith("input")) * r_in / per),
        ("the row billed at $0 (a model the tool had no price for)", -ours),
    ]
    if rates != base:
        base_usd = usd_of(_tokens(parts), base, 1) or Decimal(0)
        candidates.append(("the long-context tier left out (billed at the base rates)", base_usd - ours))
    image_parts = row.record is not None and any(kind == "image" for kind, _ in row.record.not_counted)
    if image_parts:
        candidates.append(("the request's images left out (an image by URL billed as $0)", gap))
    best = min(((abs(gap - delta), label) for label, delta in candidates if delta), default=None)
    if best is not None and best[0] <= abs(ours) * TOLERANCE + Decimal("0.000001"):
        return best[1]
    return f"no single part explains the gap of ${_usd(gap)}"


def bill_of_rows(rows: Iterable[ExportRow], *, targets: Iterable[str] = ()) -> ExportLoggedBill:
    """The bill of export rows (streamed: only sums, and the `LISTED` largest differences, are
    kept), with `targets` re-priced per part. Each model's price is looked up once per run.

    Raises:
        BadInput: no row holds token counts (a cost report alone, or a file read as the wrong shape).
    """
    with open_run():
        bill = _bill_of_rows(rows, list(targets))
    if not bill.rows:
        if bill.cost_rows:
            raise BadInput("a cost report holds amounts, not tokens: give it with the usage report of the same days "
                           "(both files at once), whose rows it is compared with")
        raise BadInput("no row holds token counts or a cost as its shape is read; check the file, or force its "
                       "shape with shape=SHAPE")
    return bill


def _listed(bill: ExportLoggedBill, heap: list[tuple[Decimal, int, Difference]], gap: Decimal, make: Any) -> None:
    """Count a difference; keep it among the `LISTED` largest gaps (explained only when kept)."""
    bill.n_differences += 1
    if len(heap) < LISTED:
        heapq.heappush(heap, (gap, bill.n_differences, make()))
    elif gap > heap[0][0]:
        heapq.heapreplace(heap, (gap, bill.n_differences, make()))


def _retarget(row: ExportRow, parts: Parts, target_usd: dict[str, Decimal | None]) -> None:
    """Add the row's parts, priced at each target's rates (the tier of its prompt, or of the context
    window a report names), to the targets' totals; a target without an output price becomes None."""
    size = _size(row, parts)
    for target, total in target_usd.items():
        if total is None:
            continue
        more = usd_of(_tokens(parts), _rates(target, row, size), row.requests)
        target_usd[target] = None if more is None else total + more


def _bill_of_rows(rows: Iterable[ExportRow], targets: list[str]) -> ExportLoggedBill:
    bill = ExportLoggedBill()
    heap: list[tuple[Decimal, int, Difference]] = []
    for target in targets:  # every target named before a row is read
        try:
            _price(target, datetime.now(tz=UTC).date())
        except KeyError as e:
            raise BadInput(f"-m {target}: {e.args[0] if e.args else 'unknown model'}") from None
    target_usd: dict[str, Decimal | None] = {t: Decimal(0) for t in targets}
    usage_by_day: dict[tuple[date, str], Decimal] = defaultdict(Decimal)
    cost_by_day: dict[tuple[date, str], Decimal] = defaultdict(Decimal)
    for row in rows:
        bill.notes.update(row.notes)
        if row.parts is None:  # a cost report's amount: set beside the usage of its day and model
            bill.cost_rows += 1
            if row.own_cost is not None:
                cost_by_day[(_day(row), row.model or "(all models)")] += row.own_cost
            continue
        bill.rows += 1
        bill.requests += row.requests
        bill.aggregate_rows += row.aggregate
        bill.without_content += (not row.aggregate and row.record is None)
        parts = row.parts
        _retarget(row, parts, target_usd)  # every row's parts, its own model known or not
        model = row.model
        if not model:
            unknown = bill.unknown.setdefault("(no model named)", Unknown("(no model named)"))
            unknown.rows += 1
            unknown.tokens += parts.tokens
            continue
        try:
            if row.aggregate:
                usd = _aggregate_usd(model, row, parts, bill.notes)
            else:
                batch, tier = _tier(row)
                usd = as_billed(row_usage(parts), model, when=row.timestamp, batch=batch, service_tier=tier)
        except (KeyError, BadInput):
            unknown = bill.unknown.setdefault(model, Unknown(model))
            unknown.rows += 1
            unknown.tokens += parts.tokens
            unknown.own_cost += row.own_cost or 0
            continue
        line = bill.models.setdefault(model, ModelLine(model))
        line.rows += 1
        line.requests += row.requests
        line.parts.update({k: v for k, v in _tokens(parts).items() if v})
        line.usd += usd
        if row.aggregate:
            usage_by_day[(_day(row), model)] += usd
        if row.own_cost is not None:
            line.own_cost += row.own_cost
            line.own_rows += 1
            if abs(row.own_cost - usd) > abs(usd) * TOLERANCE:
                _listed(bill, heap, abs(row.own_cost - usd), lambda: Difference(
                    row.where, model, usd, row.own_cost, _explain(model, row, usd, row.own_cost)))  # noqa: B023
    for key, theirs in sorted(cost_by_day.items()):
        day, model = key
        ours = usage_by_day.get(key)
        if ours is None and model == "(all models)":
            ours = sum((v for (d, _), v in usage_by_day.items() if d == day), Decimal(0))
        if ours is None:
            bill.notes[f"a cost report's amount has no usage row of its day and model ({day} {model})"] += 1
            continue
        found = bill.models.get(model)
        if found is not None:
            found.own_cost += theirs
            found.own_rows += 1
        if abs(theirs - ours) > abs(ours) * TOLERANCE:
            _listed(bill, heap, abs(theirs - ours), lambda: Difference(
                f"{day} {model}", model, ours, theirs, "the provider's cost report for the day and model"))  # noqa: B023
    bill.differences = [d for _, _, d in sorted(heap, key=lambda item: (-item[0], item[1]))]
    bill.targets = dict(target_usd)
    return bill
