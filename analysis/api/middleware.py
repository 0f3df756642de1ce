"""The one ASGI layer around every request: the key check, the body limit, metrics and the access log.

Written as plain ASGI rather than Starlette's BaseHTTPMiddleware, which costs a task and a
stream per request. In order, before any route is matched or any body parsed:

1. With API keys configured, a request without a valid key is answered 401, whatever its
   path or method (only the open probes, /healthz and /readyz, pass), so an unauthenticated
   client neither gets its body read nor learns which routes exist.
2. The body is read by `body.read_body`, which holds the limit on the bytes received (413),
   then checked to be JSON (415) and not nested too deeply (422), and replayed to the app.

The log line holds the method, the route, the status, the body size and the time; never the
text. A body sent as a form (curl's `-d` default) is read as JSON.
"""

from __future__ import annotations

import logging
import time
from urllib.parse import parse_qs

from . import body as bodies
from .problems import MEDIA_TYPE, Problem, problem_body
from .runtime import Metrics
from .security import given_key, refusal

_log = logging.getLogger("tokenprism.api")
_WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The metrics' method label comes from this closed set; any other method a client sends is
# "OTHER", so no client can add series (Prometheus' guidance on label cardinality). The route
# label is the matched route's template, or one of two fixed words: never the raw path.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})
MAX_SERIES = 4096  # a bound on the cached label children, whatever the app's routes and statuses


class ServiceMiddleware:
    def __init__(self, app, *, max_body_bytes: int, metrics: Metrics, api_keys: tuple[str, ...] = (),
                 open_paths: frozenset[str] = frozenset()) -> None:
        self.app, self.max_body, self.metrics = app, max_body_bytes, metrics
        self.keys, self.open_paths = api_keys, open_paths
        self._children: dict[tuple, tuple] = {}

    async def _answer(self, send, problem: Problem, path: str) -> None:
        body = problem_body(problem.status, problem.detail, problem.type_, path, **problem.extra)
        headers = [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close"), *((k.lower().encode(), v.encode()) for k, v in problem.headers.items())]
        await send({"type": "http.response.start", "status": problem.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    def _too_large(self, declared: int | None) -> Problem:
        size = f"{declared:,}" if declared is not None else f"more than {self.max_body:,}"
        return Problem(413, f"the request body is {size} bytes; the limit is {self.max_body:,}. Fix: send fewer "
                       "or shorter texts per request, or raise the server's --max-body-bytes", type_="content-too-large")

    async def _check(self, scope, receive, fields: dict[bytes, bytes]) -> tuple[Problem | None, bytes | None]:
        """(the refusal, or None; the body read, or None when it was not read)."""
        if self.keys and scope["path"] not in self.open_paths:
            api_key, goog, authorization = (fields.get(b"x-api-key"), fields.get(b"x-goog-api-key"),
                                            fields.get(b"authorization"))
            query_key = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("key", [None])[0]
            problem = refusal(self.keys, given_key(api_key.decode("latin-1") if api_key else None,
                                                   goog.decode("latin-1") if goog else None, query_key),
                              authorization.decode("latin-1") if authorization else None)
            if problem is not None:
                return problem, None
        if scope["method"] not in _WITH_BODY and b"content-length" not in fields and b"transfer-encoding" not in fields:
            return None, None
        try:
            data = await bodies.read_body(receive, self.max_body, fields.get(b"content-length"))
        except bodies.TooLarge as e:
            return self._too_large(e.declared), None
        if not data:
            return None, data
        encoding = fields.get(b"content-encoding", b"identity").strip().lower()
        if encoding not in (b"", b"identity"):
            return Problem(415, f"the request body is compressed (Content-Encoding: {encoding[:40].decode('latin-1')}); "
                           "this server reads uncompressed JSON only. Fix: send the body without compressing it",
                           type_="unsupported-media-type"), data
        if not bodies.is_json(fields.get(b"content-type")):
            given = fields.get(b"content-type")
            said = f"Content-Type {given.decode('latin-1')!r}" if given else "no Content-Type"
            return Problem(415, f"the request body was sent with {said}; send it as JSON with the header "
                           "Content-Type: application/json", type_="unsupported-media-type"), data
        if bodies.too_deep(data):
            return Problem(422, f"the JSON body is nested too deeply: more than {bodies.MAX_JSON_DEPTH} levels of "
                           "arrays and objects. Fix: send the request shape documented at /docs",
                           type_="limit-exceeded"), data
        if bodies.huge_number(data):
            return Problem(422, f"the JSON body holds a number of more than {bodies.MAX_NUMBER_DIGITS:,} digits; no "
                           "field takes one. Fix: send counts and ids as the whole numbers they are",
                           type_="limit-exceeded"), data
        return None, data

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        status = 500
        fields: dict[bytes, bytes] = {}
        form_at = None
        for i, (k, v) in enumerate(scope["headers"]):
            if k in fields:  # a repeated header: the first one counts, as for the framework
                continue
            fields[k] = v
            if k == b"content-type" and v.startswith(b"application/x-www-form-urlencoded"):
                form_at = i
        if form_at is not None:
            # `curl -d '{...}'` labels JSON as a form. No endpoint here takes a form, so the body
            # is read as the JSON it is (anything else still fails validation with a 422).
            headers = list(scope["headers"])
            headers[form_at] = (b"content-type", b"application/json")
            fields[b"content-type"] = b"application/json"
            scope = dict(scope, headers=headers)
        n_bytes = 0
        refused = False
        try:
            problem, data = await self._check(scope, receive, fields)
            if data is not None:
                n_bytes = len(data)
                receive = bodies.replay(data, receive)
            if problem is not None:
                status, refused = problem.status, True
                await self._answer(send, problem, scope["path"])
                return

            async def send_status(message):
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                await send(message)

            await self.app(scope, receive, send_status)
        finally:
            route = scope.get("route")
            label = getattr(route, "path", None) or ("(refused)" if refused else "(no route)")
            dt = time.perf_counter() - t0
            method = scope["method"] if scope["method"] in METHODS else "OTHER"
            key = (method, label, status)
            children = self._children.get(key)
            if children is None:  # labels() costs a lock and a lookup: resolve each series once
                children = (self.metrics.requests.labels(method, label, str(status)), self.metrics.latency.labels(label))
                if len(self._children) < MAX_SERIES:
                    self._children[key] = children
            children[0].inc()
            children[1].observe(dt)
            if _log.isEnabledFor(logging.INFO):
                _log.info("%s %s %d body=%dB %.1fms", method, label, status, n_bytes, dt * 1000)
