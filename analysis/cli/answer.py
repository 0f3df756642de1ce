"""The terminal text of a report, answer first: one sentence, the table, one line of notes per
model, and a short trailer (the price source, what was priced).

The text is written as it is (`sys.stdout.write`): the tables' cells are made safe by the table
writer, and every other line here by `render.terminal_text` (`_safe`), since a model name, a
file name or a note may come from the user's files; rich's own styling passes.

Unlike `report.cost` and `report.traffic` (Markdown, HTML, CSV and JSON: documents with every
word), this module writes what a person reads in a terminal, through the one table writer
(`cli.table`): every line fits the table's width (100 columns piped), and the full reasons are
behind `--explain`, each printed once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from ..render import terminal_text as _safe
from .table import PIPE_WIDTH, format_frame, note_line, on_terminal

EXPLAIN_HINT = "--explain for the reasons"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def first_clause(reason: str) -> str:
    """The first clause of a reason (up to "; " or ". "), as a one-line note shows it.

    >>> first_clause("OpenAI Cookbook: 3 tokens per message; verified against the API")
    'OpenAI Cookbook: 3 tokens per message'
    """
    cut = reason.split("; ", 1)[0]
    return cut.split(". ", 1)[0].rstrip(".")


def labelled(exactness: str, reason: str) -> str:
    """ "estimate: why", once: a reason that already opens with its label keeps the one it has.

    >>> labelled("estimate", "estimate: DeepSeek-V3's template"), labelled("estimate", "no chat format")
    ("estimate: DeepSeek-V3's template", 'estimate: no chat format')
    """
    return reason if reason.startswith(f"{exactness}:") else f"{exactness}: {reason}"


def model_notes(rows: Iterable[tuple[Any, Any, Any, Any]], *, explain: bool, width: int | None) -> list[str]:
    """Notes about the models: (model, exactness, reason, note) in; lines out.

    Without `explain`: at most one line per model, at most `width` characters, for the models whose
    count is not exact or that carry a note: "model: estimate: <the reason's first clause> · <note>".
    With `explain`: each distinct reason and note once, in full, after the models it is about.
    """
    said: dict[str, list[str]] = {}  # what is said -> the models it is said of (each said once)
    for m, e, r, n in rows:
        model, exactness, reason, note = str(m), _text(e), _text(r), _text(n)
        why = labelled(exactness, reason if explain else first_clause(reason)) \
            if exactness and exactness != "exact" and reason else ""
        said_of = [why, note] if explain else [" · ".join(x for x in (why, first_clause(note)) if x)]
        for text in filter(None, said_of):
            said.setdefault(text, []).append(model)
    lines = [f"{', '.join(dict.fromkeys(models))}: {text}" for text, models in said.items()]
    return lines if explain else [note_line(line, width) for line in lines]


# a report's general note that the per-model lines already say ("estimate: a, b (why: ...)"),
# or that the trailer says (the prices' day)
_SAID_PER_MODEL = re.compile(r"^(exact|documented|estimate|ESTIMATE|approximate)\b.*:|^prices in force on ")


def general_notes(notes: Sequence[str], explain: bool) -> list[str]:
    """The report's general notes for a terminal: without `explain`, those the per-model lines and
    the trailer do not already say."""
    return list(notes) if explain else [n for n in notes if not _SAID_PER_MODEL.match(n)]


def headline(text: str, width: int | None) -> str:
    """The answer sentence, wrapped at word boundaries to `width` (never cut)."""
    import textwrap

    text = _safe(text)
    return text if width is None else textwrap.fill(text, width, break_long_words=False, break_on_hyphens=False)


def notes_block(general: Sequence[str], per_model: Sequence[str], *, explain: bool, width: int | None,
                cut: bool) -> list[str]:
    """The notes under a table: the report's general notes and the per-model ones, one line each
    (whole with `explain`), then the pointer to `--explain` when anything was cut."""
    lines = [(n if explain else note_line(n, width)) for n in general] + list(per_model)
    if not lines:
        return []
    shortened = cut or any(line.endswith("…") for line in lines)
    return ["", "notes:", *(f"  {_safe(note_line(line, None if explain else (width or PIPE_WIDTH) - 2))}"
                            for line in lines)] + (
        [f"({EXPLAIN_HINT}; --quiet for the table alone)"] if shortened and not explain else [])


def trailer(lines: Sequence[str], width: int | None) -> list[str]:
    """The short trailer: what was priced and the price source, one line each."""
    return ["", *(_safe(note_line(line, width)) for line in lines)]


def reasoning_caveat(models: Iterable[Any], marks: Iterable[Any]) -> str:
    """ " o3: reasoning not included (--reasoning-tokens N adds it)." where a reasoning model's
    figure is missing (its price is then low), else "".

    >>> reasoning_caveat(["a", "b", "c", "d"], ["reasoning not included"] * 3 + [""])
    ' a, b and 1 more: reasoning not included (--reasoning-tokens N adds it).'
    """
    from ..cost.caching import REASONING_NOT_INCLUDED

    missing = list(dict.fromkeys(str(m) for m, mark in zip(models, marks) if mark == REASONING_NOT_INCLUDED))
    if not missing:
        return ""
    named = ", ".join(missing) if len(missing) <= 2 else f"{', '.join(missing[:2])} and {len(missing) - 2} more"
    return f" {named}: {REASONING_NOT_INCLUDED} (--reasoning-tokens N adds it)."


def prices_line(source: str, day: Any) -> str:
    """The trailer's price line, the day first (the source's own words may be cut)."""
    return f"prices in force on {day} (UTC): {source}"


def table(frame: Any, width: int | None, essential: Iterable[str] | None = None) -> str:
    return format_frame(frame, essential=essential, width=width, rich=on_terminal())


def reasons_cut(reasons: Sequence[Any]) -> bool:
    """Whether any reason is longer than its first clause (the one-line notes cut it)."""
    return any(isinstance(r, str) and r and first_clause(r) != r.rstrip(".") for r in reasons)


# -- cost (a workload) ---------------------------------------------------------------------------
def cost_text(report: Any, *, width: int | None, explain: bool) -> str:
    """A `CostReport` for a terminal."""
    from ..report.tables import cost_headline, display_categories, display_models

    m = report.models
    monthly = "usd_per_month" in m and any(isinstance(v, Decimal) for v in m["usd_per_month"])
    column, per = ("usd_per_month", "a month") if monthly else ("usd_per_request", "a request")
    line = cost_headline(m["model"], m[column], per) + reasoning_caveat(m["model"], m["reasoning"])
    lines = [headline(line, width), "", table(display_models(report), width)]
    if len(report.categories):
        lines += ["", "by category (cost if every request were like this category):",
                  table(display_categories(report), width, essential=("model", "category", "$/month", "$/request"))]
    notes = model_notes(zip(m["model"], m["exactness"], m["exactness_reason"], m["note"]), explain=explain,
                        width=width)
    lines += notes_block(general_notes(report.notes, explain), notes, explain=explain, width=width, cut=reasons_cut(m["exactness_reason"]))
    lines += trailer([f"workload: {report.workload.describe()}",
                      f"input: {report.n_samples:,} request text(s), {report.n_chars:,} characters",
                      prices_line(report.price_source, report.on)], width)
    return "\n".join(lines) + "\n"


# -- one request (`cost TEXT` without a workload) -----------------------------------------------
def quick_text(report: Any, frame: Any, hints: Sequence[str], *, width: int | None, explain: bool) -> str:
    """One request's price per model (`cost.quick_frame`) for a terminal."""
    from ..report.tables import cost_headline, display_quick

    for column, per in (("usd_per_month", "a month"), ("usd_per_request", "a request"),
                        ("usd_input", "input/request")):
        if column in frame and any(isinstance(v, Decimal) for v in frame[column]):
            break
    first = frame.drop_duplicates("model") if "id" not in frame else frame
    if "id" in frame:  # several texts: the mean of the texts' prices per model
        means = {m: (sum(g[column]) / len(g) if all(isinstance(v, Decimal) for v in g[column]) else None)
                 for m, g in frame.groupby("model", sort=False)}
        line = cost_headline(list(means), list(means.values()), per + " (mean of the texts)")
    else:
        line = cost_headline(first["model"], first[column], per)
    if "reasoning_tokens" in frame:
        line += reasoning_caveat(frame["model"], frame["reasoning_tokens"])
    rows = frame.drop_duplicates("model")
    notes = model_notes(zip(rows["model"], rows["exactness"], rows["exactness_reason"], rows["note"]),
                        explain=explain, width=width)
    mean = f" (mean of {report.n_samples} texts)" if report.n_samples > 1 else ""
    lines = [headline(line, width), "", table(display_quick(frame), width)]
    lines += notes_block(general_notes(report.notes, explain) + list(hints), notes, explain=explain, width=width,
                         cut=reasons_cut(rows["exactness_reason"]))
    lines += trailer([f"one request{mean}: {report.workload.messages_per_request} message(s) in each model's chat "
                      "format, counted as `tokenprism count` counts it",
                      prices_line(report.price_source, report.on)], width)
    return "\n".join(lines) + "\n"


