"""uvicorn's HTTP/1.1 protocol with a deadline on reading each request head.

uvicorn closes a kept-alive connection that stays silent (`timeout_keep_alive`), but it has no
deadline on the head itself: a client that sends one header line every few seconds holds its
connection, and a file descriptor, for as long as it likes (slowloris). This protocol closes a
connection whose request line and headers have not all arrived within `head_timeout` seconds
of its first byte (or of being opened), as nginx's `client_header_timeout` does. Bodies are
bounded apart, by the body limit of `middleware`.

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


def head_timeout() -> float:
    try:
        value = float(json.loads(os.environ.get(CONFIG_ENV) or "{}").get("head_timeout", HEAD_TIMEOUT))
    except (ValueError, TypeError, AttributeError):
        return HEAD_TIMEOUT
    return value if 0 < value < 1e6 else HEAD_TIMEOUT


class HeadDeadlineProtocol(H11Protocol):
    """H11Protocol, closing a connection whose request head is late."""

    timeout = head_timeout()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._head: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        if self._head is None:
            self._head = self.loop.call_later(self.timeout, self._late)

    def _disarm(self) -> None:
        if self._head is not None:
            self._head.cancel()
            self._head = None

    def _late(self) -> None:
        self._head = None
        if not self.transport.is_closing():
            self.transport.close()  # nothing was answered: there was no request yet

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle
        if cycle is None or cycle.response_complete:  # between requests: this data starts a head
            self._arm()
        super().data_received(data)
        if self.cycle is not cycle:  # a whole head arrived and its request began
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)
