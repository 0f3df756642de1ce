"""The application factory: `create_app(settings)` wires settings, runtime, routers and errors.

`tokenprism serve` runs `create_app` in every uvicorn worker (as an import string, so the CLI
never imports this face); tests call it with their own `Settings`. Tokenizers are loaded in
the lifespan handler, never at import.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import BadInput, UnknownName
from .lifeline import tie_to_supervisor
from .middleware import ServiceMiddleware
from .problems import Problem, handle
from .routers import compat, cost, count, llamacpp, ops, providers, tokenize
from .runtime import Runtime
from .security import require_key
from .settings import Settings

DESCRIPTION = """\
Every tokenizer and every price of tokenprism behind one JSON API, offline.

* Native endpoints are versioned under `/v1`.
* `/tokenize`, `/detokenize` (vLLM), `/v1/messages/count_tokens` (Anthropic),
  `/v1/responses/input_tokens` (OpenAI) and `/v1beta/models/{model}:countTokens` (Gemini) speak
  the shapes those clients already send; with `serve --tokenizer-dir`, `/tokenize` and
  `/detokenize` also take llama.cpp's server shapes (`content`, `add_special`, `parse_special`,
  `with_pieces`) for the GGUF and SentencePiece files of that folder.
* Counts of a text from a proxy tokenizer are labelled `exactness: estimate`; counts of a
  request say `exact`, `documented` or `estimate`, with the reason.
* Errors are RFC 9457 problem details (`application/problem+json`).
* With API keys configured, every route but `/healthz` and `/readyz` needs one
  (`x-api-key: KEY`, `Authorization: Bearer KEY`, or Gemini's `x-goog-api-key: KEY` / `?key=KEY`).
"""


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service as an ASGI app; settings default to the environment (`Settings.from_env`)."""
    tie_to_supervisor()  # a worker of `serve --workers N` ends with its supervisor
    settings = settings or Settings.from_env()
    rt = Runtime(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        rt.start()  # loading runs in the background: /healthz answers while it runs
        try:
            yield
        finally:
            await rt.stop()

    app = FastAPI(title="tokenprism", version=_version(), description=DESCRIPTION, lifespan=lifespan,
                  docs_url=None, redoc_url=None, openapi_url=None,  # ours, behind the key check: routers/ops.py
                  # no redirect from /v1/count/ to /v1/count: its Location would be built from the Host header
                  redirect_slashes=False)
    app.state.settings = settings
    app.state.runtime = rt
    # Without keys the check is not installed at all (it would be a no-op costing a dependency per request).
    keyed = [Depends(require_key)] if settings.api_keys else []
    # /v1/count first: routes are matched in order, and it is the one called most
    # llama.cpp's /tokenize and /detokenize before vLLM's: they share the paths and hand vLLM's bodies on
    for r in (count.router, tokenize.router, cost.router, llamacpp.router, compat.router, providers.router, ops.router):
        app.include_router(r, dependencies=keyed)
    app.include_router(ops.open_router)
    # The library's refusals are named here, not left to the `Exception` catch-all: Starlette
    # re-raises what reaches that one (a bug, 500), and a refusal is no bug.
    for exc in (Problem, UnknownName, BadInput, RequestValidationError, StarletteHTTPException, Exception):
        app.add_exception_handler(exc, handle)
    # The key check and the body limit run before routing, in ServiceMiddleware
    open_paths = frozenset(getattr(r, "path", "") for r in ops.open_router.routes)
    app.add_middleware(ServiceMiddleware, max_body_bytes=settings.limits.max_body_bytes, metrics=rt.metrics,
                       api_keys=settings.api_keys, open_paths=open_paths)
    if settings.cors_origins:  # outermost: a browser's preflight carries no key, and a 401 needs CORS headers too
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins), allow_methods=["GET", "POST"],
                           allow_headers=["authorization", "x-api-key", "x-goog-api-key", "content-type",
                                          "anthropic-version"])
    return app


def _version() -> str:
    import importlib.metadata as md

    try:
        return md.version("tokenprism")
    except md.PackageNotFoundError:
        return "0"
