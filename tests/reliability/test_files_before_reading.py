"""Every file read whole is checked by type and size before a byte is read (issue 45).

Before: a price file (`--prices`) and an API key file (`serve --api-key-file`, the service's
settings) were read whole, whatever their size, and `train` joined its corpus files through
`read_bytes`: a sparse 40 MB file cost at least 40 MB of memory before being refused. Now each is refused
by its size (`textio.read_file_bytes`) in bounded memory.
"""

from __future__ import annotations

import tracemalloc

import pytest

from analysis.errors import BadInput

SPARSE = 40_000_000  # bytes a sparse file claims, on a disk that holds none of them


def _sparse(path, size=SPARSE):
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


def _peak(call) -> int:
    tracemalloc.start()
    try:
        call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize("suffix", [".csv", ".toml"])
def test_a_huge_price_file_is_refused_by_its_size(tmp_path, suffix):
    from analysis.cost.prices.overrides import MAX_PRICE_FILE_BYTES, load_overrides

    path = _sparse(tmp_path / f"prices{suffix}")

    def load():
        with pytest.raises(BadInput, match=rf"40,000,000 bytes, larger than the limit of {MAX_PRICE_FILE_BYTES:,}"):
            load_overrides(path)

    assert _peak(load) < 5_000_000


def test_a_huge_key_file_is_refused_by_its_size(tmp_path):
    from analysis.api.settings import read_keys
    from analysis.cli.serve import _check_key_file  # what `serve --api-key-file` checks before it starts

    path = _sparse(tmp_path / "keys.txt")
    for check in (read_keys, _check_key_file):
        def load():
            with pytest.raises(BadInput, match="larger than the limit"):
                check(str(path))

        assert _peak(load) < 5_000_000


def test_train_joins_its_files_by_streaming(tmp_path, monkeypatch, capsys):
    from pathlib import Path

    from tests.reliability.cli_run import run_cli

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("low lower lowest " * 50)
    b.write_text("new newer newest " * 50)

    def whole(self):
        raise AssertionError(f"{self} read whole")

    monkeypatch.setattr(Path, "read_bytes", whole)
    code, _, err = run_cli(["train", str(a), str(b), "--vocab-size", "300", "--out", str(tmp_path / "t.json")], capsys)
    assert code == 0, err
