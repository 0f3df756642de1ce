"""`tokenprism diff`: how the token counts of files drift when one tokenizer replaces another.

Unlike `compare` (one text, many tokenizers, the counts side by side), this command takes two
tokenizers and many files, and is made for CI: per file the change in count (tokens and percent)
and the first character where the two tokenizers cut differently, drawn with visible whitespace
and no raw control characters; `--fail-over PCT` exits 1 when a file's count changes by more than
PCT percent in either direction. Files are counted as texts (a .json file too): no chat format.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from . import help_line
from ..contract import ratio
from ..errors import BadInput, UnknownName
from ..textio import read_text_file
from ..textio.numbers import PERCENT
from .tokenizers import add_wide, table_width

if TYPE_CHECKING:
    from ..tokenizers import Piece, Tokenizer

EXCERPT_CHARS = 10  # characters drawn on each side of the first different cut
EXCERPT_WIDTH = 100  # longest drawing of one side; a longer one is cut with "…"


def _side(name: str) -> tuple[Tokenizer, str, str]:
    """(tokenizer, exactness, note) for a tokenizer name, or for a model id (its text tokenizer)."""
    from ..tokenizers import load_tokenizer
    from .tokens import text_tokenizer

    try:
        return load_tokenizer(name), "exact", ""
    except UnknownName as not_tokenizer:
        try:
            return text_tokenizer(model=name)
        except UnknownName as not_model:
            raise UnknownName("tokenizer or model", name, [*not_tokenizer.valid, *not_model.valid],
                              hint="(list them with `tokenprism tokenizers` and `tokenprism models SUBSTRING`)") from None


def _files(paths: Sequence[str], glob: str) -> list[Path]:
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            # Hidden files and folders (.git, .venv) are not prompts.
            found = sorted(p for p in path.glob(glob) if p.is_file()
                           and not any(part.startswith(".") for part in p.relative_to(path).parts))
            if not found:
                raise BadInput(f"{path}: no file matches --glob {glob!r} in this folder")
            out.extend(found)
        else:
            out.append(path)  # read_text_file names a missing or unreadable one
    return list(dict.fromkeys(out))


def first_difference(a: Sequence[Piece], b: Sequence[Piece]) -> int | None:
    """The first character offset where `a` and `b` (two tokenizations of one text) cut differently, or None.

    >>> from analysis.tokenizers import Piece
    >>> first_difference([Piece(1, b"ab", 0, 2), Piece(2, b"c", 2, 3)], [Piece(5, b"a", 0, 1), Piece(6, b"bc", 1, 3)])
    1
    """
    ends_a, ends_b = {p.end for p in a}, {p.end for p in b}
    if ends_a != ends_b:
        return min(ends_a ^ ends_b)
    # The same character boundaries; they may still cut inside one character differently.
    for pa, pb in zip(a, b):
        if (pa.start, pa.end, pa.bytes) != (pb.start, pb.end, pb.bytes):
            return min(pa.start, pb.start)
    if len(a) != len(b):
        return (a[len(b)] if len(a) > len(b) else b[len(a)]).start
    return None


def _near(pieces: Sequence[Piece], at: int) -> list[Piece]:
    lo, hi = at - EXCERPT_CHARS, at + EXCERPT_CHARS
    return [p for p in pieces if p.end > lo and p.start < hi or (p.start == p.end and lo <= p.start <= hi)]


def excerpt(text: str, pieces: Sequence[Piece], at: int, *, for_terminal: bool) -> str | list[str]:
    """The tokens around offset `at`: for a terminal, drawn with '│' between them and whitespace and
    control characters made visible; otherwise (JSON) the list of the tokens' texts."""
    from .. import render

    near = _near(pieces, at)
    if not for_terminal:  # a token holding part of a character: its bytes as <0xNN>, then what it covers
        return [text[p.start:p.end] if not p.partial
                else "".join(f"<0x{b:02X}>" for b in p.bytes) + text[p.start:p.end] for p in near]
    drawn = render.terminal(text, near, color=False)
    return drawn if len(drawn) <= EXCERPT_WIDTH else drawn[: EXCERPT_WIDTH - 1] + "…"


def _pct(before: int, after: int) -> float | None:
    if before == 0:
        return 0.0 if after == 0 else None  # from nothing to something: no percentage, always a failure
    return ratio(round(100 * (after - before) / before, 3))


def _row(path: Path, text: str, a: Tokenizer, b: Tokenizer, fmt: str) -> dict[str, Any]:
    pa, pb = a.pieces(text), b.pieces(text)
    at = first_difference(pa, pb)
    first = None
    if at is not None:
        line = text.count("\n", 0, at) + 1
        first = {"char_offset": at, "line": line, "column": at - (text.rfind("\n", 0, at) + 1) + 1,
                 "from_tokens": excerpt(text, pa, at, for_terminal=fmt != "json"),
                 "to_tokens": excerpt(text, pb, at, for_terminal=fmt != "json")}
    from ..probes.attribution import breakdown

    return {"file": str(path), "from_tokens": len(pa), "to_tokens": len(pb), "change": len(pb) - len(pa),
            "change_pct": _pct(len(pa), len(pb)), "first_difference": first,
            "breakdown": breakdown(text, pa, pb) if at is not None else None}


