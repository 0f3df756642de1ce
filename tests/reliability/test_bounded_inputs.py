"""Issue 34, inputs: bombs, long lines, deep nesting and damaged files, each refused with a message
naming the file, the line (or row group) and the fix, in bounded memory.

The bombs are the audit's, scaled down: the bounds are configurable (`LineBounds`,
--max-line-mb), so a small bound and a small bomb show the same behaviour fast.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import tracemalloc
from pathlib import Path

import pytest

from analysis import cli
from analysis.corpora import load_samples
from analysis.cost import LogUpload, iter_log_records, read_log_records
from analysis.engine.local import LocalEngine
from analysis.errors import BadInput
from analysis.textio.lines import UPLOAD_BOUNDS, LineBounds

ROW = '{"messages": [{"role": "user", "content": "%s"}]}\n'


def _run(argv: list[str], capsys) -> tuple[int, str]:
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def _one_line_bomb(n_bytes: int) -> bytes:
    """A gzip file holding one JSON line of `n_bytes` (a few kB compressed)."""
    return gzip.compress((ROW % ("a" * n_bytes)).encode(), compresslevel=9)


# -- 2: the dashboard's upload -------------------------------------------------------------------
def test_upload_bomb_stops_at_the_upload_line_bound():
    bomb = _one_line_bomb(UPLOAD_BOUNDS.max_line_bytes + 1_000_000)  # ~9 MB in ~9 kB
    assert len(bomb) < 100_000
    tracemalloc.start()
    try:
        # the line bound and the inflation bound meet here: either refusal names the file
        with pytest.raises(BadInput, match=r"chat\.jsonl\.gz: (line 1 is longer than 8 MB|decompresses to more than 8 MB)"):
            list(iter_log_records(LogUpload("chat.jsonl.gz", bomb), bounds=UPLOAD_BOUNDS))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * UPLOAD_BOUNDS.max_line_bytes  # about one line, not the bomb's size


def test_many_short_lines_past_the_decompression_ceiling_are_a_bomb():
    data = gzip.compress((ROW % ("a" * 900)).encode() * 400)  # 370 kB from ~2 kB
    bounds = LineBounds(max_line_bytes=10_000, max_decompressed_bytes=100_000)
    with pytest.raises(BadInput, match=r"log\.jsonl\.gz: decompresses to more than .* compression bomb"):
        list(iter_log_records(LogUpload("log.jsonl.gz", data), bounds=bounds))


@pytest.mark.parametrize("name, line", [
    ("log.jsonl.gz", ROW % ("a" * 50_000)),
    ("log.csv.gz", "messages\n" + '"' + "a" * 50_000 + '"\n'),
    ("log.txt.gz", "a" * 50_000 + "\n"),
])
def test_a_compressed_bomb_stops_in_every_log_container(name, line, tmp_path):
    data = gzip.compress(line.encode())
    bounds = LineBounds(max_line_bytes=10_000)
    with pytest.raises(BadInput, match=rf"{name.replace('.', '[.]')}: (line \d+ is longer than 0\.01 MB|decompresses)"):
        list(iter_log_records(LogUpload(name, data), bounds=bounds))
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(BadInput, match="longer than|decompresses"):
        list(iter_log_records(path, bounds=bounds))


def test_the_dashboard_page_reads_uploads_within_the_upload_bounds():
    source = (Path(__file__).parents[2] / "dashboards/app_pages/cost.py").read_text()
    assert "bounds=UPLOAD_BOUNDS" in source


# -- 3: cost --logs with one long line -----------------------------------------------------------
def test_cost_logs_long_gzip_line_is_refused_in_bounded_memory(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_MAX_LINE_MB", "64")  # --max-line-mb sets it: this restores it after
    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(_one_line_bomb(20_000_000))
    tracemalloc.start()
    try:
        with pytest.raises(BadInput, match=r"line 1 is longer than 1 MB"):
            list(iter_log_records(path, bounds=LineBounds(max_line_bytes=1_000_000)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4_000_000, peak  # the 20 MB line is never held
    code, err = _run(["cost", "--logs", str(path), "--max-line-mb", "1", "-m", "gpt-4o"], capsys)
    assert code == 2 and "log.jsonl.gz: line 1 is longer than 1 MB" in err and "--max-line-mb" in err


def test_max_line_mb_raises_the_bound(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(ROW % ("a" * 3_000))
    with pytest.raises(BadInput, match="longer than"):
        read_log_records(path, bounds=LineBounds(max_line_bytes=2_000))
    records, _ = read_log_records(path, bounds=LineBounds(max_line_bytes=4_000))
    assert len(records[0].request.messages[0].text) == 3_000


def test_corpus_table_lines_are_bounded_too(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_MAX_LINE_MB", "0.01")
    path = tmp_path / "t.jsonl"
    path.write_text('{"text": "ok"}\n' + json.dumps({"text": "a" * 20_000}) + "\n")
    with pytest.raises(BadInput, match=r"t\.jsonl: line 2 is longer than 0\.01 MB"):
        load_samples(path, column="text")


# -- 4: the local engine holds a bounded head --------------------------------------------------
def _count_rows(chunk, toks):
    return len(chunk)


def test_local_engine_starts_on_chunks_without_characters():
    pulled = []

    def chunks():
        for i in range(200):  # rows of empty messages: zero characters each
            pulled.append(i)
            yield [""] * 10

    with LocalEngine(2, small_input_chunks=4) as engine:
        results = engine.map(_count_rows, chunks(), (), size=lambda c: 0)
        first = next(results)
        assert first == 10
        assert len(pulled) < 20, len(pulled)  # without the chunk bound all 200 were held first
        assert sum(results) == 1990


# -- 12: nesting and long CSV cells ------------------------------------------------------------
def test_deeply_nested_row_is_a_row_problem(tmp_path, capsys):
    path = tmp_path / "deep.jsonl"
    path.write_text(ROW % "hi" + "[" * 100_000 + "\n" + ROW % "there")
    with pytest.raises(BadInput, match=r"deep\.jsonl:2: nested too deeply"):
        read_log_records(path)
    records, report = read_log_records(path, errors="skip")
    assert len(records) == 2 and report.skipped == {"nested too deeply": 1}
    corpus = tmp_path / "deep_corpus.jsonl"
    corpus.write_text('{"text": ' + "[" * 100_000 + "\n")
    with pytest.raises(BadInput, match=r"line 1 is nested too deeply"):
        load_samples(corpus, column="text")


def _csv_log(path: Path, content: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([["messages"], [json.dumps([{"role": "user", "content": content}], ensure_ascii=False)]])


def test_csv_cells_over_128_kib_are_read_and_the_bound_is_the_line_bound(tmp_path, capsys):
    path = tmp_path / "log.csv"
    _csv_log(path, "a" * 200_000)  # over csv's default field limit, 131,072
    records, _ = read_log_records(path)
    assert len(records[0].request.messages[0].text) == 200_000
    with pytest.raises(BadInput, match=r"log\.csv: line 2 is longer than 0\.1 MB.*--max-line-mb"):
        read_log_records(path, bounds=LineBounds(max_line_bytes=100_000))
    corpus = tmp_path / "c.csv"
    corpus.write_text("text\n" + "b" * 200_000 + "\n")
    samples, _ = load_samples(corpus, column="text")
    assert len(samples[0].text) == 200_000


# -- 16: the file and the line in every message ------------------------------------------------
def test_latin1_csv_log_names_the_real_line(tmp_path):
    path = tmp_path / "log.csv"
    _csv_log(path, "caf\u00e9")
    path.write_bytes(path.read_bytes().replace("é".encode(), b"\xe9"))
    with pytest.raises(BadInput, match=r"log\.csv: line 2: not valid UTF-8 .*iconv -f latin1"):
        read_log_records(path)


def test_huge_integer_names_file_and_line(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text(ROW % "hi" + '{"messages": [], "n": ' + "9" * 5_000 + "}\n")
    with pytest.raises(BadInput, match=r"log\.jsonl:2: holds a number too long to read") as e:
        read_log_records(path)
    assert "set_int_max_str_digits" not in str(e.value)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": ' + "9" * 5_000 + "}\n")
    with pytest.raises(BadInput, match=r"c\.jsonl: line 1 holds a number too long"):
        load_samples(corpus, column="text")


def test_corrupt_parquet_row_group_is_named(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "log.parquet"
    rows = [json.dumps([{"role": "user", "content": os.urandom(300).hex()}]) for i in range(400)]
    pq.write_table(pa.table({"messages": rows}), path, row_group_size=100, compression="snappy")
    meta = pq.ParquetFile(path).metadata
    col = meta.row_group(2).column(0)
    data = bytearray(path.read_bytes())
    first_page = col.dictionary_page_offset or col.data_page_offset
    start = first_page + col.total_compressed_size // 2  # inside the third group
    data[start:start + 2000] = bytes(2000)
    path.write_bytes(bytes(data))
    with pytest.raises(BadInput, match=r"log\.parquet: row group 3 of 4 \(after row 200\) is damaged"):
        read_log_records(path)


# -- 19: FIFOs and devices -----------------------------------------------------------------------
def test_fifo_and_device_are_not_regular_files(tmp_path, capsys):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    code, err = _run(["cost", "--logs", str(fifo), "-m", "gpt-4o"], capsys)
    assert code == 2 and "named pipe (FIFO), not a regular file" in err and "no such" not in err
    code, err = _run(["cost", "--logs", "/dev/zero", "-m", "gpt-4o"], capsys)
    assert code == 2 and "/dev/zero is a device, not a regular file" in err
    code, err = _run(["train", str(fifo), "--out", str(tmp_path / "m.model")], capsys)
    assert code == 2 and "named pipe (FIFO), not a regular file" in err and "no such" not in err


# -- 18: the output place is checked first ------------------------------------------------------
def _unwritable(tmp_path: Path) -> Path:
    if os.geteuid() != 0:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        return folder
    if Path("/sys").is_dir() and not os.access("/sys", os.W_OK) or Path("/sys").is_dir():
        return Path("/sys")  # sysfs: no file can be created there, even by root
    pytest.skip("no folder this user cannot write")


def test_measure_checks_the_out_folder_before_the_work(tmp_path, capsys, monkeypatch):
    import analysis.engine

    def no_work(*a, **k):
        raise AssertionError("measured before checking --out")

    monkeypatch.setattr(analysis.engine, "measure", no_work)
    target = _unwritable(tmp_path) / "x.csv"
    code, err = _run(["measure", "--builtin", "-t", "gpt2", "--out", str(target)], capsys)
    assert code == 2 and f"cannot write {target}" in err and ".tokenprism-tmp" not in err


def test_cost_checks_its_report_folder_before_the_work(tmp_path, capsys, monkeypatch):
    import analysis.cost as cost_lib  # the command imports `estimate` from here when it runs

    def no_work(*a, **k):
        raise AssertionError("priced before checking --out")

    monkeypatch.setattr(cost_lib, "estimate", no_work)
    target = _unwritable(tmp_path) / "report"
    code, err = _run(["cost", "hi", "-m", "gpt-4o", "--requests-per-month", "5", "--output-tokens", "3",
                      "--out", str(target)], capsys)
    assert code == 2 and f"cannot write {target}" in err


def test_an_atomic_write_failure_names_the_target(tmp_path):
    from analysis.atomic import atomic_write

    target = _unwritable(tmp_path) / "y.txt"
    with pytest.raises(OSError) as e:
        with atomic_write(target) as f:
            f.write("x")
    assert str(target) in str(e.value) and ".tokenprism-tmp" not in str(e.value)


def test_line_reader_matches_universal_newlines():
    from analysis.textio.lines import iter_lines

    data = b"a\r\nb\rc\n\n\rd"
    got = [line for _, line in iter_lines(io.BytesIO(data), where="x", bounds=LineBounds(), universal=True)]
    assert got == data.splitlines(keepends=True)
