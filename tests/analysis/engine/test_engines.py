"""Every engine gives the same numbers, to the last token; faults do not change them.

A Dask LocalCluster of two workers is started once for the module. The local engine is told
to use its pool even for small inputs (`small_input_chars=0`), so the pool is what is tested.
"""

from __future__ import annotations

import os
import signal
import time
from datetime import date

import pandas as pd
import pandas.testing as pdt
import pytest

from analysis import pipeline
from analysis.corpora import load_builtin
from analysis.cost import CorpusCost, Workload, estimate
from analysis.engine import EngineError, measure, open_engine, price_corpus
from analysis.errors import BadInput
from analysis.engine.base import InProcessEngine
from analysis.engine.local import LocalEngine
from analysis.engine.read import iter_corpus_chunks
from analysis.pipeline import iter_sample_chunks, measure_chunk, partial_sums
from tests.analysis.engine.gen import jsonl_rows, text_folder

TOKS = "gpt2,deepseek-v4"  # a tiktoken encoding and a Hugging Face one
BY = ["category", "language", "tokenizer"]


@pytest.fixture(scope="module")
def dask_engine():
    engine = open_engine("dask", workers=2)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def local_engine():
    engine = LocalEngine(2, small_input_chars=0)  # the pool even for small inputs: the pool is under test
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A generated corpus of a few MB: a folder of mixed text and short JSON lines."""
    root = tmp_path_factory.mktemp("gen")
    text_folder(root / "mixed", 2 << 20, file_bytes=1 << 19)
    jsonl_rows(root / "rows.jsonl", 10_000)
    return root


def _engines(local_engine, dask_engine):
    return {"inprocess": InProcessEngine(), "local": local_engine, "dask": dask_engine}


def test_builtin_corpora_identical_on_every_engine(local_engine, dask_engine):
    builtin = load_builtin()
    rows = pipeline.measure(builtin, TOKS)
    summary = pipeline.summarize(rows, BY)
    for name, engine in _engines(local_engine, dask_engine).items():
        run = measure(builtin, TOKS, engine=engine, by=BY, rows=True, chunk_samples=40)
        pdt.assert_frame_equal(run.rows, rows, obj=f"rows on {name}")
        pdt.assert_frame_equal(run.summary, summary, obj=f"summary on {name}")
        agg = measure(builtin, TOKS, engine=engine, by=BY, chunk_samples=40)  # workers send sums only
        assert agg.rows is None
        pdt.assert_frame_equal(agg.summary, summary, obj=f"aggregates-only summary on {name}")


def test_generated_corpus_identical_on_every_engine(local_engine, dask_engine, corpus, tmp_path):
    paths = [str(corpus / "mixed"), str(corpus / "rows.jsonl")]
    reference = None
    for name, engine in _engines(local_engine, dask_engine).items():
        out = tmp_path / name
        run = measure(iter_corpus_chunks(paths, column="text"), "gpt2,o200k_base", engine=engine,
                      by=["category", "script", "tokenizer"], out=out, chunk_samples=2048)
        written = pd.read_parquet(out)
        assert list(written.columns) == list(pipeline.COLUMNS)
        assert len(written) == 2 * run.n_samples > 20_000
        # the dataset's own sums are the streamed aggregates
        keys = ["category", "script", "tokenizer"]
        resummed = pipeline.summarize(written, keys).astype({c: str for c in keys}).sort_values(keys)
        pdt.assert_frame_equal(resummed.reset_index(drop=True), run.summary.astype({c: str for c in keys})
                               .sort_values(keys).reset_index(drop=True))
        if reference is None:
            reference = (written, run.summary)
        else:
            pdt.assert_frame_equal(written, reference[0], obj=f"rows on {name}")
            pdt.assert_frame_equal(run.summary, reference[1], obj=f"summary on {name}")


def test_cost_corpus_identical_on_every_engine(local_engine, dask_engine):
    builtin = load_builtin()
    workload = Workload(requests_per_month=1000, output_tokens=200, cached_share="0.25")
    models = "openai:gpt-4o-mini,openai:gpt-4,deepseek:deepseek-chat,anthropic:claude-sonnet-4-5"
    ref = estimate(builtin, models, workload=workload, on=date(2025, 6, 1))
    for name, engine in _engines(local_engine, dask_engine).items():
        cost = CorpusCost(models, workload=workload, on=date(2025, 6, 1))
        chunks = (c.rename(columns={"sample_id": "id"}) for c in iter_sample_chunks(builtin, chunk_samples=30))
        report = price_corpus(chunks, cost, engine=engine)
        pdt.assert_frame_equal(report.models, ref.models, obj=f"models on {name}")
        pdt.assert_frame_equal(report.categories.reset_index(drop=True), ref.categories.reset_index(drop=True))
        assert report.n_samples == ref.n_samples
        assert report.n_chars == ref.n_chars


# -- faults ----------------------------------------------------------------------------------
def slow_sums(chunk: pd.DataFrame, toks, *, delay: float) -> pd.DataFrame:
    """A chunk function slow enough for a worker to be killed while others are in flight."""
    time.sleep(delay)
    return partial_sums(measure_chunk(chunk, toks), ["category", "tokenizer"])


def _chunks():
    return list(iter_sample_chunks(load_builtin(), chunk_samples=12))


def _expected(chunks):
    with InProcessEngine() as engine:
        return list(engine.map(slow_sums, chunks, ("gpt2",), params={"delay": 0}))


def test_local_pool_worker_killed_mid_run_gives_the_same_result(local_engine):
    chunks = _chunks()
    expected = _expected(chunks)
    engine, restarts = local_engine, local_engine.restarts
    results = []
    for result in engine.map(slow_sums, chunks, ("gpt2",), params={"delay": 0.15}):
        if not results:
            os.kill(engine.worker_pids()[0], signal.SIGKILL)
        results.append(result)
    assert engine.restarts > restarts  # the pool was started again, and the lost chunks sent again
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        pdt.assert_frame_equal(got, want)


def test_dask_worker_killed_mid_run_gives_the_same_result(dask_engine):
    chunks = _chunks()
    expected = _expected(chunks)
    engine = dask_engine  # its nanny starts a new worker; the scheduler sends the lost tasks elsewhere
    results = []
    for result in engine.map(slow_sums, chunks, ("gpt2",), params={"delay": 0.15}):
        if not results:
            os.kill(next(iter(engine.worker_pids().values())), signal.SIGKILL)
        results.append(result)
    for got, want in zip(results, expected, strict=True):
        pdt.assert_frame_equal(got, want)


def test_unreachable_scheduler_is_a_clear_error_within_the_timeout():
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(EngineError, match=f"no Dask scheduler answers at tcp://127.0.0.1:{port} within 2 s"):
        open_engine("dask", scheduler=f"tcp://127.0.0.1:{port}", timeout=2)
    assert time.monotonic() - t0 < 15


def test_failed_run_leaves_no_dataset(tmp_path):
    frame = load_builtin().head(30)
    frame = pd.concat([frame, frame.head(1)], ignore_index=True)  # a duplicate id in a later chunk
    with pytest.raises(ValueError, match="occurs more than once"):
        measure(frame, "gpt2", engine="inprocess", out=tmp_path / "rows", chunk_samples=10)
    assert list(tmp_path.iterdir()) == []


def test_bad_engine_arguments():
    with pytest.raises(ValueError, match="unknown engine 'spark'"):
        open_engine("spark")
    with pytest.raises(ValueError, match="needs --engine dask"):
        open_engine("local", scheduler="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="nothing to keep"):
        measure(load_builtin().head(2), "gpt2", engine="inprocess", rows=False)


def encode_threads_seen(chunk, toks):
    """A chunk function reporting the worker's encode threads and RAYON setting (for the test below)."""
    from analysis.tokenizers.base import encode_threads

    return pd.DataFrame({"threads": [encode_threads()], "rayon": [os.environ.get("RAYON_NUM_THREADS", "")]})


