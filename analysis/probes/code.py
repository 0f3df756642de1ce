"""Probe 1, code vs prose: why source code costs more tokens per character than English.

Unlike `pipeline.measure` (which counts), this probe explains with the built-in code corpus: chars per
token per programming language against English prose, the cost of one property at a time from
controlled variants of the same file (indentation 4 spaces / 2 / tabs, minified vs pretty JSON,
snake_case vs camelCase; samples sharing a manifest `group`), and the share of tokens that are
nothing but whitespace, read from each token's bytes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..corpora import load_builtin
from ..errors import BadInput
from ..tokenizers import TokenizersArg
from ..pipeline import as_tokenizers, measure, summarize, variant_deltas

PROSE_LABEL = "English prose"
WHITESPACE_BYTES = frozenset(b" \t\n\r\x0b\x0c")


def _measured(measured: pd.DataFrame | None, tokenizers, categories) -> pd.DataFrame:
    return measured if measured is not None else measure(load_builtin(categories), as_tokenizers(tokenizers))


def code_languages(tokenizers: TokenizersArg = None, *, measured: pd.DataFrame | None = None) -> pd.DataFrame:
    """Chars per token per programming language, next to English prose.

    Args:
        tokenizers: names, adapters, a comma-separated string, or None (all available).
        measured: a `pipeline.measure` frame holding the code and prose categories (default: measure
            the built-in ones).

    Returns:
        One row per language x tokenizer: language (the code sample's `kind`, or "English
        prose"), tokenizer, n_samples, n_chars, n_tokens, chars_per_token_of_sums (ratio of
        sums), token_premium_vs_prose (tokens per character relative to English prose under
        the same tokenizer: 1.5 = 50% more tokens for the same number of characters).
    """
    m = _measured(measured, tokenizers, ["prose", "code"])
    sub = m[m["category"].isin(["code", "prose"]) & ((m["category"] != "prose") | (m["language"] == "en"))]
    if not (sub["category"] == "code").any():
        raise BadInput("the measured frame holds no code samples; measure the built-in 'code' category")
    table = summarize(sub.assign(language=np.where(sub["category"] == "prose", PROSE_LABEL, sub["kind"].astype(str))),
                      ["language", "tokenizer"])
    prose = table[table["language"] == PROSE_LABEL].set_index("tokenizer")["chars_per_token_of_sums"]
    return (table
            .assign(token_premium_vs_prose=lambda d: d["tokenizer"].map(prose).astype(float)
                    / d["chars_per_token_of_sums"])
            [["language", "tokenizer", "n_samples", "n_chars", "n_tokens", "chars_per_token_of_sums",
              "token_premium_vs_prose"]])


def code_variants(tokenizers: TokenizersArg = None, *, measured: pd.DataFrame | None = None) -> pd.DataFrame:
    """Token cost of indentation, JSON layout and identifier style, from controlled variants.

    Args:
        tokenizers: as `code_languages`.
        measured: a `pipeline.measure` frame with the code (and whitespace) categories.

    Returns:
        `pipeline.variant_deltas` rows for every code group and the whitespace "indentation"
        group, plus `property` (indentation, layout, naming: the last part of the group name).
        The baseline is 4-space indentation, minified JSON and snake_case.
    """
    m = _measured(measured, tokenizers, ["code", "whitespace"])
    groups = m.loc[(m["category"] == "code") | (m["group"] == "indentation"), "group"].astype(str)
    groups = [g for g in pd.unique(groups) if g]
    if not groups:
        raise BadInput("the measured frame holds no code variant groups (built-in code samples with a `group`)")
    return (variant_deltas(m, groups)
            .assign(property=lambda d: d["group"].str.rsplit("-", n=1).str[-1],
                    group=lambda d: d["group"].replace({"indentation": "c-ring-buffer-indentation"})))


def _whitespace_ids(tok, ids: np.ndarray) -> np.ndarray:
    """Boolean per id: the token's bytes are all ASCII whitespace (looked up once per distinct id)."""
    uniq, inverse = np.unique(ids, return_inverse=True)
    flags = np.fromiter((bool(b) and set(b) <= WHITESPACE_BYTES for b in map(tok.token_bytes, uniq.tolist())),
                        dtype=bool, count=len(uniq))
    return flags[inverse]


def whitespace_tokens(tokenizers: TokenizersArg = None, samples: pd.DataFrame | None = None) -> pd.DataFrame:
    """Share of tokens that are pure whitespace (spaces, tabs, newlines), per sample.

    Args:
        tokenizers: as `code_languages`.
        samples: a samples frame (default: the built-in code and prose samples).

    Returns:
        One row per sample x tokenizer: sample_id, category, kind, tokenizer, n_tokens,
        n_whitespace_tokens, whitespace_token_share, whitespace_char_share (the text's share
        of whitespace characters, for comparison).

    >>> import pandas as pd
    >>> s = pd.DataFrame({"id": ["x"], "category": ["code"], "kind": ["python"], "text": ["if x:\\n    y = 1\\n"]})
    >>> whitespace_tokens("cl100k_base", s)[["n_tokens", "n_whitespace_tokens"]].to_dict("records")
    [{'n_tokens': 9, 'n_whitespace_tokens': 3}]
    """
    toks = as_tokenizers(tokenizers)
    samples = load_builtin(["prose", "code"]) if samples is None else samples
    texts = samples["text"].astype(str).tolist()
    ws_chars = samples["text"].astype(str).str.count(r"[ \t\n\r\x0b\x0c]").to_numpy()
    n_chars = samples["text"].astype(str).str.len().to_numpy()
    frames = []
    for tok in toks:
        encoded = tok.encode_batch(texts)
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(texts))
        flat = np.fromiter((i for ids in encoded for i in ids), dtype=np.int64, count=int(lengths.sum()))
        is_ws = _whitespace_ids(tok, flat) if len(flat) else np.zeros(0, dtype=bool)
        # per-sample sums of a flat array: cumulative sums read at each sample's end offset
        ends = np.cumsum(lengths)
        csum = np.concatenate([[0], np.cumsum(is_ws)])
        frames.append(pd.DataFrame({"tokenizer": tok.name, "n_tokens": lengths,
                                    "n_whitespace_tokens": csum[ends] - csum[ends - lengths]}))
    meta = samples.rename(columns={"id": "sample_id"}).reindex(columns=["sample_id", "category", "kind"])
    out = pd.concat([pd.concat([meta.reset_index(drop=True), f], axis=1) for f in frames], ignore_index=True)
    return out.assign(
        whitespace_token_share=lambda d: d["n_whitespace_tokens"] / d["n_tokens"].where(d["n_tokens"] > 0),
        whitespace_char_share=np.tile(ws_chars / np.where(n_chars > 0, n_chars, 1), len(toks)),
        tokenizer=lambda d: pd.Categorical(d["tokenizer"], categories=[t.name for t in toks]))


def whitespace_share_by_kind(ws: pd.DataFrame) -> pd.DataFrame:
    """`whitespace_tokens` pooled per category, kind and tokenizer (ratio of sums).

    Returns:
        Columns category, kind, tokenizer, n_tokens, n_whitespace_tokens, whitespace_token_share.
    """
    return (ws.groupby(["category", "kind", "tokenizer"], observed=True, sort=True)
            .agg(n_tokens=("n_tokens", "sum"), n_whitespace_tokens=("n_whitespace_tokens", "sum"))
            .reset_index()
            .assign(whitespace_token_share=lambda d: d["n_whitespace_tokens"] / d["n_tokens"].where(d["n_tokens"] > 0)))
