"""Workers that read their own parts of the input give the numbers of the reading driver."""

from __future__ import annotations

import json

import pandas as pd
import pandas.testing as pdt
import pytest

from analysis.corpora import LoadReport
from analysis.engine import measure
from analysis.engine.base import InProcessEngine
from analysis.engine.local import LocalEngine
from analysis.engine.parts import measure_files
from analysis.engine.plan import plan_parts
from analysis.engine.read import iter_corpus_chunks, jsonl_spans
from tests.analysis.engine.gen import jsonl_rows, text_folder

BY = ["category", "script", "tokenizer"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("parts")
    docs = text_folder(root / "docs", 1 << 20, file_bytes=1 << 17)
    (docs / "notes.md").write_text("a\r\nb\rc\n", encoding="utf-8")
    (docs / "blob.bin").write_bytes(b"\x00\x01binary")
    rows = jsonl_rows(root / "rows.jsonl", 6_000)
    with open(rows, "a", encoding="utf-8") as f:
        f.write('{"text": ""}\n{"text": "the last row"}\n')
    pd.DataFrame({"text": ["uno dos", "", "東京 tres"]}).to_parquet(root / "t.parquet")
    (root / "c.csv").write_text("text,x\nhello there,1\n\"two\nlines\",2\n", encoding="utf-8")
    return root


def _reference(paths, toks, **kw):
    report = LoadReport()
    run = measure(iter_corpus_chunks(paths, report=report, **kw), toks, engine="inprocess", by=BY)
    return run, report


@pytest.mark.parametrize("engine", ["inprocess", "local-pool"])
def test_parts_give_the_driver_numbers(inputs, engine):
    paths = [str(inputs / "docs"), str(inputs / "rows.jsonl"), str(inputs / "t.parquet"), str(inputs / "c.csv")]
    want, want_report = _reference(paths, "gpt2,o200k_base", column="text")
    opened = InProcessEngine() if engine == "inprocess" else LocalEngine(2, small_input_chars=0)
    with opened:
        report = LoadReport()
        got = measure_files(paths, "gpt2,o200k_base", by=BY, engine=opened, column="text", report=report,
                            part_bytes=100_000)  # the JSON lines in several spans, the folder in several groups
        if engine == "local-pool":  # an engine the caller opened keeps its workers
            pids = opened.worker_pids()
            measure_files(paths[-1:], "gpt2", by=BY, engine=opened, column="text")
            assert opened.worker_pids() == pids
            assert len(pids) == 2
    assert len(plan_parts(paths, column="text", part_bytes=100_000)) > 8
    pdt.assert_frame_equal(got.summary, want.summary)
    assert (got.n_samples, got.n_bytes) == (want.n_samples, want.n_bytes)
    assert report == want_report
    assert report.rows_skipped_empty == 2
    assert report.files_skipped_binary == 1


def test_spans_tile_the_file_at_line_ends_with_their_first_line_numbers(tmp_path):
    path = jsonl_rows(tmp_path / "r.jsonl", 3_000)
    data = path.read_bytes()
    for target in (1, 500, 4096, 10**9):
        spans = jsonl_spans(path, target)
        assert spans[0][0] == 0
        assert spans[-1][1] == len(data)
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
        for start, end, row in spans:
            assert data[end - 1:end] == b"\n"
            assert row == data[:start].count(b"\n") + 1
        assert len(spans) == (3_000 if target == 1 else 1 if target == 10**9 else len(spans))


def test_a_bad_row_in_a_later_span_names_its_line(tmp_path):
    path = jsonl_rows(tmp_path / "r.jsonl", 2_000)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1733] = '{"text": 5}\n'  # not a string: read line by line, and the row named
    lines[1800] = "{broken\n"
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(ValueError) as want:
        _reference([str(path)], "gpt2", column="text")
    with pytest.raises(ValueError) as got:
        measure_files([str(path)], "gpt2", by=BY, engine="inprocess", column="text", part_bytes=20_000)
    assert str(got.value) == str(want.value)
    assert "line 1801 " in str(got.value)