def test_workers_encode_on_one_core_each(local_engine, dask_engine):
    # the pool (or the cluster) is the parallelism: a thread pool inside every worker would compete
    chunks = [pd.DataFrame({"text": ["x"]})] * 3
    for engine in (local_engine, dask_engine):
        seen = pd.concat(engine.map(encode_threads_seen, chunks, ("gpt2",)))
        assert seen["threads"].tolist() == [1, 1, 1], engine.name
        assert set(seen["rayon"]) == {"1"}, engine.name
    with InProcessEngine() as engine:  # this process keeps its cores
        assert next(engine.map(encode_threads_seen, chunks, ("gpt2",)))["threads"].iloc[0] == (os.cpu_count() or 1)


def test_chat_log_pricing_identical_on_every_engine(local_engine, dask_engine):
    from pathlib import Path

    from analysis.cost import iter_log_records, plan_traffic, price_records, summarise
    from analysis.engine import price_logs

    logs = sorted((Path(__file__).parents[2] / "fixtures" / "logs").glob("*.jsonl"))
    plan = plan_traffic(["openai:gpt-4o-mini", "anthropic:claude-3-5-haiku", "deepseek:deepseek-chat"],
                        output_tokens=50, on=date(2026, 1, 15))
    records = list(iter_log_records(logs)) * 7  # several chunks of 3 rows, so chunks travel and merge

    def report(partial):
        return summarise(partial, plan, None).models.to_dict("records")

    want = report(price_records(records, plan, chunk_rows=3))
    assert len(want) == 3
    assert all(row["usd_total"] > 0 for row in want)
    for engine in _engines(local_engine, dask_engine).values():
        seen: list[int] = []
        got = price_logs(records, plan, engine=engine, chunk_rows=3, progress=seen.append)
        assert report(got) == want, engine.name
        assert sum(seen) == len(records)
        assert len(seen) > 3


