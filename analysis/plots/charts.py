"""Interactive charts (Vega-Lite, through Altair) from the same tidy frames as `figures`.

Unlike `figures` (static matplotlib, for the report's byte-reproducible PNG/SVG files), these
return Altair charts for a browser. Every chart has:

- tooltips with the exact numbers and their units (counts in full, ratios to 3 decimals);
- axis titles with units;
- a tokenizer selection: click a tokenizer in the legend (or, on heatmaps, in the strip of
  tokenizer names beside the chart) to show only it; shift-click adds more, double-click
  shows all again. Unselected tokenizers fade rather than vanish, so they can be picked back.

Each function takes the tidy frame the report draws and returns a chart; nothing is rendered
here (no `show()`, no `st.*`). `CHARTS` maps a figure name to its builder, as the report's
figure table does for `figures`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import altair as alt
import pandas as pd

# Name of the tokenizer selection parameter in every spec (tests and the browser look for it).
PICK = "pick_tokenizer"
FADED = 0.12
_CELL = 44  # heatmap cell width in pixels
_ROW = 17  # heatmap/bar row height in pixels


# --- helpers -------------------------------------------------------------------------------
def _order(values: pd.Series) -> list[str]:
    """Categories in their categorical order if any, else in order of appearance."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        present = set(values.astype(str))
        return [str(c) for c in values.cat.categories if str(c) in present]
    return [str(v) for v in pd.unique(values.astype(str))]


