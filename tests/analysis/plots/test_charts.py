"""Interactive charts: each builder turns the report's tidy frame into a valid Vega-Lite spec with
tooltips, unit-bearing axis titles, the tokenizer selection, and the frame's numbers as its data."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.pipeline import summarize
from analysis.plots import charts
from analysis.probes import ProbeRun, run_probe

TOKS = "gpt2,cl100k_base,o200k_base,qwen2.5"


@pytest.fixture(scope="module")
def run():
    return ProbeRun(tokenizers=TOKS, texts={"a": "Hello world", "b": "The answer is 42."})


def _views(spec: dict):
    yield spec
    for key in ("layer", "hconcat", "vconcat"):
        for sub in spec.get(key, []):
            yield from _views(sub)


def _spec(chart) -> dict:
    return chart.to_dict()  # validates against the Vega-Lite schema


@pytest.mark.parametrize("table, name, unit", [
    ("code-languages", "code_languages", "characters per token"),
    ("code-variants", "code_variants", "(%)"),
    ("language-premium", "language_premium", "tokens / tokens of en"),
    ("tokenizer-reduction", "tokenizer_reduction", "tokens for the same parallel text"),
    ("digit-lengths", "tokens_vs_digits", "tokens per integer"),
    ("single-token-years", "single_token_years", "year"),
    ("trailing-whitespace", "whitespace_deltas", "extra tokens"),
    ("agreement-matrix", "boundary_agreement", "Jaccard"),
])
def test_every_chart_has_tooltips_units_and_the_tokenizer_pick(run, table, name, unit):
    frame = run_probe(table, run)
    spec = _spec(charts.CHARTS[name](frame))
    views = list(_views(spec))
    assert any(p["name"] == charts.PICK for v in views for p in v.get("params", [])), "no tokenizer selection"
    tips = [t for v in views for t in v.get("encoding", {}).get("tooltip", [])]
    assert tips
    assert all(t.get("title") for t in tips)
    titles = [str(v["encoding"][ch].get("title")) for v in views for ch in ("x", "y", "color")
              if isinstance(v.get("encoding", {}).get(ch), dict)]
    assert any(unit in t for t in titles), titles
    # the frame's tokenizers are all in the chart's data (reduction: the old and new tokenizer)
    column = next(c for c in ("tokenizer", "tokenizer_a", "new") if c in frame.columns)
    charted = {r.get("tokenizer", r.get("tokenizer_a")) for data in spec["datasets"].values() for r in data}
    assert {str(t) for t in frame[column].unique()} <= charted


def test_category_bars_carry_the_summary_numbers(run):
    summary = summarize(run.corpus, ["category", "tokenizer"])
    spec = _spec(charts.chars_per_token_by_category(summary))
    (data,) = spec["datasets"].values()
    shown = pd.DataFrame(data)
    assert shown["n_tokens"].tolist() == summary["n_tokens"].tolist()
    assert shown["chars_per_token_of_sums"].tolist() == summary["chars_per_token_of_sums"].tolist()
    assert spec["params"][0]["bind"] == "legend"


def test_premium_heatmap_has_a_log_colour_scale_and_cell_values(run):
    premium = run_probe("language-premium", run)
    spec = _spec(charts.language_premium(premium))
    grid = spec
    rect, text = grid["layer"]
    assert rect["encoding"]["color"]["scale"]["type"] == "log"
    assert text["mark"]["type"] == "text"
    assert text["encoding"]["text"]["field"] == "label"
    cells = pd.DataFrame(spec["datasets"][spec["data"]["name"]])
    assert spec["autosize"]["type"] == "fit-x"  # the column's width, whatever the tokenizers
    # a click on a cell picks its tokenizer
    assert charts.PICK in {p["name"] for p in [*spec.get("params", []), *rect.get("params", [])]}
    worst = cells.loc[cells["premium"].idxmax()]
    assert worst["label"] in (f"{worst['premium']:.1f}", f"{worst['premium']:.0f}")


def test_digit_grouping_and_suffix_bars():
    grouping = pd.DataFrame({"tokenizer": ["a", "b"], "number": ["2024", "2024"], "n_tokens": [1, 2],
                             "pieces": ["2024", "202|4"]})
    spec = _spec(charts.digit_grouping(grouping))
    assert [t["title"] for t in spec["encoding"]["tooltip"]] == ["tokenizer", "number", "tokens", "pieces"]
    table = pd.DataFrame({"tokenizer": ["a"], "before": [2], "after": [3], "extra_tokens": [1]})
    assert _spec(charts.trailing_suffix(table))["encoding"]["x"]["title"] == "extra tokens (after − before)"


def test_thin_lines_differ_in_dash_or_shape_where_colours_look_alike():
    """Every catalogued tokenizer has its own (colour, dash, shape); the pairs whose colours looked
    alike on thin lines (cl100k/mistral-v1, r50k/claude-legacy, gemma3/glm4) differ in dash and shape."""
    from analysis.tokenizers import CATALOGUE

    order = list(CATALOGUE)
    styles = list(zip(charts.tokenizer_colors(order), map(tuple, charts.tokenizer_dashes(order)),
                      charts.tokenizer_shapes(order)))
    assert len(set(styles)) == len(order)
    style = dict(zip(order, styles))
    for a, b in (("cl100k_base", "mistral-v1"), ("r50k_base", "claude-legacy"), ("gemma3", "glm4")):
        assert style[a][1] != style[b][1] and style[a][2] != style[b][2], (a, b)
    # one legend: colour, dash and shape by the same field and title, so Vega-Lite merges them
    lengths = pd.DataFrame({"tokenizer": order * 2, "n_digits": [1] * len(order) + [2] * len(order),
                            "n_numbers": 10, "tokens_per_number": 1.0, "min_tokens": 1, "max_tokens": 1})
    lines = _spec(charts.tokens_vs_digits(lengths))["layer"][1]["encoding"]
    assert {lines[k]["legend"]["title"] for k in ("color", "strokeDash", "shape")} == {"tokenizer (click to pick)"}
    assert lines["strokeDash"]["scale"]["domain"] == order
