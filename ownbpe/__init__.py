"""ownbpe: a home-grown byte-level BPE that trains like the CS336 reference, encodes id-for-id
like tiktoken, and explains its splits.

Unlike tiktoken (Rust, encode only) and Hugging Face `tokenizers` (Rust, many model types), this
package is pure Python and does one thing in the open: GPT-2-family byte-level BPE.
`ownbpe._educational` is the same algorithm in a few readable lines (and the reference the
rest is tested against). `Tokenizer` has a plain encode path that reads the same way
(`encode(..., fast=False)`) and, by default, a fast one: every speed trick sits behind one entry
point in `ownbpe.fast`. Both give the same ids (and tiktoken's, from its ranks).

Special tokens named at construction (`Tokenizer(vocab, merges, ["<|endoftext|>"])`, or listed
in a model file) are single ids in `encode` and `encode_iterable`, longest first where two
overlap, as CS336 specifies; `allowed_special=` narrows that (`frozenset()`: every special string
is plain text). tokenprism's own faces count a typed marker as plain text instead: see
`ownbpe.tokenizer` for both rules side by side.

>>> import ownbpe
>>> tok = ownbpe.Tokenizer.train_from_iterator(["low lower lowest"] * 3, 258)
>>> tok.decode(tok.encode("lowest"))
'lowest'
>>> tok.encode("lowest") == tok.encode("lowest", fast=False)
True
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .split_patterns import CL100K_PATTERN as CL100K_PATTERN
    from .split_patterns import GPT2_PATTERN as GPT2_PATTERN
    from .split_patterns import O200K_PATTERN as O200K_PATTERN
    from .explain import MergeStep as MergeStep
    from .explain import PieceExplanation as PieceExplanation
    from .explain import format_explanation as format_explanation
    from .tokenizer import Tokenizer as Tokenizer
    from .count import count_file_part as count_file_part
    from .count import file_parts as file_parts
    from .train import train_bpe as train_bpe
    from .train import train_bpe_from_counts as train_bpe_from_counts

# Every name loads on first use (PEP 562): a program that only needs the rank-file reader
# (`ownbpe.io`) pays neither for the compiled split patterns nor for the encoder and trainer.
_LAZY = {"CL100K_PATTERN": ".split_patterns", "GPT2_PATTERN": ".split_patterns", "O200K_PATTERN": ".split_patterns",
         "MergeStep": ".explain", "PieceExplanation": ".explain", "format_explanation": ".explain",
         "Tokenizer": ".tokenizer", "train_bpe": ".train", "train_bpe_from_counts": ".train",
         # counting in parts, for counting elsewhere (`tokenprism train --engine dask`)
         "file_parts": ".count", "count_file_part": ".count"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ownbpe' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CL100K_PATTERN",
    "GPT2_PATTERN",
    "O200K_PATTERN",
    "MergeStep",
    "PieceExplanation",
    "Tokenizer",
    "count_file_part",
    "file_parts",
    "format_explanation",
    "train_bpe",
    "train_bpe_from_counts",
]
