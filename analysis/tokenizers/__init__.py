"""One interface over tiktoken, Hugging Face `tokenizers` and ownbpe (see `base.Tokenizer`).

The registry's names load on first use (PEP 562): importing this package for the `Tokenizer`
protocol costs no catalogue, no vocabulary reader and no engine.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

from .base import (
    Piece as Piece,
    Source as Source,
    Tokenizer as Tokenizer,
    TokenizersArg as TokenizersArg,
    clean_text as clean_text,
)

if TYPE_CHECKING:
    from .registry import (
        CATALOGUE as CATALOGUE,
        available_tokenizers as available_tokenizers,
        load_tokenizer as load_tokenizer,
        load_tokenizers as load_tokenizers,
        warm_up as warm_up,
        tiktoken_params as tiktoken_params,
    )
    from .vocab import VocabularyError as VocabularyError

_LAZY = {**dict.fromkeys(("CATALOGUE", "available_tokenizers", "load_tokenizer", "load_tokenizers", "warm_up",
                          "tiktoken_params"), ".registry"),
         "VocabularyError": ".vocab"}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
