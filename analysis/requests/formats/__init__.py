"""One chat format per model family: what a request costs beyond its text.

Each family is a module with one pure function of the `ChatFormat` shape, named in its
docstring after the reference it is tested against. The registry that maps a family name to its
function lives here, beside the shared result type in `base`.
"""

from .base import FAMILIES as FAMILIES, ChatFormat as ChatFormat, Exactness as Exactness, Rendered as Rendered, Span as Span
