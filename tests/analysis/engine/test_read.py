"""The engine's fast reader gives exactly what the corpus loaders give: ids, labels, texts, report."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis.corpora import LoadReport, iter_samples
from analysis.engine import read
from analysis.engine.read import iter_corpus_chunks
from analysis.pipeline import DETECT_SCRIPT, iter_sample_chunks


def _both(paths, **opts):
    r1, r2 = LoadReport(), LoadReport()
    slow = pd.concat(list(iter_sample_chunks(iter_samples(paths, report=r1, script=DETECT_SCRIPT, **opts))),
                     ignore_index=True)
    fast = pd.concat(list(iter_corpus_chunks(paths, report=r2, **opts)), ignore_index=True)
    return slow, fast, r1, r2


def _write_jsonl(path, records, *, raw_lines=()):
    lines = [json.dumps(r, ensure_ascii=False) for r in records] + list(raw_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("case", ["plain", "blank-and-empty", "null-and-number", "crlf", "surrogate", "no-final-newline"])
def test_jsonl_matches_the_loader(tmp_path, monkeypatch, case):
    monkeypatch.setattr(read, "BLOCK_BYTES", 64)  # many blocks: rows numbered across block edges
    recs = [{"text": f"row {i} héllo 東京", "n": i} for i in range(40)]
    p = tmp_path / "t.jsonl"
    if case == "plain":
        _write_jsonl(p, recs)
    elif case == "blank-and-empty":
        _write_jsonl(p, recs[:5] + [{"text": ""}] + recs[5:], raw_lines=["", "   ", json.dumps({"text": "last"})])
    elif case == "null-and-number":
        _write_jsonl(p, recs[:3] + [{"text": None}, {"text": 12}, {"text": {"a": 1}}] + recs[3:])
    elif case == "crlf":
        p.write_bytes(b"\r\n".join(json.dumps(r).encode() for r in recs) + b"\r\n")
    elif case == "surrogate":
        p.write_text(json.dumps({"text": "a\ud800b"}) + "\n" + json.dumps(recs[0]) + "\n", encoding="utf-8")
    else:
        p.write_text("\n".join(json.dumps(r) for r in recs), encoding="utf-8")
    slow, fast, r1, r2 = _both([p], column="text")
    pd.testing.assert_frame_equal(fast, slow)
    assert (r1.samples, r1.rows_skipped_empty, r1.files_read, r1.bytes_read) == \
        (r2.samples, r2.rows_skipped_empty, r2.files_read, r2.bytes_read)


def test_parquet_folder_and_text_files_match_the_loader(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    pd.DataFrame({"text": ["a", None, "", "b c", "ü"]}).to_parquet(d / "t.parquet")
    (d / "notes.md").write_text("# Title\n\nsome words\n")
    (d / "code.py").write_text("x = 1\n")
    _write_jsonl(d / "rows.jsonl", [{"text": "x"}, {"text": "y"}])
    slow, fast, r1, r2 = _both([d], column="text")
    pd.testing.assert_frame_equal(fast, slow)
    assert r1.samples == r2.samples == 7  # 3 parquet rows, 2 JSON lines, 2 text files
    # without a column, tables found in a folder are text files, as for the loader
    slow, fast, _, _ = _both([d])
    pd.testing.assert_frame_equal(fast, slow)


def test_bad_json_line_is_the_loaders_error(tmp_path):
    p = tmp_path / "bad.jsonl"
    p.write_text('{"text": "a"}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="line 2 has no key 'text'"):
        list(iter_corpus_chunks(p, column="text"))


def test_jsonl_frames_are_bounded_by_characters_as_well_as_rows(tmp_path):
    # a block of long rows must not become one huge frame: chunk_chars cuts it, as it cuts samples
    p = _write_jsonl(tmp_path / "long.jsonl", [{"text": f"{i:02d} " + "x" * 997} for i in range(50)])
    frames = list(iter_corpus_chunks(p, column="text", chunk_chars=5_000, chunk_samples=1 << 16))
    sizes = [int(f["text"].str.len().sum()) for f in frames]
    assert sizes == [5_000] * 10  # 1,000 characters a row
    assert pd.concat(frames)["sample_id"].tolist() == [f"{p}:{i}" for i in range(1, 51)]
    few = list(iter_corpus_chunks(p, column="text", chunk_chars=10**9, chunk_samples=7))
    assert [len(f) for f in few] == [7] * 7 + [1]


@pytest.mark.parametrize("brk", ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"])
@pytest.mark.parametrize("offset", [0, 63, 64])
def test_carriage_returns_and_raw_controls_send_the_file_to_the_loader(tmp_path, monkeypatch, brk, offset):
    monkeypatch.setattr(read, "BLOCK_BYTES", 64)  # the byte in the first block, at its end, in the second
    start = '{"text": "'
    p = tmp_path / "t.jsonl"
    p.write_text(start + "x" * offset + brk + 'y"}\n{"text": "b"}\n', encoding="utf-8", newline="")
    assert not read._plain_lines(p)
    p.write_text(start + "x" * offset + 'y"}\n{"text": "b"}\n', encoding="utf-8", newline="")
    assert read._plain_lines(p)


@pytest.mark.parametrize("brk", ["\x85", "\u2028", "\u2029"])
def test_unicode_line_separators_stay_on_the_arrow_path(tmp_path, monkeypatch, brk):
    # valid raw in JSON strings (json.dumps(ensure_ascii=False) writes them so): no line break
    monkeypatch.setattr(read, "BLOCK_BYTES", 64)
    recs = [{"text": f"row {i}{brk}more {brk * (i % 2)}", "n": i} for i in range(30)]
    p = _write_jsonl(tmp_path / "t.jsonl", recs)
    assert read._plain_lines(p)
    slow, fast, r1, r2 = _both([p], column="text")
    pd.testing.assert_frame_equal(fast, slow)
    assert fast["text"].tolist() == [r["text"] for r in recs]
    assert r1.samples == r2.samples == 30