@pytest.mark.slow  # a pool and a cluster; tests/analysis/cost/logs/test_row_chunks.py runs the same in process
def test_log_rows_parsed_on_the_workers_price_as_records_parsed_here(local_engine, dask_engine, tmp_path):
    # issue 44: the CLI sends lines to the workers, which parse them; numbers, the skip report and
    # the --system count equal those of records parsed in this process, on every engine
    import shutil
    from pathlib import Path

    from analysis.cost import LogReport, iter_log_chunks, iter_log_records, plan_traffic, price_records, summarise
    from analysis.cost import with_system
    from analysis.engine import price_log_chunks

    fixtures = Path(__file__).parents[2] / "fixtures" / "logs"
    logs = []
    for p in sorted(fixtures.iterdir()):
        logs.append(tmp_path / p.name)
        shutil.copy(p, logs[-1])
    bad = tmp_path / "bad.jsonl"  # bad rows before the shape is known, and after
    bad.write_text('{"messages": [,]}\n[1, 2]\n' + (fixtures / "openai_chat.jsonl").read_text() * 3
                   + '{"messages": "no"}\n\n' + (fixtures / "openai_chat.jsonl").read_text(), encoding="utf-8")
    logs.append(bad)
    plan = plan_traffic(["openai:gpt-4o-mini", "anthropic:claude-3-5-haiku"], output_tokens=50, on=date(2026, 1, 15))
    want_report, kept = LogReport(), [0]
    records = list(with_system(iter_log_records(logs, errors="skip", report=want_report), "Be kind.", kept))
    want = summarise(price_records(records, plan), plan, want_report)
    assert want_report.n_skipped >= 3 and kept[0] > 0
    for engine in _engines(local_engine, dask_engine).values():
        report = LogReport()
        chunks = iter_log_chunks(logs, errors="skip", report=report, chunk_rows=4)
        partial, rows, got_kept = price_log_chunks(chunks, plan, system="Be kind.", engine=engine)
        report.merge(rows)
        got = summarise(partial, plan, report)
        pdt.assert_frame_equal(got.models, want.models)  # NaN where no row was served by the model, in both
        assert (report.rows, dict(report.skipped), report.examples, report.shapes) == \
            (want_report.rows, dict(want_report.skipped), want_report.examples, want_report.shapes), engine.name
        assert got_kept == kept[0]
    with pytest.raises(BadInput, match=r"bad.jsonl:\d+: .*Fix the row"):  # strict: the worker's error, as here
        price_log_chunks(iter_log_chunks([bad], chunk_rows=4), plan, engine=local_engine)


@pytest.mark.slow  # a pool and a cluster, 600 rows under two models with caches
def test_prompt_cache_simulation_identical_on_every_engine(local_engine, dask_engine, tmp_path):
    # issue 44: with each target's prompt cache simulated (issue 42), the in-process report of the log
    # kept whole equals, byte for byte, the report of the partials folded chunk by chunk as they come
    # back from each engine (the cache carried across chunks), on a LocalCluster of two workers too
    import json

    from analysis.cost import iter_log_records, plan_traffic, price_records, summarise
    from analysis.engine import price_logs
    from analysis.report.traffic import report_json
    from tests.analysis.cost.logs.test_stream import _timed
    from tests.benchmarks.bench_traffic import generate

    log = tmp_path / "log.jsonl.gz"
    generate(log, 600, seed=3, in_order=True)
    records = _timed(list(iter_log_records(log)), "mixed")
    for flags in ({}, {"cache_breakpoints": "auto"}):
        plan = plan_traffic("gpt-4o,claude-sonnet-4-5", on=date(2026, 3, 15), **flags)

        def report(partial):
            return json.dumps(report_json(summarise(partial, plan, None)), sort_keys=True, default=str)

        whole = price_records(records, plan)
        want = report(whole)
        assert summarise(whole, plan, None).models["cache_read_tokens"].sum() > 0  # the caches were hit
        for engine in _engines(local_engine, dask_engine).values():
            got = price_logs(records, plan, engine=engine, chunk_rows=32, stream_after=100)
            assert got.folded is not None, engine.name
            assert report(got) == want, engine.name
