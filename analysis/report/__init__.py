"""Reports: every report's rendering. The analysis bundle (`bundle`: md, html, figures, tables), the cost
report (`cost`, with `tables`: a cost report as people read it), logged traffic (`traffic`), and the
shared page and Markdown helpers (`page`), each report with one table from format to writer.

The bundle's names load on first use (PEP 562), so `analysis.report.cost` (text reports, used by
`tokenprism cost`) does not import matplotlib through this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bundle import FIGURES as FIGURES, Report as Report, build_report as build_report
    from .bundle import make_figure as make_figure

from .page import html_page as html_page, markdown_table as markdown_table

_LAZY = {"FIGURES", "Report", "build_report", "make_figure"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(".bundle", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
