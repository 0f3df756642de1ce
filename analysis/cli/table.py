"""The CLI's one table writer: rows or a frame to stdout as one terminal block, CSV or JSON.

Every command's table goes through `format_table` (rows) or `format_frame` (a DataFrame), so
every table reads the same way:

- one block that fits the terminal: its width on a terminal, `PIPE_WIDTH` (100) columns when
  piped, never wrapped into a second block (pandas' `to_string` did that, with a trailing `\\`);
- the essential columns always: the identity (model, tokenizer, name), the answer (tokens,
  $/request, $/month), exactness and status (`ESSENTIAL`, or the table's own list); the other
  columns in their order as the width allows, and a last line naming those left out;
- a cell that does not fit is shortened with "…", never wrapped;
- `--wide` (width None) shows every column whole; `--format csv|json` is unchanged.

On a terminal the same layout is drawn with `rich` (a bold header); piped, as plain aligned
text. The column choice and widths are this module's in both cases (`layout`), so one set of
width rules holds for both, and a test holds them.

The stable entry points (other commands print through them):

    format_table(rows, columns, *, essential=None, width=PIPE_WIDTH, float_digits=3, rich=False, hint=True) -> str
    format_frame(frame, *, essential=None, width=PIPE_WIDTH, float_digits=3, rich=False, hint=True) -> str
    emit_rows(rows, columns, fmt, *, essential=None, width=PIPE_WIDTH, float_digits=3) -> None
    emit(frame, fmt, *, essential=None, width=PIPE_WIDTH, float_digits=3, ...) -> None
    terminal_width(wide=False) -> int | None
    note_line(text, width=PIPE_WIDTH) -> str

Reports with more than a table (cost, traffic, models) put their tables through `format_frame`
and their notes through `note_line` (analysis.cli.cost, analysis.cli.traffic).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import re
import shutil
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

PIPE_WIDTH = 100  # a table's width when stdout is not a terminal (and the most a note line takes)
WIDTH = PIPE_WIDTH  # (the name older callers import)
MAX_CELL = 40  # a text column wider than this is cut to it before the others are left out
MIN_CELL = 8  # the narrowest a text column is cut to (never narrower than its header)
GAP = "  "
ELLIPSIS = "…"

# Columns every table keeps, by name, wherever a table does not declare its own: the identity, the
# answer, exactness and status. The first column of a table is always kept too (its identity).
ESSENTIAL = frozenset({
    "model", "tokenizer", "name", "id", "file", "input", "served by", "probe", "table",
    "tokens", "n_tokens", "input_tokens", "input tokens", "in_tok/req", "tokens in", "total_tokens",
    "$/request", "$/month", "$/month (projected)", "total $", "$ input",
    "exactness", "status", "available", "fetched",
})


def terminal_width(wide: bool = False) -> int | None:
    """The width a table is laid out in: None with `wide` (every column, whole), the terminal's
    width when stdout is a terminal, else `PIPE_WIDTH` (a pipe or a file reads the same everywhere)."""
    if wide:
        return None
    if sys.stdout.isatty():
        return max(40, shutil.get_terminal_size((PIPE_WIDTH, 24)).columns)
    return PIPE_WIDTH


def cells(text: str) -> int:
    """The columns `text` takes in a terminal (東 takes two, a combining accent none), as rich counts them."""
    from rich.cells import cell_len

    return cell_len(text)


def shorten(text: str, width: int) -> str:
    """`text` cut to `width` terminal columns, the last one "…" when anything was cut.

    >>> shorten("claude-sonnet-4-5-20250929", 12), shorten("gpt-4o", 12), shorten("東京東京", 5)
    ('claude-sonn…', 'gpt-4o', '東京…')
    """
    if cells(text) <= width:
        return text
    from rich.cells import set_cell_size

    return set_cell_size(text, max(0, width - 1)).rstrip(" ") + ELLIPSIS


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * max(0, width - cells(text))
    return fill + text if right else text + fill


def note_line(text: str, width: int | None = PIPE_WIDTH) -> str:
    """One note as one line of at most `width` characters (None: whole), line breaks folded.

    >>> note_line("gpt-4o: estimate: tools are rendered as JSON, " * 4, 40)
    'gpt-4o: estimate: tools are rendered as…'
    """
    flat = " ".join(text.split())
    return flat if width is None else shorten(flat, width)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or repr(value) in ("<NA>", "NaT")


def _cell(value: Any, float_digits: int | None) -> str:
    if _missing(value):
        return "NaN" if isinstance(value, float) else ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{float_digits}f}" if float_digits is not None else repr(value)
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # a numpy scalar
        return _cell(value.item(), float_digits)
    return safe_cell(str(value))


def safe_cell(text: str) -> str:
    r"""A cell as one line a terminal shows as it is: line breaks and tabs as spaces, and nothing a
    terminal would obey (`render.terminal_text`: a cell may hold a user's file or model name).

    >>> safe_cell("a\tb\nc\x1b[31m")
    'a b c␛[31m'
    """
    from ..render import terminal_text

    return terminal_text(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))


# a number as the tables print one: 1,024  0.5  -3  +12.5%  $0.0012  ~1,024  12x  n/a-free
_NUMBER = re.compile(r"^[~<>≈]?[+-]?\$?[\d,]*\.?\d+(e[+-]?\d+)?[%x]?$")


def _is_number(value: Any, cell: str) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)) or (hasattr(value, "dtype") and hasattr(value, "item")):
        return True
    return bool(_NUMBER.match(cell))


@dataclass(frozen=True)
class Layout:
    """Which columns a table shows, how wide each is, and which it leaves out."""

    shown: tuple[int, ...]  # column indexes, in the table's order
    widths: tuple[int, ...]  # one per shown column
    right: tuple[bool, ...]  # one per shown column: right-aligned (numbers)
    hidden: tuple[str, ...]  # names of the columns left out


def layout(columns: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool], *,
           essential: Iterable[str] | None = None, width: int | None = PIPE_WIDTH) -> Layout:
    """Choose the columns and widths of a table of string cells (`rows`) so it fits `width`.

    The essential columns come first (cut down to `MIN_CELL` if they must be), then every other
    column in order while it fits, whole or cut to the room left (a text column, to no less than
    `MIN_CELL`), a text column at most `MAX_CELL` wide; then any room left goes back to the columns
    that were cut, in order.

    >>> lay = layout(["model", "notes", "$/month"], [["gpt-4o", "x" * 90, "$1.00"]], [False, False, True], width=40)
    >>> lay.shown, lay.widths, lay.hidden
    ((0, 1, 2), (6, 23, 7), ())
    """
    n = len(columns)
    natural = [max([cells(columns[i]), *(cells(row[i]) for row in rows)]) for i in range(n)]
    if width is None:
        return Layout(tuple(range(n)), tuple(natural), tuple(right), ())
    keep = set(ESSENTIAL if essential is None else essential)
    must = [i for i in range(n) if i == 0 or columns[i] in keep]
    floor = [natural[i] if right[i] else min(natural[i], max(cells(columns[i]), MIN_CELL)) for i in range(n)]
    want = [natural[i] if right[i] else min(natural[i], max(MAX_CELL, floor[i])) for i in range(n)]

    def total(ws: dict[int, int]) -> int:
        return sum(ws.values()) + len(GAP) * (len(ws) - 1)

    chosen = {i: want[i] for i in must}
    while total(chosen) > width:  # the essential columns alone are too wide: cut the widest text column
        cuttable = [i for i in chosen if chosen[i] > floor[i]]
        if not cuttable:
            break
        widest = max(cuttable, key=lambda i: chosen[i])
        chosen[widest] -= min(chosen[widest] - floor[widest], total(chosen) - width)
    while total(chosen) > width and len(chosen) > 1:  # still too wide: the last essential ones go
        del chosen[max(chosen)]
    for i in range(n):  # then the others, in their order, whole or cut, as the room allows
        if i in chosen:
            continue
        room = width - total(chosen) - len(GAP)
        if room >= want[i]:
            chosen[i] = want[i]
        elif not right[i] and room >= floor[i]:
            chosen[i] = room
    for i in sorted(chosen):  # room left over: the cut columns get it back, in order
        chosen[i] += min(natural[i] - chosen[i], max(0, width - total(chosen)))
    shown = tuple(sorted(chosen))
    return Layout(shown, tuple(chosen[i] for i in shown), tuple(right[i] for i in shown),
                  tuple(columns[i] for i in range(n) if i not in chosen))


def _hidden_line(hidden: Sequence[str], width: int | None) -> str:
    return note_line(f"(--wide adds {', '.join(hidden)})", width)


def _lines(columns: Sequence[str], cells: Sequence[Sequence[str]], lay: Layout) -> list[str]:
    def line(row: Sequence[str]) -> str:
        parts = [shorten(row[i], w) for i, w in zip(lay.shown, lay.widths)]
        return GAP.join(_pad(p, w, r) for p, w, r in zip(parts, lay.widths, lay.right)).rstrip()

    return [line(columns), *(line(row) for row in cells)]


def _prepare(rows: Sequence[dict], columns: Sequence[str],
             float_digits: int | None) -> tuple[list[list[str]], list[bool]]:
    values = [[r.get(c) for c in columns] for r in rows]
    cells = [[_cell(v, float_digits) for v in row] for row in values]
    right = []
    for i in range(len(columns)):
        filled = [(row[i], cell[i]) for row, cell in zip(values, cells) if cell[i] != ""]
        right.append(bool(filled) and sum(_is_number(v, c) for v, c in filled) * 2 >= len(filled))
    return cells, right


def format_table(rows: Sequence[dict], columns: Sequence[str], *, essential: Iterable[str] | None = None,
                 width: int | None = PIPE_WIDTH, float_digits: int | None = 3, rich: bool = False,
                 hint: bool = True) -> str:
    """`rows` (dicts; only `columns`, in that order) as one aligned block at most `width` wide.

    Args:
        rows: the table's rows; a missing key or None is an empty cell, a float NaN reads "NaN".
        columns: the columns, in the order shown.
        essential: the columns always shown (default: the first column and those named in `ESSENTIAL`).
        width: the most characters a line may take (`terminal_width()`); None shows every column whole.
        float_digits: decimals of a float cell (None: as repr writes it).
        rich: draw the block with `rich` (a terminal): the same columns, widths and cells, the header bold.
        hint: end with the line naming the columns left out, if any (False: --quiet, the table alone).

    Returns:
        The table without a final newline, every cell safe for a terminal (`safe_cell`), to be
        written as it is: a header line and one line per row, numbers right-aligned,
        text left-aligned, two spaces between columns; when columns were left out, a last line
        naming them ("(--wide adds source, licence)").

    >>> print(format_table([{"model": "gpt-4o", "tokens": 12, "note": "a" * 30}], ["model", "tokens", "note"], width=30))
    model   tokens  note
    gpt-4o      12  aaaaaaaaaaaaa…
    """
    cells, right = _prepare(rows, columns, float_digits)
    columns = [safe_cell(str(c)) for c in columns]
    lay = layout(columns, cells, right, essential=essential, width=width)
    if not hint:
        lay = dataclasses.replace(lay, hidden=())
    if rich:
        return _rich(columns, cells, lay, width)
    lines = _lines(columns, cells, lay)
    if lay.hidden:
        lines.append(_hidden_line(lay.hidden, width))
    return "\n".join(lines)


def _rich(columns: Sequence[str], cells: Sequence[Sequence[str]], lay: Layout, width: int | None) -> str:
    """The `layout` drawn by rich: the same cells in the same widths, one space of padding on each
    inner side (the plain text's two-space gap), the header bold."""
    import io

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold")
    for i, w, r in zip(lay.shown, lay.widths, lay.right):
        table.add_column(columns[i], justify="right" if r else "left", width=w, no_wrap=True, overflow="ellipsis")
    for row in cells:
        table.add_row(*(Text(shorten(row[i], w)) for i, w in zip(lay.shown, lay.widths)))
    out = io.StringIO()
    total = sum(lay.widths) + len(GAP) * (len(lay.widths) - 1)
    Console(file=out, width=total, force_terminal=True, color_system="standard", highlight=False,
            legacy_windows=False).print(table)
    text = "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").split("\n"))
    if lay.hidden:
        text += "\n\x1b[2m" + _hidden_line(lay.hidden, width) + "\x1b[0m"
    return text


