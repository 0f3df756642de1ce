"""Figures of token counts and of the probes: each takes a tidy frame and returns a Figure.

Unlike `cost` (money, from cost reports), these draw `pipeline.measure` and probe frames. Figures
are built with `matplotlib.figure.Figure`, never pyplot: no global state, no `show()`, no
backend to choose, so the CLI, the report and the dashboard can all render the same object.
Frames are pivoted only here, for presentation. Tokenizers whose numbers are identical on a
chart (gpt2 and r50k_base share a vocabulary) are drawn once, labelled "gpt2 = r50k_base",
so no line hides another. `save_figure` writes PNG/SVG/PDF with no date or version in them,
so the same figure always gives the same file.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import IO

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm, TwoSlopeNorm
from matplotlib.figure import Figure

from ..atomic import atomic_path
from ..errors import BadInput

_PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf", "#393b79", "#ad494a")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "*", "p")
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")


# --- helpers -------------------------------------------------------------------------------
def _order(values: pd.Series) -> list[str]:
    """Categories in their categorical order if any, else in order of appearance."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        present = set(values.astype(str))
        return [str(c) for c in values.cat.categories if str(c) in present]
    return [str(v) for v in pd.unique(values.astype(str))]


def merge_identical(frame: pd.DataFrame, *, key: str, index: list[str], value: str) -> pd.DataFrame:
    """Collapse `key` values whose (`index` -> `value`) series are identical into one label "a = b".

    >>> f = pd.DataFrame({"tokenizer": ["a", "a", "b", "b", "c", "c"], "x": [1, 2] * 3, "y": [1, 2, 1, 2, 5, 6]})
    >>> merge_identical(f, key="tokenizer", index=["x"], value="y")["tokenizer"].unique().tolist()
    ['a = b', 'c']
    """
    wide = frame.assign(**{key: frame[key].astype(str)}).pivot_table(index=key, columns=index, values=value,
                                                                     observed=True, sort=False)
    order = _order(frame[key])
    wide = wide.reindex(order)
    signature = pd.util.hash_pandas_object(wide.round(9), index=False)  # one hash per row of the wide table
    labels = {name: " = ".join(signature[signature == sig].index) for name, sig in signature.items()}
    firsts = {name for name, sig in signature.items() if signature[signature == sig].index[0] == name}
    kept = frame[frame[key].astype(str).isin(firsts)]
    merged = [labels[n] for n in order if n in firsts]
    return kept.assign(**{key: pd.Categorical(kept[key].astype(str).map(labels), categories=merged)})


def _annotate(ax, data: np.ndarray, fmt, *, norm, cmap) -> None:
    """Write each cell's value, in black or white for contrast with its colour."""
    for (i, j), v in np.ndenumerate(data):
        if np.isnan(v):
            continue
        r, g, b, _ = cmap(norm(v))
        dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
        ax.text(j, i, fmt(v), ha="center", va="center", fontsize=7, color="white" if dark else "black")


def _heatmap(fig: Figure, ax, wide: pd.DataFrame, *, cmap, norm, fmt, cbar_label: str) -> None:
    data = wide.to_numpy(dtype=float)
    image = ax.imshow(np.ma.masked_invalid(data), aspect="auto", cmap=cmap, norm=norm, interpolation="nearest")
    ax.set_xticks(range(wide.shape[1]), [str(c) for c in wide.columns], rotation=35, ha="right")
    ax.set_yticks(range(wide.shape[0]), [str(r) for r in wide.index])
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    _annotate(ax, data, fmt, norm=norm, cmap=cmap)
    fig.colorbar(image, ax=ax, shrink=0.6, pad=0.02, label=cbar_label)