def test_the_same_file_twice_is_a_duplicate_id_error(inputs):
    path = str(inputs / "t.parquet")
    with pytest.raises(ValueError, match="occurs more than once"):
        measure_files([path, path], "gpt2", by=BY, engine="inprocess", column="text")


def test_dask_workers_read_their_parts(inputs, tmp_path):
    from analysis.engine import open_engine
    from analysis.engine.output import PartitionedParquet
    from analysis.engine.parts import tally_files

    paths = [str(inputs / "docs"), str(inputs / "rows.jsonl")]
    want, _ = _reference(paths, "gpt2", column="text")
    rows = measure(iter_corpus_chunks(paths, column="text"), "gpt2", engine="inprocess", rows=True).rows
    with open_engine("dask", workers=2) as engine:
        got = measure_files(paths, "gpt2", by=BY, engine=engine, column="text", part_bytes=200_000)
        # and the LocalCluster's workers, on this machine, write their parts' rows too
        with PartitionedParquet(tmp_path / "rows") as writer:
            tally_files(paths, "gpt2", by=BY, engine=engine, column="text", part_bytes=200_000, out=writer)
    pdt.assert_frame_equal(got.summary, want.summary)
    assert json.dumps(int(got.summary["n_tokens"].sum())) == json.dumps(int(want.summary["n_tokens"].sum()))
    written = pd.read_parquet(tmp_path / "rows")
    assert written["sample_id"].tolist() == rows["sample_id"].astype(str).tolist()
    assert written["n_tokens"].tolist() == rows["n_tokens"].tolist()


def test_fsspec_urls_are_read_by_the_workers(inputs, capsys):
    from analysis.cli import main

    paths = [str(inputs / "docs"), str(inputs / "rows.jsonl"), str(inputs / "t.parquet")]
    want, want_report = _reference(paths, "gpt2", column="text")
    urls = [f"file://{p}" for p in paths]
    with LocalEngine(2, small_input_chars=0) as engine:
        report = LoadReport()
        got = measure_files(urls, "gpt2", by=BY, engine=engine, column="text", report=report)
    pdt.assert_frame_equal(got.summary, want.summary)
    assert report.files_skipped_binary == 1
    assert report.skipped_files == [f"file://{inputs}/docs/blob.bin"]
    common = ["measure", "--column", "text", "-t", "gpt2", "--by", "category", "--format", "csv", "--no-progress"]
    assert main([*common, *paths, "--engine", "inprocess"]) == 0
    here = capsys.readouterr().out
    assert main([*common, *urls, "--engine", "local"]) == 0
    assert capsys.readouterr().out == here


def test_urls_that_cannot_be_read_name_the_fix(inputs, capsys):
    from analysis.cli import main

    with pytest.raises(ValueError, match="no such file or folder: file:///nonexistent"):
        plan_parts(["file:///nonexistent/x.jsonl"])
    with pytest.raises(ValueError, match="fsspec package"):
        plan_parts(["nosuchproto://bucket/x.jsonl"])
    assert main(["measure", f"file://{inputs}/rows.jsonl", "--column", "text", "-t", "gpt2", "--out",
                 str(inputs / "out") + "/"]) == 2
    assert "leave out --out" in capsys.readouterr().err


