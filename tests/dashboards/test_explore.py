"""The Explore page under AppTest: filters drive the tables, and the tables are the library's."""

from __future__ import annotations

import pandas as pd

from analysis import available_tokenizers
from analysis.corpora import load_builtin
from analysis.pipeline import measure, summarize
from analysis.probes import run_probe
from tests.dashboards.conftest import open_page

PAGE = "app_pages/explore.py"
SECTIONS = {
    "Categories": ["summary-by-category", "measured"],
    "1 · Code": ["code-languages", "code-variants", "whitespace-tokens"],
    "2 · Languages": ["language-premium", "tokenizer-reduction", "bytes-per-char"],
    "3 · Numbers": ["digit-lengths", "single-token-years", "single-token-numbers", "digit-grouping", "thousands-separators"],
    "4 · Whitespace": ["trailing-whitespace", "whitespace-summary", "leading-space"],
    "5 · Boundaries": ["agreement-matrix", "boundary-agreement"],
}


def _frame(at, name: str) -> pd.DataFrame:
    """The table shown with the download button of `name`.csv (each table has exactly one)."""
    labels = [b.label for b in at.download_button]
    return at.dataframe[labels.index(f"Download {name}.csv")].value


def test_every_section_draws_its_figures_and_offers_its_tables():
    at = open_page(PAGE)
    names = available_tokenizers()
    assert set(_frame(at, "summary-by-category")["tokenizer"].astype(str)) == set(names)
    for section, tables in SECTIONS.items():
        at.segmented_control(key="ex_section").set_value(section).run()
        assert not at.exception, section
        assert [b.label for b in at.download_button] == [f"Download {t}.csv" for t in tables]
        assert len(at.get("image")) >= 1, section
    # a probe table is the library's table, unfiltered
    shown = _frame(at, "agreement-matrix")
    expected = run_probe("agreement-matrix", tokenizers=names)
    assert shown["jaccard"].round(9).tolist() == expected["jaccard"].round(9).tolist()


def test_filters_drive_the_numbers_and_they_equal_measure():
    at = open_page(PAGE)
    at.multiselect(key="ex_tokenizers").set_value(["cl100k_base", "o200k_base"])
    at.multiselect(key="ex_categories").set_value(["code"]).run()
    assert not at.exception
    shown = _frame(at, "summary-by-category")
    expected = summarize(measure(load_builtin(["code"]), ["cl100k_base", "o200k_base"]), ["category", "tokenizer"])
    assert shown["tokenizer"].astype(str).tolist() == expected["tokenizer"].astype(str).tolist()
    assert shown["n_tokens"].tolist() == expected["n_tokens"].tolist()
    assert shown["chars_per_token_of_sums"].round(9).tolist() == expected["chars_per_token_of_sums"].round(9).tolist()

    at.multiselect(key="ex_languages").set_value(["fr", "de"]).run()
    assert any("No sample matches" in i.value for i in at.info)  # code has no French or German samples
    at.segmented_control(key="ex_section").set_value("2 · Languages").run()
    assert not at.exception
    premium = _frame(at, "language-premium")
    assert set(premium["language"].astype(str)) == {"fr", "de"}
    assert set(premium["tokenizer"].astype(str)) == {"cl100k_base", "o200k_base"}

    at.multiselect(key="ex_tokenizers").set_value([]).run()
    assert not at.exception
    assert any("at least one tokenizer" in w.value for w in at.warning)
