"""Rows read in chunks and parsed later (on a worker) are the records `iter_log_records` reads
(issue 44): the same records in the same order, the same skip report, the same strict errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.cost import LogReport, iter_log_chunks, iter_log_records
from analysis.errors import BadInput

LOGS = Path(__file__).resolve().parents[3] / "fixtures" / "logs"


def _bad_log(tmp_path: Path) -> Path:
    chat = (LOGS / "openai_chat.jsonl").read_text(encoding="utf-8")
    bad = tmp_path / "bad.jsonl"  # bad rows before the shape is known (parsed here), and after (parsed later)
    bad.write_text('{"messages": [,]}\n[1, 2]\n' + chat * 3 + '{"messages": "no"}\n\n' + chat,
                   encoding="utf-8")
    return bad


@pytest.mark.parametrize("chunk_rows", [1, 4, 4096])
def test_chunks_hold_the_records_and_report_of_the_one_pass_reader(tmp_path, chunk_rows):
    logs = sorted(LOGS.iterdir()) + [_bad_log(tmp_path)]
    want_report = LogReport()
    want = list(iter_log_records(logs, errors="skip", report=want_report))
    report = LogReport()
    got = []
    for chunk in iter_log_chunks(logs, errors="skip", report=report, chunk_rows=chunk_rows):
        assert 0 < len(chunk) <= chunk_rows
        records, part = chunk.records()
        got += records
        report.merge(part)
    assert got == want
    assert (report.rows, report.skipped, report.examples, report.shapes) == \
        (want_report.rows, want_report.skipped, want_report.examples, want_report.shapes)
    assert want_report.skipped["not valid JSON"] == want_report.skipped["not a JSON object"] == 1


def test_a_bad_row_parsed_later_raises_the_same_error(tmp_path):
    bad = _bad_log(tmp_path)
    for skip_first in (False, True):
        log = bad
        if skip_first:  # the shape known from the first row: the bad row is among the unparsed lines
            log = tmp_path / "late.jsonl"
            log.write_text("\n".join(bad.read_text(encoding="utf-8").splitlines()[2:]) + "\n", encoding="utf-8")
        with pytest.raises(BadInput) as want:
            list(iter_log_records([log]))
        with pytest.raises(BadInput) as got:
            for chunk in iter_log_chunks([log], chunk_rows=2):
                chunk.records()
        assert str(got.value) == str(want.value)