@pytest.mark.parametrize("engine, metrics", [("inprocess", ""), ("local-pool", ""), ("local-pool", "words,scripts")])
def test_workers_write_the_rows_the_driver_would(inputs, tmp_path, engine, metrics):
    # per-row output written where each part is read: the same dataset as the driver writes, row
    # for row and in input order, the same schema, and the same sums
    from analysis.engine.output import PartitionedParquet
    from analysis.engine.parts import tally_files
    from analysis.pipeline import summary_from_sums

    paths = [str(inputs / "docs"), str(inputs / "rows.jsonl"), str(inputs / "t.parquet"), str(inputs / "c.csv")]
    want = measure(iter_corpus_chunks(paths, column="text"), "gpt2,o200k_base", engine="inprocess", by=BY,
                   out=tmp_path / "driver", metrics=metrics)
    opened = InProcessEngine() if engine == "inprocess" else LocalEngine(2, small_input_chars=0)
    with opened, PartitionedParquet(tmp_path / "workers") as writer:
        writer.write(pd.DataFrame())  # nothing: an empty part is not written
        got = tally_files(paths, "gpt2,o200k_base", by=BY, engine=opened, column="text", part_bytes=100_000,
                          metrics=metrics, out=writer)
    driver, workers = pd.read_parquet(tmp_path / "driver"), pd.read_parquet(tmp_path / "workers")
    pdt.assert_frame_equal(workers, driver)
    assert writer.rows == len(driver) and writer.parts == len(list((tmp_path / "workers").iterdir())) > 8
    import pyarrow.parquet as pq

    assert {pq.read_schema(p) for p in (tmp_path / "workers").iterdir()} == {pq.read_schema(next((tmp_path / "driver").iterdir()))}
    pdt.assert_frame_equal(summary_from_sums(got.tally.frame(), BY, ["gpt2", "o200k_base"]), want.summary)


def test_the_driver_parts_and_the_workers_parts_keep_the_input_order(inputs, tmp_path):
    # the built-in corpora written by this process first, then the user's files by the workers
    from analysis.corpora import load_builtin
    from analysis.engine.output import PartitionedParquet
    from analysis.engine.parts import tally_files

    paths = [str(inputs / "docs"), str(inputs / "rows.jsonl")]
    with PartitionedParquet(tmp_path / "both") as writer:
        measure(load_builtin("numbers"), "gpt2", engine="inprocess", out=writer, by=BY)
        first = writer.rows
        tally_files(paths, "gpt2", by=BY, engine=LocalEngine(2, small_input_chars=0), column="text",
                    part_bytes=100_000, out=writer)
        writer.write(pd.DataFrame({c: ["last"] for c in ("sample_id",)}))  # after the workers' parts
    rows = pd.read_parquet(tmp_path / "both", columns=["sample_id"])["sample_id"].tolist()
    files = measure(iter_corpus_chunks(paths, column="text"), "gpt2", engine="inprocess", rows=True)
    assert rows[first:-1] == files.rows["sample_id"].astype(str).tolist()
    assert rows[-1] == "last"


def test_per_row_output_from_a_remote_scheduler_is_refused(inputs, tmp_path):
    from analysis.engine.output import PartitionedParquet
    from analysis.engine.parts import tally_files
    from analysis.errors import BadInput

    writer = PartitionedParquet(tmp_path / "x")
    with pytest.raises(BadInput, match="cannot write into this machine's folder"):
        tally_files([str(inputs / "c.csv")], "gpt2", by=BY, engine="dask", scheduler="tcp://127.0.0.1:1",
                    column="text", out=writer)
    writer.abort()


@pytest.mark.parametrize("metrics", ["", "words"])
def test_grouping_tables_by_sample_gives_each_row_its_own_group(inputs, metrics):
    # a table's rows are samples "file:line" on both paths (the workers' used to group a whole
    # file under its name when they only summed)
    from analysis.engine.parts import tally_files
    from analysis.pipeline import summary_from_sums

    paths = [str(inputs / "rows.jsonl"), str(inputs / "t.parquet"), str(inputs / "c.csv")]
    by = ["sample_id", "tokenizer"]
    want = measure(iter_corpus_chunks(paths, column="text"), "gpt2", engine="inprocess", by=by, metrics=metrics)
    got = tally_files(paths, "gpt2", by=by, engine="inprocess", column="text", part_bytes=100_000, metrics=metrics)
    pdt.assert_frame_equal(summary_from_sums(got.tally.frame(), by, ["gpt2"]), want.summary)
    assert len(want.summary) > 6_000
