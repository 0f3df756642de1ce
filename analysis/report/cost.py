"""A `CostReport` as text: an aligned terminal table, Markdown, or one self-contained HTML page.

Unlike `cli_cost` (which reads the command line, gathers the input text and writes report
folders) and `cost` (which computes the report), this module only renders a finished report,
so the CLI and the dashboard's Cost page produce the same documents. Every rendering names the
price source and its date, and marks estimates.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import pandas as pd

from ..cost import CostReport, display_models, format_usd


def _header(report: CostReport) -> list[str]:
    return [f"prices: {report.price_source}; in force on {report.on} (UTC)",
            f"workload: {report.workload.describe()}",
            f"input: {report.n_samples:,} request text(s), {report.n_chars:,} characters"]


def _model_notes(report: CostReport) -> list[str]:
    return [f"{m}: {n}" for m, n in zip(report.models["model"], report.models["note"]) if isinstance(n, str) and n]


def _display_categories(report: CostReport) -> pd.DataFrame:
    c = report.categories
    return pd.DataFrame({
        "model": c["model"], "category": c["category"], "requests": c["n_requests"],
        "tokenizer": c["tokenizer"], "chars/tok": c["chars_per_token"].map(lambda v: f"{v:.2f}"),
        "in_tok/req": c["input_tokens_per_request"].map(lambda v: f"{v:,.1f}"),
        "$/request": c["usd_per_request"].map(format_usd), "$/month": c["usd_per_month"].map(format_usd),
        "$/M chars in": c["usd_per_mchar_input"].map(format_usd),
    })


def render_text(report: CostReport) -> str:
    """The report as aligned text for a terminal."""
    lines = _header(report) + [""]
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_colwidth", 70):
        lines.append(display_models(report).to_string(index=False))
        if len(report.categories):
            lines += ["", "by category (cost if every request were like this category):",
                      _display_categories(report).to_string(index=False)]
    lines += ["", "notes:"] + [f"  - {n}" for n in report.notes]
    notes = _model_notes(report)
    if notes:
        lines += ["per model:"] + [f"  - {n}" for n in notes]
    return "\n".join(lines) + "\n"


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def neutralize_formula(v: Any) -> Any:
    """A text cell that a spreadsheet would run as a formula, made inert with a leading apostrophe.

    Numbers stay numbers (a negative number is data, not a formula).

    >>> print(neutralize_formula('=HYPERLINK("http://x")'), neutralize_formula(-5), neutralize_formula("gpt-5"))
    '=HYPERLINK("http://x") -5 gpt-5
    """
    return "'" + v if isinstance(v, str) and v.startswith(_FORMULA_START) else v


def safe_table(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with every formula-like text cell neutralised, for CSV files a spreadsheet may open."""
    out = frame.copy()
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = out[col].map(neutralize_formula)
    return out.rename(columns={c: neutralize_formula(c) for c in out.columns if isinstance(c, str)})


def _md_cell(v: Any) -> str:
    return str(neutralize_formula(v)).replace("|", "\\|").replace("\n", " ")


def md_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    head = "| " + " | ".join(_md_cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def render_markdown(report: CostReport, *, figures: dict[str, str] | None = None) -> str:
    """The report as Markdown; `figures` maps a caption to an image path relative to the report."""
    parts = ["# tokenprism cost report", ""] + [f"- {h}" for h in _header(report)] + ["", "## Cost by model", "",
                                                                                     md_table(display_models(report))]
    if len(report.categories):
        parts += ["", "## By category", "", "Cost if every request were like this category.", "",
                  md_table(_display_categories(report))]
    for caption, path in (figures or {}).items():
        parts += ["", f"![{caption}]({path})"]
    parts += ["", "## Notes", ""] + [f"- {n}" for n in report.notes]
    notes = _model_notes(report)
    if notes:
        parts += ["", "### Per model", ""] + [f"- {_md_cell(n)}" for n in notes]
    return "\n".join(parts) + "\n"


def _png_data_uri(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def render_html(report: CostReport, *, figures: bool = True) -> str:
    """The report as one self-contained HTML page (figures embedded as PNG)."""
    esc = html.escape
    body = ["<h1>tokenprism cost report</h1>", "<ul>" + "".join(f"<li>{esc(h)}</li>" for h in _header(report)) + "</ul>",
            "<h2>Cost by model</h2>", display_models(report).to_html(index=False, border=0, classes="tp-cost")]
    if len(report.categories):
        body += ["<h2>By category</h2>", "<p>Cost if every request were like this category.</p>",
                 _display_categories(report).to_html(index=False, border=0, classes="tp-cost")]
    if figures:
        from ..plots.cost import cost_vs_chars_per_token, monthly_cost_bar

        for fig, alt in ((monthly_cost_bar(report.models), "monthly cost by model"),
                         (cost_vs_chars_per_token(report.models), "input cost vs characters per token")):
            body.append(f'<p><img alt="{esc(alt)}" src="{_png_data_uri(fig)}"></p>')
    body += ["<h2>Notes</h2>", "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>"]
    notes = _model_notes(report)
    if notes:
        body += ["<h3>Per model</h3>", "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>"]
    style = ("body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem}"
             "table.tp-cost{border-collapse:collapse;font-size:.85rem}table.tp-cost td,table.tp-cost th"
             "{padding:.2rem .5rem;border-bottom:1px solid #ddd;text-align:right}img{max-width:100%}")
    return (f"<!doctype html>\n<html><head><meta charset='utf-8'><title>tokenprism cost report</title>"
            f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