def save_figure(fig: Figure, path: str | Path, *, dpi: int = 150) -> Path:
    """Save a figure reproducibly: the format follows the suffix (.png, .svg, .pdf).

    No creation date or software version is written, and SVG element ids come from a fixed
    salt, so the same figure gives byte-identical files (PDF: same matplotlib version).

    Raises:
        ValueError: an unsupported suffix.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FIGURE_SUFFIXES:
        raise BadInput(f"cannot save a figure as {str(path)!r}: use one of {', '.join(FIGURE_SUFFIXES)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        write_figure(fig, tmp, fmt=suffix[1:], dpi=dpi)
    return path


def write_figure(fig: Figure, target: str | Path | IO[bytes], *, fmt: str = "png", dpi: int = 150) -> None:
    """Write `fig` as `fmt` ("png", "svg", "pdf") to a path or a binary file, reproducibly (see
    `save_figure`); for figures embedded in a page or served, which have no file of their own."""
    metadata = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
                "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}[fmt]
    with matplotlib.rc_context({"svg.hashsalt": "tokenprism", "svg.fonttype": "path"}):
        fig.savefig(target, format=fmt, dpi=dpi, metadata=metadata)


def figure_bytes(fig: Figure, *, fmt: str = "png", dpi: int = 110) -> bytes:
    """`fig` as reproducible bytes (the same figure gives the same bytes)."""
    buf = io.BytesIO()
    write_figure(fig, buf, fmt=fmt, dpi=dpi)
    return buf.getvalue()


# --- measure -------------------------------------------------------------------------------
def chars_per_token_by_category(summary: pd.DataFrame, *, value: str = "chars_per_token_of_sums") -> Figure:
    """One panel per category, one bar per tokenizer: characters per token (higher = cheaper).

    Args:
        summary: `measure.summarize(measured, ["category", "tokenizer"])`.
        value: the column to draw.

    Returns:
        A Figure; tokenizers in the same order on every panel.

    >>> s = pd.DataFrame({"category": ["prose", "code"], "tokenizer": ["t", "t"], "chars_per_token_of_sums": [4.5, 3.1]})
    >>> [a.get_title() for a in chars_per_token_by_category(s).axes]
    ['prose', 'code']
    """
    categories = _order(summary["category"])
    tokenizers = _order(summary["tokenizer"])
    wide = (summary.assign(category=summary["category"].astype(str), tokenizer=summary["tokenizer"].astype(str))
            .pivot_table(index="tokenizer", columns="category", values=value, observed=True)
            .reindex(index=tokenizers, columns=categories))
    fig = Figure(figsize=(2.3 * len(categories) + 1.6, 0.32 * len(tokenizers) + 1.6), layout="constrained")
    axes = fig.subplots(1, len(categories), sharey=True, squeeze=False)[0]
    y = np.arange(len(tokenizers))[::-1]
    top = np.nanmax(wide.to_numpy(dtype=float)) if wide.size else 1.0
    for ax, category in zip(axes, categories):
        values = wide[category].to_numpy(dtype=float)
        ax.barh(y, values, color=[_PALETTE[i % len(_PALETTE)] for i in range(len(tokenizers))], height=0.7)
        for yy, v in zip(y, values):
            if not np.isnan(v):
                ax.text(v + top * 0.02, yy, f"{v:.2f}", va="center", fontsize=7)
        ax.set_title(category)
        ax.set_xlim(0, top * 1.3)
        ax.grid(axis="x", alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_yticks(y, tokenizers)
    fig.supxlabel("characters per token (total chars / total tokens; higher = fewer tokens)", fontsize=9)
    fig.suptitle("Characters per token by category and tokenizer")
    return fig


# --- probe 1: code -------------------------------------------------------------------------
def code_languages(table: pd.DataFrame, *, value: str = "chars_per_token_of_sums") -> Figure:
    """Dot plot: chars/token per programming language (rows, sorted), one marker per tokenizer.

    Args:
        table: `code.code_languages`.
        value: the column to draw (or "token_premium_vs_prose").
    """
    data = merge_identical(table, key="tokenizer", index=["language"], value=value)
    order = (data.groupby("language", observed=True)[value].mean().sort_values().index.astype(str).tolist())
    y = {lang: i for i, lang in enumerate(order)}
    fig = Figure(figsize=(8.5, 0.33 * len(order) + 1.8), layout="constrained")
    ax = fig.add_subplot()
    for k, (name, part) in enumerate(data.groupby("tokenizer", observed=True, sort=True)):
        ax.scatter(part[value], part["language"].astype(str).map(y), label=str(name), s=28, alpha=0.85,
                   marker=_MARKERS[k % len(_MARKERS)], color=_PALETTE[k % len(_PALETTE)], zorder=3)
    ax.set_yticks(range(len(order)), order)
    ax.grid(alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    if value == "chars_per_token_of_sums":
        ax.set_xlabel("characters per token (total chars / total tokens; higher = fewer tokens)")
    else:
        ax.set_xlabel(value.replace("_", " "))
    ax.set_title("Code vs prose: characters per token by programming language")
    ax.legend(fontsize=7, loc="lower right", title="tokenizer", title_fontsize=7)
    return fig


def code_variants(variants: pd.DataFrame) -> Figure:
    """Heatmap of token change (%) of each code variant vs its baseline, per tokenizer.

    Args:
        variants: `code.code_variants` (or any `pipeline.variant_deltas` frame).
    """
    rows = variants[variants["variant"] != variants["baseline"]]
    rows = rows.assign(row=rows["group"].astype(str) + ": " + rows["variant"].astype(str)
                       + " vs " + rows["baseline"].astype(str))
    tokenizers = _order(rows["tokenizer"])
    wide = (rows.assign(tokenizer=rows["tokenizer"].astype(str))
            .pivot_table(index="row", columns="tokenizer", values="token_change_pct", sort=False)
            .reindex(columns=tokenizers))
    limit = max(float(np.nanmax(np.abs(wide.to_numpy(dtype=float)))) if wide.size else 1.0, 1.0)
    fig = Figure(figsize=(0.75 * len(tokenizers) + 5.5, 0.36 * len(wide) + 2.2), layout="constrained")
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["RdBu_r"]
    _heatmap(fig, ax, wide, cmap=cmap, norm=TwoSlopeNorm(0, -limit, limit), fmt=lambda v: f"{v:+.0f}%",
             cbar_label="token change vs baseline (%)")
    ax.set_title("Cost of indentation, JSON layout and identifier style\n"
                 "(% more tokens than the baseline variant of the same file; red = more)")
    return fig


# --- probe 2: languages --------------------------------------------------------------------
def language_premium(premium: pd.DataFrame) -> Figure:
    """Heatmap of the language premium (tokens / pivot tokens): languages sorted by mean premium.

    Args:
        premium: `languages.language_premium`.
    """
    pivot = str(premium["pivot"].iloc[0]) if "pivot" in premium.columns and len(premium) else "pivot"
    tokenizers = _order(premium["tokenizer"])
    wide = (premium.assign(tokenizer=premium["tokenizer"].astype(str),
                           label=premium["language"].astype(str) + " (" + premium["script"].astype(str) + ")")
            .pivot_table(index="label", columns="tokenizer", values="premium")
            .reindex(columns=tokenizers))
    wide = wide.loc[wide.mean(axis=1).sort_values(kind="stable").index]
    fig = Figure(figsize=(0.8 * len(tokenizers) + 4.5, 0.24 * len(wide) + 2.2), layout="constrained")
    ax = fig.add_subplot()
    values = wide.to_numpy(dtype=float)
    low, high = np.nanmin(values), np.nanmax(values)
    _heatmap(fig, ax, wide, cmap=matplotlib.colormaps["magma_r"], norm=LogNorm(max(min(low, 1.0), 0.1), max(high, 1.01)),
             fmt=lambda v: f"{v:.1f}" if v < 10 else f"{v:.0f}", cbar_label=f"tokens / tokens of {pivot} (log scale)")
    colorbar = fig.axes[-1]
    ticks = [t for t in (0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 50) if max(min(low, 1.0), 0.1) <= t <= max(high, 1.01)]
    colorbar.set_yticks(ticks, [f"{t:g}" for t in ticks], minor=False)
    colorbar.set_yticks([], minor=True)
    ax.xaxis.tick_top()
    ax.set_xticks(range(len(tokenizers)), tokenizers, rotation=35, ha="left")
    # two lines: with two or three tokenizers the figure is narrower than the one-line title
    ax.set_title(f"Language premium: tokens for the same text\nrelative to {pivot} (1.0 = parity)")
    return fig


def tokenizer_reduction(reduction: pd.DataFrame) -> Figure:
    """Bars: % fewer tokens per language under the newer tokenizer, largest first.

    Args:
        reduction: `languages.tokenizer_reduction`.
    """
    data = reduction.sort_values("reduction_pct", kind="stable")
    new, old = (str(data["new"].iloc[0]), str(data["old"].iloc[0])) if len(data) else ("new", "old")
    fig = Figure(figsize=(7.5, 0.24 * len(data) + 1.8), layout="constrained")
    ax = fig.add_subplot()
    labels = data["language"].astype(str) + " (" + data["script"].astype(str) + ")"
    colors = np.where(data["reduction_pct"] >= 0, "#2ca02c", "#d62728")
    values = data["reduction_pct"].to_numpy(dtype=float)
    lo, hi = min(0.0, np.nanmin(values, initial=0.0)), max(0.0, np.nanmax(values, initial=0.0))
    span = max(hi - lo, 10.0)  # a floor, so equal tokenizers (all 0%) still get a readable axis
    ax.barh(range(len(data)), values, color=colors, height=0.75)
    for i, v in enumerate(values):
        ax.text(v + (span if v >= 0 else -span) * 0.01, i, f"{v:.0f}%", va="center", ha="left" if v >= 0 else "right",
                fontsize=7)
    ax.set_xlim(lo - (0.12 * span if lo < 0 else 0), hi + 0.12 * span)
    ax.set_ylim(-0.6, len(data) - 0.4)
    ax.set_yticks(range(len(data)), labels.tolist(), fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel(f"fewer tokens with {new} than with {old} (%)")
    ax.set_title(f"Tokens saved per language: {new} vs {old}, same text")
    ax.grid(axis="x", alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


# --- probe 3: numbers ----------------------------------------------------------------------
def tokens_vs_digits(lengths: pd.DataFrame) -> Figure:
    """Lines: tokens per integer against its number of digits, one line per distinct tokenizer.

    Args:
        lengths: `numbers.digit_lengths`.
    """
    data = merge_identical(lengths, key="tokenizer", index=["n_digits"], value="tokens_per_number")
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.add_subplot()
    top = int(data["n_digits"].max()) if len(data) else 1
    ax.plot([1, top], [1, top], color="#bbbbbb", linestyle=":", linewidth=1, label="one token per digit")
    for k, (name, part) in enumerate(data.groupby("tokenizer", observed=True, sort=True)):
        part = part.sort_values("n_digits")
        ax.plot(part["n_digits"], part["tokens_per_number"], marker=_MARKERS[k % len(_MARKERS)], markersize=4,
                color=_PALETTE[k % len(_PALETTE)], label=str(name))
    ax.set_xlabel("digits in the integer")
    ax.set_ylabel("tokens per integer (mean over random integers)")
    ax.set_xticks(range(1, top + 1, 1 if top <= 20 else 2))
    ax.set_title("Tokens vs digits: single-digit, three-digit-chunk and learned-merge tokenizers")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def single_token_years(years: pd.DataFrame, *, zoom: tuple[int, int] = (2015, 2030)) -> Figure:
    """Grid: which years are a single token (dark) in each vocabulary, one row of panels per
    context ("2024" and " 2024"): the whole range, and a zoom with every year labelled.

    Args:
        years: `numbers.single_token_years` (columns tokenizer, context, number, single_token).
        zoom: first and last year of the labelled zoom panel.
    """
    if "context" not in years.columns:
        years = years.assign(context="bare")
    contexts = _order(years["context"])
    tokenizers = _order(years["tokenizer"])
    first, last = int(years["number"].min()), int(years["number"].max())
    z0, z1 = max(zoom[0], first), min(zoom[1], last)
    fig = Figure(figsize=(13, (0.25 * len(tokenizers) + 1.1) * len(contexts) + 0.8), layout="constrained")
    axes = fig.subplots(len(contexts), 2, squeeze=False, gridspec_kw={"width_ratios": [3, 1.3]})
    cmap = matplotlib.colors.ListedColormap(["#e8e8e8", "#1f4e79"])
    for (ax, zax), context in zip(axes, contexts):
        part = years[years["context"].astype(str) == context]
        grid = (part.assign(tokenizer=part["tokenizer"].astype(str))
                .pivot_table(index="tokenizer", columns="number", values="single_token", aggfunc="max")
                .reindex(index=tokenizers, columns=range(first, last + 1)).astype(float))
        shown = f'"{"" if context == "bare" else " "}2024"'
        for axis, (lo, hi) in ((ax, (first, last)), (zax, (z0, z1))):
            axis.imshow(grid.loc[:, lo:hi].to_numpy(), aspect="auto", cmap=cmap, vmin=0, vmax=1,
                        interpolation="nearest", extent=(lo - 0.5, hi + 0.5, len(tokenizers) - 0.5, -0.5))
            axis.set_yticks(range(len(tokenizers)), tokenizers, fontsize=8)
            # white lines between rows and (in the zoom) between years keep cells apart
            axis.set_yticks(np.arange(len(tokenizers) + 1) - 0.5, minor=True)
            axis.grid(which="minor", axis="y", color="white", linewidth=1)
            axis.tick_params(which="minor", length=0)
        ax.set_xticks(range(first + (-first) % 10, last + 1, 10))
        ax.tick_params(axis="x", labelsize=8)
        ax.set_title(f"{context}, e.g. {shown}: {first}-{last}", fontsize=9, loc="left")
        zax.set_xticks(range(z0, z1 + 1), [str(y) for y in range(z0, z1 + 1)], rotation=90, fontsize=7)
        zax.set_xticks(np.arange(z0, z1 + 2) - 0.5, minor=True)
        zax.grid(which="minor", axis="x", color="white", linewidth=1)
        zax.tick_params(axis="y", labelleft=False)
        zax.set_title(f"zoom: {z0}-{z1}", fontsize=9, loc="left")
    axes[-1][0].set_xlabel("year (dark = one token)")
    fig.suptitle("Which years are a single token in each vocabulary (dark = one token)")
    return fig


# --- probe 4: whitespace -------------------------------------------------------------------
def whitespace_deltas(trailing: pd.DataFrame) -> Figure:
    """Extra tokens (mean over texts) when appending k spaces (left) or newlines/tabs (right);
    hollow markers where the tokens before the suffix changed too.

    Args:
        trailing: `whitespace.trailing_whitespace`.
    """
    pooled = (trailing.assign(changed=~trailing["prefix_kept"].astype(bool))
              .groupby(["tokenizer", "suffix", "suffix_kind", "k"], observed=True, sort=True)
              .agg(extra=("extra_tokens", "mean"), changed=("changed", "mean")).reset_index())
    # tokenizers are merged when both the counts and the "changed" shares are identical
    data = merge_identical(pooled.assign(code=pd.factorize(pooled["extra"].round(6).astype(str) + "/"
                                                          + pooled["changed"].round(6).astype(str))[0]),
                           key="tokenizer", index=["suffix"], value="code")
    others = [s for s in _order(trailing["suffix"]) if not s.endswith(("space", "spaces"))]
    fig = Figure(figsize=(11, 5.2), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True, gridspec_kw={"width_ratios": [2.2, 1]})
    groups = list(data.groupby("tokenizer", observed=True, sort=True))
    for n, (name, part) in enumerate(groups):
        style = {"color": _PALETTE[n % len(_PALETTE)], "marker": _MARKERS[n % len(_MARKERS)]}
        shift = (n - (len(groups) - 1) / 2) * 0.07  # small offsets keep overlapping lines visible
        spaces = part[part["suffix_kind"] == "spaces"].sort_values("k")
        left.plot(spaces["k"] + shift, spaces["extra"], markersize=5, linewidth=1.3, label=str(name), **style)
        rest = part[part["suffix_kind"] != "spaces"].assign(x=lambda d: d["suffix"].astype(str).map(others.index))
        for _, seg in rest.groupby("suffix_kind", observed=True):
            seg = seg.sort_values("x")
            right.plot(seg["x"] + shift, seg["extra"], linewidth=1.3, color=style["color"])
        for ax, frame, x in ((left, spaces, spaces["k"]), (right, rest, rest["x"])):
            hollow = frame["changed"] > 0
            ax.scatter((x + shift)[hollow], frame["extra"][hollow], facecolors="white", edgecolors=style["color"],
                       marker=style["marker"], s=40, zorder=3, linewidths=1.3)
            ax.scatter((x + shift)[~hollow], frame["extra"][~hollow], color=style["color"], marker=style["marker"],
                       s=22, zorder=3)
    left.set_xticks(range(int(data["k"].max()) + 1 if len(data) else 1))
    left.set_xlabel("trailing spaces appended (k)")
    left.set_ylabel("extra tokens (mean over texts)")
    left.set_title("k spaces", fontsize=10, loc="left")
    right.set_xticks(range(len(others)), others, rotation=30, ha="right")
    right.set_xlim(-0.5, len(others) - 0.5)
    right.set_xlabel("appended instead")
    right.set_title("newlines and tabs", fontsize=10, loc="left")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
    left.legend(fontsize=7, loc="upper left")
    fig.suptitle("Trailing whitespace: extra tokens when a text ends in spaces, newlines or tabs\n"
                 "(hollow marker: the tokens before the suffix changed too, e.g. \".\" + \"\\n\" -> \".\\n\")", fontsize=11)
    return fig


# --- probe 5: boundaries -------------------------------------------------------------------
def boundary_agreement(matrix: pd.DataFrame) -> Figure:
    """Heatmap of pairwise boundary agreement (Jaccard of boundary offsets, pooled over texts).

    Args:
        matrix: `boundaries.agreement_matrix`.
    """
    names = _order(matrix["tokenizer_a"])
    wide = (matrix.assign(tokenizer_a=matrix["tokenizer_a"].astype(str), tokenizer_b=matrix["tokenizer_b"].astype(str))
            .pivot_table(index="tokenizer_a", columns="tokenizer_b", values="value")
            .reindex(index=names, columns=names))
    fig = Figure(figsize=(0.62 * len(names) + 3.2, 0.5 * len(names) + 2.0), layout="constrained")
    ax = fig.add_subplot()
    _heatmap(fig, ax, wide, cmap=matplotlib.colormaps["viridis"], norm=matplotlib.colors.Normalize(0, 1),
             fmt=lambda v: f"{v:.2f}", cbar_label="Jaccard index of boundary offsets (1 = same cuts)")
    ax.set_title("Same text, different cuts: token-boundary agreement between tokenizers")
    return fig
