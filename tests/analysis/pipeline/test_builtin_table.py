"""The checked-in table of the built-in corpora: current, equal to a live measurement, never trusted when old."""

from __future__ import annotations

import pandas as pd

from analysis import load_builtin, measure
from analysis.pipeline import builtin_table
from analysis.tokenizers.ownbpe_adapter import builtin_model_path


def test_builtin_table_is_current():
    assert builtin_table.build_table() == builtin_table.table_path().read_text(encoding="utf-8"), (
        "analysis/data/builtin-measured.csv is stale: the built-in corpora, a bundled vocabulary or the measuring "
        "changed. Fix: make builtin-table"
    )


def test_a_subset_in_another_order_equals_measuring_it_now():
    names = ["o200k_base", "gpt2", "ownbpe"]
    pd.testing.assert_frame_equal(builtin_table.measured_builtin(names), measure(load_builtin(), names))


def test_a_tokenizer_the_table_lacks_is_measured_and_merged_in_order():
    spec = f"ownbpe:{builtin_model_path()}"  # a spec, not a bundled name: not in the table
    names = ["cl100k_base", spec, "qwen2.5"]
    pd.testing.assert_frame_equal(builtin_table.measured_builtin(names), measure(load_builtin(), names))


def test_a_table_made_for_other_packages_is_not_used(tmp_path, monkeypatch):
    stale = tmp_path / builtin_table.FILE
    text = builtin_table.table_path().read_text(encoding="utf-8")
    header, rest = text.split("\n", 1)
    # the right key but wrong numbers would be shown; a wrong key must send it to a live measurement
    stale.write_text(header[:-4] + "0000\n" + rest.replace(",191,", ",999,"), encoding="utf-8")
    monkeypatch.setattr(builtin_table, "table_path", lambda: stale)
    assert builtin_table._stored() is None
    got = builtin_table.measured_builtin(["gpt2"])
    assert 999 not in set(got["n_tokens"])
    pd.testing.assert_frame_equal(got, measure(load_builtin(), ["gpt2"]))