def frame_rows(frame: pd.DataFrame) -> tuple[list[dict], list[str]]:
    """A frame's rows (dicts of Python values) and its column names, as `format_table` takes them."""
    columns = [str(c) for c in frame.columns]
    rows = [dict(zip(columns, values)) for values in frame.astype(object).itertuples(index=False, name=None)]
    return rows, columns


def format_frame(frame: pd.DataFrame, *, essential: Iterable[str] | None = None, width: int | None = PIPE_WIDTH,
                 float_digits: int | None = 3, rich: bool = False, hint: bool = True) -> str:
    """`format_table` of a DataFrame's rows and columns (the index is not shown)."""
    rows, columns = frame_rows(frame)
    return format_table(rows, columns, essential=essential, width=width, float_digits=float_digits, rich=rich,
                        hint=hint)


def on_terminal() -> bool:
    """Whether a table is drawn for a terminal (with rich): stdout is one and NO_COLOR is unset."""
    import os

    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _json_value(value: Any) -> Any:
    if _missing(value):
        return None
    if isinstance(value, float):
        return round(value, 6)  # as `emit`'s double_precision=6
    return value


def emit_rows(rows: Sequence[dict], columns: Sequence[str], fmt: str, *, essential: Iterable[str] | None = None,
              width: int | None = PIPE_WIDTH, float_digits: int | None = 3) -> None:
    """Write `rows` (only `columns`, in that order) to stdout as `fmt`: table (`format_table` at
    `width`), csv or json."""
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([["" if _missing(r.get(c)) else r.get(c) for c in columns] for r in rows])
    elif fmt == "json":
        records = [{c: _json_value(r.get(c)) for c in columns} for r in rows]
        sys.stdout.write(json.dumps(records, ensure_ascii=False, separators=(",", ":")) + "\n")
    else:  # every cell made safe for a terminal by `safe_cell`
        sys.stdout.write(format_table(rows, columns, essential=essential, width=width, float_digits=float_digits,
                                      rich=on_terminal()) + "\n")


