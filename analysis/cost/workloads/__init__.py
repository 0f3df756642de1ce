"""Workloads: what texts cost under an assumed use (requests per month, output, cache share).

The modules: `workload` (the assumed numbers, validated), `estimate` (the running sums of
requests x prices per model and category: `CorpusCost` chunk by chunk, `estimate` for one
chunk with its per-request rows), `rows` (each model's row, parts and notes) and `one_request`
(one text priced once, without a workload). Every dollar is `cost.bill`'s arithmetic.
"""

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
    from .workload import (
        CATEGORY_COLUMNS as CATEGORY_COLUMNS,
        MODEL_COLUMNS as MODEL_COLUMNS,
        WORKLOAD_LIMITS as WORKLOAD_LIMITS,
        Workload as Workload,
        percent as percent,
        to_decimal as to_decimal,
        workload_value as workload_value,
    )
    from .estimate import (
        CorpusCost as CorpusCost,
        CostReport as CostReport,
        as_samples as as_samples,
        estimate as estimate,
    )
    from .one_request import quick_frame as quick_frame, with_count_exactness as with_count_exactness

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('CATEGORY_COLUMNS', 'MODEL_COLUMNS', 'WORKLOAD_LIMITS', 'Workload', 'percent', 'to_decimal',
                     'workload_value'), '.workload'),
    **dict.fromkeys(('CorpusCost', 'CostReport', 'as_samples', 'estimate'), '.estimate'),
    **dict.fromkeys(('quick_frame', 'with_count_exactness'), '.one_request'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
