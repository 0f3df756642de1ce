"""The Explore page under AppTest: filters drive the tables, and the tables are the library's.

Every section's charts and tables are walked in test_charts.py."""

from __future__ import annotations

import pandas as pd

from analysis.corpora import load_builtin
from analysis.pipeline import measure, summarize
from tests.dashboards.conftest import open_page

PAGE = "app_pages/explore.py"


def _frame(at, name: str) -> pd.DataFrame:
    """The table shown with the download button of `name`.csv (each table has exactly one)."""
    labels = [b.label for b in at.download_button]
    return at.dataframe[labels.index(f"Download {name}.csv")].value


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
