"""The user's price override file (``--prices FILE``, CSV or TOML): read, validate, turn into prices.

Unlike `lookup` (which looks prices up in the maintained `genai-prices` data and chooses
between a package row and an override row), this module only parses the user's file: it checks
every column and value and raises a ValueError naming the file, the line (CSV) or entry (TOML),
the column and the fix. Money is read as `Decimal`, never as a binary float.
"""

from __future__ import annotations

import csv
import io
import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .records import Price, Rate
from ...contract import text_exactness
from ...errors import BadInput, closest
from ...textio import read_file_bytes


OVERRIDE_COLUMNS = ("model", "provider", "usd_per_mtok_input", "usd_per_mtok_output", "usd_per_mtok_cached_input",
                    "source", "as_of", "tokenizer", "exactness", "note")
OVERRIDE_REQUIRED = ("model", "usd_per_mtok_input", "usd_per_mtok_output", "source", "as_of")


@dataclass
class _Row:
    where: str  # "line 3" / "[[model]] entry 2"
    values: dict[str, Any] = field(default_factory=dict)


def _bad(path: Path, where: str, column: str, problem: str) -> BadInput:
    return BadInput(f"{path}: {where}, column {column}: {problem}")


# Far above any real price; keeps every product of price and workload finite.
MAX_USD_PER_MTOK = Decimal(1_000_000)


def _money(path: Path, row: _Row, column: str, *, required: bool) -> Decimal | None:
    raw = row.values.get(column)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        if required:
            raise _bad(path, row.where, column, "missing value (a price in USD per million tokens, e.g. 2.50)")
        return None
    if isinstance(raw, bool):
        raise _bad(path, row.where, column, f"{raw!r} is not a number")
    try:
        value = raw if isinstance(raw, Decimal) else Decimal(str(raw).strip())
    except InvalidOperation:
        raise _bad(path, row.where, column, f"{raw!r} is not a number (write a plain decimal such as 2.50: "
                   "no currency sign, no thousands separator)") from None
    if not value.is_finite() or value < 0 or value > MAX_USD_PER_MTOK:
        raise _bad(path, row.where, column, f"{raw!r} must be a finite, non-negative USD amount per million tokens, "
                   f"at most {MAX_USD_PER_MTOK:,}")
    return value


def _required_money(path: Path, row: _Row, column: str) -> Decimal:
    value = _money(path, row, column, required=True)
    assert value is not None  # `required` raised for a missing value; this only narrows the type
    return value


def _text(path: Path, row: _Row, column: str, *, required: bool) -> str:
    raw = row.values.get(column)
    text = "" if raw is None else str(raw).strip()
    if required and not text:
        raise _bad(path, row.where, column, "missing value")
    return text


def _as_of(path: Path, row: _Row) -> date:
    raw = row.values.get("as_of")
    if isinstance(raw, datetime):
        return raw.date()
    if isinstance(raw, date):
        return raw
    text = _text(path, row, "as_of", required=True)
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise _bad(path, row.where, "as_of", f"{text!r} is not a date (write YYYY-MM-DD)") from None


# A price file holds a row per model: thousands of rows are well under a megabyte. Its size is
# checked before it is read.
MAX_PRICE_FILE_BYTES = 16_000_000


def _price_file_bytes(path: Path) -> bytes:
    return read_file_bytes(path, MAX_PRICE_FILE_BYTES, what="price file",
                           raise_hint="a price file holds one row per model; give only the models you price")


