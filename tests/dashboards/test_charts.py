"""Interactive charts under AppTest: every figure on Explore and Why is a Vega-Lite element built
from the library's own frame, with tooltips, unit-bearing axis titles and the tokenizer selection."""

from __future__ import annotations

import pandas as pd

from analysis import available_tokenizers
from analysis.plots import charts
from analysis.probes import run_probe
from analysis.probes.numbers import digit_grouping
from tests.dashboards.conftest import open_link, open_page, vega_charts

EXPLORE = "app_pages/explore.py"
WHY = "app_pages/why.py"
# section -> its tables (one CSV download each)
SECTION_TABLES = {
    "Categories": ["summary-by-category", "measured"],
    "1 · Code": ["code-languages", "code-variants", "whitespace-tokens"],
    "2 · Languages": ["language-premium", "tokenizer-reduction", "bytes-per-char"],
    "3 · Numbers": ["digit-lengths", "single-token-years", "single-token-numbers", "digit-grouping", "thousands-separators"],
    "4 · Whitespace": ["trailing-whitespace", "whitespace-summary", "leading-space"],
    "5 · Boundaries": ["agreement-matrix", "boundary-agreement"],
}
# section -> the figures drawn there, in order (the report's figure names)
SECTION_CHARTS = {
    "Categories": ["chars_per_token_by_category"],
    "1 · Code": ["code_languages", "code_variants"],
    "2 · Languages": ["language_premium", "tokenizer_reduction"],
    "3 · Numbers": ["tokens_vs_digits", "single_token_years"],
    "4 · Whitespace": ["whitespace_deltas"],
    "5 · Boundaries": ["boundary_agreement"],
}


def _walk(spec: dict):
    """Every view of a (possibly layered or concatenated) spec."""
    yield spec
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for sub in spec.get(key, []):
            yield from _walk(sub)


def _params(spec: dict) -> set[str]:
    return {p["name"] for view in _walk(spec) for p in view.get("params", [])}


def _tooltips(spec: dict) -> list[dict]:
    return [t for view in _walk(spec) for t in view.get("encoding", {}).get("tooltip", [])]


def _axis_titles(spec: dict) -> list[str]:
    return [view["encoding"][axis]["title"] for view in _walk(spec) for axis in ("x", "y")
            if isinstance(view.get("encoding", {}).get(axis), dict) and view["encoding"][axis].get("title")]


def _with(datasets: list[pd.DataFrame], column: str) -> pd.DataFrame:
    found = [d for d in datasets if column in d.columns]
    assert len(found) == 1, [d.columns.tolist() for d in datasets]
    return found[0]


def _records(chart) -> list[list[dict]]:
    """The datasets a chart builder puts in its spec, as sorted records (for comparing with a page's)."""
    spec = chart.to_dict()
    return sorted((sorted(map(repr, rows)) for rows in spec["datasets"].values()), key=len)


def _page_records(datasets: list[pd.DataFrame]) -> list[list[dict]]:
    rows = [[{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()} for r in d.to_dict("records")]
            for d in datasets]
    return sorted((sorted(map(repr, r)) for r in rows), key=len)


