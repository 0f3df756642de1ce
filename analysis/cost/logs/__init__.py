"""Logs: what logged traffic billed, and what it would cost under other models.

A row's road: `read` (log files of several containers and shapes, streamed in chunks of
lines) -> `shapes` (one row of each provider's request format into a `LogRecord`, its usage read
by `cost.usage`) -> `chunk` (a chunk of records recounted under every target of the plan,
`cost.targets`, and reduced to a `TrafficPartial` of sums per model, day and tier; partials add
up) -> `fold` (the partials folded as they come back, in time order) -> `cache_trace` (each
target's prompt cache simulated over the rows' block marks) -> `whole_bill` (each target's bill by
part, through `cost.bill`) -> `report` (the merged partial turned into a `TrafficReport`).
The exports of tools and providers (OpenTelemetry spans, Langfuse, Helicone, LiteLLM, usage and
cost reports) are read by `exports` under the rules of `export_rules` and priced from their logged
usage by `export_bill`, never recounted.
"""

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
    from .shapes import SHAPES as SHAPES
    from .read import (
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
    from .chunk import (
        CHUNK_ROWS as CHUNK_ROWS,
        chunked as chunked,
        price_chunk as price_chunk,
        price_records as price_records,
    )
    from .partial import TrafficPartial as TrafficPartial
    from ..targets import (
        TrafficPlan as TrafficPlan,
        plan_traffic as plan_traffic,
        warm_counters as warm_counters,
    )
    from .report import (
        TrafficReport as TrafficReport,
        summarise as summarise,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('SHAPES',), '.shapes'),
    **dict.fromkeys(('LogRecord', 'LogReport', 'LogUpload', 'RowChunk', 'Usage', 'iter_log_chunks', 'iter_log_records', 'read_log_records', 'with_system',), '.read'),
    **dict.fromkeys(('CHUNK_ROWS', 'chunked', 'price_chunk', 'price_records',), '.chunk'),
    **dict.fromkeys(('TrafficPartial',), '.partial'),
    **dict.fromkeys(('TrafficPlan', 'plan_traffic', 'warm_counters',), '..targets'),
    **dict.fromkeys(('TrafficReport', 'summarise',), '.report'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
