"""One router per domain, and the few helpers they share (the runtime, input limits, error docs).

Handlers stay thin: check the request against the limits, run the `analysis` function in the
encoding pool, shape the answer.
"""

from __future__ import annotations

from typing import Annotated, Any, Iterable

from fastapi import Depends, Request

from ..problems import Problem, check_limit
from ..runtime import Runtime
from ..schemas import ProblemDetails

_PROBLEM = {"model": ProblemDetails, "content": {"application/problem+json": {}}}
ERRORS: dict[int | str, dict[str, Any]] = {
    401: {**_PROBLEM, "description": "API key missing or not valid"},
    404: {**_PROBLEM, "description": "unknown tokenizer or model (the valid or closest names listed)"},
    413: {**_PROBLEM, "description": "request body over the size limit"},
    422: {**_PROBLEM, "description": "invalid input, or an input over a limit"},
    503: {**_PROBLEM, "description": "tokenizers still loading"},
}


async def runtime(request: Request) -> Runtime:
    # async: FastAPI would run a plain `def` dependency in a worker thread, on every request
    return request.app.state.runtime


RuntimeDep = Annotated[Runtime, Depends(runtime)]
"""A handler's runtime: `rt: RuntimeDep`."""


def check_texts(rt: Runtime, texts: Iterable[str], field: str) -> None:
    """Each text within the per-text character limit (422 naming the field and the limit)."""
    limits = rt.settings.limits
    for i, t in enumerate(texts):
        check_limit(limits, "max_text_chars", len(t), "{field}[{i}] has {n:,} characters", "split it", field=field, i=i)


def one_or_many(text: str | None, texts: list[str] | None, rt: Runtime) -> list[str]:
    """`text` or `texts` (exactly one), checked against the batch and text limits."""
    if (text is None) == (texts is None):
        raise Problem(422, "give exactly one of text (one string) and texts (a list of strings)", type_="invalid-input")
    out = [text] if text is not None else list(texts or ())
    if not out:
        raise Problem(422, "texts is an empty list; give at least one text", type_="invalid-input")
    check_limit(rt.settings.limits, "max_texts", len(out), "{n:,} texts in one request", "send them in several requests")
    check_texts(rt, out, "texts" if texts is not None else "text")
    return out
