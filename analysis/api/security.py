"""Optional API keys, compared in constant time, required on every route but /healthz and /readyz.

A key is accepted in `x-api-key` (Anthropic's header), `Authorization: Bearer KEY` (OpenAI's
and vLLM's), `x-goog-api-key` or `?key=` (Gemini's), or as the password of HTTP Basic auth, so a browser can open /docs on a server
with keys (it asks for a user name, which is ignored, and the key). Every configured key is
compared with `hmac.compare_digest`, all of them every time, so the time taken says nothing
about which key, or how much of one, matched.
"""

from __future__ import annotations

import base64
import binascii
import hmac

from fastapi import Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from .problems import Problem

# Declared as security schemes so the OpenAPI schema and /docs' "Authorize" button know them;
# auto_error=False because the check below gives the problem-details error itself.
_api_key_header = APIKeyHeader(name="x-api-key", auto_error=False, description="an API key of the server")
_bearer = HTTPBearer(auto_error=False, description="Authorization: Bearer <API key>")


def _matches(given: str, keys: tuple[str, ...]) -> bool:
    candidate = given.encode("utf-8", "surrogatepass")
    ok = False
    for key in keys:  # no early exit: every key is compared every time
        ok |= hmac.compare_digest(candidate, key.encode("utf-8"))
    return ok


def _basic_password(header: str | None) -> str | None:
    if not header or not header[:6].lower() == "basic ":
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded.partition(":")[2] or None


def given_key(*candidates: str | None) -> str | None:
    """The first key sent: `x-api-key`, then Gemini's `x-goog-api-key` header, then its `?key=` parameter."""
    return next((c for c in candidates if c), None)


_CHALLENGE = {"WWW-Authenticate": 'Bearer, Basic realm="tokenprism (password: API key)"'}


def refusal(keys: tuple[str, ...], api_key: str | None, authorization: str | None) -> Problem | None:
    """The 401 for a request with these credentials, or None when a key matches.

    `api_key` is the key sent on its own: the `x-api-key` header, or Gemini's `x-goog-api-key`
    header or `?key=` query parameter (see `given_key`); `authorization` is the Authorization header.

    The service middleware calls this before routing, so an unauthenticated request is never
    parsed and learns nothing of which routes exist; `require_key` calls it again per route.
    """
    if not keys:
        return None
    bearer = authorization[7:].strip() if authorization and authorization[:7].lower() == "bearer " else None
    given = api_key or bearer or _basic_password(authorization)
    if given is None:
        return Problem(401, "this server requires an API key: send it in the x-api-key header or as "
                       "Authorization: Bearer KEY", type_="missing-api-key", headers=_CHALLENGE)
    if not _matches(given, keys):
        return Problem(401, "the API key is not valid for this server; check for a typo or ask its operator "
                       "for a key", type_="invalid-api-key", headers=_CHALLENGE)
    return None


async def require_key(request: Request, api_key: str | None = Security(_api_key_header),
                      bearer: HTTPAuthorizationCredentials | None = Security(_bearer)) -> None:
    """The dependency every protected router carries (it also declares the schemes to OpenAPI)."""
    problem = refusal(request.app.state.settings.api_keys,
                      given_key(api_key, request.headers.get("x-goog-api-key"), request.query_params.get("key")),
                      request.headers.get("authorization"))
    if problem is not None:
        raise problem
