"""Reports: the analysis bundle (`bundle`: md, html, figures, tables) and the cost report (`cost`)."""

from .bundle import (
    FIGURES as FIGURES,
    build_report as build_report,
    make_figure as make_figure,
    markdown_table as markdown_table,
    Report as Report,
)
