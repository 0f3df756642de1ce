"""A `CostReport` as text (an aligned terminal table, Markdown, one self-contained HTML page,
CSV, JSON) and as a report folder.

Unlike `cli.cost` (which reads the command line and gathers the input text) and `cost` (which
computes the report), this module only renders a finished report, so the CLI and the dashboard's
Cost page produce the same documents. `WRITERS` is its one table from format to writer;
`write_report` writes the folder, as `report.traffic` does for logged traffic. Every rendering names the
price source and its date, and marks estimates.
"""

from __future__ import annotations

import base64
import html
import math
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..atomic import write_text
from ..cost import CostReport
from ..contract import money, ratio, tokens
from .page import html_page, markdown_table, markdown_text, neutralize_formula
from .tables import display_categories, display_models, display_quick, model_notes


def _header(report: CostReport) -> list[str]:
    return [f"prices: {report.price_source}; in force on {report.on} (UTC)",
            f"workload: {report.workload.describe()}",
            f"input: {report.n_samples:,} request text(s), {report.n_chars:,} characters"]


def safe_table(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with every formula-like text cell neutralised, for CSV files a spreadsheet may open."""
    out = frame.copy()
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = out[col].map(neutralize_formula)
    return out.rename(columns={c: neutralize_formula(c) for c in out.columns if isinstance(c, str)})


def render_markdown(report: CostReport, *, figures: dict[str, str] | None = None) -> str:
    """The report as Markdown; `figures` maps a caption to an image path relative to the report."""
    parts = ["# tokenprism cost report", ""] + [f"- {markdown_text(h)}" for h in _header(report)] + ["", "## Cost by model", "",
                                                                                     markdown_table(display_models(report), index=False, float_format=None, formulas=True)]
    if len(report.categories):
        parts += ["", "## By category", "", "Cost if every request were like this category.", "",
                  markdown_table(display_categories(report), index=False, float_format=None, formulas=True)]
    for caption, path in (figures or {}).items():
        parts += ["", f"![{markdown_text(caption)}]({path})"]
    parts += ["", "## Notes", ""] + [f"- {markdown_text(n)}" for n in report.notes]
    notes = model_notes(report)
    if notes:
        parts += ["", "### Per model", ""] + [f"- {markdown_text(n)}" for n in notes]
    return "\n".join(parts) + "\n"


def png_data_uri(fig) -> str:
    from ..plots.figures import figure_bytes  # matplotlib only when a figure is drawn

    return "data:image/png;base64," + base64.b64encode(figure_bytes(fig)).decode("ascii")


def render_html(report: CostReport, *, figures: bool = True) -> str:
    """The report as one self-contained HTML page (figures embedded as PNG)."""
    esc = html.escape
    body = ["<h1>tokenprism cost report</h1>", "<ul>" + "".join(f"<li>{esc(h)}</li>" for h in _header(report)) + "</ul>",
            "<h2>Cost by model</h2>", display_models(report).to_html(index=False, border=0, classes="tp")]
    if len(report.categories):
        body += ["<h2>By category</h2>", "<p>Cost if every request were like this category.</p>",
                 display_categories(report).to_html(index=False, border=0, classes="tp")]
    if figures:
        from ..plots.cost import cost_vs_chars_per_token, monthly_cost_bar

        for fig, alt in ((monthly_cost_bar(report.models), "monthly cost by model"),
                         (cost_vs_chars_per_token(report.models), "input cost vs characters per token")):
            body.append(f'<p><img alt="{esc(alt)}" src="{png_data_uri(fig)}"></p>')
    body += ["<h2>Notes</h2>", "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>"]
    notes = model_notes(report)
    if notes:
        body += ["<h3>Per model</h3>", "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>"]
    return html_page("tokenprism cost report", body)


# -- JSON and CSV: the JSON contract (analysis/contract.py) on every cost face ----------------------
# Which columns hold what, by name: money is "usd" or starts with "usd_"; a count ends in "_tokens" or
# starts with "n_" (or is a calibration row's count); a ratio is a per-request mean, a share, an
# error or a change. Everything else (names, labels, dates, notes) passes as it is.
_COUNTS = {"input_ours", "input_logged", "output_ours", "output_logged", "input_rows", "output_rows", "requests",
           "context_window"}
_RATIOS = ("_per_request", "_per_token", "_error", "change_vs_served", "cached_share", "output_ratio")


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA or v is pd.NaT


def contract_value(column: str, v: Any) -> Any:
    """One cell as the JSON contract writes it: money a 10-place string, a count an int, a ratio a number.

    >>> contract_value("usd_total", Decimal("1.354166666666666666666666667")), contract_value("input_tokens", 9.0)
    ('1.3541666667', 9)
    >>> contract_value("input_tokens_per_request", Decimal("9")), contract_value("model", "gpt-4o")
    (9.0, 'gpt-4o')
    >>> contract_value("parts", [{"name": "input", "usd_per_mtok": "1E+1", "usd_per_request": Decimal("0E-7")}])
    [{'name': 'input', 'usd_per_mtok': '10.0000000000', 'usd_per_request': '0.0000000000'}]
    """
    if isinstance(v, dict):  # a nested record (a bill's `parts`): each field by its own name
        return {k: contract_value(str(k), x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [contract_value(column, x) for x in v]
    if isinstance(v, np.generic):  # numpy scalars, as Python numbers
        v = v.item()
    if _missing(v):
        return None
    if column == "usd" or column.startswith("usd_"):
        if isinstance(v, str):  # a decimal string ("1E+1", "0.000"): the contract's 10 places all the same
            v = Decimal(v)
        return money(v if isinstance(v, (Decimal, int)) else Decimal(repr(float(v))))
    if isinstance(v, bool) or not isinstance(v, (int, float, Decimal)):
        return v
    if column.endswith("_tokens") or column.startswith("n_") or column in _COUNTS:
        return tokens(v)
    if column.endswith(_RATIOS):
        return ratio(v)
    return ratio(v) if isinstance(v, (float, Decimal)) else v


def jsonable(v: Any) -> Any:
    """A value outside a table as JSON: Decimal money as the contract's string, NaN as None."""
    if isinstance(v, Decimal):
        return money(v)
    if isinstance(v, np.generic):
        return jsonable(v.item())
    return None if _missing(v) else v


def records(frame: pd.DataFrame) -> list[dict]:
    """A frame's rows as JSON-ready dicts, each cell through `contract_value`."""
    return [{k: contract_value(str(k), v) for k, v in row.items()} for row in frame.astype(object).to_dict("records")]


def contract_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with every cell as `contract_value` writes it (ints stay ints in a CSV, money has 10 places)."""
    return pd.DataFrame(records(frame), columns=list(frame.columns), dtype=object)


def csv_table(frame: pd.DataFrame) -> str:
    """A frame as the CSV every cost face writes: the contract's values, formulas neutralised; the
    `parts` lists stay in the JSON (a CSV cell holds no list)."""
    return safe_table(contract_frame(frame.drop(columns=["parts"], errors="ignore"))).to_csv(index=False)


def _number(v: Any) -> Any:
    """A workload number as typed: an int when whole, else a float; None stays None."""
    if v is None:
        return None
    d = Decimal(v)
    return int(d) if d == d.to_integral_value() else float(d)


def report_json(report: CostReport) -> dict:
    """The report as JSON-ready data under the JSON contract (counts ints, money 10-place strings).

    >>> from datetime import date
    >>> from analysis.cost import Workload, estimate
    >>> r = estimate("Hello, world", ["gpt-4o"], workload=Workload(requests_per_month=1000, output_tokens=10),
    ...              on=date(2025, 1, 1))
    >>> row = report_json(r)["models"][0]
    >>> row["usd_per_month"], row["input_tokens"], row["input_tokens_per_request"]
    ('0.1250000000', 10, 10.0)
    """
    w = report.workload
    return {
        "price_source": report.price_source, "prices_on": report.on.isoformat(),
        "workload": {"requests_per_month": _number(w.requests_per_month), "output_tokens": _number(w.output_tokens),
                     "output_ratio": ratio(w.output_ratio), "cached_share": ratio(w.cached_share),
                     "messages_per_request": int(w.messages_per_request),
                     "chars_per_request": _number(w.chars_per_request)},
        "input": {"n_requests_sampled": report.n_samples, "n_chars": report.n_chars},
        "models": records(report.models), "categories": records(report.categories), "notes": list(report.notes),
    }


def json_text(data: Any) -> str:
    """A report's JSON as every face writes it: one space of indent, non-ASCII kept, a final newline."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


# format -> the text of a report in it (`tokenprism cost --format`); the terminal table is the
# CLI's (analysis.cli.answer), through its one table writer.
WRITERS: dict[str, Callable[[CostReport, int | None], str]] = {
    "csv": lambda report, width: csv_table(report.models),
    "json": lambda report, width: json_text(report_json(report)),
    "md": lambda report, width: render_markdown(report),
    "html": lambda report, width: render_html(report, figures=False),
}


# -- one request's price (`tokenprism cost TEXT` without a workload) ---------------------------
@dataclass(frozen=True)
class QuickReport:
    """One request's price per model (`cost.quick_frame`), and what the text formats print around it."""

    report: CostReport
    frame: pd.DataFrame
    why: tuple[str, ...] = ()  # the exactness reasons, as the face shows them (cut short, or whole)
    hints: tuple[str, ...] = ()  # what the reader may add for more, in the face's own words


def _quick_json(quick: QuickReport, width: int | None) -> str:
    report = quick.report
    return json_text({"price_source": report.price_source, "prices_on": report.on.isoformat(),
                      "requests": report.n_samples, "per_request": records(quick.frame), "notes": list(report.notes)})


# format -> the quick table's body in it (the text formats share the lines around it)
QUICK_BODIES: dict[str, Callable[[pd.DataFrame, int | None], str]] = {
    "md": lambda shown, width: markdown_table(shown, index=False, float_format=None, formulas=True),
    "html": lambda shown, width: shown.to_html(index=False, border=0),
}


def _quick_text(body: Callable[[pd.DataFrame, int | None], str]) -> Callable[[QuickReport, int | None], str]:
    def write(quick: QuickReport, width: int | None) -> str:
        report = quick.report
        mean = f" (mean of {report.n_samples} texts)" if report.n_samples > 1 else ""
        lines = [f"prices: {report.price_source}; in force on {report.on} (UTC)",
                 f"one request{mean}: {report.workload.messages_per_request} message(s) in each model's chat format, "
                 "counted as `tokenprism count` counts it"]
        why = ["exactness:"] + [f"  - {w}" for w in quick.why] if quick.why else []
        return "\n".join(lines + ["", body(display_quick(quick.frame), width), ""] + why + ["notes:"]
                         + [f"  - {n}" for n in report.notes] + [f"  - {h}" for h in quick.hints]) + "\n"

    return write


QUICK_WRITERS: dict[str, Callable[[QuickReport, int | None], str]] = {
    "csv": lambda quick, width: csv_table(quick.frame),
    "json": _quick_json,
    **{fmt: _quick_text(body) for fmt, body in QUICK_BODIES.items()},
}


# -- the price listing (`tokenprism models`) ---------------------------------------------------
@dataclass(frozen=True)
class ModelListing:
    """`cost.model_table`'s rows, their price-source line, and the day whose prices they are."""

    frame: pd.DataFrame
    source: str
    day: date


MODELS_WRITERS: dict[str, Callable[[ModelListing, int | None], str]] = {
    "csv": lambda listing, width: csv_table(listing.frame),
    "json": lambda listing, width: json_text({"price_source": listing.source, "models": records(listing.frame)}),
}


def write_report(report: CostReport, out_dir: Path) -> list[Path]:
    """Write report.md, report.html, cost_by_model.csv (+ by category, per request) and figures.

    Returns:
        The paths written.
    """
    from ..plots import save_figure
    from ..plots.cost import cost_vs_chars_per_token, monthly_cost_bar

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    figures = {}
    for stem, fig, caption in (("monthly_cost", monthly_cost_bar(report.models), "Monthly cost by model"),
                               ("cost_vs_chars_per_token", cost_vs_chars_per_token(report.models),
                                "Input cost per million characters vs characters per token")):
        for ext in ("png", "svg"):
            written.append(save_figure(fig, out_dir / f"{stem}.{ext}", dpi=120))
        figures[caption] = f"{stem}.png"
    from ..cost.workloads.estimate import COUNT_EXACTNESS, COUNT_REASON

    tables = {"cost_by_model.csv": report.models,
              "cost_requests.csv": report.requests.drop(columns=[COUNT_EXACTNESS, COUNT_REASON], errors="ignore")}
    if len(report.categories):
        tables["cost_by_category.csv"] = report.categories
    for name, frame in tables.items():
        written.append(write_text(out_dir / name, csv_table(frame)))
    write_text(out_dir / "report.md", render_markdown(report, figures=figures))
    write_text(out_dir / "report.html", render_html(report))
    return written + [out_dir / "report.md", out_dir / "report.html"]
