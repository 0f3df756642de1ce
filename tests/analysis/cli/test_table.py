"""`cli.table`: one block that fits its width, essential columns always, the others as width
allows, long cells cut with "…", never wrapped; the same layout drawn plain (a pipe) and by rich
(a terminal); csv and json as they were."""

from __future__ import annotations

import io
import json
import math
import random
import re
import sys

import pandas as pd
import pytest

from analysis.cli.table import (ELLIPSIS, PIPE_WIDTH, emit, emit_rows, format_frame, format_table, layout,
                                terminal_width)

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _frames(seed: int = 7, n: int = 60) -> list[pd.DataFrame]:
    rng = random.Random(seed)
    words = ["code", "prose", "a", "multilingual", "Latn", "東京", "é", "claude-sonnet-4-5-20250929",
             "no: tokenprism vocab fetch mistral-tekken", "x" * 70]
    out = [pd.DataFrame({"tokenizer": ["o200k_base", "gpt2"], "n_samples": [3012, 5], "ratio": [3.55, math.nan],
                         "note": ["x", None], "exact": [True, False]})]
    for _ in range(n):
        rows = rng.randint(1, 6)
        cols = {"model": [rng.choice(words) for _ in range(rows)]}
        for i in range(rng.randint(1, 14)):
            kind = rng.choice(["count", "ratio", "text", "money"])
            name = rng.choice(["n", "tokens", "a longer column name", "$/month", "status", "other"]) + f"_{i}"
            cols[name] = [rng.randint(0, 10 ** 7) if kind == "count" else
                          rng.uniform(0, 50) if kind == "ratio" else
                          f"${rng.uniform(0, 999):,.4f}" if kind == "money" else rng.choice(words)
                          for _ in range(rows)]
        out.append(pd.DataFrame(cols))
    return out


def _plain(text: str) -> list[str]:
    """The lines as a terminal shows them: styles gone, trailing blanks gone."""
    return [line.rstrip() for line in ANSI.sub("", text).split("\n")]


@pytest.mark.parametrize("rich", [False, True], ids=["plain", "rich"])
@pytest.mark.parametrize("width", [40, 72, PIPE_WIDTH, 160])
def test_every_line_fits_and_nothing_wraps(width, rich):
    for frame in _frames():
        lines = _plain(format_frame(frame, width=width, rich=rich))
        assert all(len(line) <= width for line in lines), (width, lines)
        assert not any(line.endswith("\\") for line in lines)
        body = [line for line in lines if not line.startswith("(--wide adds")]
        assert len(body) == len(frame) + 1, lines  # one header, one line per row: one block
        assert lines[1].startswith(str(frame.iloc[0, 0])[: 6]) or ELLIPSIS in lines[1]  # the identity first


@pytest.mark.parametrize("width", [40, 72, PIPE_WIDTH])
def test_rich_draws_the_plain_layout(width):
    for frame in _frames(seed=3, n=30):
        assert _plain(format_frame(frame, width=width, rich=True)) == _plain(format_frame(frame, width=width))


def test_essential_columns_stay_and_the_others_are_named():
    rows = [{"model": "claude-sonnet-4-5", "notes": "why " * 30, "source": "s" * 50, "$/month": "$1,234.56",
             "exactness": "estimate"}]
    text = format_table(rows, ["model", "notes", "source", "$/month", "exactness"], width=60)
    head, row, hidden = text.split("\n")
    assert head.split()[0] == "model" and "$/month" in head and "exactness" in head
    assert "claude-sonnet-4-5" in row and "$1,234.56" in row and "estimate" in row  # the answer beside the name
    assert hidden.startswith("(--wide adds") and "source" in hidden
    assert max(map(len, text.split("\n"))) <= 60


def test_a_declared_essential_column_wins_over_order():
    rows = [{"name": "a", "wide": "w" * 80, "late": 7}]
    text = format_table(rows, ["name", "wide", "late"], essential=("name", "late"), width=30)
    assert "late" in text.split("\n")[0] and text.split("\n")[1].rstrip().endswith("7")


def test_a_cell_that_does_not_fit_ends_in_an_ellipsis():
    text = format_table([{"model": "m", "note": "n" * 200}], ["model", "note"], width=50)
    assert text.split("\n")[1].endswith(ELLIPSIS) and len(text.split("\n")[1]) == 50


def test_wide_shows_every_column_whole():
    frame = _frames()[5]
    text = format_frame(frame, width=None)
    assert "(--wide adds" not in text
    head = text.split("\n")[0].split()
    for column in frame.columns:
        assert column.split()[0] in head
    long = pd.DataFrame({"model": ["m"], "note": ["n" * 200]})
    assert "n" * 200 in format_frame(long, width=None)


def test_numbers_align_right_text_left():
    text = format_table([{"model": "a", "n": 5}, {"model": "bbb", "n": 12345}], ["model", "n"])
    assert text.split("\n") == ["model      n", "a          5", "bbb    12345"]


def test_layout_keeps_the_essential_columns_when_they_alone_are_too_wide():
    cells = [["m" * 50, "e" * 50, "1"]]
    lay = layout(["model", "exactness", "tokens"], cells, [False, False, True], width=40)
    assert sum(lay.widths) + 2 * (len(lay.widths) - 1) <= 40 and 0 in lay.shown


def test_a_pipe_is_100_columns_and_wide_is_unbounded(monkeypatch):
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert terminal_width() == PIPE_WIDTH and terminal_width(wide=True) is None


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_of_rows_are_those_of_the_frame(fmt, monkeypatch):
    for frame in _frames()[:20]:
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


@pytest.mark.parametrize("rich", [False, True], ids=["plain", "rich"])
def test_a_hostile_cell_reaches_the_terminal_as_pictures(rich):
    # a model or file name from the user's files: no escape sequence, tab or line break gets through;
    # on a terminal only rich's own styling (SGR) is an escape
    text = format_table([{"model": "gpt\x1b]0;owned\x07-4o\tx\ny", "n": 1}], ["model", "n"], width=60, rich=rich)
    assert "\x1b" not in ANSI.sub("", text) and "\x07" not in text and "\t" not in text
    assert "␛]0;owned␇-4o x y" in ANSI.sub("", text)
    assert len(text.split("\n")) == 2
    if rich:
        assert "\x1b[1m" in text  # the bold header: rich drew it
