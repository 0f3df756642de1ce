"""Blank lines are skipped in bulk (finding 5 of the fifth audit).

A 1 MB gzip holds a GiB of "\\n"; at five million blank lines a second a log of them cost minutes
of CPU below the 10 GB ceiling, and about 20 s below the dashboard's 100 MB. The line reader now
skips runs of blank lines inside the regex engine and counts them with `bytes.count`; the blank
bytes still count toward the decompressed ceiling. The time to read a file of blank lines is
compared with the time to inflate it alone, measured in the same run.
"""

from __future__ import annotations

import gzip
import io
import random
import time

import pytest

from analysis.textio import lines as L
from analysis.textio.lines import LineBounds, iter_lines, open_decompressed

BLANK_MB = 64


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6)


def _cpu(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def _inflate(blob: bytes) -> None:
    fh = open_decompressed(io.BytesIO(blob), where="x", size=len(blob), bounds=LineBounds())
    while fh.read(1 << 20):
        pass


def _read(blob: bytes) -> list:
    fh = open_decompressed(io.BytesIO(blob), where="x", size=len(blob), bounds=LineBounds())
    return list(iter_lines(fh, where="x", bounds=LineBounds(), skip_blank=True))


def test_blank_lines_cost_about_what_inflating_them_costs():
    blob = _gz(b"\n" * (BLANK_MB << 20) + b'{"last": 1}\n')
    inflate = min(_cpu(lambda: _inflate(blob)) for _ in range(2))
    rows: list = []
    read = min(_cpu(lambda: rows.extend(_read(blob))) for _ in range(2))
    assert rows[-1] == ((BLANK_MB << 20) + 1, b'{"last": 1}\n')
    assert read < 4 * inflate + 0.2, f"reading {BLANK_MB} MB of blank lines took {read:.2f} s of CPU, inflating " \
                                     f"them {inflate:.2f} s"


def test_blank_bytes_count_toward_the_decompressed_ceiling():
    blob = _gz(b"\n" * 5_000_000)
    bounds = LineBounds(max_decompressed_bytes=1_000_000)
    with pytest.raises(ValueError, match="compression bomb"):
        fh = open_decompressed(io.BytesIO(blob), where="x", size=len(blob), bounds=bounds)
        list(iter_lines(fh, where="x", bounds=bounds, skip_blank=True))


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("universal", [False, True])
def test_skipping_blank_lines_keeps_every_other_line_and_its_number(monkeypatch, block, universal):
    monkeypatch.setattr(L, "READ_BLOCK", block)
    rng = random.Random(block)
    blank = (b"\n", b"\r\n", b"\r") if universal else (b"\n",)
    for _ in range(400):
        data = bytes(rng.choice(b"ab\r\n\n\n") for _ in range(rng.randint(0, 40)))
        every = list(iter_lines(io.BytesIO(data), where="x", bounds=LineBounds(), universal=universal))
        kept = list(iter_lines(io.BytesIO(data), where="x", bounds=LineBounds(), universal=universal, skip_blank=True))
        assert kept == [(n, line) for n, line in every if line not in blank], data
