"""POST /v1/count: texts x tokenizers -> token counts, the numbers of `tokenprism compare`."""

from __future__ import annotations

import json
import math

from fastapi import APIRouter, Request
from starlette.responses import Response

from ...compare import count_texts
from ..schemas import CountRequest, CountResponse
from . import ERRORS, one_or_many

router = APIRouter(tags=["count"], responses=ERRORS)


@router.post("/v1/count", response_model=CountResponse, summary="Count tokens of one text or a batch, per tokenizer")
async def count(body: CountRequest, request: Request) -> Response:
    rt = request.app.state.runtime  # not a dependency: this is the hot path, and each one costs
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
