"""The driver's per-row path without a pandas row frame: the Arrow rows, the sums from counts, the id check.

`engine.measure` with `out=` (or `by=` and rows) used to build each chunk's rows as a pandas
frame (`rows_from_counts`), sum them (`partial_sums`) and write them (`to_parquet`). It now
writes `output.rows_table` and sums with `pipeline.counts_sums`, straight from the labels and
the counts. These tests hold both to the frame path on chunks with every kind of label: several
groups, scripts resolved by a worker, empty texts (no tokens: NaN ratios), every metric, and a
grouping with and without the tokenizer. The end-to-end recounts are in `test_counts`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pyarrow.parquet as pq
import pytest

from analysis import pipeline
from analysis.engine.output import PartitionedParquet, rows_table
from analysis.engine.read import iter_corpus_chunks
from analysis.errors import BadInput
from tests.analysis.engine.gen import jsonl_rows, text_folder

TOKS = ("o200k_base", "cl100k_base")


@pytest.fixture(scope="module")
def toks():
    return pipeline.as_tokenizers(",".join(TOKS))


@pytest.fixture(scope="module")
def chunk():
    """A chunk mixing categories, kinds, scripts to detect and given ones, and an empty text."""
    texts = ["hello world", "", "def f(x):\n    return x", "Привет, мир", "東京は晴れ", "  spaced  ", "12,345.67"]
    n = len(texts)
    return pd.DataFrame({
        "sample_id": [f"s{i}" for i in range(n)],
        "category": ["prose", "prose", "code", "prose", "multilingual", "whitespace", "numbers"],
        "language": ["en", "en", "python", "ru", "ja", "und", "und"],
        "script": ["Latn", pipeline.DETECT_SCRIPT, "Latn", pipeline.DETECT_SCRIPT, "Jpan", pipeline.DETECT_SCRIPT, "Zyyy"],
        "kind": ["note", "note", "code", "news", "news", "ws", "num"],
        "group": ["", "", "g", "", "", "g", ""], "variant": ["", "", "a", "", "", "b", ""],
        "text": pd.Series(texts, dtype=object),
    })


METRIC_SETS = [(), ("words",), ("words", "graphemes", "scripts")]


@pytest.mark.parametrize("metrics", METRIC_SETS, ids=["counts", "words", "every-metric"])
def test_rows_table_is_the_frame_path(chunk, toks, metrics, tmp_path):
    names = [t.name for t in toks]
    counts = pipeline.chunk_counts(chunk, toks, metrics=metrics)
    frame = pipeline.with_ratios(pipeline.rows_from_counts(chunk, counts, names))[list(pipeline.columns_for(metrics))]
    table = rows_table(chunk, counts, names)
    assert table.column_names == list(pipeline.columns_for(metrics))
    pdt.assert_frame_equal(table.to_pandas(), frame.astype({c: "str" for c in (*pipeline.SAMPLE_META, "tokenizer")}))
    assert np.isnan(table.column("chars_per_token").to_numpy()[2:4]).all()  # the empty text: no tokens, no ratio
    # written through the dataset writer, read back as before: the schema pandas wrote
    with PartitionedParquet(tmp_path / "arrow") as out:
        out.write(table)
    with PartitionedParquet(tmp_path / "pandas") as out:
        out.write(frame)
    assert pq.read_schema(next((tmp_path / "arrow").iterdir())).remove_metadata() == \
        pq.read_schema(next((tmp_path / "pandas").iterdir())).remove_metadata()
    pdt.assert_frame_equal(pd.read_parquet(tmp_path / "arrow"), pd.read_parquet(tmp_path / "pandas"))


@pytest.mark.parametrize("by", [["category", "tokenizer"], ["tokenizer", "kind", "script"], ["category"],
                                ["tokenizer"], ["group", "variant"]])
@pytest.mark.parametrize("metrics", METRIC_SETS, ids=["counts", "words", "every-metric"])
def test_counts_sums_equal_the_sums_of_the_rows(chunk, toks, by, metrics):
    names = [t.name for t in toks]
    counts = pipeline.chunk_counts(chunk, toks, metrics=metrics)
    rows = pipeline.rows_from_counts(chunk, counts, names)
    labels = rows.iloc[::len(names)].reset_index(drop=True)  # one row per sample, scripts as resolved
    got = pipeline.counts_sums(labels, counts.sizes, counts.tokens, names, by)
    expected = pipeline.partial_sums(rows, by)
    pdt.assert_frame_equal(got.astype({k: "str" for k in by}), expected.astype({k: "str" for k in by}))


def test_counts_sums_of_no_samples(toks):
    names = [t.name for t in toks]
    empty = pipeline.counts_sums(pd.DataFrame({"category": pd.Series([], dtype="str")}),
                                 {"n_chars": np.zeros(0, np.int64)}, np.zeros((0, 2), np.int64), names,
                                 ["category", "tokenizer"])
    assert len(empty) == 0 and list(empty.columns) == ["category", "tokenizer", "n_samples", "n_chars", "n_tokens"]


def test_the_reader_frame_keeps_its_ids_labels_and_dtypes(tmp_path):
    # (test_read compares the ids and labels with the loaders'; here: the frame's shape for the workers)
    jsonl_rows(tmp_path / "rows.jsonl", 300, seed=5)
    text_folder(tmp_path / "mixed", 1 << 14, file_bytes=1 << 12, seed=5)
    frames = list(iter_corpus_chunks([tmp_path / "rows.jsonl", tmp_path / "mixed"], column="text", chunk_samples=64))
    rows = pd.concat([f for f in frames if f["sample_id"].str.contains("rows.jsonl:").all()], ignore_index=True)
    numbers = rows["sample_id"].str.rsplit(":", n=1).str[1].astype(int)
    assert len(rows) > 200 and numbers.is_monotonic_increasing and numbers.is_unique
    for frame in frames:
        assert list(frame.columns) == [*pipeline.SAMPLE_META, "text"]
        assert frame["text"].dtype == object and isinstance(frame.index, pd.RangeIndex)
        assert all(frame[c].dtype == "str" for c in pipeline.SAMPLE_META)


def test_unique_ids_within_a_chunk_and_across_chunks():
    ids = pipeline.UniqueIds()
    ids.add(pd.Series([f"f:{i}" for i in range(10_000)], dtype="str"))
    ids.add(pd.Series([], dtype="str"))  # nothing to check, nothing kept
    ids.add(pd.Series(["g:1", "g:2"], dtype="str"))
    with pytest.raises(BadInput, match="'g:3' occurs more than once"):
        ids.add(pd.Series(["g:3", "g:4", "g:3"], dtype="str"))
    with pytest.raises(BadInput, match="'f:9999' occurs more than once"):
        ids.add(pd.Series(["h:1", "f:9999"], dtype="str"))