# -- logged traffic and request bodies (`cost --logs`, `cost --messages`) ------------------------
def traffic_headline(report: Any) -> str:
    """The cheapest and dearest model for the log or the requests, and for a log the bill against
    our recount of the same rows."""
    from ..money import format_usd
    from ..report.tables import cost_headline

    m = report.models
    what = "in all" if report.source == "requests" else "for the log"
    line = cost_headline(m["model"], m["usd_total"], what) + reasoning_caveat(m["model"], m["reasoning_source"])
    if report.billed_total is not None:
        served = [str(x) for x in report.served["model"]] if "model" in report.served else []
        ours = dict(zip(m["model"], m["usd_total"]))
        if len(served) == 1 and isinstance(ours.get(served[0]), Decimal):  # the serving model is a target
            against = f", against our whole-bill estimate of {format_usd(ours[served[0]])} on {served[0]}"
        elif report.recounted_billed is not None:
            against = f", against {format_usd(report.recounted_billed)} by our recount of the text alone"
        else:
            against = ""
        line += (f" As billed: {format_usd(report.billed_total)}{against} ({report.billed_rows:,} of "
                 f"{report.n_rows:,} rows carry usage).")
    elif report.served_total is not None and report.source != "requests":
        line += f" As served, recounted: {format_usd(report.served_total)}."
    return line


