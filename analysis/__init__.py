"""tokenprism's analysis layer: tokenizers behind one interface, corpora, measuring, cost, plots.

The public surface is small; everything else is importable from its module.
"""

# What a caller catches: its input refused (a ValueError) or a name not known (a KeyError).
from .errors import BadInput as BadInput, UnknownName as UnknownName
from .tokenizers import (
    Piece as Piece,
    Tokenizer as Tokenizer,
    VocabularyError as VocabularyError,
    available_tokenizers as available_tokenizers,
    load_tokenizer as load_tokenizer,
)
from .corpora import (
    Sample as Sample,
    iter_samples as iter_samples,
    load_builtin as load_builtin,
    load_corpus as load_corpus,
    load_parallel as load_parallel,
    sample_text as sample_text,
)
# `analysis.measure(samples, tokenizers)` is the pipeline's entry point. It shadows the module
# of the same name as an attribute of the package; `from analysis.measure import ...` still
# reaches the module.
from .pipeline import measure as measure, summarize as summarize
