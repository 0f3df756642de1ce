"""Probes: tables that explain *why* token counts differ (code, languages, numbers, whitespace,
boundaries). `run` holds `ProbeRun`, the shared inputs, and the table index `PROBE_TABLES`.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
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

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('agreement_matrix', 'boundary_agreement'), '.boundaries'),
    **dict.fromkeys(('code_languages', 'code_variants', 'whitespace_share_by_kind', 'whitespace_tokens'), '.code'),
    **dict.fromkeys(('bytes_per_char', 'language_premium', 'tokenizer_reduction'), '.languages'),
    **dict.fromkeys(('digit_grouping', 'digit_lengths', 'single_token_numbers', 'single_token_summary', 'single_token_years', 'thousands_separators'), '.numbers'),
    **dict.fromkeys(('PROBE_TABLES', 'ProbeRun', 'run_probe', 'run_probes'), '.run'),
    **dict.fromkeys(('leading_space', 'trailing_whitespace', 'whitespace_summary'), '.whitespace'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
