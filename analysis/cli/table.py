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


def format_table(rows: Sequence[dict], columns: Sequence[str], *, float_digits: int = 3) -> str:
    """An aligned text table: one header line, one line per row, columns right-aligned.

    >>> print(format_table([{"name": "a", "n": 1.5}, {"name": "bbb", "n": float("nan")}], ["name", "n"]))
    name     n
       a 1.500
     bbb   NaN
    """
    values = [[r.get(c) for c in columns] for r in rows]
    cells = [[_cell(v, float_digits) for v in row] for row in values]
    # as pandas' `to_string(index=False)`: a column of numbers (or booleans) is at least one
    # character wider than its name
    widths = [max([len(c) + _numeric([row[i] for row in values]), *(len(row[i]) for row in cells)])
              for i, c in enumerate(columns)]
    lines = [" ".join(c.rjust(w) for c, w in zip(columns, widths))]
    lines += [" ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def _json_value(value: Any) -> Any:
    if _missing(value):
        return None
    if isinstance(value, float):
        return round(value, 6)  # as `emit`'s double_precision=6
    return value


def emit_rows(rows: Sequence[dict], columns: Sequence[str], fmt: str, *, float_digits: int = 3) -> None:
    """Write `rows` (only `columns`, in that order) to stdout as `fmt`: table, csv or json."""
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([["" if _missing(r.get(c)) else r.get(c) for c in columns] for r in rows])
    elif fmt == "json":
        records = [{c: _json_value(r.get(c)) for c in columns} for r in rows]
        sys.stdout.write(json.dumps(records, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(format_table(rows, columns, float_digits=float_digits) + "\n")


def emit(df: pd.DataFrame, fmt: str, *, float_digits: int | None = 3, json_indent: int | None = None,
         json_digits: int = 6, empty: str | None = None) -> None:
    """Write a frame to stdout as an aligned table, CSV or JSON records.

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
            sys.stdout.write(df.to_string(index=False, float_format=digits) + "\n")


# --quiet keeps these columns of a cost table, where present: one short line per model
QUIET_COLUMNS = ("id", "model", "tokenizer", "exactness", "input tokens", "in_tok/req", "tokens in", "$ input",
                 "$/request", "total $", "$/month", "$/month (projected)", "status")


def quiet_table(frame: Any) -> str:
    """A cost table for --quiet: the `QUIET_COLUMNS` it has, one line per row, no notes."""
    return frame[[c for c in QUIET_COLUMNS if c in frame.columns]].to_string(index=False) + "\n"
