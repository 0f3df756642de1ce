"""The report bundle: one folder with report.md, a self-contained report.html, figures, tables.

Unlike `plots` (one figure from one frame) and `probes` (one table each), this module runs the
whole analysis once: measure the corpora, run every probe, draw every figure, and write

    DIR/report.md            findings with numbers, tables, links to the figures
    DIR/report.html          the same, figures embedded as base64 PNG (one file to send)
    DIR/figures/NAME.png|svg
    DIR/tables/NAME.csv|parquet   tidy tables, one row per observation

Nothing in the bundle depends on the clock or the machine, so the same inputs give
byte-identical CSV, Markdown, HTML and SVG files (Parquet: identical frames).

The folder is owned by its manifest, `DIR/.tokenprism-report`, which lists every file a run
wrote. A new run replaces its own files and removes only stale files that the previous manifest
lists; a file the user put there (even in figures/ or tables/) is never deleted. Every file is
written atomically, and the manifest last, so an interrupted run leaves complete files only.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from ..atomic import write_text
from ..corpora import load_corpus
from ..errors import BadInput, UnknownName
from ..pipeline import as_tokenizers, measure, summarize, write_table
from ..plots import figures as plots
from ..probes import PROBE_TABLES, ProbeRun, run_probe, run_probes
from ..probes.questions import QUESTIONS, answer
from ..tokenizers import TokenizersArg
from .page import html_page, markdown_table, markdown_text


@dataclass
class Report:
    """What `build_report` wrote, and the frames behind it."""

    out_dir: Path
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)


def _pct(v: float) -> str:
    return f"{v:+.0f}%"


# --- findings (sentences with numbers, computed from the tables) --------------------------------
def _pick(names: list[str], preferred: tuple[str, ...]) -> list[str]:
    return [n for n in preferred if n in names] or names[:2]


def _findings(t: dict[str, pd.DataFrame], names: list[str]) -> dict[str, list[str]]:
    ref = _pick(names, ("cl100k_base", "o200k_base", "gpt2", "qwen3.6"))
    out: dict[str, list[str]] = {}

    cl = t["code-languages"].astype({"tokenizer": "str"})
    lines = []
    for tok in ref[:2]:
        part = cl[cl["tokenizer"] == tok].set_index("language")
        code = part.drop(index="English prose", errors="ignore")["chars_per_token_of_sums"]
        if "English prose" in part.index and len(code):
            lines.append(f"{tok}: English prose {part.loc['English prose', 'chars_per_token_of_sums']:.2f} chars/token; "
                         f"code from {code.min():.2f} ({code.idxmin()}) to {code.max():.2f} ({code.idxmax()}), "
                         f"i.e. up to {part['token_premium_vs_prose'].max():.2f}x the tokens of prose per character.")
    cv = t["code-variants"].astype({"tokenizer": "str"})
    for group, variant in (("json-catalogue-layout", "pretty-2"), ("python-inventory-indentation", "tabs"),
                           ("python-inventory-indentation", "spaces-2"), ("python-word-stats-naming", "camelCase")):
        rows = cv[(cv["group"] == group) & (cv["variant"] == variant)]
        if len(rows):
            spread = ", ".join(f"{r.tokenizer} {_pct(r.token_change_pct)}" for r in rows.itertuples())
            lines.append(f"{group} {variant} vs {rows['baseline'].iloc[0]}: {spread}.")
    ws = t["whitespace-tokens"].astype({"tokenizer": "str"})
    code_ws = ws[ws["category"] == "code"].groupby("tokenizer")[["n_whitespace_tokens", "n_tokens"]].sum()
    if len(code_ws):
        share = (code_ws["n_whitespace_tokens"] / code_ws["n_tokens"]).sort_values()
        lines.append(f"Pure-whitespace tokens in code: from {share.iloc[0]:.0%} ({share.index[0]}) to "
                     f"{share.iloc[-1]:.0%} ({share.index[-1]}) of all tokens.")
    out["code"] = lines

    prem = t["language-premium"].astype({"tokenizer": "str"})
    lines = []
    for tok in ref[:2]:
        part = prem[(prem["tokenizer"] == tok) & (prem["language"] != prem["pivot"])].sort_values("premium")
        if len(part):
            lo, hi = part.iloc[0], part.iloc[-1]
            lines.append(f"{tok}: premium from {lo['premium']:.2f}x ({lo['language']}) to {hi['premium']:.2f}x "
                         f"({hi['language']}); median {part['premium'].median():.2f}x.")
    red = t["tokenizer-reduction"]
    if len(red):
        top = red.iloc[0]
        lines.append(f"{top['new']} needs {top['reduction_pct']:.0f}% fewer tokens than {top['old']} for "
                     f"{top['language']} ({top['script']}); median over languages {red['reduction_pct'].median():.0f}%."
                     + (f" Note: {red.attrs['note']}." if red.attrs.get("note") else ""))
    bpc = t["bytes-per-char"]
    if len(bpc):
        lines.append(f"UTF-8 bytes per character: {bpc.iloc[0]['bytes_per_char']:.2f} ({bpc.iloc[0]['script']}) to "
                     f"{bpc.iloc[-1]['bytes_per_char']:.2f} ({bpc.iloc[-1]['script']}), before any tokenizer is involved.")
    out["languages"] = lines

    grouping = t["digit-grouping"].astype({"tokenizer": "str"})
    longest = grouping[grouping["n_digits"] == grouping["n_digits"].max()]
    rules = longest.groupby("rule", sort=True)["tokenizer"].agg(lambda s: ", ".join(s))
    lines = [f"{rule}: {toks}." for rule, toks in rules.items()]
    first = grouping[grouping["n_digits"] == grouping["n_digits"].min()].head(len(names))
    lines += [f'"{first["number"].iloc[0]}" is cut as ' + "; ".join(
        f"{r.pieces} ({r.tokenizer})" for r in first.drop_duplicates("pieces").itertuples()) + "."]
    single = t["single-token-numbers"].astype({"tokenizer": "str", "context": "str"})
    bare = single[single["context"] == "bare"]
    if len(bare):
        lines.append("Single-token integers 0-9999 (bare): " + ", ".join(
            f"{r.tokenizer} {r.single_1_digit + r.single_2_digit + r.single_3_digit + r.single_4_digit}"
            for r in bare.itertuples()) + ".")
    years = t["single-token-years"].astype({"tokenizer": "str", "context": "str"})
    y = years[years["number"].isin([2023, 2024])]
    for (tok, context), part in y.groupby(["tokenizer", "context"], sort=False):
        flags = part.set_index("number")["single_token"]
        if flags.nunique() > 1:
            shown = "" if context == "bare" else " "
            lines.append(f'{tok}: "{shown}2024" is {"one token" if flags[2024] else "several"}, '
                         f'"{shown}2023" is {"one token" if flags[2023] else "several"} ({context}).')
    sep = t["thousands-separators"].astype({"tokenizer": "str", "separator": "str"})
    comma = sep[sep["separator"] == "comma"]
    if len(comma):
        lines.append("Thousands separators (comma vs none): " + ", ".join(
            f"{r.tokenizer} {_pct(r.extra_tokens_pct)}" for r in comma.itertuples()) + ".")
    out["numbers"] = lines

    summary = t["whitespace-summary"].astype({"tokenizer": "str", "suffix": "str"})
    lines = []
    spaces = summary[summary["suffix"] == summary["suffix"][summary["suffix"].str.endswith("spaces")].iloc[-1]] \
        if summary["suffix"].str.endswith("spaces").any() else summary.iloc[:0]
    if len(spaces):
        lines.append(f"Appending {spaces['suffix'].iloc[0]}: " + ", ".join(
            f"{r.tokenizer} +{r.extra_tokens_per_text:g}" for r in spaces.itertuples()) + " tokens per text.")
    changed = summary[summary["share_last_tokens_changed"] > 0]
    for suffix, part in changed.groupby("suffix", sort=False):
        lines.append(f"Appending {suffix} changed the tokens before it, not only the count, in "
                     f"{part['share_last_tokens_changed'].max():.0%} of the texts for: {', '.join(part['tokenizer'])} "
                     "(a punctuation mark and the line break merge into one token).")
    lead = t["leading-space"].astype({"tokenizer": "str", "form": "str"})
    the = lead[(lead["word"] == "the") & (lead["form"] == "leading space")]
    if len(the):
        lines.append('" the" and "the" are different tokens (ids) in: ' + ", ".join(
            the.loc[~the["same_ids_as_bare"], "tokenizer"]) + ".")
    out["whitespace"] = lines

    if "agreement-matrix" not in t:
        out["boundaries"] = ["Boundary agreement needs two tokenizers or more."]
        return out
    matrix = t["agreement-matrix"].astype({"tokenizer_a": "str", "tokenizer_b": "str"})
    off = matrix[matrix["tokenizer_a"] < matrix["tokenizer_b"]].sort_values("value")
    lines = []
    if len(off):
        same = off[off["value"] >= 1.0]
        differ = off[off["value"] < 1.0]
        if len(differ):
            lo, hi = differ.iloc[0], differ.iloc[-1]
            lines.append(f"Boundary agreement (Jaccard) between tokenizers that cut differently ranges from "
                         f"{lo['value']:.2f} ({lo['tokenizer_a']} vs {lo['tokenizer_b']}) to {hi['value']:.2f} "
                         f"({hi['tokenizer_a']} vs {hi['tokenizer_b']}); median {differ['value'].median():.2f}.")
        if len(same):
            lines.append("Identical cuts on every text: " + ", ".join(
                f"{r.tokenizer_a} = {r.tokenizer_b}" for r in same.itertuples()) + " (same vocabulary and split rule).")
    out["boundaries"] = lines
    return out


# --- building --------------------------------------------------------------------------------
# figure name (file stem) -> (the table it is drawn from, the plots function)
FIGURES: dict[str, tuple[str, Callable[[pd.DataFrame], Figure]]] = {
    "chars_per_token_by_category": ("summary-by-category", plots.chars_per_token_by_category),
    "code_languages": ("code-languages", plots.code_languages),
    "code_variants": ("code-variants", plots.code_variants),
    "language_premium": ("language-premium", plots.language_premium),
    "tokenizer_reduction": ("tokenizer-reduction", plots.tokenizer_reduction),
    "tokens_vs_digits": ("digit-lengths", plots.tokens_vs_digits),
    "single_token_years": ("single-token-years", plots.single_token_years),
    "whitespace_deltas": ("trailing-whitespace", plots.whitespace_deltas),
    "boundary_agreement": ("agreement-matrix", plots.boundary_agreement),
}

_SECTIONS = (
    ("Characters per token by category", None, ["chars_per_token_by_category"],
     "Ratios of sums: total characters / total tokens of a category, so long samples weigh as much as they cost."),
    ("1. Code vs prose", "code", ["code_languages", "code_variants"],
     "Code spends tokens on indentation, punctuation runs and identifiers a prose-trained vocabulary rarely saw. "
     "Controlled variants of the same file isolate one property each."),
    ("2. Languages", "languages", ["language_premium", "tokenizer_reduction"],
     "Premium = tokens for a language / tokens for the pivot language on the same parallel text. Two causes: "
     "UTF-8 bytes per character (the script) and how many of those bytes the vocabulary merged (the training data)."),
    ("3. Numbers", "numbers", ["tokens_vs_digits", "single_token_years"],
     "The pre-tokenizer decides how a digit run may be cut (threes from the left, single digits, or not at all); "
     "the vocabulary decides which of the allowed pieces exist."),
    ("4. Trailing and leading whitespace", "whitespace", ["whitespace_deltas"],
     "Byte-level vocabularies store words with their leading space, so a space at the end of a text has no word "
     "to attach to and becomes a token of its own."),
    ("5. Same string, different tokenizers", "boundaries", ["boundary_agreement"],
     "Jaccard index of the sets of character offsets where tokens meet (1 = identical cuts). "
     "A token count means nothing without its tokenizer."),
    ("6. The questions people ask", "questions", [f"why_{k.replace('-', '_')}" for k in QUESTIONS],
     "Each question answered in one sentence computed from its table (tables/why-*.csv); "
     "`tokenprism why QUESTION` prints the same answer. Glitch-token candidates are candidates: "
     "confirming one needs the model."),
)


def _answers(toks, tables: dict[str, pd.DataFrame], figures: dict[str, Figure]) -> dict:
    """Every why-question's answer for `toks` (kept in the data dir): its table as "why-KEY" and its
    figure as "why_KEY" added to the report's."""
    from ..plots.answers import answer_figure

    answers = {key: answer(key, toks) for key in QUESTIONS}
    for key, got in answers.items():
        tables[f"why-{key}"] = got.table
        figures[f"why_{key.replace('-', '_')}"] = answer_figure(key, got.table)
    return answers


