"""tokenprism's analysis layer: tokenizers behind one interface, corpora, measuring, cost, plots.

The public surface is small; everything else is importable from its module. The names below
are imported on first use (PEP 562), not with the package: `import analysis` then costs
milliseconds instead of pandas' second, so the `tokenprism` command can catch a Ctrl-C from
its first moment (analysis.cli.main) and any command starts sooner.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# What a caller catches: its input refused (a ValueError) or a name not known (a KeyError).
from .errors import BadInput as BadInput, UnknownName as UnknownName

if TYPE_CHECKING:
    from .corpora import (
        Sample as Sample,
        iter_samples as iter_samples,
        load_builtin as load_builtin,
        load_corpus as load_corpus,
        load_parallel as load_parallel,
        sample_text as sample_text,
    )
    # `analysis.measure(samples, tokenizers)` is the pipeline's entry point.
    from .pipeline import measure as measure, summarize as summarize
    from .tokenizers import (
        Piece as Piece,
        Tokenizer as Tokenizer,
        VocabularyError as VocabularyError,
        available_tokenizers as available_tokenizers,
        load_tokenizer as load_tokenizer,
    )

_LAZY = {
    **dict.fromkeys(("Piece", "Tokenizer", "VocabularyError", "available_tokenizers", "load_tokenizer"), "tokenizers"),
    **dict.fromkeys(("Sample", "iter_samples", "load_builtin", "load_corpus", "load_parallel", "sample_text"), "corpora"),
    **dict.fromkeys(("measure", "summarize"), "pipeline"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        # a sub-package used as an attribute (`analysis.tokenizers` after `import analysis`)
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # once: later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