def emit(df: pd.DataFrame, fmt: str, *, essential: Iterable[str] | None = None, float_digits: int | None = 3,
         width: int | None = PIPE_WIDTH, json_indent: int | None = None, json_digits: int = 6,
         empty: str | None = None) -> None:
    """Write a frame to stdout as a table (`format_frame` at `width`), CSV or JSON records.

    `float_digits`: the table's decimals (None: as repr writes them); `json_indent`,
    `json_digits`: the JSON layout and precision; `empty`: the table of a frame with no rows.
    """
    if fmt == "csv":
        df.to_csv(sys.stdout, index=False)
    elif fmt == "json":
        sys.stdout.write(df.to_json(orient="records", force_ascii=False, double_precision=json_digits,
                                    indent=json_indent) + "\n")
    elif empty is not None and not len(df):
        sys.stdout.write(empty + "\n")
    else:
        rows, columns = frame_rows(df)
        emit_rows(rows, columns, "table", essential=essential, width=width, float_digits=float_digits)


# --quiet keeps these columns of a cost table, where present: one short line per model
QUIET_COLUMNS = ("id", "model", "tokenizer", "exactness", "input tokens", "in_tok/req", "tokens in", "$ input",
                 "$/request", "total $", "$/month", "$/month (projected)", "status")


def quiet_table(frame: Any, width: int | None = PIPE_WIDTH) -> str:
    """A cost table for --quiet: the `QUIET_COLUMNS` it has, one line per row, no notes."""
    shown = frame[[c for c in QUIET_COLUMNS if c in frame.columns]]
    return format_frame(shown, width=width, rich=on_terminal(), hint=False) + "\n"
