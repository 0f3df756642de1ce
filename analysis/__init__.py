"""tokenprism's analysis layer: tokenizers behind one interface, corpora, measuring, cost, plots.

The public surface is small; everything else is importable from its module. The names below are
resolved on first use (PEP 562), so `import analysis` costs milliseconds, not pandas' second: the
`tokenprism` command can catch a Ctrl-C from its first moment (analysis.cli.main), `--help`
imports no pandas, and `tokenprism compare` does not pay for the pipeline it does not run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# What a caller catches: its input refused (a ValueError) or a name not known (a KeyError).
from .errors import BadInput as BadInput, UnknownName as UnknownName
from .lazy import lazy_exports

if TYPE_CHECKING:  # the same names, eagerly, for type checkers and readers
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
    from .pipeline import measure as measure, summarize as summarize

# name -> the module that defines it. `analysis.measure(samples, tokenizers)` is the pipeline's
# entry point: as an attribute of the package it shadows nothing, since there is no module
# `analysis/measure.py`.
_LAZY = {
    **dict.fromkeys(("Piece", "Tokenizer", "VocabularyError", "available_tokenizers", "load_tokenizer"),
                    ".tokenizers"),
    **dict.fromkeys(("Sample", "iter_samples", "load_builtin", "load_corpus", "load_parallel", "sample_text"),
                    ".corpora"),
    **dict.fromkeys(("measure", "summarize"), ".pipeline"),
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
