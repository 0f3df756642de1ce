"""Format density: the same records written as pretty JSON, minified JSON, YAML, CSV, a Markdown
table and XML, and what each costs in tokens, by class of token.

Unlike `code.code_variants`, which compares JSON layouts of one file, this probe holds the content
fixed and changes the format. Every rendering is built from labelled segments (a key, a value, a
quote or bracket, a separator, whitespace), so each token is filed under the class of the
characters it covers, and the answer says *why* one format costs more: quotes and brackets, keys
repeated on every record, or indentation. Every rendering parses back to the same records
(`parse`), which the tests check for each format.
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import BadInput
from ..pipeline import as_tokenizers
from ..tokenizers import TokenizersArg

FORMATS = ("json_pretty", "json_minified", "yaml", "csv", "markdown", "xml")
LABELS = {"json_pretty": "pretty JSON", "json_minified": "minified JSON", "yaml": "YAML", "csv": "CSV",
          "markdown": "a Markdown table", "xml": "XML"}
CLASSES = ("keys", "values", "quotes_brackets", "separators", "whitespace")
Segment = tuple[str, str]  # (text, class)

_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._@-]*[A-Za-z0-9.]|[A-Za-z0-9]")  # safe unquoted in YAML and CSV
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def builtin_records(n: int = 50) -> list[dict[str, Any]]:
    """`n` deterministic records of six fields (id, name, email, city, score, active).

    >>> builtin_records(1)
    [{'id': 1, 'name': 'Alice Martin', 'email': 'alice.martin@example.com', 'city': 'Lyon', 'score': 50.5, 'active': False}]
    """
    first = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Julia"]
    last = ["Martin", "Silva", "Wang", "Kowalski", "Okafor", "Haddad", "Novak", "Sato", "Petrov", "Costa"]
    cities = ["Lyon", "Porto", "Chengdu", "Krakow", "Lagos", "Beirut", "Zagreb", "Osaka", "Kazan", "Recife", "Austin"]
    out = []
    for i in range(n):
        f, l = first[i % 10], last[(i * 3) % 10]
        out.append({"id": i + 1, "name": f"{f} {l}", "email": f"{f.lower()}.{l.lower()}@example.com",
                    "city": cities[(i * 7) % len(cities)], "score": round(50 + (i * 37 % 500) / 10 + 0.5, 1),
                    "active": i % 3 != 0})
    return out


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Records from a user's file: a JSON list of flat objects, or a CSV with a header.

    Raises:
        BadInput: not a list of flat objects with the same keys (naming the problem and the fix).
    """
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() == ".csv":
        records: Any = list(csv.DictReader(io.StringIO(text)))
    else:
        try:
            records = json.loads(text)
        except json.JSONDecodeError as e:
            raise BadInput(f"{p}: not JSON ({e.msg} at line {e.lineno}); give a JSON list of objects or a .csv file") from None
    if not isinstance(records, list) or not records or not all(isinstance(r, dict) for r in records):
        raise BadInput(f"{p}: expected a non-empty list of objects (records), one per row; a CSV with a header also works")
    keys = list(records[0])
    for k, r in enumerate(records):
        if list(r) != keys:
            raise BadInput(f"{p}: record {k} has keys {list(r)}, record 0 has {keys}: every record needs the same keys")
        bad = [key for key, value in r.items() if isinstance(value, (dict, list))]
        if bad:
            raise BadInput(f"{p}: record {k} nests a list or object under {bad[0]!r}: only flat records can be a table")
    return records


