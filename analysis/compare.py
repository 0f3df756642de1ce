"""One text under many tokenizers: counts and ratios, one row per tokenizer.

Unlike `measure` (corpora x tokenizers, for analysis), this answers the interactive question
"what does *this* text cost under each tokenizer", for `tokenprism compare` and the dashboard's
Compare page. Ratios are NaN (not 0, not an error) for empty text.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:  # pandas loads with the first frame: `tokenprism compare` prints rows without it
    import pandas as pd

from .errors import BadInput
from .render import piece_label
from .tokenizers import Tokenizer, TokenizersArg, available_tokenizers, load_tokenizer, load_tokenizers  # noqa: F401  (load_tokenizer: the doctests use it)

PARALLEL_CHARS = 100_000
COLUMNS = ["tokenizer", "family", "n_vocab", "n_tokens", "n_chars", "n_bytes", "chars_per_token", "bytes_per_token"]


def resolve_tokenizers(names: Iterable[str] | str | None = None) -> list[Tokenizer]:
    """Load tokenizers by name; None means every tokenizer available offline now.

    A comma-separated string is accepted. Unknown names raise UnknownName (a KeyError) listing the valid names.
    """
    if names is None:  # a corrupt fetched vocabulary leaves the others usable (`skipped_tokenizers` says why)
        broken = skipped_tokenizers()
        names = [n for n in available_tokenizers() if n not in broken]
    elif isinstance(names, str):
        names = [n for n in (s.strip() for s in names.split(",")) if n]
    names = list(names)
    if not names:
        raise BadInput("no tokenizers selected; see `tokenprism tokenizers` for the names")
    return load_tokenizers(names)  # in parallel threads: vocabularies load side by side


def as_tokenizers(tokenizers: TokenizersArg) -> list[Tokenizer]:
    """Adapters from names, a comma-separated string, adapters, or None (every one available offline).

    Raises:
        KeyError: an unknown name (the message lists the valid ones).
        ValueError: no tokenizers, or the same name twice.

    >>> [t.name for t in as_tokenizers("gpt2,cl100k_base")]
    ['gpt2', 'cl100k_base']
    """
    if tokenizers is None or isinstance(tokenizers, str):
        toks = resolve_tokenizers(tokenizers)
    elif isinstance(tokenizers, Tokenizer):
        toks = [tokenizers]
    else:
        toks = [t if isinstance(t, Tokenizer) else resolve_tokenizers([t])[0] for t in tokenizers]
    if not toks:
        raise BadInput("no tokenizers selected; see `tokenprism tokenizers` for the names")
    names = [t.name for t in toks]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise BadInput(f"tokenizer(s) {dupes} given twice; give each once")
    return toks


def skipped_tokenizers() -> dict[str, str]:
    """Tokenizers present on this machine that the default selection leaves out: name -> why.

    A fetched vocabulary whose file fails its sha256 check (truncated, edited) is one; naming
    it explicitly still loads it, and fails with the same message and its fix.
    """
    from .tokenizers.fetch import vocabulary_problems

    return vocabulary_problems()


def _ratio(a: int, b: int) -> float:
    return a / b if b else math.nan


def count_texts(texts: Sequence[str], tokenizers: Sequence[Tokenizer]) -> list[dict]:
    """Count each text under each tokenizer, without a frame: the numbers `compare` shows.

    For callers that answer one small request at a time (the HTTP service), where building a
    DataFrame would cost more than the counting. Each tokenizer counts all texts through its
    `count_batch`, its fastest path.

    Returns:
        One dict per text x tokenizer (text-major): text_index and the COLUMNS; the ratios
        are NaN for an empty text.

    >>> [r["n_tokens"] for r in count_texts(["hello world", ""], [load_tokenizer("cl100k_base")])]
    [2, 0]
    """
    texts = list(texts)
    if sum(map(len, texts)) > PARALLEL_CHARS and len(tokenizers) > 1:
        # the Rust engines release the GIL: one thread per core keeps them all busy
        with ThreadPoolExecutor(max_workers=min(len(tokenizers), os.cpu_count() or 1)) as pool:
            counts = list(pool.map(lambda t: t.count_batch(texts), tokenizers))
    else:
        counts = [tok.count_batch(texts) for tok in tokenizers]
    rows = []
    for i, text in enumerate(texts):
        n_chars = len(text)
        n_bytes = len(text.encode("utf-8", errors="surrogatepass"))
        for tok, per_text in zip(tokenizers, counts):
            n = per_text[i]
            rows.append({"text_index": i, "tokenizer": tok.name, "family": tok.family, "n_vocab": tok.n_vocab,
                         "n_tokens": n, "n_chars": n_chars, "n_bytes": n_bytes,
                         "chars_per_token": _ratio(n_chars, n), "bytes_per_token": _ratio(n_bytes, n)})
    return rows


def compare_rows(text: str, tokenizers: Sequence[Tokenizer], *, with_ids: bool = False) -> list[dict]:
    """`compare`'s rows as dicts (COLUMNS, plus `ids` when `with_ids`), without pandas.

    >>> compare_rows("hello world", [load_tokenizer("cl100k_base")])[0]["n_tokens"]
    2
    """
    if not with_ids:
        return [{c: r[c] for c in COLUMNS} for r in count_texts([text], tokenizers)]
    if len(text) > PARALLEL_CHARS and len(tokenizers) > 1:
        # tiktoken and HF release the GIL while encoding: one thread per core keeps them all
        # busy, overlapping the Rust engines with ownbpe's pure-Python encoder.
        with ThreadPoolExecutor(max_workers=min(len(tokenizers), os.cpu_count() or 1)) as pool:
            all_ids = list(pool.map(lambda t: t.encode(text), tokenizers))
    else:
        all_ids = [tok.encode(text) for tok in tokenizers]
    n_chars = len(text)
    n_bytes = len(text.encode("utf-8", errors="surrogatepass"))
    return [{"tokenizer": tok.name, "family": tok.family, "n_vocab": tok.n_vocab, "n_tokens": len(ids),
             "n_chars": n_chars, "n_bytes": n_bytes, "chars_per_token": _ratio(n_chars, len(ids)),
             "bytes_per_token": _ratio(n_bytes, len(ids)), "ids": ids} for tok, ids in zip(tokenizers, all_ids)]


def compare(text: str, tokenizers: Sequence[Tokenizer], *, with_ids: bool = False) -> pd.DataFrame:
    """Count `text` under each tokenizer.

    Returns:
        A frame with COLUMNS (plus `ids` when `with_ids`), one row per tokenizer, in order.

    >>> compare("hello world", [load_tokenizer("cl100k_base")])[["tokenizer", "n_tokens"]].to_dict("records")
    [{'tokenizer': 'cl100k_base', 'n_tokens': 2}]
    """
    import pandas as pd

    return pd.DataFrame(compare_rows(text, tokenizers, with_ids=with_ids), columns=COLUMNS + (["ids"] if with_ids else []))


def special_token_strings(tok: Tokenizer) -> frozenset[str]:
    """The special-token strings of a tokenizer (empty when it exposes none)."""
    return frozenset(tok.special_tokens)


@lru_cache(maxsize=32)
def _specials_regex(specials: frozenset[str]) -> re.Pattern | None:
    if not specials:
        return None
    return re.compile("|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True)))


def special_strings_in(text: str, tokenizers: Sequence[Tokenizer]) -> pd.DataFrame:
    """Special-token strings found in `text`, which every tokenizer here counts as plain text.

    Returns:
        One row per tokenizer and string found: tokenizer, special, occurrences, special_id
        (the id it would have as a special token, when known), plain_tokens (what one
        occurrence costs as text).

    >>> from analysis import load_tokenizer
    >>> special_strings_in("a<|endoftext|>", [load_tokenizer("cl100k_base")])[["special", "plain_tokens"]].values.tolist()
    [['<|endoftext|>', 7]]
    """
    import pandas as pd

    rows = []
    for tok in tokenizers:
        pattern = _specials_regex(special_token_strings(tok))
        if pattern is None:
            continue
        found = Counter(m.group() for m in pattern.finditer(text))
        ids = tok.special_tokens
        for special, n in sorted(found.items()):
            rows.append({"tokenizer": tok.name, "special": special, "occurrences": n,
                         "special_id": ids.get(special), "plain_tokens": len(tok.encode(special))})
    return pd.DataFrame(rows, columns=["tokenizer", "special", "occurrences", "special_id", "plain_tokens"])


def splits(text: str, tokenizers: Sequence[Tokenizer], *, sep: str = "|") -> pd.DataFrame:
    """Each tokenizer's split of a short text, whitespace made visible.

    >>> from analysis import load_tokenizer
    >>> splits("1234567", [load_tokenizer("cl100k_base")]).loc[0, "split"]
    '123|456|7'
    """
    import pandas as pd

    rows = []
    for tok in tokenizers:
        ps = tok.pieces(text)
        rows.append({"tokenizer": tok.name, "n_tokens": len(ps), "split": sep.join(piece_label(text, p) for p in ps)})
    return pd.DataFrame(rows, columns=["tokenizer", "n_tokens", "split"])
