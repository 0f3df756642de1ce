"""Cost: token counts times prices, in `Decimal` USD, with every estimate labelled as one.

The package, by the question each part answers:

* `prices/`: what a model charges per million tokens on a day, and who says so (the
  `genai-prices` package, the user's override file, the catalogue of priced models);
* `targets`: the models of one run, resolved to prices and tokenizer choices (which tokenizer
  counts for a model is `analysis.models`'s answer);
* `recount`: each priced model's request counter (`analysis.requests`), fed by batch counts;
* `arithmetic`: the rates that apply to a request, and what its tokens cost at them;
* `workloads/`: what texts cost under an assumed workload, summed chunk by chunk (a workload
  estimate is one chunk), and one text priced once;
* `logs/`: request logs read into one record type and priced under other models;
* `shared_prefix`: texts that share a system prompt and tools, priced as requests through `logs`,
  each model's prompt cache by its own rule;
* `display/`: the reports as people read them (the only place money is rounded).

Other packages import from here, not from the modules.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .prices import (
        MTOK as MTOK,
        Price as Price,
        PriceSource as PriceSource,
        Rate as Rate,
        find_model as find_model,
        get_price as get_price,
        list_prices as list_prices,
        load_overrides as load_overrides,
        model_names as model_names,
        model_table as model_table,
        price_source as price_source,
    )
    from ..models import TokenizerChoice as TokenizerChoice
    from .defaults import DEFAULT_MODELS as DEFAULT_MODELS
    from .recount import (
        request_texts as request_texts,
        workload_request as workload_request,
    )
    from .arithmetic import (
        NoPriceError as NoPriceError,
        RequestCost as RequestCost,
        request_cost as request_cost,
    )
    from .workloads import (
        CATEGORY_COLUMNS as CATEGORY_COLUMNS,
        MODEL_COLUMNS as MODEL_COLUMNS,
        WORKLOAD_LIMITS as WORKLOAD_LIMITS,
        CorpusCost as CorpusCost,
        CostReport as CostReport,
        Workload as Workload,
        estimate as estimate,
        input_cost as input_cost,
        quick_frame as quick_frame,
        to_decimal as to_decimal,
        workload_value as workload_value,
    )
    from ..money import format_usd as format_usd
    from .shared_prefix import (
        price_shared_prefix as price_shared_prefix,
        text_records as text_records,
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
    **dict.fromkeys(('MTOK', 'Price', 'PriceSource', 'Rate', 'find_model', 'get_price', 'list_prices', 'load_overrides', 'model_names', 'model_table', 'price_source',), '.prices'),
    **dict.fromkeys(('TokenizerChoice',), '..models'),
    **dict.fromkeys(('format_usd',), '..money'),
    **dict.fromkeys(('DEFAULT_MODELS',), '.defaults'),
    **dict.fromkeys(('request_texts', 'workload_request',), '.recount'),
    **dict.fromkeys(('NoPriceError', 'RequestCost', 'request_cost',), '.arithmetic'),
    **dict.fromkeys(('CATEGORY_COLUMNS', 'MODEL_COLUMNS', 'WORKLOAD_LIMITS', 'CorpusCost', 'CostReport', 'Workload', 'estimate', 'input_cost', 'quick_frame', 'to_decimal', 'workload_value',), '.workloads'),
    **dict.fromkeys(('price_shared_prefix', 'text_records', 'traffic_of',), '.shared_prefix'),
    **dict.fromkeys(('CHUNK_ROWS', 'SHAPES', 'LogRecord', 'LogReport', 'LogUpload', 'TrafficPartial', 'TrafficPlan', 'TrafficReport', 'chunked', 'RowChunk', 'iter_log_chunks', 'iter_log_records', 'with_system', 'plan_traffic', 'price_chunk', 'price_records', 'warm_counters', 'read_log_records', 'summarise',), '.logs'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
