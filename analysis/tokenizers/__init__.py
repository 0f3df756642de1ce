"""One interface over tiktoken, Hugging Face `tokenizers` and ownbpe (see `base.Tokenizer`).

Every name loads on first use (PEP 562): importing `analysis.tokenizers.fetch` for the list of
fetchable vocabularies costs no catalogue, no regex module and no engine.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .base import (
        Piece as Piece,
        Source as Source,
        SymbolTokenizer as SymbolTokenizer,
        Tokenizer as Tokenizer,
        TokenizersArg as TokenizersArg,
        clean_text as clean_text,
    )
    from .catalogue import CATALOGUE as CATALOGUE, available_tokenizers as available_tokenizers
    from .registry import (
        build_engines as build_engines,
        load_tokenizer as load_tokenizer,
        load_tokenizers as load_tokenizers,
        warm_up as warm_up,
        tiktoken_params as tiktoken_params,
    )
    from .vocab import VocabularyError as VocabularyError

_LAZY = {**dict.fromkeys(("Piece", "Source", "SymbolTokenizer", "Tokenizer", "TokenizersArg", "clean_text"), ".base"),
         **dict.fromkeys(("CATALOGUE", "available_tokenizers"), ".catalogue"),
         **dict.fromkeys(("build_engines", "load_tokenizer", "load_tokenizers", "warm_up", "tiktoken_params"), ".registry"),
         "VocabularyError": ".vocab"}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