def make_figure(name: str, run: ProbeRun) -> Figure:
    """One report figure by name (a key of `FIGURES`), computed from a `ProbeRun`.

    Raises:
        KeyError: an unknown figure name (the message lists the valid ones).
    """
    if name not in FIGURES:
        raise UnknownName("figure", name, FIGURES, message=f"unknown figure {name!r}; valid: {', '.join(FIGURES)}")
    source, fn = FIGURES[name]
    table = summarize(run.corpus, ["category", "tokenizer"]) if source == "summary-by-category" else run_probe(source, run)
    return fn(table)


def _tokenizer_table(toks) -> pd.DataFrame:
    return pd.DataFrame([(t.name, t.family, t.n_vocab, str(t.source), t.source.licence) for t in toks],
                        columns=["tokenizer", "family", "n_vocab", "source", "licence"])


def build_report(out_dir: str | Path, *, tokenizers: TokenizersArg = None, corpus=None, parallel: str | Path = "builtin",
                 pivot: str = "en", progress: bool = False) -> Report:
    """Measure, probe, draw and write the whole bundle into `out_dir`.

    Args:
        out_dir: the folder (created; files of a previous report there are replaced).
        tokenizers: names, adapters, a comma-separated string, or None (every one available offline).
        corpus: paths of your own files/folders to measure instead of the built-in corpora
            (the probes still use the built-in controlled samples).
        parallel: the parallel corpus of the language probe ("builtin" or a folder such as FLORES-200).
        pivot: its pivot language ("en", or a FLORES name like "eng_Latn").
        progress: progress bars on stderr.

    Returns:
        A `Report` with the tables, figures and written files.
    """
    out = check_report_dir(out_dir)
    toks = as_tokenizers(tokenizers)
    names = [t.name for t in toks]
    run = ProbeRun(tokenizers=toks, parallel=parallel, pivot=pivot, progress=progress)
    measured = measure(load_corpus(corpus), toks, progress=progress) if corpus else run.corpus
    tables: dict[str, pd.DataFrame] = {
        "tokenizers": _tokenizer_table(toks),
        "measurements": measured,
        "summary-by-category": summarize(measured, ["category", "tokenizer"]),
    }
    # boundary agreement compares tokenizers: with a single one there is nothing to compare
    probe_names = [n for n in PROBE_TABLES if len(toks) > 1 or PROBE_TABLES[n][0] != 5]
    tables.update(run_probes(run, probe_names))
    figures = {name: fn(tables[source]) for name, (source, fn) in FIGURES.items() if source in tables}
    answers = _answers(toks, tables, figures)

    report = Report(out, tables, figures)
    previous = read_manifest(out)
    for name, frame in tables.items():
        report.files += [write_table(frame, out / "tables" / f"{name}.csv"),
                         write_table(frame, out / "tables" / f"{name}.parquet")]
    pngs: dict[str, bytes] = {}
    for name, fig in figures.items():
        report.files += [plots.save_figure(fig, out / "figures" / f"{name}.png"),
                         plots.save_figure(fig, out / "figures" / f"{name}.svg")]
        pngs[name] = (out / "figures" / f"{name}.png").read_bytes()
    findings = _findings(tables, names)
    findings["questions"] = [f"{QUESTIONS[k].ask} {a.headline}" for k, a in answers.items()]
    md, page = _render(tables, findings, names, pngs, parallel=str(parallel), pivot=pivot,
                       corpus=", ".join(map(str, corpus)) if corpus else "built-in corpora")
    report.files += [write_text(out / "report.md", md), write_text(out / "report.html", page)]
    _write_manifest(out, report.files)
    _remove_stale(out, previous, report.files)
    return report


