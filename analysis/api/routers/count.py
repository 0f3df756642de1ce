"""POST /v1/count: texts x tokenizers -> token counts (`tokenprism compare`), or a request x models
-> input tokens (`tokenprism count`).

Unlike `providers` and `compat` (one provider's shape each), this is the native route: the texts
form is the hot path and stays lean; the `messages` form goes through `requests.count_request`
like every other request count, one row per model.
"""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from ...compare import count_texts
from ...requests import MESSAGES_KEY, detect_shape
from ..problems import Problem, check_limit
from ..runtime import Runtime
from ..schemas import CountRequest, CountResponse, RequestCountResponse
from . import ERRORS, one_or_many
from .requests import count_request, parse_body, served_spec

router = APIRouter(tags=["count"], responses=ERRORS)

_REQUEST_ONLY = ("model", "models", "tools", "shape")


@router.post("/v1/count", response_model=CountResponse | RequestCountResponse,
             summary="Count tokens of texts per tokenizer, or of a request (messages) per model")
async def count(body: CountRequest, request: Request) -> Response:
    rt = request.app.state.runtime  # not a dependency: this is the hot path, and each one costs
    if body.messages is not None:
        return await _count_request(body, rt)
    named = [k for k in _REQUEST_ONLY if getattr(body, k) is not None]
    if named:
        raise Problem(422, f"{', '.join(named)} go with messages (a request counted per model); with text or texts "
                      "name tokenizers instead", type_="invalid-input")
    texts = one_or_many(body.text, body.texts, rt)
    toks = rt.select(body.tokenizers)
    rows = await rt.run(count_texts, texts, toks, work=sum(map(len, texts)) * len(toks))
    for tok in toks:
        rt.metrics.count_tokens(tok.name, sum(r["n_tokens"] for r in rows if r["tokenizer"] == tok.name))
    for r in rows:  # JSON has no NaN: an empty text has no ratio
        for k in ("chars_per_token", "bytes_per_token"):
            if math.isnan(r[k]):
                r[k] = None
    # Built by hand: the rows are already the response's shape, and validating them again
    # would cost more than counting a short text.
    return Response(json.dumps({"n_texts": len(texts), "results": rows}, ensure_ascii=False),
                    media_type="application/json")


async def _count_request(body: CountRequest, rt: Runtime) -> Response:
    if body.text is not None or body.texts is not None or body.tokenizers is not None:
        raise Problem(422, "give messages with model or models, or text/texts with tokenizers, not both",
                      type_="invalid-input")
    if (body.model is None) == (body.models is None):
        raise Problem(422, "with messages, give exactly one of model (an id) and models (a list of ids)",
                      type_="invalid-input")
    models = list(dict.fromkeys([body.model] if body.model is not None else body.models or []))
    if not models:
        raise Problem(422, "models is an empty list; name at least one model", type_="invalid-input")
    check_limit(rt.settings.limits, "max_models", len(models), "{n:,} models named", "split the request")
    parsed = parse_body(_wire(body), body.shape)
    rows = []
    for m in models:
        count = await count_request(rt, parsed, m)
        # the tokenizer as every face shows it: "~o200k_base" where it is the model's proxy
        rows.append({**count.row(), "tokenizer": (await served_spec(rt, m)).tokenizer_label(count.tokenizer)})
    return Response(json.dumps({"results": rows}, ensure_ascii=False), media_type="application/json")


def _wire(body: CountRequest) -> Any:
    """The messages as a body `analysis.requests.parse` reads: a bare list, or with `tools` beside it."""
    if body.tools is None:
        return body.messages
    shape: str | None = body.shape
    if shape is None:  # a list of chat messages tells OpenAI from Anthropic only with its tools beside it
        found = detect_shape(body.messages)
        shape = found if found in ("gemini", "openai-responses") else None
    return {MESSAGES_KEY[shape or "openai-chat"]: body.messages, "tools": body.tools}
