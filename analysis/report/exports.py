"""An `ExportLoggedBill` (a tool's or provider's export, priced) as text: terminal table, CSV, JSON,
Markdown, HTML, and the report folder.

Unlike `report.traffic` (request logs, recounted under each model) this module renders a bill whose
figures are the logged usage priced by genai-prices, the tools' own cost beside them, and the rows
that differ. Every rendering carries the headline, which says "re-priced, not recounted" where the
rows are reports or have no content, and names each model genai-prices does not know.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from ..atomic import write_text
from ..cost.logs.export_bill import ExportLoggedBill
from .page import html_page, markdown_table, markdown_text

TITLE = "tokenprism export cost report"


def models_frame(bill: ExportLoggedBill) -> pd.DataFrame:
    """One row per model: rows, requests, tokens, the bill as billed and the tool's own cost; unknown
    models with "not priced" in place of a figure."""
    rows = [{"model": m.model, "rows": m.rows, "requests": m.requests, "tokens": sum(m.parts.values()),
             "as billed (USD)": str(m.usd), "own cost (USD)": str(m.own_cost) if m.own_rows else ""}
            for m in bill.models.values()]
    rows += [{"model": u.model, "rows": u.rows, "requests": "", "tokens": u.tokens,
              "as billed (USD)": "not priced (unknown to genai-prices)", "own cost (USD)": str(u.own_cost)}
             for u in bill.unknown.values()]
    return pd.DataFrame(rows, columns=["model", "rows", "requests", "tokens", "as billed (USD)", "own cost (USD)"])


def differences_frame(bill: ExportLoggedBill) -> pd.DataFrame:
    return pd.DataFrame([{"row": d.where, "model": d.model, "as billed (USD)": str(d.ours),
                          "own cost (USD)": str(d.theirs), "why": d.why} for d in bill.differences],
                        columns=["row", "model", "as billed (USD)", "own cost (USD)", "why"])


def render_text(bill: ExportLoggedBill, width: int | None = None, explain: bool = False) -> str:
    return bill.text(width, explain) + "\n"


def render_json(bill: ExportLoggedBill, width: int | None = None) -> str:
    return json.dumps(bill.to_dict(), indent=2) + "\n"


def render_csv(bill: ExportLoggedBill, width: int | None = None) -> str:
    out = io.StringIO()
    models_frame(bill).to_csv(out, index=False, quoting=csv.QUOTE_MINIMAL)
    return out.getvalue()


def render_markdown(bill: ExportLoggedBill, width: int | None = None) -> str:
    parts = [f"# {TITLE}", "", f"**{markdown_text(bill.headline())}**", "", f"Exactness: {markdown_text(bill.exactness)}.", "",
             markdown_table(models_frame(bill), index=False, formulas=True)]
    parts += [f"\n> WARNING: {markdown_text(w)}" for w in bill.warnings()]
    if bill.differences:
        parts += ["", "## Rows whose own cost differs by more than 0.5%", "",
                  markdown_table(differences_frame(bill), index=False, formulas=True)]
    if bill.notes:
        parts += ["", "## Notes", ""] + [f"- {markdown_text(n)} ({c:,} row(s))" for n, c in bill.notes.most_common()]
    return "\n".join(parts) + "\n"


def render_html(bill: ExportLoggedBill, width: int | None = None) -> str:
    body = [f"<h1>{html.escape(TITLE)}</h1>", f"<p><strong>{html.escape(bill.headline())}</strong></p>",
            f"<p>Exactness: {html.escape(bill.exactness)}.</p>",
            models_frame(bill).to_html(index=False, escape=True)]
    body += [f"<p class=\"warning\">WARNING: {html.escape(w)}</p>" for w in bill.warnings()]
    if bill.differences:
        body += ["<h2>Rows whose own cost differs by more than 0.5%</h2>",
                 differences_frame(bill).to_html(index=False, escape=True)]
    if bill.notes:
        body += ["<h2>Notes</h2><ul>"] + [f"<li>{html.escape(n)} ({c:,} row(s))</li>" for n, c in bill.notes.most_common()] + ["</ul>"]
    return html_page(TITLE, body)


WRITERS: dict[str, Callable[[ExportLoggedBill, int | None], str]] = {
    "table": render_text, "csv": render_csv, "json": render_json, "md": render_markdown, "html": render_html,
}


def write_report(bill: ExportLoggedBill, out_dir: Path) -> list[Path]:
    """report.md, report.html, report.json and models.csv in `out_dir`, each written atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return [write_text(out_dir / name, WRITERS[fmt](bill, None))
            for name, fmt in (("report.md", "md"), ("report.html", "html"), ("report.json", "json"),
                              ("models.csv", "csv"))]