def cell(value: Any) -> str:
    """A value as the text formats write it (true/false, null as empty)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    return str(value)


# -- renderings, as labelled segments -----------------------------------------------------------
def _json(records: Sequence[dict], *, pretty: bool) -> list[Segment]:
    nl, ind = ("\n", "  ") if pretty else ("", "")
    out: list[Segment] = [("[", "quotes_brackets")]
    for i, r in enumerate(records):
        out += [(nl + ind, "whitespace"), ("{", "quotes_brackets")]
        for j, (k, v) in enumerate(r.items()):
            out += [(nl + ind * 2, "whitespace"), ('"', "quotes_brackets"), (json.dumps(k)[1:-1], "keys"),
                    ('"', "quotes_brackets"), (":", "separators")]
            if pretty:
                out.append((" ", "whitespace"))
            if isinstance(v, str):
                out += [('"', "quotes_brackets"), (json.dumps(v, ensure_ascii=False)[1:-1], "values"),
                        ('"', "quotes_brackets")]
            else:
                out.append((json.dumps(v), "values"))
            if j < len(r) - 1:
                out.append((",", "separators"))
        out += [(nl + ind, "whitespace"), ("}", "quotes_brackets")]
        if i < len(records) - 1:
            out.append((",", "separators"))
    out += [(nl, "whitespace"), ("]", "quotes_brackets")]
    return [s for s in out if s[0]]


def _yaml_scalar(v: Any) -> list[Segment]:
    if isinstance(v, bool) or v is None or isinstance(v, (int, float)):
        return [(json.dumps(v), "values")]
    s = str(v)
    if _PLAIN.fullmatch(s) and s.lower() not in _YAML_WORDS and not re.fullmatch(r"[0-9._-]+", s):
        return [(s, "values")]
    return [('"', "quotes_brackets"), (json.dumps(s, ensure_ascii=False)[1:-1], "values"), ('"', "quotes_brackets")]


def _yaml(records: Sequence[dict]) -> list[Segment]:
    out: list[Segment] = []
    for r in records:
        for j, (k, v) in enumerate(r.items()):
            out += [("-" if j == 0 else " ", "separators" if j == 0 else "whitespace"), (" ", "whitespace"),
                    (k, "keys"), (":", "separators"), (" ", "whitespace"), *_yaml_scalar(v), ("\n", "whitespace")]
    return out


def _csv_cell(s: str, cls: str) -> list[Segment]:
    if any(c in s for c in ',"\n\r') or s != s.strip():
        return [('"', "quotes_brackets"), (s.replace('"', '""'), cls), ('"', "quotes_brackets")]
    return [(s, cls)] if s else []


def _csv(records: Sequence[dict]) -> list[Segment]:
    keys = list(records[0])
    out: list[Segment] = []
    for row, cls in [(keys, "keys")] + [([cell(r[k]) for k in keys], "values") for r in records]:
        for j, s in enumerate(row):
            if j:
                out.append((",", "separators"))
            out += _csv_cell(str(s), cls)
        out.append(("\n", "whitespace"))
    return out


def _md(records: Sequence[dict]) -> list[Segment]:
    keys = list(records[0])
    out: list[Segment] = []
    rows = [([k for k in keys], "keys"), None] + [([cell(r[k]) for k in keys], "values") for r in records]
    for row in rows:
        if row is None:
            out += [("|", "separators")] + [s for _ in keys for s in (("---", "separators"), ("|", "separators"))]
        else:
            out.append(("|", "separators"))
            for s in row[0]:
                out += [(" ", "whitespace"), (s.replace("|", "\\|"), row[1]), (" ", "whitespace"), ("|", "separators")]
        out.append(("\n", "whitespace"))
    return [s for s in out if s[0]]


def _xml_escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _xml(records: Sequence[dict]) -> list[Segment]:
    out: list[Segment] = [("<records>", "quotes_brackets"), ("\n", "whitespace")]
    for r in records:
        out += [("  ", "whitespace"), ("<record>", "quotes_brackets"), ("\n", "whitespace")]
        for k, v in r.items():
            out += [("    ", "whitespace"), ("<", "quotes_brackets"), (k, "keys"), (">", "quotes_brackets"),
                    (_xml_escape(cell(v)), "values"), ("</", "quotes_brackets"), (k, "keys"), (">", "quotes_brackets"),
                    ("\n", "whitespace")]
        out += [("  ", "whitespace"), ("</record>", "quotes_brackets"), ("\n", "whitespace")]
    out.append(("</records>", "quotes_brackets"))
    return [s for s in out if s[0]]


_RENDER = {"json_pretty": lambda r: _json(r, pretty=True), "json_minified": lambda r: _json(r, pretty=False),
           "yaml": _yaml, "csv": _csv, "markdown": _md, "xml": _xml}


def render(records: Sequence[dict], fmt: str) -> list[Segment]:
    """`records` in `fmt` (one of `FORMATS`) as labelled segments; "".join of their texts is the file."""
    if fmt not in _RENDER:
        raise BadInput(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
    return _RENDER[fmt](records)


def parse(text: str, fmt: str) -> list[dict[str, str]]:
    """Read a rendering back, every value as `cell` writes it (so all formats compare equal)."""
    if fmt in ("json_pretty", "json_minified"):
        return [{k: cell(v) for k, v in r.items()} for r in json.loads(text)]
    if fmt == "yaml":
        import yaml

        return [{str(k): cell(v) for k, v in r.items()} for r in yaml.safe_load(text)]
    if fmt == "csv":
        return [dict(r) for r in csv.DictReader(io.StringIO(text))]
    if fmt == "markdown":
        lines = [ln for ln in text.splitlines() if ln.strip()]
        # each cell is padded with exactly one space on either side: the value keeps its own spaces
        split = [[c[1:-1].replace("\\|", "|") for c in re.split(r"(?<!\\)\|", ln)[1:-1]] for ln in lines]
        keys = split[0]
        return [dict(zip(keys, row)) for row in split[2:]]
    if fmt == "xml":
        return [{child.tag: child.text or "" for child in rec} for rec in ET.fromstring(text)]
    raise BadInput(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


def _classes(text: str, segments: Sequence[Segment], pieces) -> Counter:
    """Tokens per class: each token filed under the class of most of its characters (the first on a tie)."""
    labels: list[str] = []
    for s, cls in segments:
        labels.extend([cls] * len(s))
    out: Counter = Counter()
    for p in pieces:
        span = labels[p.start:p.end] or labels[max(p.start - 1, 0):p.start] or ["values"]
        counts = Counter(span)
        out[max(counts, key=lambda c: (counts[c], -span.index(c)))] += 1
    return out


def format_density(tokenizers: TokenizersArg = None, records: Sequence[dict] | None = None) -> pd.DataFrame:
    """Tokens of the same records in every format, per tokenizer, with the tokens by class.

    Returns:
        One row per tokenizer x format: n_records, n_chars, n_tokens, tokens_per_record,
        vs_minified (tokens over minified JSON's), the tokens of each class in `CLASSES`, and
        round_trip (True: the rendering parses back to the same records).

    >>> t = format_density("cl100k_base", builtin_records(3)).set_index("format")
    >>> bool(t.loc["json_pretty", "n_tokens"] > t.loc["json_minified", "n_tokens"] > t.loc["csv", "n_tokens"])
    True
    """
    records = list(builtin_records() if records is None else records)
    expected = [{k: cell(v) for k, v in r.items()} for r in records]
    rendered = {fmt: render(records, fmt) for fmt in FORMATS}
    texts = {fmt: "".join(s for s, _ in segs) for fmt, segs in rendered.items()}
    round_trip = {fmt: parse(texts[fmt], fmt) == expected for fmt in FORMATS}
    rows = []
    for tok in as_tokenizers(tokenizers):
        for fmt in FORMATS:
            pieces = tok.pieces(texts[fmt])
            by = _classes(texts[fmt], rendered[fmt], pieces)
            rows.append({"tokenizer": tok.name, "format": fmt, "n_records": len(records), "n_chars": len(texts[fmt]),
                         "n_tokens": len(pieces), "tokens_per_record": len(pieces) / len(records),
                         **{c: by.get(c, 0) for c in CLASSES}, "round_trip": round_trip[fmt]})
    frame = pd.DataFrame(rows)
    base = frame[frame["format"] == "json_minified"].set_index("tokenizer")["n_tokens"]
    frame.insert(6, "vs_minified", frame["n_tokens"] / frame["tokenizer"].map(base))
    frame.attrs["renderings"] = texts
    return frame


def format_headline(table: pd.DataFrame) -> str:
    """Under cl100k_base the same 50 records cost 2,074 tokens as pretty JSON ... : YAML wins only against pretty JSON."""
    if table.empty:
        return "No tokenizer was asked."
    name = table["tokenizer"].iloc[0]
    t = table[table["tokenizer"] == name].set_index("format")
    order = ", ".join(f"{t.loc[f, 'n_tokens']:,} as {LABELS[f]}" for f in FORMATS)
    cheapest = t["n_tokens"].idxmin()
    beats = "beats minified JSON too" if t.loc["yaml", "n_tokens"] < t.loc["json_minified", "n_tokens"] else \
        "beats only pretty JSON" if t.loc["yaml", "n_tokens"] < t.loc["json_pretty", "n_tokens"] else "beats neither JSON"
    pretty = t.loc["json_pretty"]
    why = max(("quotes_brackets", "whitespace", "keys"), key=lambda c: pretty[c] - t.loc[cheapest, c])
    return (f"Under {name} the same {int(t['n_records'].iloc[0])} records cost {order}: YAML {beats}; "
            f"{LABELS[cheapest]} is cheapest, and pretty JSON's "
            f"extra tokens are mostly {why.replace('_', ' and ')}.")
