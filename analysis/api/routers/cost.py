"""GET /v1/models (prices, tokenizer, exactness) and POST /v1/cost (`tokenprism cost --format json`)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query

from ..problems import Problem, check_limit
from ..schemas import CostRequest, CostResponse, ModelsResponse, SharedPrefixCostResponse
from . import ERRORS, RuntimeDep, check_texts, one_or_many

router = APIRouter(tags=["cost"], responses=ERRORS)


# `analysis.report` loads matplotlib for its figures (0.7 s) and the cost tables pandas (0.4 s):
# imported on the first cost request, in the pool, rather than before the server can answer /readyz.
def _models(**kw) -> dict:
    from ...cost import model_table
    from ...report.cost import records

    frame, source = model_table(**kw)
    return {"price_source": source, "models": records(frame)}


@router.get("/v1/models", response_model=ModelsResponse,
            summary="Priced models with their tokenizer and its exactness (estimate: a proxy tokenizer)")
async def models(rt: RuntimeDep,
                 contains: str | None = Query(None, max_length=200, description="only models whose provider:id or name contains this"),
                 provider: str | None = Query(None, max_length=100, description="only this provider id (openai, anthropic, ...)"),
                 all_providers: bool = Query(False, description="include hosts and resellers"),
                 exactness: Literal["exact", "estimate", "approximate", "none"] | None = Query(None),
                 include_deprecated: bool = Query(False)) -> dict:
    return await rt.run(_models, contains=contains, provider=provider, all_providers=all_providers,
                        exactness=exactness, include_deprecated=include_deprecated)


def _cost(texts: list[str], models: list[str] | None, workload: dict, on, fallback: str | None) -> dict:
    from ...cost import Workload, estimate
    from ...report.cost import report_json

    report = estimate(texts, models, workload=Workload(**workload), on=on, fallback_tokenizer=fallback)
    return report_json(report)


def _shared_prefix_cost(texts: list[str], body: CostRequest) -> dict:
    from ...cost import price_shared_prefix
    from ...report.traffic import report_json

    report = price_shared_prefix(
        texts, body.models or _default_models(), system=body.system, tools=body.tools,
        requests_per_lifetime=body.requests_per_lifetime, cache_breakpoints=body.cache_breakpoints,
        requests_per_month=body.requests_per_month, output_tokens=body.output_tokens, output_ratio=body.output_ratio,
        cached_share=body.cached_share, reasoning_tokens=body.reasoning_tokens, reasoning_ratio=body.reasoning_ratio,
        batch=body.batch, service_tier=body.service_tier, on=body.on, fallback_tokenizer=body.fallback_tokenizer)
    return report_json(report)


def _default_models() -> list[str]:
    from ...cost import DEFAULT_MODELS

    return list(DEFAULT_MODELS)


def _shared_prefix(body: CostRequest) -> bool:
    return bool(body.system or body.tools) or body.requests_per_lifetime is not None or body.cache_breakpoints != "request"


@router.post("/v1/cost", response_model=CostResponse | SharedPrefixCostResponse,
             summary="What a workload costs per model: the numbers of `tokenprism cost --format json` (with a shared "
                     "system prompt or tools: of `tokenprism cost TEXT --system S --format json`)")
async def cost(body: CostRequest, rt: RuntimeDep) -> dict:
    texts = one_or_many(body.text, body.texts, rt)
    if _shared_prefix(body):
        if not (body.system or body.tools):
            raise Problem(422, "requests_per_lifetime and cache_breakpoints simulate each model's cache over requests "
                               "that share a prefix: give a system prompt (system) or tools", type_="invalid-input")
        if body.messages_per_request != 1 or body.chars_per_request is not None:
            raise Problem(422, "messages_per_request and chars_per_request describe an assumed workload of texts; with "
                               "a shared prefix each request is counted as it is, so leave them out",
                          type_="invalid-input")
        if body.system:
            check_texts(rt, [body.system], "system")
    if body.models is not None:
        check_limit(rt.settings.limits, "max_models", len(body.models), "{n:,} models named", "split the request")
    if body.models is not None and not [m for m in body.models if m.strip()]:
        raise Problem(422, "models is an empty list; name at least one (GET /v1/models lists them), or leave it out",
                      type_="invalid-input")
    if _shared_prefix(body):
        return await rt.run(_shared_prefix_cost, texts, body)
    workload = {k: getattr(body, k) for k in ("requests_per_month", "output_tokens", "output_ratio", "cached_share",
                                              "messages_per_request", "chars_per_request", "reasoning_tokens",
                                              "reasoning_ratio", "batch", "service_tier")}
    workload["cached_share"] = workload["cached_share"] or 0  # texts simulate no cache: not given is none
    return await rt.run(_cost, texts, body.models, workload, body.on, body.fallback_tokenizer)
