"""A `CostReport` as text: an aligned terminal table, Markdown, or one self-contained HTML page.

Unlike `cli.cost` (which reads the command line, gathers the input text and writes report
folders) and `cost` (which computes the report), this module only renders a finished report,
so the CLI and the dashboard's Cost page produce the same documents. Every rendering names the
price source and its date, and marks estimates.
"""

from __future__ import annotations

import base64
import html
import math
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from ..cost import CostReport, display_categories, display_models, model_notes
from .page import html_page, markdown_table, neutralize_formula


def _header(report: CostReport) -> list[str]:
    return [f"prices: {report.price_source}; in force on {report.on} (UTC)",
            f"workload: {report.workload.describe()}",
            f"input: {report.n_samples:,} request text(s), {report.n_chars:,} characters"]


def render_text(report: CostReport) -> str:
    """The report as aligned text for a terminal."""
    lines = _header(report) + [""]
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_colwidth", 70):
        lines.append(display_models(report).to_string(index=False))
        if len(report.categories):
            lines += ["", "by category (cost if every request were like this category):",
                      display_categories(report).to_string(index=False)]
    lines += ["", "notes:"] + [f"  - {n}" for n in report.notes]
    notes = model_notes(report)
    if notes:
        lines += ["per model:"] + [f"  - {n}" for n in notes]
    return "\n".join(lines) + "\n"


def safe_table(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with every formula-like text cell neutralised, for CSV files a spreadsheet may open."""
    out = frame.copy()
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = out[col].map(neutralize_formula)
    return out.rename(columns={c: neutralize_formula(c) for c in out.columns if isinstance(c, str)})


def render_markdown(report: CostReport, *, figures: dict[str, str] | None = None) -> str:
    """The report as Markdown; `figures` maps a caption to an image path relative to the report."""
    parts = ["# tokenprism cost report", ""] + [f"- {h}" for h in _header(report)] + ["", "## Cost by model", "",
                                                                                     markdown_table(display_models(report), index=False, float_format=None, formulas=True)]
    if len(report.categories):
        parts += ["", "## By category", "", "Cost if every request were like this category.", "",
                  markdown_table(display_categories(report), index=False, float_format=None, formulas=True)]
    for caption, path in (figures or {}).items():
        parts += ["", f"![{caption}]({path})"]
    parts += ["", "## Notes", ""] + [f"- {n}" for n in report.notes]
    notes = model_notes(report)
    if notes:
        parts += ["", "### Per model", ""] + [f"- {n}".replace("\n", " ") for n in notes]
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


# -- JSON: the one shape `tokenprism cost --format json` and the service's /v1/cost share ------------
def jsonable(v: Any) -> Any:
    """A cell as JSON: Decimal money as an exact string (a float would round it), NaN as None."""
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, np.generic):  # numpy scalars, as Python numbers
        return jsonable(v.item())
    return v


def records(frame: pd.DataFrame) -> list[dict]:
    """A frame's rows as JSON-ready dicts (see `jsonable`)."""
    return [{k: jsonable(v) for k, v in row.items()} for row in frame.astype(object).to_dict("records")]


def report_json(report: CostReport) -> dict:
    """The report as JSON-ready data; money as exact decimal strings.

    >>> from datetime import date
    >>> from analysis.cost import Workload, estimate
    >>> r = estimate("Hello, world", ["gpt-4o"], workload=Workload(requests_per_month=1000, output_tokens=10),
    ...              on=date(2025, 1, 1))
    >>> report_json(r)["models"][0]["usd_per_month"]
    '0.125000'
    """
    w = report.workload
    return {
        "price_source": report.price_source, "prices_on": report.on.isoformat(),
        "workload": {k: jsonable(getattr(w, k)) for k in ("requests_per_month", "output_tokens", "output_ratio",
                                                          "cached_share", "messages_per_request", "chars_per_request")},
        "input": {"n_requests_sampled": report.n_samples, "n_chars": report.n_chars},
        "models": records(report.models), "categories": records(report.categories), "notes": list(report.notes),
    }
