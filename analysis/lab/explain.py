"""Explain a split: the BPE merges behind each token of a text, for any tiktoken-family tokenizer.

Unlike `trace` (which turns explanations into tables) and `bpe` (which trains), this module
builds the `ownbpe` tokenizer that reproduces a registry tokenizer from its rank table, and asks
it why a text splits as it does. `tokenprism explain` and the HTTP service's `/v1/explain` both
call `explain`, so they show the same merges.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import ownbpe

from ..errors import BadInput
from ..tokenizers import CATALOGUE, load_tokenizer, tiktoken_params
from ..tokenizers.ownbpe_adapter import OwnBPETokenizer


@lru_cache(maxsize=8)
def bpe_for(name: str) -> ownbpe.Tokenizer:
    """An ownbpe tokenizer that reproduces registry tokenizer `name` (tiktoken family or ownbpe).

    Raises:
        BadInput: `name` has no BPE rank table (an HF or SentencePiece tokenizer); the
            message lists the names that have one.

    >>> bpe_for("cl100k_base").encode("hello world")
    [15339, 1917]
    """
    if name == "ownbpe" or name.startswith("ownbpe:"):
        tok = load_tokenizer(name)
        assert isinstance(tok, OwnBPETokenizer)  # the registry builds every ownbpe name with this adapter
        return tok.bpe
    if name in CATALOGUE and CATALOGUE[name].family != "tiktoken":
        names = [n for n, e in CATALOGUE.items() if e.family in ("tiktoken", "ownbpe")]
        raise BadInput(f"explain needs a BPE rank table; {name!r} is a {CATALOGUE[name].family} tokenizer. "
                       f"Choose one of: {', '.join(names)}")
    ranks, pattern, specials = tiktoken_params(name)
    return ownbpe.Tokenizer.from_tiktoken(ranks, pattern, specials)


def explain(text: str, name: str) -> list[ownbpe.PieceExplanation]:
    """The merges behind `text`'s split under tokenizer `name` (special strings as plain text).

    >>> [p.tokens for p in explain("hello", "cl100k_base")]
    [(b'hello',)]
    """
    tok = load_tokenizer(name)
    if tok.normalize:
        text = unicodedata.normalize(tok.normalize, text)
    return bpe_for(name).explain(text, ordinary=True)
