"""The counts of every engine are those of a plain recount, text by text, with the tokenizers directly.

`test_engines` compares the engines with each other and with the in-process pipeline; this
module checks all of them against numbers computed without the pipeline at all: `len(text)`,
the UTF-8 length, `count_words`, and `len(tokenizer.encode(text))` for each text, one at a
time. So a faster counting path (joined texts, numpy sizes, forked workers, larger tasks) that
changed a number would fail here even if it changed it the same way on every engine.

The optional metrics (`--metrics words,graphemes,scripts`) are checked the same way, asked for
and not: a column not asked for is absent, the others are unchanged.

Inputs: the built-in corpora and a generated corpus (a folder of mixed text and short JSON
lines), read the ways the command line reads them: per-row (`engine.measure` over
`read.iter_corpus_chunks`) and aggregates where the workers read the files (`measure_files`).
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
import regex

from analysis import pipeline
from analysis.corpora import detect_script, load_builtin
from analysis.corpora.words import count_words
from analysis.engine import measure, measure_files, open_engine
from analysis.engine.base import InProcessEngine
from analysis.engine.local import LocalEngine, start_method
from analysis.engine.read import iter_corpus_chunks
from analysis.errors import UnknownName
from tests.analysis.engine.gen import jsonl_rows, text_folder

TOKS = ("o200k_base", "cl100k_base")
BY = ["category", "tokenizer"]


@pytest.fixture(scope="module")
def toks():
    return pipeline.as_tokenizers(",".join(TOKS))


@pytest.fixture(scope="module")
def engines():
    local = LocalEngine(2, small_input_chars=0)  # the pool even for small inputs
    dask = open_engine("dask", workers=2)
    yield {"inprocess": InProcessEngine(), "local": local, "dask": dask}
    local.close()
    dask.close()


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("counts")
    text_folder(root / "mixed", 1 << 20, file_bytes=1 << 18, seed=33)
    jsonl_rows(root / "rows.jsonl", 6_000, seed=33)
    return [str(root / "mixed"), str(root / "rows.jsonl")]


def recount(texts: list[str], toks) -> pd.DataFrame:
    """Sample-major rows of (n_chars, n_bytes, n_words, n_tokens), one text and one tokenizer at a time."""
    rows = []
    for text in texts:
        n_bytes = len(text.encode("utf-8", "surrogatepass"))  # a lone surrogate: 3 bytes, as its U+FFFD
        for tok in toks:
            rows.append((len(text), n_bytes, count_words(text), len(tok.encode(text))))
    return pd.DataFrame(rows, columns=list(pipeline.COUNTS)).astype("int64")


def recount_sums(counts: pd.DataFrame, categories: list[str], toks) -> pd.DataFrame:
    """The sums by category and tokenizer of `recount`'s rows."""
    counts = counts.assign(category=np.repeat(categories, len(toks)), tokenizer=np.tile([t.name for t in toks], len(categories)))
    return (counts.groupby(BY, sort=True).agg(n_samples=("n_tokens", "size"), **{c: (c, "sum") for c in pipeline.COUNTS})
            .reset_index().astype({c: "int64" for c in pipeline.SUMS}))


# The recounts (a few seconds each, one text at a time) are made once for the module: the tests
# compare with them and never change them (each test gets a copy).
@pytest.fixture(scope="module")
def _generated_recount(generated, toks):
    texts, categories = _generated_texts(generated)
    return texts, categories, recount(texts, toks)


@pytest.fixture
def generated_recount(_generated_recount):
    """(texts, categories, recount) of the generated corpus."""
    texts, categories, counts = _generated_recount
    return list(texts), list(categories), counts.copy()


@pytest.fixture(scope="module")
def _builtin_recount(toks):
    builtin = load_builtin()
    return builtin, recount(builtin["text"].tolist(), toks)


@pytest.fixture
def builtin_recount(_builtin_recount):
    """(the built-in corpora, their recount)."""
    builtin, counts = _builtin_recount
    return builtin.copy(), counts.copy()


def _sums(summary: pd.DataFrame) -> pd.DataFrame:
    return (summary.astype({k: str for k in BY})[[*BY, *pipeline.SUMS]].sort_values(BY).reset_index(drop=True)
            .astype({c: "int64" for c in pipeline.SUMS}))


# first: before the module's Dask client (a thread in this process) exists
def test_forked_and_spawned_workers_give_the_same_counts(toks, generated, generated_recount, monkeypatch):
    texts, categories, counts = generated_recount
    expected_sums = recount_sums(counts, categories, toks)
    import analysis.engine.local as local

    for method in ("fork", "spawn"):
        monkeypatch.setattr(local, "start_method", lambda method=method: method)
        with LocalEngine(2, small_input_chars=0) as engine:
            run = measure_files(generated, TOKS, by=BY, engine=engine, column="text", part_bytes=1 << 18)
            assert engine.start_method == method
        pdt.assert_frame_equal(_sums(run.summary), expected_sums, obj=f"sums with {method}ed workers")


def test_workers_spawn_while_another_thread_runs():
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    try:
        assert start_method() == "spawn"  # a fork would copy only this thread, with any lock the other holds
    finally:
        stop.set()
        other.join()


def test_builtin_rows_and_sums_equal_a_recount_on_every_engine(engines, toks, builtin_recount):
    builtin, expected = builtin_recount
    expected_sums = recount_sums(expected, builtin["category"].astype(str).tolist(), toks)
    for name, engine in engines.items():
        run = measure(builtin, toks if name == "inprocess" else TOKS, engine=engine, by=BY, rows=True,
                      chunk_samples=50)
        pdt.assert_frame_equal(run.rows[list(pipeline.COUNTS)].astype("int64"), expected, obj=f"rows on {name}")
        pdt.assert_frame_equal(_sums(run.summary), expected_sums, obj=f"sums on {name}")
        agg = measure(builtin, toks if name == "inprocess" else TOKS, engine=engine, by=BY)  # sums only
        pdt.assert_frame_equal(_sums(agg.summary), expected_sums, obj=f"aggregates-only sums on {name}")