def _total_breakdown(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The class and script tables of every file added up."""
    out: dict[str, list[dict[str, Any]]] = {}
    for kind in ("class", "script"):
        sums: dict[str, list[int]] = {}
        for r in rows:
            for part in (r["breakdown"] or {}).get(kind, []):
                slot = sums.setdefault(part["part"], [0, 0])
                slot[0] += part["from_tokens"]
                slot[1] += part["to_tokens"]
        out[kind] = [{"part": k, "from_tokens": a, "to_tokens": b, "change": b - a} for k, (a, b) in sums.items()]
    return out


def _pct_text(v: float | None) -> str:
    return "new" if v is None else f"{v:+.1f}%"


def _over(row: dict[str, Any], limit: float | None) -> bool:
    return limit is not None and (row["change_pct"] is None or abs(row["change_pct"]) > limit)


def _table(rows: list[dict[str, Any]], a: str, b: str, width: int | None) -> None:
    """Counts per file and a total; then, per file that differs, its first different cut under each name."""
    from ..probes.attribution import FILED
    from ..probes.attribution import describe as _parts
    from ..render import visible

    head = ("file", a, b, "change", "change_%", "first_diff")
    cells = [(visible(r["file"]), str(r["from_tokens"]), str(r["to_tokens"]), f"{r['change']:+d}", _pct_text(r["change_pct"]),
              "-" if r["first_difference"] is None else str(r["first_difference"]["char_offset"])) for r in rows]
    total_a, total_b = sum(r["from_tokens"] for r in rows), sum(r["to_tokens"] for r in rows)
    cells.append(("total", str(total_a), str(total_b), f"{total_b - total_a:+d}", _pct_text(_pct(total_a, total_b)), ""))
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    room = None if width is None else max(len(head[0]), width - sum(widths[1:]) - 2 * (len(head) - 1))
    if room is not None and widths[0] > room:  # a long path keeps its end, the file's own name
        cells = [(c[0] if len(c[0]) <= room else "…" + c[0][len(c[0]) - room + 1:], *c[1:]) for c in cells]
        widths[0] = room
    for c in [head, *cells]:
        sys.stdout.write("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(c, widths)))
                         .rstrip() + "\n")
    width = max(len(a), len(b))
    for r in rows:
        first = r["first_difference"]
        if first is not None:
            sys.stdout.write(f"\n{visible(r['file'])}: first different cut at character {first['char_offset']} "
                             f"(line {first['line']}, column {first['column']})\n"
                             f"  {a.ljust(width)}  {first['from_tokens']}\n  {b.ljust(width)}  {first['to_tokens']}\n")
            parts = r["breakdown"]
            sys.stdout.write(f"  by class:  {_parts(parts['class'])}\n  by script: {_parts(parts['script'])}\n"
                             f"  by line:   {_parts(parts['lines'])}\n")
    if sum(r["first_difference"] is not None for r in rows) > 1:
        total = _total_breakdown(rows)
        sys.stdout.write(f"\nall files: by class:  {_parts(total['class'])}\n"
                         f"           by script: {_parts(total['script'])}\n")
    if any(r["first_difference"] is not None for r in rows):
        sys.stdout.write(f"({FILED})\n")


def cmd_diff(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    from ..render import visible

    if args.fail_over is not None and not args.fail_over >= 0:
        raise BadInput(f"--fail-over is a percentage of 0 or more, got {args.fail_over:g}")
    a, exact_a, note_a = _side(args.from_)
    b, exact_b, note_b = _side(args.to)
    rows = []
    for path in tqdm(_files(args.file, args.glob), disable=not sys.stderr.isatty(), unit="file", desc="diff",
                     leave=False, file=sys.stderr):
        text, _ = read_text_file(path)
        rows.append(_row(path, text, a, b, args.format))
    failed = [r for r in rows if _over(r, args.fail_over)]
    if args.format == "json":
        # the JSON contract: an exactness other than "exact" comes with its reason
        out = {"from": args.from_, "from_tokenizer": a.name, "from_exactness": exact_a, "from_exactness_reason": note_a,
               "to": args.to, "to_tokenizer": b.name, "to_exactness": exact_b, "to_exactness_reason": note_b,
               "fail_over_pct": args.fail_over, "failed": [r["file"] for r in failed], "files": rows,
               "breakdown": _total_breakdown(rows)}
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    else:
        _table(rows, visible(args.from_), visible(args.to), table_width(args))  # as given: two models may share a tokenizer
    for note in (note_a, note_b):
        if note:
            sys.stderr.write(f"note: {note}\n")
    if failed:
        sys.stderr.write(f"tokenprism diff: {len(failed)} of {len(rows)} file(s) change by more than "
                         f"{args.fail_over:g}% from {visible(args.from_)} to {visible(args.to)}:\n" + "".join(
                             f"  {visible(r['file'])}: {r['from_tokens']} -> {r['to_tokens']} "
                             f"({_pct_text(r['change_pct'])})\n" for r in failed))
        return 1
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "diff", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        help=help_line("diff"),
        description="Count each file under two tokenizers (or models: their text tokenizers, no chat format) and "
                    "show the change (tokens and percent) and the first character where the two cut differently. "
                    "Exit 1 with --fail-over PCT when a file's count grows or shrinks by more than PCT percent.")
    p.add_argument("-f", "--file", action="append", required=True, metavar="PATH",
                   help="a file, or a folder whose files are read (repeatable)")
    p.add_argument("--from", dest="from_", required=True, metavar="NAME", help="the tokenizer (or model) of today")
    p.add_argument("--to", required=True, metavar="NAME", help="the tokenizer (or model) to compare with")
    p.add_argument("--glob", default="**/*", metavar="PATTERN",
                   help="the files of a folder to read (hidden files and folders are skipped)")
    p.add_argument("--fail-over", type=PERCENT, metavar="PCT",
                   help="exit 1 when any file's count changes by more than PCT percent, up or down")
    p.add_argument("--format", choices=("table", "json"), default="table", help="output format")
    add_wide(p)
    p.set_defaults(func=cmd_diff)
