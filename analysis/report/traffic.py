"""A `TrafficReport` as text: terminal table, Markdown, HTML, JSON data, and the report folder.

Unlike `report.cost` (a workload estimate) and `cost.logs` (which computes the traffic
report), this module only renders, so the CLI and the dashboard show the same tables. Every
rendering names the price source and says that the figures are estimates.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from ..atomic import write_text
from ..cost import TrafficReport
from ..money import format_usd
from ..cost.caching import REASONING_NOT_INCLUDED
from .cost import csv_table, json_text, png_data_uri, jsonable, records
from .page import html_page, markdown_table, markdown_text
from .tables import exactness_shown, frame_notes

TITLE = "tokenprism traffic cost report (estimates)"


def _pct(v: Any) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:+.1%}"


def _usd_float(v: Any) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format_usd(Decimal(repr(float(v))))


def _tokens(v: Any) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{Decimal(v):,.0f}"


def _cache(read: Any, written: Any, rule: Any) -> str:
    """ "10,240 / 0 (openai prefix)": the simulated cache, an estimate; "" where none is simulated."""
    if not isinstance(rule, str) or not rule:
        return ""
    if rule == "--cached-share":
        return f"{_tokens(read)} (--cached-share)"
    name = " ".join(rule.split(" ")[:2]) if rule.split(" ")[1:2] and "(" in rule else "no rule"
    return f"{_tokens(read)} / {_tokens(written)} ({name})"


def display_models(report: TrafficReport) -> pd.DataFrame:
    """The per-model table as people read it."""
    m = report.models
    projected = {"$/month (projected)": m["usd_per_month"].map(lambda v: format_usd(v) if isinstance(v, Decimal) else
                                                               "no cost")} if "usd_per_month" in m else {}
    return pd.DataFrame({
        "model": m["model"], "tokenizer": m["tokenizer"], "exactness": exactness_shown(m["exactness"], m["status"]),
        "requests": m["n_requests"],
        "tokens in": m["prompt_tokens"].map(_tokens), "of which format": m["format_tokens"].map(_tokens),
        "tokens out": m["output_tokens"].map(_tokens),
        "reasoning": [_tokens(r) if s != REASONING_NOT_INCLUDED else REASONING_NOT_INCLUDED
                      for r, s in zip(m["reasoning_tokens"], m["reasoning_source"])],
        "cache read / written (est.)": [_cache(r, w, rule) for r, w, rule in
                                        zip(m["cache_read_tokens"], m["cache_write_tokens"], m["cache_rule"])],
        "text only $": m["usd_text_only"].map(lambda v: format_usd(v) if isinstance(v, Decimal) else ""),
        "total $": m["usd_total"].map(lambda v: format_usd(v) if isinstance(v, Decimal) else "no cost"),
        "$/request p50": m["usd_per_request_p50"].map(_usd_float), "p95": m["usd_per_request_p95"].map(_usd_float),
        "max": m["usd_per_request_max"].map(_usd_float), "vs served": m["change_vs_served"].map(_pct),
        **projected, "status": m["status"],
    })


def display_cache(report: TrafficReport) -> pd.DataFrame:
    """Per model: its prompt-cache rule, whether that rule is documented or an estimate, and the
    tokens read from and written to the cache per request (the simulation's, an estimate), with
    what the cache saves against none."""
    from ..cost.caching import cache_rule

    m = report.models

    def rule_of(model: str, label: Any) -> tuple[str, str]:
        if label == "--cached-share":
            return "manual share (Share of input served from the prompt cache)", "your figure"
        rule = cache_rule(model)
        return (f"{rule.provider} {rule.kind}", rule.exactness) if rule is not None else ("none known", "")

    rules = [rule_of(model, label) for model, label in zip(m["model"], m["cache_rule"])]

    def per_request(v: Any, n: Any) -> str:  # "" where the model has no bill (no price)
        return "" if not n or v is None or v != v else f"{Decimal(repr(v)) / n:,.0f}"

    return pd.DataFrame({
        "model": m["model"], "cache rule": [r for r, _ in rules], "rule is": [e for _, e in rules],
        "read / request (est.)": [per_request(v, n) for v, n in zip(m["cache_read_tokens"], m["n_requests"])],
        "written / request (est.)": [per_request(v, n) for v, n in zip(m["cache_write_tokens"], m["n_requests"])],
        "cache saves": m["usd_cache_saving"].map(lambda v: format_usd(v) if isinstance(v, Decimal) else ""),
    })


def display_billed(report: TrafficReport) -> pd.DataFrame:
    """Per serving model: rows with usage, the billed tokens and cost, and our recount of those rows."""
    s = report.served[report.served["n_billed"].notna()] if "n_billed" in report.served else report.served.iloc[0:0]
    money = lambda v: format_usd(v) if isinstance(v, Decimal) else "no price"  # noqa: E731
    return pd.DataFrame({
        "served by": s["model"], "rows with usage": s["n_billed"].map(_tokens),
        "billed tokens in / out": [f"{_tokens(a)} / {_tokens(b)}" for a, b in zip(s["billed_input_tokens"], s["billed_output_tokens"])],
        "of which reasoning": s["billed_reasoning_tokens"].map(_tokens),
        "cache writes": s["billed_cache_write_tokens"].map(_tokens),
        "as billed": s["usd_as_billed"].map(money),
        # a model no tokenizer counts is billed from its usage, and not recounted
        "recounted": ["not recounted" if v is None and "not recounted" in str(status) else money(v)
                      for v, status in zip(s["usd_recounted_billed"], s["status"])],
    })


def display_calibration(report: TrafficReport) -> pd.DataFrame:
    c = report.calibration
    return pd.DataFrame({
        "served by": c["served_by"], "rows with usage": c["n_rows"],
        "input: median error": c["input_median_error"].map(_pct), "input: worst": c["input_worst_error"].map(_pct),
        "output rows": c["output_rows"], "output: median error": c["output_median_error"].map(_pct),
        "output: worst": c["output_worst_error"].map(_pct),
        "reasoning (not in the text)": c["reasoning_tokens"].map(_tokens),
        **({"cache read: simulated / logged": [f"{_tokens(s)} / {_tokens(g)}" if g is not None and g == g else ""
                                               for s, g in zip(c["cache_read_simulated"], c["cache_read_logged"])]}
           if "cache_read_logged" in c and c["cache_read_logged"].notna().any() else {}),
    })


def display_worst_rows(report: TrafficReport) -> pd.DataFrame:
    r = report.calibration_rows
    if r.empty:
        return r
    return pd.DataFrame({
        "row": r["where"], "served by": r["served_by"],
        "input ours / logged": [f"{a} / {b}" for a, b in zip(r["input_ours"], r["input_logged"])],
        "input error": r["input_error"].map(_pct),
        "output ours / logged": [f"{a} / {'' if b is None or b != b else int(b)}" for a, b in
                                 zip(r["output_ours"], r["output_logged"])],
        "output error": r["output_error"].map(_pct),
    })


def display_days(report: TrafficReport) -> pd.DataFrame:
    if report.days.empty:
        return report.days
    wide = report.days.assign(usd=report.days["usd"].map(format_usd)).pivot(index="day", columns="model", values="usd")
    return wide.reindex(columns=[m for m in report.models["model"] if m in wide.columns]).reset_index()


def header(report: TrafficReport) -> list[str]:
    """The price source, what was read and how it was counted: one line each."""
    if report.source == "requests":  # request bodies and texts from the command line: nothing was logged
        return [f"prices: {report.price_source}; in force on {report.on} (UTC)", f"requests: {report.log_summary}",
                "counted: each request under each model as `tokenprism count` counts it (exactness per model)"]
    return [f"prices: {report.price_source}; in force on {report.on} (UTC)", f"log: {report.log_summary}",
            "recounted: each logged request counted under each model as `tokenprism count` counts it "
            "(exactness per model)"]


def change_lines(report: TrafficReport) -> list[str]:
    """The bill as logged and each model's change against it, one sentence each."""
    return report.headlines()


def _header(report: TrafficReport) -> list[str]:
    return header(report) + change_lines(report)


def sections(report: TrafficReport) -> list[tuple[str, str, pd.DataFrame]]:
    caption = ("Total for these requests; 'vs served': the change against the model each request body names."
               if report.source == "requests" else
               "Total for the logged period; change against the models that served the log.")
    out = [("Cost by model", caption, display_models(report))]
    if report.billed_total is not None or "usd_as_billed" in report.served and report.served["usd_as_billed"].notna().any():
        out.append(("As billed", "The rows whose usage the log carries, on the model that served each: the logged "
                    "usage at that model's price, beside our recount of the same rows.", display_billed(report)))
    if not report.days.empty:
        out.append(("Cost per day", "Rows with a timestamp.", display_days(report)))
    if not report.calibration.empty:
        out.append(("Calibration", "Our recount against the provider's logged usage, on the model that served "
                    "each row: (ours - logged) / logged.", display_calibration(report)))
        out.append(("Rows that differ most", "", display_worst_rows(report)))
    return out


def model_notes(report: TrafficReport) -> list[str]:
    return frame_notes(report.models)


def render_markdown(report: TrafficReport, *, figures: dict[str, str] | None = None) -> str:
    parts = [f"# {TITLE}", ""] + [f"- {markdown_text(h)}" for h in _header(report)]
    for title, caption, frame in sections(report):
        parts += ["", f"## {title}", ""] + ([caption, ""] if caption else []) + [markdown_table(frame, index=False, float_format=None, formulas=True)]
    for caption, path in (figures or {}).items():
        parts += ["", f"![{markdown_text(caption)}]({path})"]
    parts += ["", "## Notes", ""] + [f"- {markdown_text(n)}" for n in report.notes]
    notes = model_notes(report)
    if notes:
        parts += ["", "### Per model", ""] + [f"- {markdown_text(n)}" for n in notes]
    return "\n".join(parts) + "\n"


def figures(report: TrafficReport) -> dict[str, Any]:
    """Caption -> matplotlib Figure: total by model, and cost per day when timestamps exist."""
    from ..plots.cost import traffic_cost_per_day, traffic_total_bar

    out = {"Total cost of the logged traffic by model": traffic_total_bar(report.models)}
    if not report.days.empty:
        out["Cost per day by model"] = traffic_cost_per_day(report.days)
    return out


def render_html(report: TrafficReport, *, with_figures: bool = True) -> str:
    esc = html.escape
    body = [f"<h1>{esc(TITLE)}</h1>", "<ul>" + "".join(f"<li>{esc(h)}</li>" for h in _header(report)) + "</ul>"]
    for title, caption, frame in sections(report):
        body += [f"<h2>{esc(title)}</h2>"] + ([f"<p>{esc(caption)}</p>"] if caption else [])
        body.append(frame.to_html(index=False, border=0, classes="tp"))
    if with_figures:
        for caption, fig in figures(report).items():
            body.append(f'<p><img alt="{esc(caption)}" src="{png_data_uri(fig)}"></p>')
    body += ["<h2>Notes</h2>", "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in report.notes) + "</ul>"]
    notes = model_notes(report)
    if notes:
        body += ["<h3>Per model</h3>", "<ul>" + "".join(f"<li>{esc(n)}</li>" for n in notes) + "</ul>"]
    return html_page(TITLE, body)


def report_json(report: TrafficReport) -> dict:
    """The report as JSON-ready data under the JSON contract: counts ints, money 10-place strings, ratios numbers.

    `usd_as_served` is our recount of every row on the model that served it; `usd_as_billed` and
    `usd_recounted_billed` compare the logged usage with our recount over the `n_billed` rows that
    carry usage ("as billed: $X; recounted: $Y")."""
    return {"estimate": True, "price_source": report.price_source, "prices_on": str(report.on),
            "source": report.source, "log": report.log_summary, "n_rows": report.n_rows, "usd_as_served": jsonable(report.served_total),
            "usd_as_billed": jsonable(report.billed_total), "usd_recounted_billed": jsonable(report.recounted_billed),
            "n_billed": report.billed_rows,
            "headlines": report.headlines(), "models": records(report.models),
            "days": records(report.days), "served": records(report.served),
            "calibration": records(report.calibration), "calibration_rows": records(report.calibration_rows),
            "notes": list(report.notes)}


def models_csv(report: TrafficReport) -> str:
    return csv_table(_flat(report.models))


def _flat(models: pd.DataFrame) -> pd.DataFrame:
    """The per-model table for CSV: the `parts` list stays in the JSON; its columns are in the row."""
    return models.drop(columns=["parts"], errors="ignore")


# format -> the text of a traffic report in it (`tokenprism cost --logs --format`); the terminal
# table is the CLI's (analysis.cli.answer), through its one table writer.
WRITERS: dict[str, Callable[[TrafficReport, int | None], str]] = {
    "csv": lambda report, width: models_csv(report),
    "json": lambda report, width: json_text(report_json(report)),
    "md": lambda report, width: render_markdown(report),
    "html": lambda report, width: render_html(report, with_figures=False),
}


def write_report(report: TrafficReport, out_dir: Path) -> list[Path]:
    """Write report.md, report.html, report.json, the CSV tables and the figures, each atomically."""
    from ..plots import save_figure

    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    names = {}
    for i, (caption, fig) in enumerate(figures(report).items()):
        stem = ("traffic_total", "traffic_per_day")[i]
        for ext in ("png", "svg"):  # no date, version or random id: the same report gives the same bytes
            written.append(save_figure(fig, out_dir / f"{stem}.{ext}", dpi=120))
        names[caption] = f"{stem}.png"
    tables = {"traffic_by_model.csv": _flat(report.models), "traffic_by_day.csv": report.days,
              "traffic_served.csv": report.served, "traffic_calibration.csv": report.calibration,
              "traffic_calibration_rows.csv": report.calibration_rows}
    for name, frame in tables.items():
        written.append(write_text(out_dir / name, csv_table(frame)))
    written.append(write_text(out_dir / "report.json", json_text(report_json(report))))
    written.append(write_text(out_dir / "report.md", render_markdown(report, figures=names)))
    written.append(write_text(out_dir / "report.html", render_html(report)))
    return written
