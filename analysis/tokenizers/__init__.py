"""One interface over tiktoken, Hugging Face `tokenizers` and ownbpe (see `base.Tokenizer`)."""

from .base import (
    Piece as Piece,
    Source as Source,
    Tokenizer as Tokenizer,
    TokenizersArg as TokenizersArg,
    clean_text as clean_text,
)
from .registry import (
    CATALOGUE as CATALOGUE,
    available_tokenizers as available_tokenizers,
    load_tokenizer as load_tokenizer,
    load_tokenizers as load_tokenizers,
    warm_up as warm_up,
    tiktoken_params as tiktoken_params,
)
from .vocab import VocabularyError as VocabularyError
