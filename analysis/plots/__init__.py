"""Figures from tidy frames: `figures` for the analysis and probes, `cost` for cost reports,
`charts` for the same analysis figures as interactive Vega-Lite charts (Altair).

Every `figures`/`cost` function returns a matplotlib `Figure` and leaves pyplot state alone;
`save_figure` writes byte-reproducible files. `charts` is imported on its own (it needs Altair).
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .figures import (
        FIGURE_SUFFIXES as FIGURE_SUFFIXES,
    )
    from .figures import (
        boundary_agreement as boundary_agreement,
    )
    from .figures import (
        chars_per_token_by_category as chars_per_token_by_category,
    )
    from .figures import (
        code_languages as code_languages,
    )
    from .figures import (
        code_variants as code_variants,
    )
    from .figures import (
        figure_bytes as figure_bytes,
    )
    from .figures import (
        language_premium as language_premium,
    )
    from .figures import (
        merge_identical as merge_identical,
    )
    from .figures import (
        save_figure as save_figure,
    )
    from .figures import (
        single_token_years as single_token_years,
    )
    from .figures import (
        tokenizer_reduction as tokenizer_reduction,
    )
    from .figures import (
        tokens_vs_digits as tokens_vs_digits,
    )
    from .figures import (
        whitespace_deltas as whitespace_deltas,
    )
    from .figures import (
        write_figure as write_figure,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('FIGURE_SUFFIXES', 'boundary_agreement', 'chars_per_token_by_category', 'code_languages', 'code_variants', 'figure_bytes', 'language_premium', 'merge_identical', 'save_figure', 'single_token_years', 'tokenizer_reduction', 'tokens_vs_digits', 'whitespace_deltas', 'write_figure'), '.figures'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
