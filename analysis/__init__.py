"""tokenprism's analysis layer: tokenizers behind one interface, corpora, measuring, cost, plots.

The public surface is small; everything else is importable from its module.
"""

from .tokenizers import (
    Piece as Piece,
    Tokenizer as Tokenizer,
    VocabularyError as VocabularyError,
    available_tokenizers as available_tokenizers,
    load_tokenizer as load_tokenizer,
)
