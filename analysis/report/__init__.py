"""Reports: the analysis bundle (`bundle`: md, html, figures, tables) and the cost report (`cost`)."""

from .bundle import (
    FIGURES as FIGURES,
)
from .bundle import (
    Report as Report,
)
from .bundle import (
    build_report as build_report,
)
from .bundle import (
    make_figure as make_figure,
)
from .page import html_page as html_page
from .page import markdown_table as markdown_table
