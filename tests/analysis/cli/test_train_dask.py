"""`tokenprism train --engine dask`: pre-tokens counted on a real Dask cluster, merges learned here.

The cluster is `measure`'s test cluster (a `dask scheduler` and two `dask worker` processes of
their own on loopback ports, stopped by process id). The model trained there must be the
model trained locally, byte for byte; the corpus is the bench's generator's, so it holds
several scripts, code and `<|endoftext|>` between documents.
"""

from __future__ import annotations

import pytest

import ownbpe
from analysis.cli import main
from analysis.cli import bpe as train_cli
from tests.analysis.engine.test_cluster import _free_port, scheduler  # noqa: F401  (the cluster fixture)


def _corpus(tmp_path, megabytes: int):
    pytest.importorskip("wordfreq", reason="the bench's corpus generator draws words from wordfreq's lists")
    from tests.benchmarks.scale_corpus import CorpusStream, SPECIAL

    stream = CorpusStream(seed=7)
    path = tmp_path / f"corpus-{megabytes}mb.txt"
    with open(path, "w", encoding="utf-8", newline="") as f:
        written = 0
        while written < megabytes * 1_000_000:
            doc = stream.next_document() + SPECIAL
            written += len(doc.encode("utf-8"))
            f.write(doc)
    return path


def _train(args: list[str], out) -> bytes:
    assert main(["train", *args, "--out", str(out), "--no-progress"]) == 0
    return out.read_bytes()


def _check_same_model_on_the_cluster(scheduler, tmp_path, capsys, megabytes: int, monkeypatch) -> None:
    corpus = _corpus(tmp_path, megabytes)
    # more ranges than tasks in flight: results come back while others are queued
    monkeypatch.setattr(train_cli, "PART_BYTES", max(1, corpus.stat().st_size // 9))
    common = [str(corpus), "--vocab-size", "600", "--pattern", "gpt2", "--special", "<|endoftext|>"]
    here = _train([*common, "--engine", "local"], tmp_path / "local.model")
    there = _train([*common, "--engine", "dask", "--scheduler", scheduler], tmp_path / "dask.model")
    err = capsys.readouterr().err
    assert f"engine: Dask scheduler {scheduler}, 2 worker(s)" in err
    assert there == here
    tok = ownbpe.Tokenizer.load(tmp_path / "dask.model")
    assert len(tok.merges) == 600 - 257
    # the parts really were spread: the plan cut the file into several ranges
    assert len(ownbpe.file_parts(corpus, 9, ["<|endoftext|>"], ownbpe.GPT2_PATTERN)) == 9


def test_dask_training_gives_the_local_model(scheduler, tmp_path, capsys, monkeypatch):  # noqa: F811
    _check_same_model_on_the_cluster(scheduler, tmp_path, capsys, 1, monkeypatch)


@pytest.mark.slow
def test_dask_training_gives_the_local_model_on_50_mb(scheduler, tmp_path, capsys, monkeypatch):  # noqa: F811
    _check_same_model_on_the_cluster(scheduler, tmp_path, capsys, 50, monkeypatch)


def test_unreachable_scheduler_exits_2(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("some text to train on " * 10, encoding="utf-8")
    port = _free_port()
    assert main(["train", str(corpus), "--out", str(tmp_path / "m"), "--engine", "dask", "--scheduler",
                 f"tcp://127.0.0.1:{port}", "--connect-timeout", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"no Dask scheduler answers at tcp://127.0.0.1:{port} within 1 s" in err
    assert "Traceback" not in err
    assert not (tmp_path / "m").exists()


def test_inprocess_engine_trains_the_same_model(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("low lower lowest newer wider<|endoftext|>" * 200, encoding="utf-8")
    common = [str(corpus), "--vocab-size", "280", "--special", "<|endoftext|>"]
    assert _train([*common, "--engine", "inprocess"], tmp_path / "a") == _train(common, tmp_path / "b")
