"""Measuring corpora: samples x tokenizers -> one tidy DataFrame (`rows`), and its aggregates (`sums`).

Unlike `compare` (one text, for a quick look) and `probes` (small controlled inputs that
explain *why*), this package measures whole corpora, in this process; `analysis.engine`
runs the same functions on other processes or machines. Aggregates are ratios of sums, never
means of per-sample ratios. Sizes (`n_chars`, `n_bytes`, `n_words`) come from
`corpora.words.text_sizes`, whose docstring gives the word rules for every script; `metrics`
says which sizes a measurement computes (words, graphemes and scripts only when asked).
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from ..compare import as_tokenizers as as_tokenizers
    from .rows import (
        check_table_path as check_table_path,
        chunk_counts as chunk_counts,
        COLUMNS as COLUMNS,
        count_words as count_words,
        columns_for as columns_for,
        COUNTS as COUNTS,
        finish_measured as finish_measured,
        iter_sample_chunks as iter_sample_chunks,
        measure as measure,
        measure_chunk as measure_chunk,
        RATIOS as RATIOS,
        rows_from_counts as rows_from_counts,
        TABLE_SUFFIXES as TABLE_SUFFIXES,
        token_counts as token_counts,
        UniqueIds as UniqueIds,
        with_ratios as with_ratios,
        write_table as write_table,
    )
    from .metrics import (
        check_metrics as check_metrics,
        count_columns as count_columns,
        DEFAULT_METRICS as DEFAULT_METRICS,
        DETECT_SCRIPT as DETECT_SCRIPT,
        METRICS as METRICS,
        resolve_scripts as resolve_scripts,
        text_stats as text_stats,
    )
    from .sums import (
        BASELINE_VARIANTS as BASELINE_VARIANTS,
        chunk_counts_sums as chunk_counts_sums,
        chunk_sums as chunk_sums,
        combine_sums as combine_sums,
        counts_sums as counts_sums,
        empty_sums as empty_sums,
        filter_frame as filter_frame,
        partial_sums as partial_sums,
        summarize as summarize,
        summary_from_sums as summary_from_sums,
        SUMS as SUMS,
        variant_deltas as variant_deltas,
    )
    from .tally import (
        CATEGORICAL as CATEGORICAL,
        ChunkCounts as ChunkCounts,
        group_keys as group_keys,
        SAMPLE_META as SAMPLE_META,
        Tally as Tally,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    'as_tokenizers': '..compare',  # light: the CLI resolves names before deciding whether pandas is needed
    **dict.fromkeys(('CATEGORICAL', 'ChunkCounts', 'group_keys', 'SAMPLE_META', 'Tally'), '.tally'),
    **dict.fromkeys(('check_table_path', 'chunk_counts', 'COLUMNS', 'count_words', 'columns_for', 'COUNTS', 'finish_measured', 'iter_sample_chunks', 'measure', 'measure_chunk', 'RATIOS', 'rows_from_counts', 'TABLE_SUFFIXES', 'token_counts', 'UniqueIds', 'with_ratios', 'write_table',), '.rows'),
    **dict.fromkeys(('check_metrics', 'count_columns', 'DEFAULT_METRICS', 'DETECT_SCRIPT', 'METRICS', 'resolve_scripts', 'text_stats',), '.metrics'),
    **dict.fromkeys(('BASELINE_VARIANTS', 'chunk_counts_sums', 'chunk_sums', 'combine_sums', 'counts_sums', 'empty_sums', 'filter_frame', 'partial_sums', 'summarize', 'summary_from_sums', 'SUMS', 'variant_deltas',), '.sums'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
