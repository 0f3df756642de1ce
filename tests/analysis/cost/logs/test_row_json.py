"""Log rows are read by orjson where it reads them as the standard library does, and by the
standard library everywhere else (issue 44): the same values, the same refusals, the same messages."""

from __future__ import annotations

import json
import math

import pytest

from analysis.cost.logs import read_log_records
from analysis.cost.logs.read import _json
from analysis.cost.logs.shapes import RowError

SAME = [
    '{"a": 1, "b": [1.5, -0.0, 2e3, true, null], "c": "caf\\u00e9 \\ud83d\\ude00 東京"}',
    '{"a": 1, "a": 2}',  # the last key wins in both
    '{"n": 9223372036854775807, "m": -9223372036854775808, "u": 18446744073709551615}',
    '{"n": 123456789012345678901234567890}',  # beyond 64 bits: orjson would make it a float
    '{"n": -123456789012345678901234567890, "f": 1e300}',
    '{"x": NaN, "y": Infinity, "z": -Infinity}',  # the standard library accepts these; orjson does not
    '{"s": "\\ud800"}',  # a lone surrogate
    '[' * 900 + ']' * 900,  # deep, but within both parsers' limits
]


@pytest.mark.parametrize("text", SAME)
def test_rows_read_as_the_standard_library_reads_them(text):
    ours, theirs = _json(text), json.loads(text)
    assert json.dumps(ours) == json.dumps(theirs)  # NaN != NaN: compare the texts
    assert repr(ours) == repr(theirs)  # and the types: 30 digits stay an int, 2e3 a float


def test_a_long_integer_keeps_every_digit():
    assert _json('{"n": 123456789012345678901234567890}')["n"] == 123456789012345678901234567890
    assert math.isnan(_json('{"x": NaN}')["x"])


@pytest.mark.parametrize("text", ['{"a": 1,}', '{"a": tru}', '{"a" 1}', '[1, 2', ''])
def test_syntax_errors_are_the_standard_librarys(text):
    with pytest.raises(json.JSONDecodeError) as ours:
        _json(text)
    with pytest.raises(json.JSONDecodeError) as theirs:
        json.loads(text)
    assert (ours.value.msg, ours.value.pos) == (theirs.value.msg, theirs.value.pos)


def test_limits_stay_row_problems():
    with pytest.raises(RowError, match="nested too deeply"):
        _json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RowError, match="number too long"):
        _json('{"n": ' + "1" * 5000 + "}")


def test_a_bad_row_names_its_line_and_column_as_before(tmp_path):
    log = tmp_path / "bad.jsonl"
    log.write_text('{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [,]}\n', encoding="utf-8")
    records, report = read_log_records(log, errors="skip")
    assert len(records) == 1
    assert report.examples["not valid JSON"] == [f"{log}:2"]
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not valid JSON \(Expecting value at column 15\)"):
        read_log_records(log)


def test_random_numbers_read_as_the_standard_library_reads_them():
    import random

    rng = random.Random(8)
    for _ in range(500):
        digits = "".join(rng.choices("0123456789", k=rng.randint(1, 25))).lstrip("0") or "0"
        number = rng.choice([digits, "-" + digits, digits + ".5", digits + "e2", digits + "E-3", "0.0"])
        text = json.dumps({"v": [rng.choice(["x 1.", "v2e", "abc"]), 7]})[:-2] + ", " + number + "]}"
        ours, theirs = _json(text), json.loads(text)
        assert repr(ours) == repr(theirs), text