# --- the manifest: which files in the folder are ours ------------------------------------------
MANIFEST = ".tokenprism-report"
_MANIFEST_HEAD = ("# tokenprism report manifest: files written by `tokenprism report` or `tokenprism cost --out`; "
                  "only these are ever replaced or removed")


def check_report_dir(out_dir: str | Path) -> Path:
    """Check a report folder before any work: it may be absent, empty or hold anything, but not be a file.

    Files already there stay: only files listed in the folder's manifest are ever replaced or removed.

    Raises:
        ValueError: the path is a file.
    """
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise BadInput(f"{out} is a file, not a folder: give a folder name for the report (--out DIR)")
    for sub in ("figures", "tables"):
        if (out / sub).exists() and not (out / sub).is_dir():
            raise BadInput(f"{out / sub} is a file, but the report needs a folder there: move it or choose another --out")
    return out


def read_manifest(out_dir: Path) -> list[str]:
    """Relative paths the previous run wrote (empty without a manifest)."""
    try:
        lines = (Path(out_dir) / MANIFEST).read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, UnicodeDecodeError, IsADirectoryError):
        return []
    return [ln for ln in lines if ln and not ln.startswith("#")]


def _write_manifest(out: Path, files: list[Path]) -> None:
    rel = sorted({p.relative_to(out).as_posix() for p in files})
    write_text(out / MANIFEST, "\n".join([_MANIFEST_HEAD, *rel]) + "\n")


