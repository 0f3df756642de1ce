"""Logs: what logged traffic billed, and what it would cost under other models.

A request log's row, on its road: `files` (each container opened and cut into rows, streamed) ->
`read` and `shapes` (a row of each provider's request format into a `LogRecord`, its usage read by
`cost.usage` into a `LoggedBill`) -> `chunk` (a chunk of records recounted under every target of
the plan, `cost.targets`, and reduced to a `partial.TrafficPartial` of sums per model, day and
tier, with what the log billed per serving model, a `LoggedBillPart`; partials add up), which
keeps with `cache_trace` what a prompt cache needs of each row (block marks, their ends on each
target, step cuts) -> `fold` (the partials folded as they come back, in time order) ->
`report` (the merged partial turned into a `TrafficReport`), with `whole_bill` (each target's
`TargetBill` by part, through `cost.bill`) and `calibration` (our recount against the logged
usage). `cache_replay` replays each target's prompt cache over what the rows kept: as the fold
goes, or over the whole log where its rows were kept.

The exports of tools and providers (OpenTelemetry spans, Langfuse, Helicone, LiteLLM, usage and
cost reports) take another road, never recounted: `export_files` (which export a file is, and its
items) -> `exports` (each item into an `ExportRow`, by the rules of `export_rules`) ->
`export_bill` (what they billed, an `ExportLoggedBill`, priced from their logged usage).
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
