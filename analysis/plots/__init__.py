"""Figures from tidy frames: `figures` for the analysis and probes, `cost` for cost reports,
`charts` for the same analysis figures as interactive Vega-Lite charts (Altair).

Every `figures`/`cost` function returns a matplotlib `Figure` and leaves pyplot state alone;
`save_figure` writes byte-reproducible files. `charts` is imported on its own (it needs Altair).
"""

from .figures import (
    FIGURE_SUFFIXES as FIGURE_SUFFIXES,
    boundary_agreement as boundary_agreement,
    chars_per_token_by_category as chars_per_token_by_category,
    code_languages as code_languages,
    code_variants as code_variants,
    language_premium as language_premium,
    merge_identical as merge_identical,
    save_figure as save_figure,
    single_token_years as single_token_years,
    tokenizer_reduction as tokenizer_reduction,
    tokens_vs_digits as tokens_vs_digits,
    whitespace_deltas as whitespace_deltas,
)
