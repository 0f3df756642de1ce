"""Special strings: text such as ``<|endoftext|>`` that a tokenizer reserves for one special id.

Unlike the vocabulary audit (`vocabulary`, which lists every special token), this module looks
for special strings *in a text*: tokenprism counts them as plain text everywhere (a pasted
document that quotes ``<|endoftext|>`` is text, not an end of document), while a model's own API
either refuses such text or reads the one special id. `find_specials` says which strings a text
holds, with their ids, so the faces can warn; `special_strings` is the table behind "why
<|endoftext|>".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..tokenizers.base import Tokenizer

if TYPE_CHECKING:  # the warning `compare`, `count` and `encode` print needs neither pandas nor the pipeline
    import pandas as pd

    from ..tokenizers import TokenizersArg

ENDOFTEXT = "<|endoftext|>"


@functools.lru_cache(maxsize=64)
def _pattern(strings: tuple[str, ...]) -> re.Pattern[str] | None:
    if not strings:
        return None
    return re.compile("|".join(re.escape(s) for s in sorted(strings, key=len, reverse=True)))


def find_specials(text: str, tok: Tokenizer) -> dict[str, int]:
    """The special strings of `tok` that occur in `text`, each with how many times (longest match first).

    >>> from analysis import load_tokenizer
    >>> find_specials("a <|endoftext|> b <|endoftext|>", load_tokenizer("cl100k_base"))
    {'<|endoftext|>': 2}
    """
    specials = tok.special_tokens
    if not specials or ("<" not in text and "[" not in text and not any(s[:1] in text for s in specials)):
        return {}
    pattern = _pattern(tuple(sorted(specials)))
    found: dict[str, int] = {}
    if pattern is not None:
        for m in pattern.finditer(text):
            found[m.group()] = found.get(m.group(), 0) + 1
    return found


def special_warnings(text: str, toks: Sequence[Tokenizer]) -> list[str]:
    """One line per tokenizer and special string found in `text`, naming the string and its id."""
    lines = []
    for tok in toks:
        for s, n in find_specials(text, tok).items():
            times = f" ({n} times)" if n > 1 else ""
            lines.append(f"warning: the text holds {s!r}{times}, special token id {tok.special_tokens[s]} in "
                         f"{tok.name}; counted here as plain text ({tok.count(s)} tokens each), as a model's API "
                         f"would either refuse it or read the one special id")
    return lines


def special_strings(tokenizers: TokenizersArg = None, strings: Sequence[str] = (ENDOFTEXT,)) -> pd.DataFrame:
    """For each tokenizer and string: is it special there (its id), and what it costs as text.

    Returns:
        One row per tokenizer x string: special (bool), special_id (or None), tokens_as_text,
        pieces (how the text is cut), n_specials (the tokenizer's special strings in all).

    >>> special_strings("cl100k_base")[["special_id", "tokens_as_text"]].iloc[0].tolist()
    [100257, 7]
    """
    import pandas as pd

    from ..pipeline import as_tokenizers

    rows = []
    for tok in as_tokenizers(tokenizers):
        for s in strings:
            pieces = tok.pieces(s)
            rows.append({"tokenizer": tok.name, "string": s, "special": s in tok.special_tokens,
                         "special_id": tok.special_tokens.get(s), "tokens_as_text": len(pieces),
                         "pieces": "|".join(s[p.start:p.end] for p in pieces), "n_specials": len(tok.special_tokens)})
    return pd.DataFrame(rows).astype({"special_id": "Int64"})


def special_headline(table: pd.DataFrame) -> str:
    """'<|endoftext|>' is special in 5 of 8 tokenizers (cl100k_base: id 100257) ..."""
    if table.empty:
        return "No tokenizer was asked."
    s = table["string"].iloc[0]
    sub = table[table["string"] == s]
    special = sub[sub["special"]]
    if special.empty:
        return f"{s!r} is special in none of these tokenizers: it is ordinary text everywhere ({int(sub['tokens_as_text'].max())} tokens at most)."
    first = special.iloc[0]
    return (f"{s!r} is one special id in {len(special)} of {len(sub)} tokenizers ({first['tokenizer']}: id "
            f"{int(first['special_id'])}), yet counted as text it is {int(first['tokens_as_text'])} tokens there: "
            f"tokenprism counts it as text and warns, while a model's API refuses it or reads the one special id, "
            f"which ends the document.")
