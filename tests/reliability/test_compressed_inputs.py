"""Compressed input, one policy (issue 45): gzip is read everywhere a user's file is, within a
ceiling on its decompressed bytes; other compressions are refused by name.

Before: a gzip file was refused once it inflated 200 times its size, so a very repetitive but
legitimate log was refused, and a multi-member file (one valid member, then many repeated rows)
was refused only after its rows had been counted (55 s in the audit); `measure` skipped
`.jsonl.gz` and `.txt.gz` as "binary file(s)".
"""

from __future__ import annotations

import bz2
import gzip
import json

import pytest

from analysis.corpora import load_samples
from analysis.cost import LogUpload, iter_log_records
from analysis.errors import BadInput
from analysis.textio.lines import MAX_DEFLATE_RATIO, LineBounds
from tests.reliability.cli_run import run_cli

ROW = '{"messages": [{"role": "user", "content": "%s"}]}\n'
REPETITIVE = (ROW % ("the same system prompt " * 40)).encode() * 2_000  # 1.9 MB, compresses ~400 times


def test_a_very_repetitive_log_is_read_whatever_its_ratio():
    data = gzip.compress(REPETITIVE, compresslevel=9)
    assert len(REPETITIVE) / len(data) > 200  # the old ratio bound refused this
    records = list(iter_log_records(LogUpload("log.jsonl.gz", data), bounds=LineBounds(max_line_bytes=10_000)))
    assert len(records) == 2_000


def test_a_bomb_past_the_ceiling_is_refused_before_its_first_row():
    """One small valid member, then a member of repeated rows: refused before any row is read."""
    data = gzip.compress(ROW.encode() % b"hi") + gzip.compress(REPETITIVE * 3, compresslevel=9)
    bounds = LineBounds(max_line_bytes=10_000, max_decompressed_bytes=5_000_000)
    assert len(data) * MAX_DEFLATE_RATIO > bounds.max_decompressed_bytes  # so it is measured first
    rows = iter_log_records(LogUpload("log.jsonl.gz", data), bounds=bounds)
    with pytest.raises(BadInput, match=r"log\.jsonl\.gz: decompresses to more than 5 MB .* compression bomb"):
        next(rows)  # the first row, valid, is never given: the whole stream was measured first


def test_the_ceiling_is_a_flag_of_the_cli(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_MAX_DECOMPRESSED_MB", "10000")  # the flag sets it (for workers): restored after
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(REPETITIVE * 3, compresslevel=9))
    argv = ["cost", "--logs", str(path), "-m", "gpt-4o", "--output-tokens", "1"]
    code, _, err = run_cli([*argv, "--max-decompressed-mb", "1"], capsys)
    assert code == 2 and "decompresses to more than 1 MB" in err and "--max-decompressed-mb" in err, err


def test_measure_reads_gzip_as_the_plain_files(tmp_path, capsys):
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    plain.mkdir(), packed.mkdir()
    text = "Hello there, a few words.\nAnd a second line with 日本語.\n" * 50
    rows = "".join(json.dumps({"text": f"row {i}: {text[:80]}"}) + "\n" for i in range(30))
    (plain / "a.txt").write_text(text)
    (packed / "a.txt.gz").write_bytes(gzip.compress(text.encode()))
    (plain / "t.jsonl").write_text(rows)
    (packed / "t.jsonl.gz").write_bytes(gzip.compress(rows.encode()))
    for name in ("a.txt", "t.jsonl"):
        kw = {"column": "text"} if name.endswith("jsonl") else {}
        want, _ = load_samples(plain / name, **kw)
        got, report = load_samples(packed / f"{name}.gz", **kw)
        assert [s.text for s in got] == [s.text for s in want] and report.files_skipped_binary == 0
    outs = []
    for folder in (plain, packed):
        code, out, err = run_cli(["measure", str(folder), "-t", "gpt2", "--format", "csv"], capsys)
        assert code == 0 and "binary" not in err, err
        outs.append(out)
    assert outs[0] == outs[1]


def test_another_compression_is_named_when_given_and_skipped_in_a_folder(tmp_path, capsys):
    path = tmp_path / "notes.txt.bz2"
    path.write_bytes(bz2.compress(b"some text\n" * 100))
    code, _, err = run_cli(["measure", str(path), "-t", "gpt2"], capsys)
    assert code == 2 and "compressed with bzip2" in err and "decompress it first" in err, err
    (tmp_path / "a.txt").write_text("hello\n")
    code, _, err = run_cli(["measure", str(tmp_path), "-t", "gpt2"], capsys)
    assert code == 0 and "1 binary file(s) skipped" in err, err


def test_gzip_parquet_is_refused_by_name(tmp_path):
    path = tmp_path / "t.parquet.gz"
    path.write_bytes(gzip.compress(b"PAR1...."))
    with pytest.raises(BadInput, match="Parquet compresses its own pages"):
        load_samples(path, column="text")
