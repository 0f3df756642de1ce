"""Operations: /healthz and /readyz (open to all), /metrics, /openapi.json and the offline /docs page.

`open_router` carries no key check, by design and only for the two probes a load balancer
or an orchestrator calls without credentials; `router` carries it like every other router.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response

from ..docs import ASSETS, asset_path, page
from ..problems import Problem
from ..schemas import Health, ProblemDetails, Readiness
from . import RuntimeDep

open_router = APIRouter(tags=["operations"])
router = APIRouter(tags=["operations"], responses={401: {"model": ProblemDetails, "description": "API key missing or not valid"}})


@open_router.get("/healthz", response_model=Health, summary="Liveness: the process answers")
async def healthz() -> dict:
    return {"status": "ok"}


@open_router.get("/readyz", response_model=Readiness, summary="Readiness: 200 once every tokenizer is loaded, else 503",
                 responses={503: {"model": ProblemDetails, "description": "still loading, or loading failed"}})
async def readyz(rt: RuntimeDep) -> dict:
    if not rt.ready:
        raise rt.not_ready()
    return {"status": "ready", "tokenizers": list(rt.tokenizers), "seconds_to_ready": rt.seconds_to_ready,
            "unavailable": rt.unavailable, "engines_built": rt.engines_built}


@router.get("/metrics", summary="Prometheus metrics: requests, latency histograms, tokens counted per tokenizer",
            response_class=Response, responses={200: {"content": {"text/plain": {}}}})
async def metrics(rt: RuntimeDep) -> Response:
    data, content_type = rt.metrics.exposition()
    return Response(data, media_type=content_type)


@router.get("/openapi.json", include_in_schema=False)
async def openapi(request: Request) -> JSONResponse:
    return JSONResponse(request.app.openapi())


@router.get("/docs", include_in_schema=False, response_class=HTMLResponse)
async def docs(request: Request) -> HTMLResponse:
    return HTMLResponse(page(request.app.title))


@router.get("/docs/assets/{name}", include_in_schema=False)
async def docs_asset(name: str) -> FileResponse:
    if name not in ASSETS:
        raise Problem(404, f"no docs asset {name!r}; the page uses {', '.join(ASSETS)}", type_="not-found")
    try:
        path = asset_path(name)
    except FileNotFoundError as e:
        raise Problem(503, str(e), type_="docs-unavailable") from None
    return FileResponse(path, media_type=ASSETS[name], headers={"Cache-Control": "public, max-age=86400"})
