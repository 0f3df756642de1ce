"""The measuring pipeline: invariants of the tidy frame, words, streaming, aggregates, output."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.corpora import Labeled, Sample, load_builtin, samples_to_frame
from analysis.pipeline import (
    COLUMNS,
    as_tokenizers,
    iter_sample_chunks,
    measure,
    summarize,
    text_stats,
    token_counts,
    variant_deltas,
    write_table,
)

TOKS = "gpt2,cl100k_base,o200k_base"


@pytest.fixture(scope="module")
def toks():
    return as_tokenizers(TOKS)


@pytest.fixture(scope="module")
def builtin():
    return load_builtin()


@pytest.fixture(scope="module")
def measured(builtin, toks):
    return measure(builtin, toks)


def _sample(i, text, **kw):
    return Sample(kw.get("id", f"s{i}"), kw.get("category", "prose"), "en", "Latn", "note", text, "test")


# --- invariants ------------------------------------------------------------------------------
def test_one_row_per_sample_and_tokenizer(measured, builtin, toks):
    assert list(measured.columns) == list(COLUMNS)
    assert len(measured) == len(builtin) * len(toks)
    assert not measured.duplicated(["sample_id", "tokenizer"]).any()
    assert list(measured["tokenizer"].cat.categories) == [t.name for t in toks]


def test_ratios_are_consistent_with_counts(measured):
    m = measured[measured["n_tokens"] > 0]
    np.testing.assert_allclose(m["bytes_per_token"] * m["n_tokens"], m["n_bytes"], rtol=1e-12)
    np.testing.assert_allclose(m["chars_per_token"] * m["n_tokens"], m["n_chars"], rtol=1e-12)
    words = m[m["n_words"] > 0]
    np.testing.assert_allclose(words["tokens_per_word"] * words["n_words"], words["n_tokens"], rtol=1e-12)
    assert (measured["n_bytes"] >= measured["n_chars"]).all()


def test_counts_match_the_tokenizer_and_the_text(measured, builtin, toks):
    row = measured[(measured["sample_id"] == "prose/email-01") & (measured["tokenizer"] == "cl100k_base")].iloc[0]
    text = builtin.set_index("id").loc["prose/email-01", "text"]
    assert row["n_tokens"] == len(toks[1].encode(text))
    assert row["n_chars"] == len(text)
    assert row["n_bytes"] == len(text.encode("utf-8"))


def test_labels_are_categoricals_and_group_is_kept(measured):
    for col in ("category", "language", "script", "kind", "group", "variant", "tokenizer"):
        assert isinstance(measured[col].dtype, pd.CategoricalDtype), col
    tabs = measured[measured["sample_id"] == "code/python/inventory_tabs"]
    assert set(tabs["group"].astype(str)) == {"python-inventory-indentation"}
    assert set(tabs["variant"].astype(str)) == {"tabs"}


def test_frame_and_iterable_and_chunks_give_the_same_rows(toks):
    samples = [_sample(i, t) for i, t in enumerate(["Hello world", "", "x = 1  \n", "Привет, мир", "1234567"])]
    from_list = measure(samples, toks)
    from_frame = measure(samples_to_frame(samples), toks)
    streamed = measure(iter(samples), toks, chunk_chars=5)  # several chunks
    cols = ["sample_id", "tokenizer", "n_chars", "n_bytes", "n_words", "n_tokens"]
    for other in (from_frame, streamed):
        pd.testing.assert_frame_equal(from_list[cols].astype({"tokenizer": str}), other[cols].astype({"tokenizer": str}))


def test_chunking_cuts_by_size_and_count():
    samples = [_sample(i, "abcd") for i in range(10)]
    assert [len(c) for c in iter_sample_chunks(samples, chunk_chars=8)] == [2, 2, 2, 2, 2]
    assert [len(c) for c in iter_sample_chunks(samples, chunk_samples=4)] == [4, 4, 2]
    frame = pd.DataFrame({"id": [str(i) for i in range(10)], "text": ["abcd"] * 10})
    assert [len(c) for c in iter_sample_chunks(frame, chunk_chars=8)] == [2, 2, 2, 2, 2]
    assert [len(c) for c in iter_sample_chunks(frame, chunk_samples=4)] == [4, 4, 2]


def test_labeled_samples_keep_group_and_variant(toks):
    m = measure([Labeled(_sample(0, "a b"), "g", "v1"), Labeled(_sample(1, "a  b"), "g", "v2")], toks[:1])
    assert m["variant"].astype(str).tolist() == ["v1", "v2"]


def test_lone_surrogates_are_counted_like_the_adapters_count_them(toks):
    m = measure([_sample(0, "a\ud83db")], toks)
    assert (m["n_bytes"] == 5).all()
    assert m["n_tokens"].tolist() == [len(t.encode("a\ufffdb")) for t in toks]


def test_empty_text_gives_nan_ratios_not_errors(toks):
    m = measure([_sample(0, "")], toks)
    assert (m["n_tokens"] == 0).all()
    assert m[["chars_per_token", "bytes_per_token", "tokens_per_word"]].isna().all().all()


def test_empty_input_gives_an_empty_frame_with_the_columns(toks):
    m = measure([], toks)
    assert list(m.columns) == list(COLUMNS)
    assert len(m) == 0


def test_duplicate_sample_ids_are_an_error(toks):
    with pytest.raises(ValueError, match="'dup' occurs more than once"):
        measure([_sample(0, "a", id="dup"), _sample(1, "b", id="dup")], toks)
    with pytest.raises(ValueError, match="occurs more than once"):  # across chunks too
        measure(iter([_sample(0, "aaaa", id="dup"), _sample(1, "bbbb", id="dup")]), toks, chunk_chars=2)


def test_bad_inputs_name_the_problem(toks):
    with pytest.raises(KeyError, match="nonexistent"):
        measure([_sample(0, "a")], "nonexistent")
    with pytest.raises(ValueError, match="given twice"):
        as_tokenizers("gpt2,gpt2")
    with pytest.raises(ValueError, match="no 'text' column"):
        measure(pd.DataFrame({"id": ["a"]}), toks)
    with pytest.raises(TypeError, match="Sample or Labeled"):
        measure(["just a string"], toks)


def test_token_counts_fast_path_equals_batch_path(toks, builtin):
    texts = builtin["text"].tolist()[:20] + ["", "a", "1234567", " " * 50]
    for tok in toks:
        expected = [len(ids) for ids in tok.encode_batch(texts)]
        assert token_counts(tok, texts).tolist() == expected


# --- sizes -----------------------------------------------------------------------------------
_MIXED = st.text(st.sampled_from(list("ab1 ,.-\n\r\t_=") + list("ภาษาไทยេខ្មែរ東京はПриветé\u0e31\u200d👍\u00a0\x1c")), max_size=40)


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(_MIXED, min_size=1, max_size=8), cats=st.lists(st.sampled_from("xy"), min_size=8, max_size=8))
def test_chunk_sums_equal_the_sums_of_the_rows(texts, cats):
    # the aggregates-only path counts words over joined texts: it must add up to the per-row counts
    from analysis.pipeline import chunk_sums, measure_chunk, partial_sums

    chunk = pd.DataFrame({"sample_id": [str(i) for i in range(len(texts))], "category": cats[:len(texts)],
                          "language": "und", "script": "Latn", "kind": "note", "group": "", "variant": "", "text": texts})
    toks = as_tokenizers("gpt2")
    for by in (["category", "tokenizer"], ["tokenizer"], ["category"]):
        want = partial_sums(measure_chunk(chunk, toks), by)
        got = chunk_sums(chunk, toks, by)
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True), check_dtype=False,
                                      check_categorical=False)


def test_text_stats_counts_code_points_and_utf8_bytes():
    stats = text_stats(pd.Series(["é", "日本", "a\ud83db"], dtype=object))
    assert stats["n_chars"].tolist() == [1, 2, 3]
    assert stats["n_bytes"].tolist() == [2, 6, 5]  # a lone surrogate counts as U+FFFD: 3 bytes


# --- aggregates ------------------------------------------------------------------------------
def test_summarize_is_a_ratio_of_sums(measured):
    s = summarize(measured, ["category", "tokenizer"])
    assert {"chars_per_token_of_sums", "bytes_per_token_of_sums", "tokens_per_word_of_sums"} <= set(s.columns)
    prose = measured[(measured["category"] == "prose") & (measured["tokenizer"] == "cl100k_base")]
    row = s[(s["category"] == "prose") & (s["tokenizer"] == "cl100k_base")].iloc[0]
    assert row["chars_per_token_of_sums"] == pytest.approx(prose["n_chars"].sum() / prose["n_tokens"].sum())
    assert row["n_samples"] == len(prose)
    assert s["category"].astype(str).tolist()[:3] == ["prose"] * 3  # corpus order, not alphabetical


def test_summarize_differs_from_the_mean_of_ratios():
    m = pd.DataFrame({"category": ["c", "c"], "tokenizer": ["t", "t"], "sample_id": ["a", "b"],
                      "n_chars": [10, 1000], "n_bytes": [10, 1000], "n_words": [1, 1], "n_tokens": [10, 100]})
    assert summarize(m)["chars_per_token_of_sums"].iloc[0] == pytest.approx(1010 / 110)


def test_summarize_unknown_column():
    with pytest.raises(KeyError, match="cannot group by"):
        summarize(pd.DataFrame({"sample_id": []}), ["nope"])


def test_variant_deltas_against_the_baseline(measured):
    d = variant_deltas(measured, ["json-catalogue-layout"])
    base = d[d["variant"] == "minified"]
    assert (base["extra_tokens"] == 0).all()
    assert (base["baseline"] == "minified").all()
    pretty = d[(d["variant"] == "pretty-2") & (d["tokenizer"] == "cl100k_base")].iloc[0]
    assert pretty["token_change_pct"] == pytest.approx(100 * pretty["extra_tokens"] / pretty["baseline_tokens"])
    assert pretty["extra_tokens"] > 0  # pretty-printing costs tokens
    with pytest.raises(KeyError, match="no samples in group"):
        variant_deltas(measured, ["no-such-group"])


# --- output ----------------------------------------------------------------------------------
def test_write_table_csv_is_byte_identical_and_parquet_round_trips(measured, tmp_path):
    a = write_table(measured, tmp_path / "a.csv")
    b = write_table(measured.copy(), tmp_path / "sub" / "b.csv")
    assert a.read_bytes() == b.read_bytes()
    assert b"\r\n" not in a.read_bytes()
    p = write_table(measured, tmp_path / "m.parquet")
    back = pd.read_parquet(p)
    pd.testing.assert_frame_equal(back.astype({c: str for c in ("category", "tokenizer")}),
                                  measured.astype({c: str for c in ("category", "tokenizer")}),
                                  check_dtype=False, check_categorical=False)
    assert len(pd.read_json(write_table(measured.head(3), tmp_path / "m.jsonl"), lines=True)) == 3


def test_write_table_rejects_unknown_suffix(measured, tmp_path):
    with pytest.raises(ValueError, match=r"\.csv, \.parquet"):
        write_table(measured, tmp_path / "m.xlsx")