def own_files(out: Path, written: list[Path], previous: list[str]) -> Path:
    """After a run wrote `written` into `out`: the manifest listing them (written last), and the
    files of the previous run's manifest (`previous`, read before the run) that this one did not
    write, removed. Returns the manifest's path."""
    _write_manifest(out, written)
    _remove_stale(out, previous, written)
    return out / MANIFEST


def _remove_stale(out: Path, previous: list[str], written: list[Path]) -> None:
    keep = {p.relative_to(out).as_posix() for p in written}
    root = out.resolve()
    for rel in previous:
        if rel in keep:
            continue
        path = (out / rel)
        # a manifest line never reaches outside the folder (a hand-edited "../x" is ignored)
        if root not in path.resolve().parents or not path.is_file():
            continue
        path.unlink(missing_ok=True)


# --- rendering ---------------------------------------------------------------------------------
def _key_tables(t: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Small wide tables for reading (the tidy ones are in tables/)."""
    s = t["summary-by-category"]
    return {
        "Characters per token by category": s.astype({"category": "str", "tokenizer": "str"})
        .pivot(index="tokenizer", columns="category", values="chars_per_token_of_sums")
        .reindex(index=list(t["tokenizers"]["tokenizer"])),
        "Digit grouping": t["digit-grouping"].astype({"tokenizer": "str"})
        .pivot(index="tokenizer", columns="number", values="pieces")
        .reindex(index=list(t["tokenizers"]["tokenizer"]))
        .join(t["digit-grouping"].astype({"tokenizer": "str"}).drop_duplicates("tokenizer", keep="last")
              .set_index("tokenizer")["rule"]),
    }


def _head(names, corpus: str, parallel: str, pivot: str, *, escape, code) -> str:
    """The report's first line, its values through `escape` (Markdown's or HTML's), paths as `code`."""
    return (f"Tokenizers: {escape(', '.join(names))}. Corpus: {escape(corpus)}. Parallel corpus: {escape(parallel)} "
            f"(pivot {escape(pivot)}). Tables (CSV and Parquet, tidy) are in {code('tables/')}, figures (PNG, SVG) "
            f"in {code('figures/')}.")


def _render(t, findings, names, pngs, *, parallel: str, pivot: str, corpus: str) -> tuple[str, str]:
    # The names and paths are the user's (a corpus file, a tokenizer file): escaped at each sink
    md_head = _head(names, corpus, parallel, pivot, escape=markdown_text, code=lambda s: f"`{s}`")
    head = _head(names, corpus, parallel, pivot, escape=html.escape, code=lambda s: f"<code>{s}</code>")
    md = ["# tokenprism report", "", md_head, "", "## Tokenizers", "", markdown_table(t["tokenizers"], index=False), ""]
    doc = ["<h1>tokenprism report</h1>", f"<p>{head}</p>", "<h2>Tokenizers</h2>",
           t["tokenizers"].to_html(index=False, border=0, classes="tp")]
    key = _key_tables(t)
    for title, key_name, figs, intro in _SECTIONS:
        md += [f"## {title}", "", intro, ""]
        doc += [f"<h2>{html.escape(title)}</h2>", f"<p>{html.escape(intro)}</p>"]
        lines = findings.get(key_name, []) if key_name else []
        if lines:
            md += [f"- {markdown_text(line)}" for line in lines] + [""]
            doc.append("<ul>" + "".join(f"<li>{html.escape(line)}</li>" for line in lines) + "</ul>")
        if key_name is None:
            table = key["Characters per token by category"]
            md += [markdown_table(table), ""]
            doc.append(table.to_html(border=0, classes="tp", float_format=lambda v: f"{v:.2f}"))
        if key_name == "numbers":
            table = key["Digit grouping"]
            md += [markdown_table(table), ""]
            doc.append(table.to_html(border=0, classes="tp"))
        for fig in (f for f in figs if f in pngs):
            md += [f"![{fig}](figures/{fig}.png)", ""]
            data = base64.b64encode(pngs[fig]).decode("ascii")
            doc.append(f'<figure><img alt="{fig}" src="data:image/png;base64,{data}"></figure>')
    page = html_page("tokenprism report", doc)
    return "\n".join(md).rstrip() + "\n", page

