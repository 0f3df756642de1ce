"""uvicorn's HTTP/1.1 protocol with deadlines on reading each request's head and body.

uvicorn closes a kept-alive connection that stays silent (`timeout_keep_alive`), but it has no
deadline on the request itself: a client that sends one header line every few seconds holds its
connection, and a file descriptor, for as long as it likes (slowloris), and so does one that
sends a head, then a body that never ends (a chunk-size line of `ffffffff...` announces more
bytes than will ever come; the body limit of `middleware` counts only the bytes that do).
This protocol closes a connection whose request line and headers have not all arrived within
`head_timeout` seconds of its first byte (or of being opened), as nginx's
`client_header_timeout` does, and one whose body has not all arrived within `body_timeout`
seconds of its head (nginx's `client_body_timeout` bounds each read; this bounds the whole body).

`tokenprism serve` names this class to uvicorn by its import path, so each worker process
imports it itself; the deadline comes from the serve configuration in the environment.
"""

from __future__ import annotations

import asyncio
import json
import os

from uvicorn.protocols.http.h11_impl import H11Protocol

CONFIG_ENV = "TOKENPRISM_SERVE_CONFIG"  # as analysis.cli.serve writes it
HEAD_TIMEOUT = 10.0  # seconds; `tokenprism serve --head-timeout`
BODY_TIMEOUT = 60.0  # seconds; `tokenprism serve --body-timeout` (8 MB at 140 kB/s)


def _configured(name: str, default: float) -> float:
    try:
        value = float(json.loads(os.environ.get(CONFIG_ENV) or "{}").get(name, default))
    except (ValueError, TypeError, AttributeError):
        return default
    return value if 0 < value < 1e6 else default


def head_timeout() -> float:
    return _configured("head_timeout", HEAD_TIMEOUT)


def body_timeout() -> float:
    return _configured("body_timeout", BODY_TIMEOUT)


class HeadDeadlineProtocol(H11Protocol):
    """H11Protocol, closing a connection whose request head, or body, is late."""

    timeout = head_timeout()
    body_timeout = body_timeout()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._reading_body = False
        super().connection_made(transport)
        self._arm(self.timeout)

    def _arm(self, seconds: float) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(seconds, self._late)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self._reading_body = False

    def _late(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            # A late head was never answered (no request yet); a late body's request waits in the
            # app for bytes that do not come: closing ends its receive() with a disconnect.
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        if cycle is None or cycle.response_complete:  # between requests: this data starts a head
            self._arm(self.timeout)
        super().data_received(data)
        if self.cycle is not cycle:  # a whole head arrived and its request began: its body has a deadline
            self._disarm()
            if self.cycle is not None and self.cycle.more_body:
                self._reading_body = True
                self._arm(self.body_timeout)
        elif self._reading_body and self.cycle is not None and not self.cycle.more_body:
            self._disarm()  # the whole body is in

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)
