"""The CLI's one table writer: rows or a frame to stdout as an aligned table, CSV or JSON.

`emit_rows` writes rows (a list of dicts) without pandas: the few rows of the commands a new
user runs first (`tokenizers`, `compare`, `vocab list`), which must answer before pandas could
even be imported. `emit` writes a DataFrame, in the same shape: right-aligned columns, NaN and
missing values shown as pandas shows them, empty CSV cells, JSON null. `quiet_table` is a cost
table cut to its short columns (--quiet). Reports with more than a table (cost, traffic,
models) are rendered by `analysis.report` and written through `cli.write_report_text`.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

MAX_COLWIDTH = 60  # as `emit`'s display.max_colwidth: longer cells end in "..."
WIDTH = 120  # a table's columns wrap into blocks this wide, unless --wide


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _cell(value: Any, float_digits: int) -> str:
    if value is None:
        return "<NA>"
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else f"{value:.{float_digits}f}"
    text = str(value)
    return text if len(text) <= MAX_COLWIDTH else text[:MAX_COLWIDTH - 3] + "..."


def _numeric(values: Sequence[Any]) -> bool:
    return bool(values) and all(isinstance(v, (int, float)) for v in values)


def format_table(rows: Sequence[dict], columns: Sequence[str], *, float_digits: int = 3,
                 width: int | None = None) -> str:
    """An aligned text table: one header line, one line per row, columns right-aligned.

    With `width`, the columns wrap as pandas' `to_string(line_width=...)` wraps them: blocks of
    whole columns at most `width` characters wide, one under the other, each line of a block but
    the last ending in a backslash.

    >>> print(format_table([{"name": "a", "n": 1.5}, {"name": "bbb", "n": float("nan")}], ["name", "n"]))
    name     n
       a 1.500
     bbb   NaN
    >>> print(format_table([{"a": "x" * 6, "b": "y" * 6}], ["a", "b"], width=12))
         a \\
    xxxxxx \\
    <BLANKLINE>
         b
    yyyyyy
    """
    values = [[r.get(c) for c in columns] for r in rows]
    cells = [[_cell(v, float_digits) for v in row] for row in values]
    # as pandas' `to_string(index=False)`: a column of numbers (or booleans) is at least one
    # character wider than its name
    widths = [max([len(c) + _numeric([row[i] for row in values]), *(len(row[i]) for row in cells)])
              for i, c in enumerate(columns)]
    blocks = _blocks(widths, width)
    out = []
    for n, block in enumerate(blocks):
        end = " \\" if n < len(blocks) - 1 else ""
        lines = [" ".join(columns[i].rjust(widths[i]) for i in block)]
        lines += [" ".join(row[i].rjust(widths[i]) for i in block) for row in cells]
        out.append("\n".join(line + end for line in lines))
    return "\n\n".join(out)


def _blocks(widths: Sequence[int], width: int | None) -> list[list[int]]:
    """The column indexes of each block: as many whole columns as fit in `width` (counting the
    spaces between them and the 2-character continuation mark), at least one per block."""
    if width is None or sum(widths) + len(widths) - 1 <= width:
        return [list(range(len(widths)))]
    blocks: list[list[int]] = [[]]
    used = 0
    for i, w in enumerate(widths):
        if blocks[-1] and used + 1 + w + 2 > width:
            blocks.append([])
            used = 0
        used += w + (1 if blocks[-1] else 0)
        blocks[-1].append(i)
    return blocks


def _json_value(value: Any) -> Any:
    if _missing(value):
        return None
    if isinstance(value, float):
        return round(value, 6)  # as `emit`'s double_precision=6
    return value


def emit_rows(rows: Sequence[dict], columns: Sequence[str], fmt: str, *, float_digits: int = 3,
              width: int | None = WIDTH) -> None:
    """Write `rows` (only `columns`, in that order) to stdout as `fmt`: table, csv or json; a table
    wraps at `width` characters (None: as wide as its columns)."""
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([["" if _missing(r.get(c)) else r.get(c) for c in columns] for r in rows])
    elif fmt == "json":
        records = [{c: _json_value(r.get(c)) for c in columns} for r in rows]
        sys.stdout.write(json.dumps(records, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(format_table(rows, columns, float_digits=float_digits, width=width) + "\n")


def emit(df: pd.DataFrame, fmt: str, *, float_digits: int | None = 3, width: int | None = WIDTH,
         json_indent: int | None = None, json_digits: int = 6, empty: str | None = None) -> None:
    """Write a frame to stdout as an aligned table (wrapped at `width` characters; None: as wide as
    its columns), CSV or JSON records.

    `float_digits`: the table's decimals (None: as pandas writes them); `json_indent`,
    `json_digits`: the JSON layout and precision; `empty`: the table of a frame with no rows.
    """
    import pandas as pd

    if fmt == "csv":
        df.to_csv(sys.stdout, index=False)
    elif fmt == "json":
        sys.stdout.write(df.to_json(orient="records", force_ascii=False, double_precision=json_digits,
                                    indent=json_indent) + "\n")
    elif empty is not None and not len(df):
        sys.stdout.write(empty + "\n")
    else:
        digits = None if float_digits is None else (lambda x: f"{x:.{float_digits}f}")
        with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200,
                               "display.max_colwidth", 60):
            sys.stdout.write(df.to_string(index=False, float_format=digits, line_width=width) + "\n")


# --quiet keeps these columns of a cost table, where present: one short line per model
QUIET_COLUMNS = ("id", "model", "tokenizer", "exactness", "input tokens", "in_tok/req", "tokens in", "$ input",
                 "$/request", "total $", "$/month", "$/month (projected)", "status")


def quiet_table(frame: Any) -> str:
    """A cost table for --quiet: the `QUIET_COLUMNS` it has, one line per row, no notes."""
    return frame[[c for c in QUIET_COLUMNS if c in frame.columns]].to_string(index=False) + "\n"
