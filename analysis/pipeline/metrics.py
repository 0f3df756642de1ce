"""Which sizes a measurement computes: characters, bytes and tokens always; words, graphemes, scripts on request.

Unlike `rows` (which tokenizes and builds the per-row frame) and `sums` (which adds rows up),
this module decides the tokenizer-independent columns of a measurement and computes them
in C-level or numpy passes over a whole chunk. Characters are `len`, bytes `str.encode`:
together a few percent of a raw tokenizer pass. The optional metrics cost more, so they are
computed only when an output asks for them (`tokenprism measure --metrics ...`), and a
column not computed is left out rather than filled with zeros. Costs, as shares of one
o200k_base + cl100k_base raw pass (docs/measuring.md has the figures):

* `words` (`n_words`, `tokens_per_word`): numpy passes over the joined code points
  (`corpora.words.text_sizes`), about 3-6%;
* `graphemes` (`n_graphemes`): `regex`'s \\X counted per non-ASCII text (C-level `subn`), about
  2-3% on short rows and up to 20% on non-Latin prose; ASCII texts are their length less their CR LF pairs;
* `scripts` (the `script` of texts nobody declared one for): `corpora.sample.detect_script`,
  one C-level scan or two per text, about 4-7%. Not asked, such texts keep the script
  `Zzzz` (ISO 15924 "unknown"), the same as a frame with no script column.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from ..errors import UnknownName

if TYPE_CHECKING:  # the counting functions import them: naming and checking metrics needs neither
    import numpy as np
    import pandas as pd

METRICS = ("words", "graphemes", "scripts")
# what `pipeline.measure`, `engine.measure` and the report compute when not told: today's columns
DEFAULT_METRICS = ("words", "scripts")
# Script detection deferred to whoever measures the chunk (a worker process, not the reader):
# loaders pass this as the script, and the chunk's measurement replaces it.
DETECT_SCRIPT = "?detect"
UNKNOWN_SCRIPT = "Zzzz"
_UTF8 = operator.methodcaller("encode", "utf-8", "surrogatepass")


def check_metrics(metrics: str | Iterable[str] | None) -> tuple[str, ...]:
    """The metrics asked for, in `METRICS` order: names, a comma-separated string, or None for `DEFAULT_METRICS`.

    >>> check_metrics("scripts, words"), check_metrics(""), check_metrics(None)
    (('words', 'scripts'), (), ('words', 'scripts'))
    """
    if metrics is None:
        return DEFAULT_METRICS
    names = [m.strip() for m in (metrics.split(",") if isinstance(metrics, str) else metrics)]
    names = [m for m in names if m]
    unknown = [m for m in names if m not in METRICS]
    if unknown:
        raise UnknownName("metric", ", ".join(unknown), METRICS,
                          message=f"unknown metric(s) {unknown}: choose from {', '.join(METRICS)}")
    return tuple(m for m in METRICS if m in names)


def with_grouping(metrics: tuple[str, ...], by: Sequence[str] | None) -> tuple[str, ...]:
    """`metrics`, plus scripts when the grouping is by script (a group must not be 'unknown' for want of asking)."""
    return check_metrics([*metrics, "scripts"]) if by is not None and "script" in by else metrics


def count_columns(metrics: Sequence[str]) -> tuple[str, ...]:
    """The count columns of a measurement with `metrics`, in table order (n_tokens last)."""
    return ("n_chars", "n_bytes", *(("n_words",) if "words" in metrics else ()),
            *(("n_graphemes",) if "graphemes" in metrics else ()), "n_tokens")


def ratio_columns(metrics: Sequence[str]) -> tuple[str, ...]:
    return ("chars_per_token", "bytes_per_token", *(("tokens_per_word",) if "words" in metrics else ()))


def count_graphemes(texts: Sequence[str]) -> np.ndarray:
    """Extended grapheme clusters of each text (`regex`'s \\X), as an int64 array.

    >>> count_graphemes(["e\\u0301te", "a\\r\\nb", "🇫🇷!", ""]).tolist()
    [3, 3, 2, 0]
    """
    import numpy as np
    import regex

    grapheme = regex.compile(r"\X")  # regex caches compiled patterns: compiled once per process
    out = np.empty(len(texts), np.int64)
    for i, text in enumerate(texts):  # C-level calls per text; subn counts matches without a list of them
        out[i] = len(text) - text.count("\r\n") if text.isascii() else grapheme.subn("", text)[1]
    return out


def text_stats(texts: pd.Series, metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
    """Tokenizer-independent sizes of each text: n_chars (code points), n_bytes (UTF-8), and the asked-for metrics.

    A lone surrogate counts 3 bytes, like the U+FFFD every adapter encodes in its place.

    >>> import pandas as pd
    >>> text_stats(pd.Series(["héllo wörld", ""])).to_dict("list")
    {'n_chars': [11, 0], 'n_bytes': [13, 0], 'n_words': [2, 0]}
    >>> text_stats(pd.Series(["héllo wörld", ""]), ()).to_dict("list")
    {'n_chars': [11, 0], 'n_bytes': [13, 0]}
    """
    import numpy as np
    import pandas as pd

    from ..corpora.words import text_sizes

    values = texts.tolist()
    if "words" in metrics:
        n_chars, n_bytes, n_words = text_sizes(values)
        columns = {"n_chars": n_chars, "n_bytes": n_bytes, "n_words": n_words}
    else:  # two C-level passes: len and encode, a call per text, no Python step per character
        columns = {"n_chars": np.fromiter(map(len, values), np.int64, count=len(values)),
                   "n_bytes": np.fromiter(map(len, map(_UTF8, values)), np.int64, count=len(values))}
    if "graphemes" in metrics:
        columns["n_graphemes"] = count_graphemes(values)
    return pd.DataFrame(columns, index=texts.index)


def resolve_scripts(chunk: pd.DataFrame, detect: bool) -> pd.DataFrame:
    """The chunk with each deferred script (`DETECT_SCRIPT`) detected, or set to `UNKNOWN_SCRIPT` when not asked."""
    from ..corpora.sample import detect_script

    if not len(chunk):
        return chunk
    todo = chunk["script"] == DETECT_SCRIPT
    if not todo.any():
        return chunk
    found = chunk.loc[todo, "text"].map(detect_script) if detect else UNKNOWN_SCRIPT
    return chunk.assign(script=chunk["script"].mask(todo, found))
