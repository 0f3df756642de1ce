"""ownbpe's speed layer: one entry point, `FastEncoder`, that `Tokenizer` calls by default.

Unlike the rest of `ownbpe`, whose plain path a learner can follow (pre-tokenize, merge each
pre-token with `bpe.merge_ranked`, one cache), this sub-package holds the tricks that make
encoding several times faster, each exact and tested against the plain path and tiktoken:

* `encoder`: the entry point: chunk and piece caches, the short-text and long-text paths;
* `batch`: many new chunks and pre-tokens at once, whole tokens by one look-up pass;
* `longmerge`: rank buckets, for pieces too long for the list scan;
* `pretokenize`: the ASCII and BMP twins of the built-in patterns, and tiktoken's Unicode
  tables (the characters of Unicode 17.0 read as unassigned).
"""

from .encoder import FastEncoder as FastEncoder

__all__ = ["FastEncoder"]
