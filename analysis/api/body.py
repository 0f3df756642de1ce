"""Reading a request body: the one place that takes bytes off the wire, within the limit.

Unlike `middleware` (which decides, per request, whether to answer at all) this module only
reads and inspects a body. The limit is enforced on the bytes actually received, whatever the
headers claim: a `Content-Length` that lies, or one sent together with `Transfer-Encoding:
chunked` (which the server then follows), cannot let more than the limit into memory. A
declared length over the limit is refused before a byte is read.

Two checks run on the bytes before FastAPI parses them, so a refusal names the problem instead
of FastAPI's "Input should be a valid dictionary" or "There was an error parsing the body":
the media type (JSON only) and the nesting depth (JSON nested thousands of levels deep makes
the parser recurse until it gives up).
"""

from __future__ import annotations

import re
from typing import Awaitable, Callable

from ..textio.json_text import MAX_JSON_DEPTH as MAX_JSON_DEPTH, too_deep as too_deep  # the depth bound of every face
from ..textio.json_text import JSON_STRING  # a JSON string, skipped by both scans


class TooLarge(Exception):
    """The body holds more than the limit; `declared` is the Content-Length when that said so."""

    def __init__(self, declared: int | None) -> None:
        super().__init__(declared)
        self.declared = declared


async def read_body(receive: Callable[[], Awaitable[dict]], limit: int, declared: bytes | None) -> bytes:
    """The whole body of a request, at most `limit` bytes of it.

    Args:
        receive: the ASGI receive callable.
        limit: the most bytes accepted.
        declared: the raw Content-Length header, if any (trusted only to refuse early).

    Raises:
        TooLarge: the declared length or the bytes received pass `limit`; reading stops there.
    """
    if declared is not None and declared.strip().isdigit():  # bytes.isdigit: ASCII digits only
        if len(declared.strip()) > 18:  # more than any body (int() would also refuse 4,300 digits)
            raise TooLarge(None)
        if int(declared) > limit:
            raise TooLarge(int(declared))
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise TooLarge(None)
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def replay(body: bytes, receive: Callable[[], Awaitable[dict]]) -> Callable[[], Awaitable[dict]]:
    """A receive callable that gives `body` once, then waits on the real one (for a disconnect)."""
    given = False

    async def replayed() -> dict:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def is_json(content_type: bytes | None) -> bool:
    """True for application/json and application/*+json (FastAPI parses those, and only those)."""
    if not content_type:
        return False
    media = content_type.split(b";", 1)[0].strip().lower()
    return media == b"application/json" or (media.startswith(b"application/") and media.endswith(b"+json"))


MAX_NUMBER_DIGITS = 1_000  # far above any count or id; Python's JSON reader refuses 4,300 digits and more
# Digits become NUL (and NUL another byte), so a long number is a long run of NULs: found by a
# substring search in C, linear in the body, whatever its digits look like.
_DIGITS_AS_NUL = bytes.maketrans(b"0123456789\0", b"\0" * 10 + b"\1")
_LONG_RUN = b"\0" * (MAX_NUMBER_DIGITS + 1)


def huge_number(body: bytes) -> bool:
    """True when the JSON in `body` holds a number of more than MAX_NUMBER_DIGITS digits (outside
    its strings, where a long run of digits is just text)."""
    if _LONG_RUN not in body.translate(_DIGITS_AS_NUL):
        return False
    return _LONG_RUN in JSON_STRING.sub(b"", body).translate(_DIGITS_AS_NUL)
