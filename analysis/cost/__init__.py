"""Cost: token counts times prices, in `Decimal` USD, with every estimate labelled as one.

The package by its three questions, and what serves them:

* what did a log bill? `usage` reads a logged usage into its billed parts (`LoggedBill`) and prices
  it as billed (genai-prices' `calc_price`, memoised per run); `billed_sum` adds up many rows;
* what would a target pay? `bill` is the one arithmetic of a dollar: the `Rates` of a price on a
  day, in a tier, in a batch or service-tier context, and `usd(parts, rates)`; workloads,
  re-targeted logs and the whole bill of a log all call it;
* what does a prompt cache save? `caching`: each provider's rule, simulated in order.

The bill family has three nouns, and every name in it says which it is about:
`usage.LoggedBill`, what the log billed for one response (with `usage.LoggedBillRow`, one row's
and what prices it; `logs.partial.LoggedBillPart`, summed per chunk and serving model;
`logs.export_bill.ExportLoggedBill`, an export's); `logs.whole_bill.TargetBill`, what a target
would pay over a log (with `logs.fold.FoldedTargetBill`, what it needs of the rows, folded); and
`bill.Rates`, the rates of one price tier.

And: `prices/` (what a model charges on a day and who says so; `models/genai` is the one module
that imports genai-prices), `targets` (the models of one run and the `TrafficPlan` a log is priced
by), `recount` (each target's request counter, fed by batch counts), `workloads/` (texts under an
assumed workload), `logs/` (request logs read into one record type, chunked, summed, folded and
reported) and `shared_prefix` (texts after a shared system prompt, priced through `logs`).
Money is rounded only for display (`analysis.money`, `analysis.report`).

Other packages import from here the names below, not from the modules.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .prices import (
        Price as Price,
        Rate as Rate,
        find_model as find_model,
        get_price as get_price,
        list_prices as list_prices,
        load_overrides as load_overrides,
        model_names as model_names,
        model_table as model_table,
        price_source as price_source,
    )
    from .defaults import DEFAULT_MODELS as DEFAULT_MODELS
    from .bill import (
        NoPriceError as NoPriceError,
        request_cost as request_cost,
        table_rates as table_rates,
        usd as usd,
    )
    from .workloads import (
        CATEGORY_COLUMNS as CATEGORY_COLUMNS,
        MODEL_COLUMNS as MODEL_COLUMNS,
        WORKLOAD_LIMITS as WORKLOAD_LIMITS,
        CorpusCost as CorpusCost,
        CostReport as CostReport,
        Workload as Workload,
        estimate as estimate,
        quick_frame as quick_frame,
        to_decimal as to_decimal,
        with_count_exactness as with_count_exactness,
        workload_value as workload_value,
    )
    from ..money import format_usd as format_usd
    from .shared_prefix import (
        price_shared_prefix as price_shared_prefix,
        traffic_of as traffic_of,
    )
    from .logs import (
        CHUNK_ROWS as CHUNK_ROWS,
        SHAPES as SHAPES,
        LogRecord as LogRecord,
        LogReport as LogReport,
        LogUpload as LogUpload,
        TrafficPartial as TrafficPartial,
        TrafficPlan as TrafficPlan,
        TrafficReport as TrafficReport,
        chunked as chunked,
        RowChunk as RowChunk,
        iter_log_chunks as iter_log_chunks,
        iter_log_records as iter_log_records,
        with_system as with_system,
        plan_traffic as plan_traffic,
        price_chunk as price_chunk,
        price_records as price_records,
        warm_counters as warm_counters,
        read_log_records as read_log_records,
        summarise as summarise,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('Price', 'Rate', 'find_model', 'get_price', 'list_prices', 'load_overrides', 'model_names', 'model_table', 'price_source',), '.prices'),
    **dict.fromkeys((), '..models'),
    **dict.fromkeys(('format_usd',), '..money'),
    **dict.fromkeys(('DEFAULT_MODELS',), '.defaults'),
    **dict.fromkeys(('NoPriceError', 'request_cost', 'table_rates', 'usd',), '.bill'),
    **dict.fromkeys(('CATEGORY_COLUMNS', 'MODEL_COLUMNS', 'WORKLOAD_LIMITS', 'CorpusCost', 'CostReport', 'Workload', 'estimate', 'quick_frame', 'to_decimal', 'with_count_exactness', 'workload_value',), '.workloads'),
    **dict.fromkeys(('price_shared_prefix', 'traffic_of',), '.shared_prefix'),
    **dict.fromkeys(('CHUNK_ROWS', 'SHAPES', 'LogRecord', 'LogReport', 'LogUpload', 'TrafficPartial', 'TrafficPlan', 'TrafficReport', 'chunked', 'RowChunk', 'iter_log_chunks', 'iter_log_records', 'with_system', 'plan_traffic', 'price_chunk', 'price_records', 'warm_counters', 'read_log_records', 'summarise',), '.logs'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
