"""Errors as RFC 9457 problem details, from one exception handler.

Unlike FastAPI's default `{"detail": ...}` bodies, every error here is
`application/problem+json` with `type`, `title`, `status` and a `detail` that names the
problem and the fix. Library errors map by meaning, not by built-in type: `UnknownName` is 404
(with the valid and the closest names as extension members) and `BadInput` is 422. Any other
exception, a bare KeyError or ValueError included, is a bug: 500, logged, no traceback sent.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from ..errors import BadInput, UnknownName, clipped

if TYPE_CHECKING:
    from .settings import Limits

MEDIA_TYPE = "application/problem+json"
TITLES = {400: "Bad request", 401: "Unauthorized", 404: "Not found", 405: "Method not allowed",
          413: "Content too large", 415: "Unsupported media type", 422: "Unprocessable content",
          500: "Internal server error", 503: "Service unavailable"}
_log = logging.getLogger("tokenprism.api")


class Problem(Exception):
    """An error the service answers with, as problem details.

    Args:
        status: the HTTP status.
        detail: what went wrong and how to fix it.
        type_: a short slug; the `type` member is "urn:tokenprism:problem:<slug>".
        headers: extra response headers (WWW-Authenticate, Retry-After).
        **extra: extension members (e.g. `valid` names, validation `errors`).
    """

    def __init__(self, status: int, detail: str, *, type_: str | None = None,
                 headers: dict[str, str] | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.detail, self.headers, self.extra = status, detail, headers or {}, extra
        self.type_ = type_ or TITLES.get(status, "error").lower().replace(" ", "-")


def from_library(e: UnknownName | BadInput) -> Problem:
    """A library refusal of client input as a Problem: UnknownName 404, BadInput 422."""
    if isinstance(e, UnknownName):
        return Problem(404, str(e), type_="unknown-name", valid=e.valid, closest=e.closest)
    return Problem(422, str(e), type_="invalid-input")


def check_limit(limits: Limits, name: str, n: int, what: str, fix: str = "", **where: object) -> None:
    """Refuse (422 `limit-exceeded`) an input of size `n` over the limit `name` of `limits`.

    Args:
        limits: the server's limits.
        name: the `Limits` field, e.g. "max_ids"; its flag (`--max-ids`) is named in the fix.
        n: the input's size.
        what: the input described, a format string with `{n}` and any of `where`, e.g.
            "{n:,} ids in one request"; formatted only on refusal, so that the check costs a
            comparison on the hot path.
        fix: what the client can do instead, e.g. "split them".
        **where: more fields for `what`, e.g. which text of a batch.
    """
    limit = getattr(limits, name)
    if n > limit:
        flag = "--" + name.replace("_", "-")
        raise Problem(422, f"{what.format(n=n, **where)}; the limit is {limit:,}. Fix: " + (f"{fix}, or raise" if fix else "raise")
                      + f" the server's {flag}", type_="limit-exceeded")


MAX_INSTANCE = 256  # the most characters of a request's path echoed as `instance` (a path may be any length)


def problem_body(status: int, detail: str, type_: str, instance: str | None = None, **extra: Any) -> bytes:
    """The problem details' JSON; `instance` (the request's path) is cut and escaped by `clipped`,
    so an answer never grows with the path a client sends."""
    instance = clipped(instance, MAX_INSTANCE) if instance else None
    body = {"type": f"urn:tokenprism:problem:{type_}", "title": TITLES.get(status, "Error"), "status": status,
            "detail": detail, **({"instance": instance} if instance else {}), **extra}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def problem_response(status: int, detail: str, *, type_: str, instance: str | None = None,
                     headers: dict[str, str] | None = None, **extra: Any) -> Response:
    return Response(problem_body(status, detail, type_, instance, **extra), status_code=status,
                    media_type=MEDIA_TYPE, headers=headers)


def _field(loc: tuple) -> str:
    parts = [str(p) for p in loc if p != "body"]
    return ".".join(parts) or "body"


async def handle(request: Request, exc: Exception) -> Response:
    """The one exception handler: every error the app raises leaves through here."""
    path = request.url.path
    if isinstance(exc, (UnknownName, BadInput)):
        exc = from_library(exc)
    if isinstance(exc, Problem):
        return problem_response(exc.status, exc.detail, type_=exc.type_, instance=path, headers=exc.headers, **exc.extra)
    if isinstance(exc, RequestValidationError):
        errors = [{"field": _field(tuple(e.get("loc", ()))), "problem": e.get("msg", "invalid")}
                  for e in exc.errors()]
        # Never echo the input back: it may be a user's private text.
        summary = "; ".join(f"{e['field']}: {e['problem']}" for e in errors[:5])
        return problem_response(422, f"the request body does not fit the schema ({summary}). Fix: see the "
                                "request schema at /openapi.json or /docs", type_="invalid-request",
                                instance=path, errors=errors[:50])
    if isinstance(exc, StarletteHTTPException):
        at = clipped(path)
        detail = {404: f"no endpoint at {at}; see /docs or /openapi.json for the endpoints",
                  405: f"{clipped(request.method, 16)} is not allowed on {at}; see /openapi.json for its methods"}.get(
            exc.status_code, str(exc.detail))
        return problem_response(exc.status_code, detail, type_=TITLES.get(exc.status_code, "error").lower().replace(" ", "-"),
                                instance=path, headers=getattr(exc, "headers", None))
    # One line here; Starlette re-raises the exception after this answer, so the server logs
    # its traceback. The client gets neither the traceback nor the exception's text.
    _log.error("internal error on %s %s: %s: %s", clipped(request.method, 16), clipped(path, MAX_INSTANCE),
               type(exc).__name__, exc)
    return problem_response(500, "internal error: this is a bug in tokenprism, not in your request; "
                            "the server log has the details", type_="internal-error", instance=path)
