"""Logs: what logged traffic would cost under other models.

The modules: `shapes` (one row of each provider's request format into plain fields),
`records` (log files of several containers and shapes, streamed into `LogRecord`s),
`chunk_sums` (a chunk of records reduced to a `TrafficPartial` of sums per model, day and
tier; partials add up) and `traffic_report` (the merged partial turned into a
`TrafficReport`). The exports of tools and providers (OpenTelemetry spans, Langfuse, Helicone,
LiteLLM, usage and cost reports) are read by `exports` under the rules of `export_rules` and priced
from their logged usage by `export_bill`.
"""

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
    from .shapes import SHAPES as SHAPES
    from .records import (
        LogRecord as LogRecord,
        LogReport as LogReport,
        LogUpload as LogUpload,
        Usage as Usage,
        RowChunk as RowChunk,
        iter_log_chunks as iter_log_chunks,
        iter_log_records as iter_log_records,
        with_system as with_system,
        read_log_records as read_log_records,
    )
    from .chunk_sums import (
        CHUNK_ROWS as CHUNK_ROWS,
        TrafficPartial as TrafficPartial,
        TrafficPlan as TrafficPlan,
        chunked as chunked,
        plan_traffic as plan_traffic,
        price_chunk as price_chunk,
        price_records as price_records,
        warm_counters as warm_counters,
    )
    from .traffic_report import (
        TrafficReport as TrafficReport,
        summarise as summarise,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('SHAPES',), '.shapes'),
    **dict.fromkeys(('LogRecord', 'LogReport', 'LogUpload', 'RowChunk', 'Usage', 'iter_log_chunks', 'iter_log_records', 'read_log_records', 'with_system',), '.records'),
    **dict.fromkeys(('CHUNK_ROWS', 'TrafficPartial', 'TrafficPlan', 'chunked', 'plan_traffic', 'price_chunk', 'price_records', 'warm_counters',), '.chunk_sums'),
    **dict.fromkeys(('TrafficReport', 'summarise',), '.traffic_report'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
