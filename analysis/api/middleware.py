"""The one ASGI layer around every request: the body-size limit, metrics and the access log.

Written as plain ASGI rather than Starlette's BaseHTTPMiddleware, which costs a task and a
stream per request. A body over the limit is refused with 413 before any handler reads it:
from its Content-Length when it has one, else while it streams in. The log line holds the
method, the route, the status, the body size and the time; never the text. A body sent as a
form (curl's `-d` default) is read as JSON.
"""

from __future__ import annotations

import logging
import time

from .problems import MEDIA_TYPE, problem_body
from .runtime import Metrics

_log = logging.getLogger("tokenprism.api")


class ServiceMiddleware:
    def __init__(self, app, *, max_body_bytes: int, metrics: Metrics) -> None:
        self.app, self.max_body, self.metrics = app, max_body_bytes, metrics
        self._children: dict[tuple, tuple] = {}

    async def _refuse(self, send, path: str, size: str) -> None:
        body = problem_body(413, f"the request body is {size} bytes; the limit is {self.max_body:,}. Fix: send "
                            "fewer or shorter texts per request, or raise the server's --max-body-bytes",
                            "content-too-large", path)
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        status = 500
        length = None
        form_at = None
        for i, (k, v) in enumerate(scope["headers"]):
            if k == b"content-length":
                length = v
            elif k == b"content-type" and v.startswith(b"application/x-www-form-urlencoded"):
                form_at = i
        if form_at is not None:
            # `curl -d '{...}'` labels JSON as a form. No endpoint here takes a form, so the body
            # is read as the JSON it is (anything else still fails validation with a 422).
            headers = list(scope["headers"])
            headers[form_at] = (b"content-type", b"application/json")
            scope = dict(scope, headers=headers)
        n_bytes = 0
        try:
            if length is not None:
                n_bytes = int(length) if length.isdigit() else 0
                if n_bytes > self.max_body:
                    status = 413
                    await self._refuse(send, scope["path"], f"{n_bytes:,}")
                    return
            elif scope["method"] in ("POST", "PUT", "PATCH"):
                # no Content-Length (chunked): read it here, up to the limit, then replay it
                chunks, more = [], True
                while more:
                    message = await receive()
                    if message["type"] != "http.request":
                        break
                    chunks.append(message.get("body", b""))
                    n_bytes += len(chunks[-1])
                    more = message.get("more_body", False)
                    if n_bytes > self.max_body:
                        status = 413
                        await self._refuse(send, scope["path"], f"more than {self.max_body:,}")
                        return
                body, replayed = b"".join(chunks), False

                async def receive():  # noqa: F811 - the replay stands in for the original
                    nonlocal replayed
                    if not replayed:
                        replayed = True
                        return {"type": "http.request", "body": body, "more_body": False}
                    return {"type": "http.disconnect"}

            async def send_status(message):
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                await send(message)

            await self.app(scope, receive, send_status)
        finally:
            route = scope.get("route")
            label = getattr(route, "path", None) or ("(refused)" if status == 413 else "(no route)")
            dt = time.perf_counter() - t0
            key = (scope["method"], label, status)
            children = self._children.get(key)
            if children is None:  # labels() costs a lock and a lookup: resolve each series once
                children = self._children[key] = (self.metrics.requests.labels(scope["method"], label, str(status)),
                                                  self.metrics.latency.labels(label))
            children[0].inc()
            children[1].observe(dt)
            if _log.isEnabledFor(logging.INFO):
                _log.info("%s %s %d body=%dB %.1fms", scope["method"], label, status, n_bytes, dt * 1000)