def _generated_texts(paths: list[str]) -> tuple[list[str], list[str]]:
    frames = list(iter_corpus_chunks(paths, column="text"))
    return [t for f in frames for t in f["text"].tolist()], [c for f in frames for c in f["category"].astype(str)]


def test_generated_corpus_equals_a_recount_on_every_engine_and_reader(engines, toks, generated, generated_recount,
                                                                     tmp_path):
    texts, categories, expected = generated_recount
    assert len(texts) > 6_000  # the short rows and the files' samples
    expected_sums = recount_sums(expected, categories, toks)
    for name, engine in engines.items():
        out = tmp_path / name
        run = measure(iter_corpus_chunks(generated, column="text"), TOKS, engine=engine, by=BY, out=out)
        written = pd.read_parquet(out)
        pdt.assert_frame_equal(written[list(pipeline.COUNTS)].astype("int64"), expected, obj=f"Parquet rows on {name}")
        pdt.assert_frame_equal(_sums(run.summary), expected_sums, obj=f"streamed sums on {name}")
        files = measure_files(generated, TOKS, by=BY, engine=engine, column="text", part_bytes=1 << 18)
        pdt.assert_frame_equal(_sums(files.summary), expected_sums, obj=f"sums read by the workers on {name}")


_GRAPHEME = regex.compile(r"\X")


def recount_metrics(rows: pd.DataFrame, texts: list[str], toks, metrics: tuple[str, ...]) -> pd.DataFrame:
    """`recount`'s `rows` of `texts` with only the columns `metrics` asks for, and n_graphemes as
    `regex`'s own \\X matches."""
    rows = rows.copy()
    if "graphemes" in metrics:
        rows.insert(3, "n_graphemes", np.repeat([len(_GRAPHEME.findall(t)) for t in texts], len(toks)).astype("int64"))
    return rows[list(pipeline.count_columns(metrics))]


@pytest.mark.parametrize("metrics", [(), ("words", "graphemes", "scripts")], ids=["counts-only", "every-metric"])
def test_metrics_on_request_equal_a_recount_on_every_engine(engines, toks, generated, generated_recount, builtin_recount,
                                                            tmp_path, metrics):
    texts, categories, generated_counts = generated_recount
    builtin, builtin_counts = builtin_recount
    expected = recount_metrics(generated_counts, texts, toks, metrics)
    counts = list(pipeline.count_columns(metrics))
    sums = ["n_samples", *counts]
    expected_sums = (expected.assign(category=np.repeat(categories, len(toks)),
                                     tokenizer=np.tile([t.name for t in toks], len(texts)))
                     .groupby(BY, sort=True).agg(n_samples=("n_tokens", "size"), **{c: (c, "sum") for c in counts})
                     .reset_index().astype({c: "int64" for c in sums}))
    builtin_expected = recount_metrics(builtin_counts, builtin["text"].tolist(), toks, metrics)
    scripts = pd.Series([detect_script(t) for t in texts]).repeat(len(toks)).tolist()
    for name, engine in engines.items():
        out = tmp_path / f"{name}-{len(metrics)}"
        run = measure(iter_corpus_chunks(generated, column="text"), TOKS, engine=engine, by=BY, out=out,
                      metrics=metrics)
        written = pd.read_parquet(out)
        assert list(written.columns) == list(pipeline.columns_for(metrics)), name  # no column it did not compute
        pdt.assert_frame_equal(written[counts].astype("int64"), expected, obj=f"Parquet rows on {name}")
        # scripts nobody declared: detected when asked, else 'Zzzz' (unknown), never a guess
        assert written["script"].astype(str).tolist() == (scripts if "scripts" in metrics else ["Zzzz"] * len(scripts))
        got = run.summary.astype({k: str for k in BY})[[*BY, *sums]].sort_values(BY).reset_index(drop=True)
        pdt.assert_frame_equal(got.astype({c: "int64" for c in sums}), expected_sums, obj=f"streamed sums on {name}")
        files = measure_files(generated, TOKS, by=BY, engine=engine, column="text", part_bytes=1 << 18, metrics=metrics)
        got = files.summary.astype({k: str for k in BY})[[*BY, *sums]].sort_values(BY).reset_index(drop=True)
        pdt.assert_frame_equal(got.astype({c: "int64" for c in sums}), expected_sums, obj=f"worker-read sums on {name}")
        rows = measure(builtin, toks if name == "inprocess" else TOKS, engine=engine, rows=True, chunk_samples=50,
                       metrics=metrics).rows
        pdt.assert_frame_equal(rows[counts].astype("int64"), builtin_expected, obj=f"built-in rows on {name}")


def test_grouping_by_script_detects_scripts_even_when_not_asked(generated):
    texts, _ = _generated_texts(generated)
    run = measure(iter_corpus_chunks(generated, column="text"), TOKS, engine="inprocess", by=["script", "tokenizer"],
                  metrics=())
    assert set(run.summary["script"].astype(str)) == {detect_script(t) for t in texts}
    assert "n_words" not in run.summary.columns and "tokens_per_word_of_sums" not in run.summary.columns


def test_an_unknown_metric_is_a_clear_error():
    with pytest.raises(UnknownName, match="choose from words, graphemes, scripts"):
        measure(load_builtin().head(3), TOKS, engine="inprocess", by=BY, metrics="words,syllables")