def _plain(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The columns a chart needs, categoricals as strings (Vega-Lite has no categorical type)."""
    out = frame[columns].copy()
    for col in columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype) or out[col].dtype == object:
            out[col] = out[col].astype(str)
    return out.reset_index(drop=True)


def _pick(*, legend: bool = True) -> alt.Parameter:
    """The tokenizer selection: bound to the colour legend, or to clicks on a tokenizer strip."""
    if legend:
        return alt.selection_point(name=PICK, fields=["tokenizer"], bind="legend")
    return alt.selection_point(name=PICK, fields=["tokenizer"])


def _fade(pick: alt.Parameter):
    return alt.when(pick).then(alt.value(1.0)).otherwise(alt.value(FADED))


# Kenneth L. Kelly's "twenty-two colors of maximum contrast" (Color Engineering 3(6), 1965), white
# left out, in his order (the first few are the most distinct), as commonly given in sRGB.
KELLY = ("#222222", "#F3C300", "#875692", "#F38400", "#A1CAF1", "#BE0032", "#C2B280", "#848482", "#008856",
         "#E68FAC", "#0067A5", "#F99379", "#604E97", "#F6A600", "#B3446C", "#DCD300", "#882D17", "#8DB600",
         "#654522", "#E25822", "#2B3D26")


def tokenizer_colors(order: list[str]) -> list[str]:
    """One colour per tokenizer of `order`, each tokenizer the same colour on every chart and no two
    alike: a catalogued tokenizer takes the colour of its place in the catalogue, any other name
    (hf:..., ownbpe:PATH) the next colour no catalogued tokenizer takes. Past `KELLY`'s 21 colours
    they repeat.

    >>> tokenizer_colors(["o200k_base", "gpt2", "hf:my/tok"])
    ['#A1CAF1', '#222222', '#E25822']
    """
    return [KELLY[i % len(KELLY)] for i in _places(order)]


def _places(order: list[str]) -> list[int]:
    """Each tokenizer's place in the catalogue; a name outside it, the places after the catalogue's."""
    from ..tokenizers import CATALOGUE

    known = list(CATALOGUE)
    spare = iter(range(len(known), len(known) + len(order)))
    return [known.index(name) if name in known else next(spare) for name in order]


def _legend() -> alt.Legend:
    """The tokenizer legend: below the plot in two columns (it fits a phone's 358 px), every name in
    it (no symbol limit, no label cut), so that its height grows with the names and none is dropped."""
    return alt.Legend(title="tokenizer (click to pick)", orient="bottom", columns=2, titleOrient="top",
                      symbolLimit=0, labelLimit=0, columnPadding=16)


def _tokenizer_color(order: list[str]) -> alt.Color:
    """Colour by tokenizer (`tokenizer_colors`), with `_legend`."""
    return alt.Color("tokenizer:N", sort=order, scale=alt.Scale(domain=order, range=tokenizer_colors(order)),
                     legend=_legend())


# Dashes and point shapes by tokenizer, for thin lines and small points: two tokenizers whose
# colours look alike (on a screen, or to a colour-blind reader) still differ in dash or shape.
# The same field, title and order as the colour, so Vega-Lite draws one legend with all three.
DASHES = ([1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [4, 4], [1, 3])
SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "wedge", "triangle-right")


def tokenizer_dashes(order: list[str]) -> list[list[int]]:
    """Each tokenizer's dash, by its place in the catalogue (the same on every chart, as its colour)."""
    return [DASHES[i % len(DASHES)] for i in _places(order)]


def tokenizer_shapes(order: list[str]) -> list[str]:
    """Each tokenizer's point shape, by its place in the catalogue."""
    return [SHAPES[i % len(SHAPES)] for i in _places(order)]


def _tokenizer_dash(order: list[str]) -> alt.StrokeDash:
    return alt.StrokeDash("tokenizer:N", sort=order, legend=_legend(),
                          scale=alt.Scale(domain=order, range=tokenizer_dashes(order)))


def _tokenizer_shape(order: list[str]) -> alt.Shape:
    return alt.Shape("tokenizer:N", sort=order, legend=_legend(),
                     scale=alt.Scale(domain=order, range=tokenizer_shapes(order)))


# Every chart fits its column's width (Streamlit gives it the column's width) and takes the
# height its rows, axes and legend need, rather than Streamlit's default "fit", which squeezes
# axes and legend into the height given and drops what does not fit.
FIT_X = alt.AutoSizeParams(type="fit-x", contains="padding")


def _heatmap(data: pd.DataFrame, *, x: alt.X, y: alt.Y, color: alt.Color, label: str, dark_when: str,
             tooltip: list, order: list[str], title: str, n_cols: int, n_rows: int) -> alt.LayerChart:
    """Cells coloured by value, each with its value written in black or white; a click on a cell
    picks its tokenizer. The width is the column's (cells share it); a cell's value is written
    only where the cells are wide enough for it (a phone shows the colours, and the tooltip)."""
    pick = _pick(legend=False)
    base = alt.Chart(data).encode(x=x, y=y, tooltip=tooltip)
    cells = base.mark_rect(stroke="white", strokeWidth=0.5, cursor="pointer").encode(
        color=color, opacity=_fade(pick)).add_params(pick)
    text = base.mark_text(fontSize=10).encode(
        text=alt.Text(f"{label}:N"),
        color=alt.when(dark_when).then(alt.value("white")).otherwise(alt.value("black")),
        opacity=alt.when(pick).then(alt.value(1.0)).otherwise(alt.value(FADED)))
    text = text.transform_filter(f"width / {max(n_cols, 1)} >= 26")
    height = n_rows * max(_ROW, min(34, 300 // max(n_rows, 1)))
    return (cells + text).properties(height=height, title=alt.TitleParams(
        title, subtitle="click a cell to pick its tokenizer (shift-click for more, double-click for all)"),
        autosize=FIT_X)


def _fmt_float(values: pd.Series, digits: int) -> pd.Series:
    return values.map(lambda v: "" if pd.isna(v) else f"{v:.{digits}f}")


# --- measure -------------------------------------------------------------------------------
def chars_per_token_by_category(summary: pd.DataFrame, *, value: str = "chars_per_token_of_sums") -> alt.Chart:
    """Grouped bars: characters per token per category, one bar per tokenizer.

    Args:
        summary: `pipeline.summarize(measured, ["category", "tokenizer"])`.
        value: the column to draw.

    >>> s = pd.DataFrame({"category": ["prose"], "tokenizer": ["t"], "n_chars": [9], "n_tokens": [2],
    ...                   "chars_per_token_of_sums": [4.5]})
    >>> chars_per_token_by_category(s).to_dict()["mark"]["type"]
    'bar'
    """
    order, categories = _order(summary["tokenizer"]), _order(summary["category"])
    data = _plain(summary, ["category", "tokenizer", "n_chars", "n_tokens", value])
    pick = _pick()
    return alt.Chart(data, title="Characters per token by category (higher = fewer tokens)").mark_bar().encode(
        x=alt.X(f"{value}:Q", title="characters per token (total chars / total tokens)"),
        y=alt.Y("category:N", sort=categories, title="category"),
        yOffset=alt.YOffset("tokenizer:N", sort=order),
        color=_tokenizer_color(order), opacity=_fade(pick),
        tooltip=[alt.Tooltip("category:N", title="category"), alt.Tooltip("tokenizer:N", title="tokenizer"),
                 alt.Tooltip(f"{value}:Q", title="characters per token", format=".3f"),
                 alt.Tooltip("n_tokens:Q", title="tokens", format=","),
                 alt.Tooltip("n_chars:Q", title="characters", format=",")],
    ).add_params(pick).properties(height=alt.Step(9), autosize=FIT_X)


# --- probe 1: code -------------------------------------------------------------------------
def code_languages(table: pd.DataFrame, *, value: str = "chars_per_token_of_sums") -> alt.Chart:
    """Dot plot: characters per token per programming language (sorted), one dot per tokenizer.

    Args:
        table: `probes.code.code_languages`.
        value: the column to draw (or "token_premium_vs_prose").
    """
    order = _order(table["tokenizer"])
    data = _plain(table, ["language", "tokenizer", "n_chars", "n_tokens", *dict.fromkeys([value, "token_premium_vs_prose"])])
    languages = data.groupby("language")[value].mean().sort_values(kind="stable").index.tolist()
    title = ("characters per token (total chars / total tokens)" if value == "chars_per_token_of_sums"
             else "tokens / tokens of English prose (×)")
    pick = _pick()
    return alt.Chart(data, title="Code vs prose: characters per token by programming language").mark_point(
        filled=True, size=70).encode(
        x=alt.X(f"{value}:Q", title=title, scale=alt.Scale(zero=False)),
        y=alt.Y("language:N", sort=languages, title="language"),
        color=_tokenizer_color(order), shape=_tokenizer_shape(order),
        opacity=_fade(pick),
        tooltip=[alt.Tooltip("language:N", title="language"), alt.Tooltip("tokenizer:N", title="tokenizer"),
                 alt.Tooltip(f"{value}:Q", title=title, format=".3f"),
                 alt.Tooltip("n_tokens:Q", title="tokens", format=","),
                 alt.Tooltip("n_chars:Q", title="characters", format=",")],
    ).add_params(pick).properties(height=_ROW * len(languages) + 20, autosize=FIT_X)


def code_variants(variants: pd.DataFrame) -> alt.LayerChart:
    """Heatmap: token change (%) of each code variant vs its baseline, per tokenizer.

    Args:
        variants: `probes.code.code_variants` (or any `pipeline.variant_deltas` frame).
    """
    rows = variants[variants["variant"] != variants["baseline"]]
    order = _order(rows["tokenizer"])
    data = _plain(rows, ["group", "variant", "baseline", "tokenizer", "n_tokens", "baseline_tokens", "extra_tokens",
                         "token_change_pct"])
    data = data.assign(row=data["group"] + ": " + data["variant"] + " vs " + data["baseline"],
                       label=data["token_change_pct"].map(lambda v: "" if pd.isna(v) else f"{v:+.0f}%"))
    limit = max(float(data["token_change_pct"].abs().max()) if len(data) else 1.0, 1.0)
    return _heatmap(
        data, x=alt.X("tokenizer:N", sort=order, title="tokenizer", axis=alt.Axis(labelAngle=-35, labelOverlap=False)),
        y=alt.Y("row:N", sort=None, title="variant vs baseline (same file)", axis=alt.Axis(labelOverlap=False)),
        color=alt.Color("token_change_pct:Q", title=["token change", "vs baseline (%)"],
                        scale=alt.Scale(scheme="redblue", reverse=True, domain=[-limit, limit], domainMid=0),
                        legend=alt.Legend(orient="bottom")),
        label="label", dark_when=f"abs(datum.token_change_pct) > {limit * 0.6:.6g}",
        tooltip=[alt.Tooltip("group:N", title="file"), alt.Tooltip("variant:N", title="variant"),
                 alt.Tooltip("baseline:N", title="baseline"), alt.Tooltip("tokenizer:N", title="tokenizer"),
                 alt.Tooltip("n_tokens:Q", title="tokens (variant)", format=","),
                 alt.Tooltip("baseline_tokens:Q", title="tokens (baseline)", format=","),
                 alt.Tooltip("extra_tokens:Q", title="extra tokens", format="+,"),
                 alt.Tooltip("token_change_pct:Q", title="token change (%)", format="+.2f")],
        order=order, title="Cost of indentation, JSON layout and identifier style (% tokens vs baseline)",
        n_cols=len(order), n_rows=data["row"].nunique())


# --- probe 2: languages --------------------------------------------------------------------
def language_premium(premium: pd.DataFrame) -> alt.LayerChart:
    """Heatmap of the language premium (tokens / pivot tokens) on a log colour scale, with values.

    Args:
        premium: `probes.languages.language_premium`.
    """
    pivot = str(premium["pivot"].iloc[0]) if "pivot" in premium.columns and len(premium) else "pivot"
    order = _order(premium["tokenizer"])
    data = _plain(premium, ["language", "script", "tokenizer", "n_chars", "n_tokens", "chars_per_token", "premium"])
    data = data.assign(row=data["language"] + " (" + data["script"] + ")",
                       label=data["premium"].map(lambda v: "" if pd.isna(v) else f"{v:.1f}" if v < 10 else f"{v:.0f}"))
    rows = data.groupby("row")["premium"].mean().sort_values(kind="stable").index.tolist()
    low = max(min(float(data["premium"].min()) if len(data) else 1.0, 1.0), 0.1)
    high = max(float(data["premium"].max()) if len(data) else 1.01, 1.01)
    return _heatmap(
        data, x=alt.X("tokenizer:N", sort=order, title="tokenizer", axis=alt.Axis(orient="top", labelAngle=-35, labelOverlap=False)),
        y=alt.Y("row:N", sort=rows, title="language (script)", axis=alt.Axis(labelOverlap=False)),
        color=alt.Color("premium:Q", title=[f"tokens / tokens of {pivot}", "(log scale)"],
                        scale=alt.Scale(type="log", domain=[low, high], scheme="magma", reverse=True),
                        legend=alt.Legend(values=[t for t in (0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 50) if low <= t <= high],
                                          format="g", orient="bottom")),
        label="label", dark_when=f"datum.premium > {math.sqrt(low * high):.6g}",
        tooltip=[alt.Tooltip("row:N", title="language"), alt.Tooltip("tokenizer:N", title="tokenizer"),
                 alt.Tooltip("premium:Q", title=f"premium (tokens / tokens of {pivot}, ×)", format=".3f"),
                 alt.Tooltip("n_tokens:Q", title="tokens", format=","),
                 alt.Tooltip("n_chars:Q", title="characters", format=","),
                 alt.Tooltip("chars_per_token:Q", title="characters per token", format=".3f")],
        order=order, title=f"Language premium: tokens for the same text relative to {pivot} (1.0 = parity)",
        n_cols=len(order), n_rows=len(rows))


def tokenizer_reduction(reduction: pd.DataFrame) -> alt.LayerChart:
    """Dumbbells: tokens per language under the older and the newer tokenizer, labelled with the
    percentage saved; languages sorted by that saving.

    Args:
        reduction: `probes.languages.tokenizer_reduction`.
    """
    data = _plain(reduction, ["language", "script", "old", "new", "tokens_old", "tokens_new", "reduction_pct"])
    data = data.assign(row=data["language"] + " (" + data["script"] + ")")
    rows = data.sort_values("reduction_pct", ascending=False, kind="stable")["row"].tolist()
    new, old = (data["new"].iloc[0], data["old"].iloc[0]) if len(data) else ("new", "old")
    long = pd.concat([data.assign(tokenizer=data["old"], n_tokens=data["tokens_old"]),
                      data.assign(tokenizer=data["new"], n_tokens=data["tokens_new"])], ignore_index=True)
    order = [old, new]
    pick = _pick()
    tip = [alt.Tooltip("row:N", title="language"), alt.Tooltip("tokenizer:N", title="tokenizer"),
           alt.Tooltip("n_tokens:Q", title="tokens", format=","),
           alt.Tooltip("reduction_pct:Q", title=f"fewer tokens with {new} (%)", format=".2f")]
    y = alt.Y("row:N", sort=rows, title="language (script)")
    base = alt.Chart(long)
    rule = alt.Chart(data).mark_rule(color="#bbbbbb").encode(y=y, x="tokens_new:Q", x2="tokens_old:Q")
    dots = base.mark_point(filled=True, size=60).encode(
        x=alt.X("n_tokens:Q", title="tokens for the same parallel text"), y=y,
        color=_tokenizer_color(order), opacity=_fade(pick), tooltip=tip).add_params(pick)
    label = alt.Chart(data).mark_text(align="left", dx=6, fontSize=10).encode(
        y=y, x="tokens_old:Q", text=alt.Text("reduction_pct:Q", format=".0f"))
    return (rule + dots + label).properties(
        title=f"Tokens saved per language: {new} vs {old} (label: % fewer with {new})", height=_ROW * len(rows),
        autosize=FIT_X)


# --- probe 3: numbers ----------------------------------------------------------------------
def tokens_vs_digits(lengths: pd.DataFrame) -> alt.LayerChart:
    """Lines: mean tokens per integer against its number of digits, one line per tokenizer.

    Args:
        lengths: `probes.numbers.digit_lengths`.
    """
    order = _order(lengths["tokenizer"])
    data = _plain(lengths, ["tokenizer", "n_digits", "n_numbers", "tokens_per_number", "min_tokens", "max_tokens"])
    top = int(data["n_digits"].max()) if len(data) else 1
    pick = _pick()
    lines = alt.Chart(data).mark_line(point=alt.OverlayMarkDef(filled=True, size=40)).encode(
        x=alt.X("n_digits:Q", title="digits in the integer", scale=alt.Scale(domain=[1, top])),
        y=alt.Y("tokens_per_number:Q", title="tokens per integer (mean over random integers)"),
        color=_tokenizer_color(order), strokeDash=_tokenizer_dash(order), shape=_tokenizer_shape(order),
        opacity=_fade(pick),
        tooltip=[alt.Tooltip("tokenizer:N", title="tokenizer"), alt.Tooltip("n_digits:Q", title="digits"),
                 alt.Tooltip("tokens_per_number:Q", title="tokens per integer (mean)", format=".2f"),
                 alt.Tooltip("min_tokens:Q", title="fewest tokens"), alt.Tooltip("max_tokens:Q", title="most tokens"),
                 alt.Tooltip("n_numbers:Q", title="integers measured", format=",")],
    ).add_params(pick)
    diagonal = alt.Chart(pd.DataFrame({"n_digits": [1, top]})).mark_line(color="#bbbbbb", strokeDash=[2, 3]).encode(
        x="n_digits:Q", y=alt.Y("n_digits:Q"))
    return (diagonal + lines).properties(title="Tokens vs digits (dotted grey: one token per digit)", height=360,
                                         autosize=FIT_X)


def single_token_years(years: pd.DataFrame) -> alt.Chart:
    """Grid: which years are a single token in each vocabulary, one sub-row per context.

    Args:
        years: `probes.numbers.single_token_years` (tokenizer, context, number, n_tokens, single_token).
    """
    if "context" not in years.columns:
        years = years.assign(context="bare")
    order, contexts = _order(years["tokenizer"]), _order(years["context"])
    data = _plain(years, ["tokenizer", "context", "number", "n_tokens", "single_token"])
    data = data.assign(cut=data["single_token"].map({True: "one token", False: "several tokens"}))
    first, last = (int(data["number"].min()), int(data["number"].max())) if len(data) else (0, 1)
    pick = _pick(legend=False)
    return alt.Chart(data).mark_rect(cursor="pointer").encode(
        x=alt.X("number:O", title=f"year ({first}–{last})",
                axis=alt.Axis(values=list(range(first + (-first) % 10, last + 1, 10)), labelAngle=0)),
        y=alt.Y("tokenizer:N", sort=order, title="tokenizer", axis=alt.Axis(labelOverlap=False)),
        yOffset=alt.YOffset("context:N", sort=contexts),
        color=alt.Color("cut:N", title="the year is", scale=alt.Scale(domain=["one token", "several tokens"],
                                                                      range=["#1f4e79", "#e4e6ea"]),
                        legend=alt.Legend(orient="bottom")),
        opacity=_fade(pick),
        tooltip=[alt.Tooltip("number:O", title="year"), alt.Tooltip("tokenizer:N", title="tokenizer"),
                 alt.Tooltip("context:N", title="written"), alt.Tooltip("n_tokens:Q", title="tokens")],
    ).add_params(pick).properties(
        height=int(_ROW * len(order) * (1 if len(contexts) < 2 else 0.75 * len(contexts))), autosize=FIT_X,
        title=alt.TitleParams("Which years are a single token (sub-rows: " + ", ".join(contexts) + ")",
                              subtitle="click a row to pick its tokenizer"))


def digit_grouping(grouping: pd.DataFrame) -> alt.Chart:
    """Bars: tokens each tokenizer needs for one number, with its pieces in the tooltip.

    Args:
        grouping: `probes.numbers.digit_grouping` for one number.
    """
    order = _order(grouping["tokenizer"])
    data = _plain(grouping, ["tokenizer", "number", "n_tokens", "pieces"])
    pick = _pick()
    return alt.Chart(data, title="Tokens for the number").mark_bar().encode(
        x=alt.X("n_tokens:Q", title="tokens for the number", axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("tokenizer:N", sort=order, title="tokenizer"),
        color=_tokenizer_color(order), opacity=_fade(pick),
        tooltip=[alt.Tooltip("tokenizer:N", title="tokenizer"), alt.Tooltip("number:N", title="number"),
                 alt.Tooltip("n_tokens:Q", title="tokens"), alt.Tooltip("pieces:N", title="pieces")],
    ).add_params(pick).properties(height=alt.Step(_ROW + 3), autosize=FIT_X)


# --- probe 4: whitespace -------------------------------------------------------------------
def whitespace_deltas(trailing: pd.DataFrame) -> alt.VConcatChart:
    """Extra tokens (mean over texts) when appending k spaces (above) or a newline/tab (below).

    Args:
        trailing: `probes.whitespace.trailing_whitespace`.
    """
    order = _order(trailing["tokenizer"])
    pooled = (_plain(trailing, ["tokenizer", "suffix", "suffix_kind", "k", "extra_tokens", "prefix_kept"])
              .assign(changed=lambda d: ~d["prefix_kept"].astype(bool))
              .groupby(["tokenizer", "suffix", "suffix_kind", "k"], sort=False)
              .agg(extra=("extra_tokens", "mean"), changed_pct=("changed", "mean"), n_texts=("extra_tokens", "size"))
              .reset_index().assign(changed_pct=lambda d: 100 * d["changed_pct"]))
    pick = _pick()
    tip = [alt.Tooltip("tokenizer:N", title="tokenizer"), alt.Tooltip("suffix:N", title="appended"),
           alt.Tooltip("extra:Q", title="extra tokens (mean)", format=".2f"),
           alt.Tooltip("changed_pct:Q", title="texts whose earlier tokens changed (%)", format=".0f"),
           alt.Tooltip("n_texts:Q", title="texts")]
    y = alt.Y("extra:Q", title="extra tokens (mean over texts)")
    spaces = alt.Chart(pooled[pooled["suffix_kind"] == "spaces"], title="k spaces").mark_line(
        point=alt.OverlayMarkDef(filled=True, size=40)).encode(
        x=alt.X("k:Q", title="trailing spaces appended (k)", axis=alt.Axis(tickMinStep=1)), y=y,
        color=_tokenizer_color(order), strokeDash=_tokenizer_dash(order), shape=_tokenizer_shape(order),
        opacity=_fade(pick), tooltip=tip).add_params(pick)
    others = pooled[pooled["suffix_kind"] != "spaces"]
    rest = alt.Chart(others, title="newlines and tabs").mark_point(filled=True, size=70).encode(
        x=alt.X("suffix:N", sort=_order(trailing["suffix"]), title="appended instead", axis=alt.Axis(labelAngle=-30)),
        y=y, color=_tokenizer_color(order), shape=_tokenizer_shape(order), opacity=_fade(pick), tooltip=tip)
    return alt.vconcat(spaces.properties(height=260), rest.properties(height=220),
                       title="Trailing whitespace: extra tokens when a text ends in spaces, newlines or tabs",
                       autosize=FIT_X)


def trailing_suffix(table: pd.DataFrame) -> alt.Chart:
    """Bars: tokens before and after appending one suffix to one text, per tokenizer.

    Args:
        table: one row per tokenizer with `before`, `after` and `extra_tokens` (the Why page's table).
    """
    order = _order(table["tokenizer"])
    data = _plain(table, ["tokenizer", "before", "after", "extra_tokens"])
    pick = _pick()
    return alt.Chart(data, title="Extra tokens from the suffix").mark_bar().encode(
        x=alt.X("extra_tokens:Q", title="extra tokens (after − before)", axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("tokenizer:N", sort=order, title="tokenizer"),
        color=_tokenizer_color(order), opacity=_fade(pick),
        tooltip=[alt.Tooltip("tokenizer:N", title="tokenizer"), alt.Tooltip("before:Q", title="tokens before"),
                 alt.Tooltip("after:Q", title="tokens after"), alt.Tooltip("extra_tokens:Q", title="extra tokens")],
    ).add_params(pick).properties(height=alt.Step(_ROW + 3), autosize=FIT_X)


# --- probe 5: boundaries -------------------------------------------------------------------
def boundary_agreement(matrix: pd.DataFrame) -> alt.LayerChart:
    """Heatmap of pairwise boundary agreement (Jaccard of boundary offsets), with values.

    Args:
        matrix: `probes.boundaries.agreement_matrix`. Picking a tokenizer keeps its row.
    """
    order = _order(matrix["tokenizer_a"])
    data = _plain(matrix, ["tokenizer_a", "tokenizer_b", "n_shared", "n_union", "jaccard", "f1", "value"])
    data = data.assign(tokenizer=data["tokenizer_a"], label=_fmt_float(data["value"], 2))
    return _heatmap(
        data, x=alt.X("tokenizer_b:N", sort=order, title="tokenizer", axis=alt.Axis(labelAngle=-35, labelOverlap=False)),
        y=alt.Y("tokenizer_a:N", sort=order, title="tokenizer", axis=alt.Axis(labelOverlap=False)),
        color=alt.Color("value:Q", title=["Jaccard index of boundary", "offsets (1 = same cuts)"],
                        scale=alt.Scale(scheme="viridis", domain=[0, 1]), legend=alt.Legend(orient="bottom")),
        label="label", dark_when="datum.value < 0.6",
        tooltip=[alt.Tooltip("tokenizer_a:N", title="tokenizer"), alt.Tooltip("tokenizer_b:N", title="vs"),
                 alt.Tooltip("jaccard:Q", title="Jaccard index", format=".4f"),
                 alt.Tooltip("f1:Q", title="F1 of boundaries", format=".4f"),
                 alt.Tooltip("n_shared:Q", title="shared boundary offsets", format=","),
                 alt.Tooltip("n_union:Q", title="boundary offsets in either", format=",")],
        order=order, title="Same text, different cuts: token-boundary agreement",
        n_cols=len(order), n_rows=len(order))


# figure name (as in the report) -> builder; the dashboard draws these from the report's tables
AnyChart = alt.Chart | alt.LayerChart | alt.VConcatChart
"""What every builder here returns: one view, a layered one, or views side by side."""
CHARTS: dict[str, Callable[[pd.DataFrame], AnyChart]] = {
    "chars_per_token_by_category": chars_per_token_by_category,
    "code_languages": code_languages,
    "code_variants": code_variants,
    "language_premium": language_premium,
    "tokenizer_reduction": tokenizer_reduction,
    "tokens_vs_digits": tokens_vs_digits,
    "single_token_years": single_token_years,
    "whitespace_deltas": whitespace_deltas,
    "boundary_agreement": boundary_agreement,
    "digit_grouping": digit_grouping,
    "trailing_suffix": trailing_suffix,
}
