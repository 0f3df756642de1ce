"""Probes: tables that explain *why* token counts differ (code, languages, numbers, whitespace,
boundaries). `run` holds `ProbeRun`, the shared inputs, and the table index `PROBE_TABLES`.
"""

from .boundaries import (
    agreement_matrix as agreement_matrix,
    boundary_agreement as boundary_agreement,
)
from .code import (
    code_languages as code_languages,
    code_variants as code_variants,
    whitespace_share_by_kind as whitespace_share_by_kind,
    whitespace_tokens as whitespace_tokens,
)
from .languages import (
    bytes_per_char as bytes_per_char,
    language_premium as language_premium,
    tokenizer_reduction as tokenizer_reduction,
)
from .numbers import (
    digit_grouping as digit_grouping,
    digit_lengths as digit_lengths,
    single_token_numbers as single_token_numbers,
    single_token_summary as single_token_summary,
    single_token_years as single_token_years,
    thousands_separators as thousands_separators,
)
from .run import (
    PROBE_TABLES as PROBE_TABLES,
    ProbeRun as ProbeRun,
    run_probe as run_probe,
    run_probes as run_probes,
)
from .whitespace import (
    leading_space as leading_space,
    trailing_whitespace as trailing_whitespace,
    whitespace_summary as whitespace_summary,
)