def test_every_explore_figure_is_an_interactive_chart_and_every_table_is_offered():
    names = available_tokenizers()
    # charts rebuilt here from the library's own tables must equal the page's, dataset for dataset
    rebuilt = {"tokens_vs_digits": "digit-lengths", "boundary_agreement": "agreement-matrix"}
    at = open_page(EXPLORE)
    for section, expected in SECTION_CHARTS.items():
        at.segmented_control(key="ex_section").set_value(section).run()
        assert not at.exception, section
        assert [b.label for b in at.download_button] == [f"Download {t}.csv" for t in SECTION_TABLES[section]]
        assert not at.get("image"), f"{section}: a static image is left"
        found = vega_charts(at)
        assert len(found) == len(expected), section
        for name, (spec, datasets) in zip(expected, found):
            assert charts.PICK in _params(spec), f"{name}: no tokenizer selection"
            tips = _tooltips(spec)
            assert tips, f"{name}: tooltips without titles"
            assert all(t.get("title") for t in tips), f"{name}: tooltips without titles"
            assert any(t.get("format") or t["type"] == "quantitative" for t in tips), name
            assert _axis_titles(spec), f"{name}: axes without titles"
            assert datasets, name
            assert all(len(d) for d in datasets), name
            if name in rebuilt:
                table = run_probe(rebuilt[name], tokenizers=names)
                assert _page_records(datasets) == _records(charts.CHARTS[name](table)), name
    # a probe table is the library's table, unfiltered
    shown = at.dataframe[[b.label for b in at.download_button].index("Download agreement-matrix.csv")].value
    expected = run_probe("agreement-matrix", tokenizers=names)
    assert shown["jaccard"].round(9).tolist() == expected["jaccard"].round(9).tolist()


def test_chart_data_is_the_probe_table():
    """The premium heatmap's data is `language-premium` as the library computes it, cell for cell."""
    names = available_tokenizers()
    at = open_link(EXPLORE, {"ex_section": "2 · Languages"})
    (premium_spec, premium_data), (_, reduction_data) = vega_charts(at)
    expected = run_probe("language-premium", tokenizers=names)
    shown = _with(premium_data, "premium")
    key = ["language", "tokenizer"]
    merged = expected.assign(tokenizer=expected["tokenizer"].astype(str)).merge(shown, on=key, suffixes=("", "_chart"))
    assert len(merged) == len(expected) == len(shown)
    assert (merged["n_tokens"] == merged["n_tokens_chart"]).all()
    assert (merged["premium"] - merged["premium_chart"]).abs().max() < 1e-12
    # the log colour scale and the written cell values survive into the rendered spec
    scales = [v["encoding"]["color"]["scale"] for v in _walk(premium_spec)
              if v.get("mark", {}).get("type") == "rect" and "color" in v.get("encoding", {})]
    assert scales
    assert scales[0]["type"] == "log"
    texts = [v for v in _walk(premium_spec) if v.get("mark", {}).get("type") == "text"]
    assert texts
    assert texts[0]["encoding"]["text"]["field"] == "label"
    telugu = shown[(shown["language"] == "te") & (shown["tokenizer"] == "o200k_base")].iloc[0]
    assert telugu["label"] == (f"{telugu['premium']:.1f}" if telugu["premium"] < 10 else f"{telugu['premium']:.0f}")
    # the whole chart is what the builder makes of the library's table
    reduction = run_probe("tokenizer-reduction", tokenizers=names)
    assert _page_records(reduction_data) == _records(charts.tokenizer_reduction(reduction))


def test_why_charts_follow_the_inputs():
    at = open_page(WHY)
    at.text_input(key="why_number").set_value("31415926535").run()
    assert not at.exception
    found = vega_charts(at)
    assert len(found) == 3  # digit grouping, years grid, trailing suffix
    for spec, _ in found:
        assert charts.PICK in _params(spec)
        assert all(t.get("title") for t in _tooltips(spec))
    grouping = _with(found[0][1], "pieces").set_index("tokenizer")
    expected = digit_grouping(available_tokenizers(), ["31415926535"]).set_index("tokenizer")
    assert grouping["n_tokens"].to_dict() == expected["n_tokens"].to_dict()
    assert grouping.loc["cl100k_base", "pieces"] == "314|159|265|35"
    years = _with(found[1][1], "single_token")
    assert set(years["context"]) == {"bare"}
    assert years.loc[(years["tokenizer"] == "gpt2") & (years["number"] == 2000), "single_token"].item()
    suffix = _with(found[2][1], "extra_tokens").set_index("tokenizer")
    assert ((suffix["after"] - suffix["before"]) == suffix["extra_tokens"]).all()