def _read_rows(path: Path) -> list[_Row]:
    suffix = path.suffix.lower()
    if suffix == ".toml":
        raw = _price_file_bytes(path)
        try:
            data = tomllib.loads(raw.decode("utf-8"), parse_float=Decimal)  # exact decimals, never binary floats
        except tomllib.TOMLDecodeError as e:
            raise BadInput(f"{path}: not valid TOML: {e}") from e
        except UnicodeDecodeError as e:
            raise BadInput(f"{path}: not UTF-8 at byte {e.start} ({e.reason}); TOML files are UTF-8") from None
        except RecursionError:
            raise BadInput(f"{path}: nested too deeply to be a price file; expected one [[model]] table per "
                           "model") from None
        entries = data.get("model")
        if not isinstance(entries, list) or not entries:
            raise BadInput(f"{path}: expected one [[model]] table per model, with keys {', '.join(OVERRIDE_COLUMNS)}")
        rows = []
        for i, entry in enumerate(entries, start=1):
            label = f"[[model]] entry {i}" + (f" ({entry['model']!r})" if isinstance(entry.get("model"), str) else "")
            rows.append(_Row(label, dict(entry)))
        return rows
    if suffix == ".csv":
        raw = _price_file_bytes(path)
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            line = raw[: e.start].count(b"\n") + 1
            raise BadInput(f"{path}: line {line}: not UTF-8 at byte {e.start} ({e.reason}); save the file as UTF-8 "
                           "(a spreadsheet's 'CSV UTF-8' export)") from None
        reader = csv.DictReader(io.StringIO(text, newline=""))
        rows = []
        try:
            if not reader.fieldnames:
                raise BadInput(f"{path}: empty file; expected a header row: {','.join(OVERRIDE_COLUMNS)}")
            for rec in reader:
                if None in rec:  # more cells than header columns
                    raise BadInput(f"{path}: line {reader.line_num}: more cells than the header has columns")
                if not any((v or "").strip() for v in rec.values()):
                    continue
                rows.append(_Row(f"line {reader.line_num}", {k.strip(): v for k, v in rec.items() if k is not None}))
        except csv.Error as e:  # a NUL byte, a cell over the csv module's field limit
            raise BadInput(f"{path}: line {reader.line_num}: not readable as CSV ({e})") from None
        return rows
    raise BadInput(f"{path}: unknown price file type {suffix!r}; use .csv or .toml")


def load_overrides(path: str | Path) -> list[Price]:
    """Read and validate a user price file (CSV or TOML) into `Price` rows.

    Columns (CSV header, or keys of each TOML ``[[model]]`` table): model, usd_per_mtok_input,
    usd_per_mtok_output, source, as_of (YYYY-MM-DD) are required; usd_per_mtok_cached_input,
    provider, tokenizer, exactness (exact|estimate, with tokenizer; approximate is read as estimate) and note are optional.

    Raises:
        ValueError: the first problem, naming the file, the line (CSV) or entry (TOML) and
            the column: an unknown column, a missing value, a value that is not a
            non-negative number or a date, or the same model twice.
        OSError: the file cannot be read.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "p.csv"
    >>> _ = f.write_text("model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\\nmine,0.5,1.5,invoice,2026-01-31\\n")
    >>> p = load_overrides(f)[0]
    >>> (p.model, p.input.base, p.output.base, p.as_of.isoformat())
    ('mine', Decimal('0.5'), Decimal('1.5'), '2026-01-31')
    """
    path = Path(path)
    rows = _read_rows(path)
    out: list[Price] = []
    seen: dict[tuple[str, str], str] = {}
    for row in rows:
        unknown = [k for k in row.values if k not in OVERRIDE_COLUMNS]
        if unknown:
            close = closest(unknown[0], OVERRIDE_COLUMNS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise _bad(path, row.where, unknown[0], f"unknown column{hint}; valid columns: {', '.join(OVERRIDE_COLUMNS)}")
        model = _text(path, row, "model", required=True)
        provider = _text(path, row, "provider", required=False).lower()
        key = (provider, model.lower())
        if key in seen:
            raise _bad(path, row.where, "model", f"{model!r} is listed twice (also at {seen[key]})")
        seen[key] = row.where
        tokenizer = _text(path, row, "tokenizer", required=False) or None
        written = _text(path, row, "exactness", required=False) or None
        if written and not tokenizer:
            raise _bad(path, row.where, "exactness", "given without a tokenizer column value")
        exactness = text_exactness(written) if written else None  # "approximate", the former word, reads as estimate
        if written and exactness not in ("exact", "estimate"):
            raise _bad(path, row.where, "exactness", f"{written!r}: use exact (the tokenizer is the model's own) or "
                                                     "estimate (a proxy), the words every face uses")
        if tokenizer:
            from ...tokenizers import CATALOGUE  # the registry names are the valid values

            if tokenizer not in CATALOGUE:
                raise _bad(path, row.where, "tokenizer", f"unknown tokenizer {tokenizer!r}; valid: {', '.join(CATALOGUE)}")
        note = _text(path, row, "note", required=False)
        source = _text(path, row, "source", required=True)
        out.append(Price(
            provider=provider, model=model,
            input=Rate(_required_money(path, row, "usd_per_mtok_input")),
            output=Rate(_required_money(path, row, "usd_per_mtok_output")),
            cached_input=(Rate(c) if (c := _money(path, row, "usd_per_mtok_cached_input", required=False)) is not None else None),
            source=f"{path.name}: {source}", as_of=_as_of(path, row), name=model,
            notes=(f"price from {path.name} ({row.where})",) + ((note,) if note else ()),
            tokenizer=tokenizer, exactness=(exactness or "exact") if tokenizer else None))
    return out
