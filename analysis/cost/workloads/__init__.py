"""Workloads: what texts cost under an assumed use (requests per month, output, cache share).

The modules: `workload` (the assumed numbers, validated), `estimate` (the running sums of
requests x prices per model and category: `CorpusCost` chunk by chunk, `estimate` for one
chunk with its per-request rows) and `one_request` (one text priced once, without a workload).
"""

from .workload import (
    WORKLOAD_LIMITS as WORKLOAD_LIMITS,
    Workload as Workload,
    percent as percent,
    to_decimal as to_decimal,
    workload_value as workload_value,
)
from .estimate import (
    CATEGORY_COLUMNS as CATEGORY_COLUMNS,
    MODEL_COLUMNS as MODEL_COLUMNS,
    CorpusCost as CorpusCost,
    CostReport as CostReport,
    as_samples as as_samples,
    estimate as estimate,
)
from .one_request import input_cost as input_cost, quick_frame as quick_frame
