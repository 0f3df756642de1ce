"""Where a difference in token counts comes from: each token of a text filed under the line, the
script and the character class of the character it starts at, under two tokenizers.

Unlike `boundaries` (where two tokenizers cut differently), this module adds up: "Llama 3 takes
15% more tokens here, all of it in the Cyrillic and Hangul strings" is the per-script table of
`breakdown`. A token is filed under its first character that is not whitespace (the first one
when all are), so every token is counted once and the parts add up to the whole count; " world"
is letters, " 2024" digits, and a run of spaces whitespace.

Character classes: whitespace, digits, letters (ASCII), punctuation (ASCII symbols and
punctuation) and non-ASCII (everything else: accented and non-Latin letters, CJK, emoji). Scripts
are ISO 15924 codes of `corpora.detect_script` (Zyyy: digits, punctuation, whitespace).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..corpora.sample import detect_script
from ..tokenizers.base import Piece

CLASSES = ("letters", "digits", "whitespace", "punctuation", "non-ASCII")


@lru_cache(maxsize=1 << 14)
def char_class(c: str) -> str:
    """The class of one character.

    >>> [char_class(c) for c in "a1 ,é日"]
    ['letters', 'digits', 'whitespace', 'punctuation', 'non-ASCII', 'non-ASCII']
    """
    if c.isspace():
        return "whitespace"
    if c.isascii():
        return "letters" if c.isalpha() else "digits" if c.isdigit() else "punctuation"
    return "non-ASCII"


@lru_cache(maxsize=1 << 14)
def char_script(c: str) -> str:
    """The ISO 15924 script of one character (Zyyy for digits, punctuation and whitespace)."""
    return detect_script(c)


def _tally(text: str, pieces: Sequence[Piece]) -> tuple[Counter, Counter, Counter]:
    by_class: Counter = Counter()
    by_script: Counter = Counter()
    by_line: Counter = Counter()
    line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    line = 0
    for p in sorted(pieces, key=lambda p: p.start):
        at = min(p.start, len(text) - 1) if text else 0
        while line + 1 < len(line_starts) and line_starts[line + 1] <= at:
            line += 1
        # the first character that is not whitespace: " world" is letters, " 2024" digits
        c = next((ch for ch in text[at : max(p.end, at + 1)] if not ch.isspace()), text[at] if text else " ")
        by_class[char_class(c)] += 1
        by_script[char_script(c)] += 1
        by_line[line + 1] += 1
    return by_class, by_script, by_line


def _rows(a: Counter, b: Counter, keys: Sequence[Any]) -> list[dict[str, Any]]:
    rows = []
    for k in keys:
        n_a, n_b = a.get(k, 0), b.get(k, 0)
        if n_a or n_b:
            rows.append({"part": k, "from_tokens": n_a, "to_tokens": n_b, "change": n_b - n_a})
    return rows


def breakdown(text: str, pieces_a: Sequence[Piece], pieces_b: Sequence[Piece], *, top_lines: int = 5) -> dict[str, list]:
    """The change from `pieces_a` to `pieces_b` (two tokenizers' pieces of `text`) by part.

    Returns:
        {"class": rows, "script": rows, "lines": rows}: each row has part, from_tokens, to_tokens
        and change. Classes in `CLASSES` order, scripts by largest change, and the `top_lines`
        lines that change most (part: the line number, from 1). The classes' (and the scripts')
        tokens add up to each tokenizer's whole count.

    >>> from analysis.tokenizers.base import Piece
    >>> a = [Piece(1, b"ab", 0, 2), Piece(2, b" 12", 2, 5)]
    >>> b = [Piece(1, b"ab", 0, 2), Piece(2, b" ", 2, 3), Piece(3, b"1", 3, 4), Piece(4, b"2", 4, 5)]
    >>> [(r["part"], r["change"]) for r in breakdown("ab 12", a, b)["class"]]
    [('letters', 0), ('digits', 1), ('whitespace', 1)]
    """
    ca, sa, la = _tally(text, pieces_a)
    cb, sb, lb = _tally(text, pieces_b)
    scripts = sorted(set(sa) | set(sb), key=lambda s: (-abs(sb.get(s, 0) - sa.get(s, 0)), s))
    lines = sorted((k for k in set(la) | set(lb) if la.get(k, 0) != lb.get(k, 0)),
                   key=lambda k: (-abs(lb.get(k, 0) - la.get(k, 0)), k))[:top_lines]
    return {"class": _rows(ca, cb, CLASSES), "script": _rows(sa, sb, scripts), "lines": _rows(la, lb, sorted(lines))}


def breakdown_texts(text_a: str, pieces_a: Sequence[Piece], text_b: str, pieces_b: Sequence[Piece]) -> list[dict[str, Any]]:
    """Two texts under one tokenizer, by character class: each row has part, from_tokens (text a),
    to_tokens (text b) and change. Where `breakdown` compares two tokenizers on one text, this
    compares two texts (the same data as JSON and as YAML) on one tokenizer.

    >>> from analysis.tokenizers.base import Piece
    >>> a = [Piece(1, b'{"', 0, 2), Piece(2, b"a", 2, 3), Piece(3, b'"}', 3, 5)]
    >>> b = [Piece(2, b"a", 0, 1)]
    >>> [(r["part"], r["change"]) for r in breakdown_texts('{"a"}', a, "a", b)]
    [('letters', 0), ('punctuation', -2)]
    """
    ca, _, _ = _tally(text_a, pieces_a)
    cb, _, _ = _tally(text_b, pieces_b)
    return _rows(ca, cb, CLASSES)


def describe(rows: Sequence[dict[str, Any]], limit: int = 6) -> str:
    """ "non-ASCII +40 (120 -> 160), digits +2 (10 -> 12)": the parts of a `breakdown` table that
    change, largest first ("no change" when none does).

    >>> describe([{"part": "digits", "from_tokens": 1, "to_tokens": 3, "change": 2},
    ...           {"part": "letters", "from_tokens": 4, "to_tokens": 4, "change": 0}])
    'digits +2 (1 -> 3)'
    """
    changed = sorted((r for r in rows if r["change"]), key=lambda r: -abs(r["change"]))
    text = ", ".join(f"{r['part']} {r['change']:+d} ({r['from_tokens']} -> {r['to_tokens']})" for r in changed[:limit])
    return (text + (f", {len(changed) - limit} more" if len(changed) > limit else "")) or "no change"


FILED = "each token is filed under its first character that is not whitespace: the parts add up to the counts"

