"""Plain text: a string, or an object with a `prompt` string, as one user message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import BadInput
from ..request import Request


def parse_text(body: Any) -> Request:
    if isinstance(body, Mapping) and isinstance(body.get("prompt"), str):
        return Request.from_text(body["prompt"])
    if not isinstance(body, str):
        raise BadInput(f"the text shape reads a string (or an object with a 'prompt' string), got {type(body).__name__}")
    return Request.from_text(body)
