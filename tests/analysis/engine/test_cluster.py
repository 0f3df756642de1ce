"""A real Dask cluster: `dask scheduler` and two `dask worker` processes on loopback ports.

The fixture starts them with their own command-line tools, as separate processes, waits until
both workers have joined, and stops them by process id. `tokenprism measure --engine dask
--scheduler tcp://127.0.0.1:PORT` must print what the in-process run prints, and write the
same per-row dataset.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pandas.testing as pdt
import pytest

from analysis.cli import main
from tests.analysis.engine.gen import jsonl_rows, text_folder

REPO = Path(__file__).resolve().parents[3]
DASK = Path(sys.executable).parent / "dask"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    if not DASK.exists():
        pytest.skip(f"the dask command-line tool is not installed beside {sys.executable}")
    from dask.distributed import Client

    logs = tmp_path_factory.mktemp("cluster")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=open(logs / "scheduler.log", "wb"), stderr=subprocess.STDOUT, env=env)]
    try:
        for i in range(2):
            procs.append(subprocess.Popen([str(DASK), "worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                                           "--no-nanny", "--no-dashboard", "--name", f"w{i}"],
                                          stdout=open(logs / f"worker{i}.log", "wb"), stderr=subprocess.STDOUT, env=env))
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=90)
        yield address
    finally:
        _stop(procs[1:])  # workers first, then the scheduler
        _stop(procs[:1])


def test_measure_on_a_real_cluster_matches_in_process(scheduler, tmp_path, capsys):
    text_folder(tmp_path / "docs", 1 << 19, file_bytes=1 << 17)
    jsonl_rows(tmp_path / "docs" / "rows.jsonl", 2_000)
    common = [str(tmp_path / "docs"), "--column", "text", "-t", "gpt2,o200k_base", "--by", "category,script",
              "--format", "csv", "--no-progress"]
    assert main(["measure", *common, "--engine", "inprocess", "--out", str(tmp_path / "here") + "/"]) == 0
    here = capsys.readouterr()
    assert main(["measure", *common, "--engine", "dask", "--scheduler", scheduler,
                 "--out", str(tmp_path / "there") + "/"]) == 0
    there = capsys.readouterr()
    assert f"Dask scheduler {scheduler}, 2 worker(s)" in there.err
    assert there.out == here.out
    assert there.out.count("\n") > 3
    pdt.assert_frame_equal(pd.read_parquet(tmp_path / "there"), pd.read_parquet(tmp_path / "here"))


def test_cost_corpus_on_a_real_cluster_matches_in_process(scheduler, tmp_path, capsys):
    rows = jsonl_rows(tmp_path / "rows.jsonl", 3_000)
    common = ["cost", "--corpus", str(rows), "--column", "text", "--models", "openai:gpt-4o-mini,openai:gpt-4",
              "--requests-per-month", "1000", "--output-tokens", "100", "--on", "2025-06-01", "--format", "csv",
              "--no-progress"]
    assert main([*common, "--engine", "inprocess"]) == 0
    here = capsys.readouterr().out
    assert main([*common, "--engine", "dask", "--scheduler", scheduler]) == 0
    assert capsys.readouterr().out == here


def test_unreachable_scheduler_exits_2(capsys):
    port = _free_port()
    assert main(["measure", "--builtin", "-t", "gpt2", "--engine", "dask", "--scheduler", f"tcp://127.0.0.1:{port}",
                 "--connect-timeout", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"no Dask scheduler answers at tcp://127.0.0.1:{port} within 1 s" in err
    assert "Traceback" not in err


def test_workers_started_elsewhere_encode_on_one_core_per_task(scheduler):
    # the engine registers a worker plugin: workers it did not start get the one-core setting too
    from analysis.engine import open_engine
    from tests.analysis.engine.test_engines import encode_threads_seen

    with open_engine("dask", scheduler=scheduler) as engine:
        seen = pd.concat(engine.map(encode_threads_seen, [pd.DataFrame({"text": ["x"]})] * 4, ("gpt2",)))
    assert seen["threads"].tolist() == [1] * 4
    assert set(seen["rayon"]) == {"1"}


def test_cost_logs_on_a_real_cluster_matches_in_process(scheduler, capsys):
    logs = [str(p) for p in sorted((REPO / "tests" / "fixtures" / "logs").glob("*.jsonl"))]
    common = ["cost", "--logs", *logs, "--models", "openai:gpt-4o-mini,deepseek:deepseek-chat", "--output-tokens", "40",
              "--on", "2026-01-15", "--format", "json"]
    assert main([*common, "--engine", "inprocess"]) == 0
    here = capsys.readouterr().out
    assert main([*common, "--engine", "dask", "--scheduler", scheduler]) == 0
    there = capsys.readouterr()
    assert there.out == here
    assert '"n_rows"' in here
    assert f"engine: Dask scheduler {scheduler}" in there.err


def test_cluster_workers_read_their_own_parts(scheduler, tmp_path, capsys):
    # aggregates only: the workers open the files themselves (byte ranges of the JSON lines)
    text_folder(tmp_path / "docs", 1 << 19, file_bytes=1 << 17)
    jsonl_rows(tmp_path / "docs" / "rows.jsonl", 20_000)
    common = ["measure", str(tmp_path / "docs"), "--column", "text", "-t", "gpt2", "--by", "category,script",
              "--format", "csv", "--no-progress"]
    assert main([*common, "--engine", "inprocess"]) == 0
    here = capsys.readouterr().out
    assert main([*common, "--engine", "dask", "--scheduler", scheduler]) == 0
    assert capsys.readouterr().out == here
    assert here.count("\n") > 3
