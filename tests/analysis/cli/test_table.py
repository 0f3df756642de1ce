"""`cli.table` writes the tables pandas would: the commands that skip pandas look like those that don't."""

from __future__ import annotations

import io
import json
import math
import random
import sys

import pandas as pd
import pytest

from analysis.cli.table import emit, emit_rows, format_table


def _frames() -> list[pd.DataFrame]:
    rng = random.Random(7)
    fixed = [
        pd.DataFrame({"tokenizer": ["o200k_base", "gpt2"], "n_samples": [3012, 5], "ratio": [3.55, math.nan],
                      "note": ["x", None], "exact": [True, False]}),
        pd.DataFrame({"n": [1, 22]}),
        pd.DataFrame({"x": [1.5, 2.25], "y": ["a", "b"]}),
        pd.DataFrame({"s": ["a", "b"], "v": [-1.5, 2.0], "w": [1, -300]}),
        pd.DataFrame({"s": ["a"], "v": [math.nan]}),
        pd.DataFrame({"s": ["a"], "zero": [0], "long name of a column": [1.0]}),
    ]
    words = ["code", "prose", "a", "multilingual", "Latn", "東京", "é"]
    # the shapes the commands print: labels, counts, and ratios (some missing; a column of nothing
    # but NaN is a case pandas pads by its dtype, which rows do not have)
    for _ in range(40):
        n = rng.randint(1, 6)
        fixed.append(pd.DataFrame({
            "label": [rng.choice(words) for _ in range(n)],
            "count": [rng.randint(0, 10 ** rng.randint(0, 7)) for _ in range(n)],
            "ratio": [rng.uniform(0, 50)] + [rng.choice([math.nan, rng.uniform(0, 50)]) for _ in range(n - 1)],
            "delta": [rng.uniform(-5, 5) for _ in range(n)],
            "other": [rng.choice(words) for _ in range(n)],
        }))
    return fixed


@pytest.mark.parametrize("digits", [2, 3])
def test_a_table_of_rows_is_the_table_of_the_frame(digits):
    for frame in _frames():
        expected = frame.to_string(index=False, float_format=lambda x: f"{x:.{digits}f}")
        assert format_table(frame.to_dict("records"), list(frame.columns), float_digits=digits) == expected, frame


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_of_rows_are_those_of_the_frame(fmt, monkeypatch):
    for frame in _frames():
        outs = []
        for write in (lambda: emit(frame, fmt), lambda: emit_rows(frame.to_dict("records"), list(frame.columns), fmt)):
            buf = io.StringIO()
            monkeypatch.setattr(sys, "stdout", buf)
            write()
            outs.append(buf.getvalue())
        if fmt == "json":  # the same records (pandas writes 6 significant digits its own way)
            assert [{k: (round(v, 5) if isinstance(v, float) else v) for k, v in r.items()}
                    for r in json.loads(outs[0])] == [{k: (round(v, 5) if isinstance(v, float) else v)
                                                       for k, v in r.items()} for r in json.loads(outs[1])]
        else:
            assert outs[0] == outs[1]