def traffic_text(report: Any, *, width: int | None, explain: bool) -> str:
    """A `TrafficReport` for a terminal: the headline, then each section's table, notes, trailer."""
    from ..report import traffic as render

    lines = [headline(traffic_headline(report), width)]
    essential = ("model", "served by", "row", "day", "tokens in", "total $", "vs served", "$/month (projected)", "as billed",
                 "recounted", "exactness", "status", "input error")
    for title, caption, frame in render.sections(report):
        lines += ["", _safe(note_line(f"{title}:" + (f" {caption}" if caption else ""), None if explain else width)),
                  table(frame, width, essential=essential)]
    m = report.models
    notes = model_notes(zip(m["model"], m["exactness"], m["exactness_reason"], m["note"]), explain=explain,
                        width=width)
    changes = [] if not explain else render.change_lines(report)
    lines += notes_block(general_notes(report.notes, explain) + changes, notes, explain=explain, width=width,
                         cut=reasons_cut(m["exactness_reason"]) or bool(render.change_lines(report)))
    lines += trailer([*render.header(report)[1:], prices_line(report.price_source, report.on)], width)
    return "\n".join(lines) + "\n"


# -- the price listing (`tokenprism models`) ----------------------------------------------------
MODEL_HEADERS = {"usd_per_mtok_input": "$/Mtok in", "usd_per_mtok_cached_input": "$/Mtok cached",
                 "usd_per_mtok_output": "$/Mtok out", "tokenizer_status": "tokenizer status", "price_as_of": "as of",
                 "price_remark": "remark"}
def models_text(listing: Any, *, width: int | None) -> str:
    """`tokenprism models` for a terminal: the table, then the count and the price source."""
    frame = listing.frame
    shown = frame.drop(columns=["price_source", "note"]).astype(object).where(frame.notna(), "no price")
    shown[["tiers", "price_remark"]] = frame[["tiers", "price_remark"]]
    shown = shown.rename(columns=MODEL_HEADERS)  # the CSV and JSON keep the unit-named columns
    body = table(shown, width, essential=("model", "$/Mtok in", "$/Mtok out", "tokenizer", "exactness"))
    return body + "\n" + "\n".join(trailer(
        [f"{len(frame)} model(s); ~tokenizer = a proxy (its counts are estimates); --format csv adds notes, sources",
         prices_line(listing.source, listing.day)], width)) + "\n"
