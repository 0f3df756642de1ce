"""The display: cost reports as people read them, rounded to strings (the only place money is rounded).

The module: `tables` (a workload report's tables and notes, and the one-request table); one
amount is `analysis.money.format_usd`.
"""

from typing import TYPE_CHECKING

from ...lazy import lazy_exports

if TYPE_CHECKING:
    from .tables import (
        display_categories as display_categories,
        display_models as display_models,
        display_quick as display_quick,
        frame_notes as frame_notes,
        model_notes as model_notes,
        quick_reasons as quick_reasons,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('display_categories', 'display_models', 'display_quick', 'frame_notes', 'model_notes', 'quick_reasons',), '.tables'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
