"""Reading a JSON text a user gives (a request body, a tools list): bounded in depth before parsing.

Python's JSON reader recurses once per array or object: JSON nested a few thousand levels deep
ends in a RecursionError, which would surface as an internal error. Every face that parses a
request body the user wrote (the API's middleware, `count --messages`, the dashboard's Chat mode)
checks the depth first with `too_deep`, here, and refuses by name.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import BadInput

# Far deeper than any request of ours (an Anthropic tool's JSON schema is a dozen levels or so),
# far shallower than where Python's JSON parser runs out of stack.
MAX_JSON_DEPTH = 128
# A JSON string, its loop unrolled (20 times faster than an alternation per character). A string
# with no closing quote runs to the end of the body (the parser refuses that body later): so a
# match never fails once started, and the scan is linear. Were it to fail, the search would
# start again at each escaped quote inside it, and `"\"\"\"...` would cost the square of its length.
JSON_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def too_deep(body: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when the JSON in `body` nests arrays and objects more than `limit` levels deep.

    Counting the brackets costs two C-level scans; only a body with more than `limit` of them,
    which could be that deep, is walked bracket by bracket (and a deep one stops at `limit`).

    >>> too_deep(b'{"a": "[[[["}', limit=2), too_deep(b"[[[]]]", limit=2)
    (False, True)
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    brackets = JSON_STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    depth = 0
    for b in brackets:
        if b in b"[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def read_json(text: str, *, source: str, what: str) -> Any:
    """The JSON value of `text`, given by the user as `source` ("stdin", a file name, "the tools").

    Raises:
        BadInput: not JSON (naming line and column) or nested more than MAX_JSON_DEPTH levels;
            `what` (the form the JSON should have) ends the message.

    >>> read_json("[" * 200 + "]" * 200, source="the tools", what="give a list of tools")
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: the tools: nested too deeply (more than 128 levels of arrays or objects inside each other); give a list of tools
    """
    if too_deep(text.encode("utf-8", "surrogatepass")):
        raise BadInput(f"{source}: nested too deeply (more than {MAX_JSON_DEPTH} levels of arrays or objects inside "
                       f"each other); {what}")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{source}: not JSON ({e.msg} at line {e.lineno}, column {e.colno}); {what}") from None


def loads(text: str, *, what: str) -> Any:
    """`json.loads(text)` for a JSON text inside a request (a tool call's arguments, a tool's result):
    BadInput naming `what` when it nests more than MAX_JSON_DEPTH levels; JSONDecodeError as json raises it.

    A request's own depth is checked where it is read; a string in it holding deep JSON is not, until here.
    """
    if too_deep(text.encode("utf-8", "surrogatepass")):
        raise BadInput(f"{what} nest too deeply (more than {MAX_JSON_DEPTH} levels of arrays or objects inside each "
                       "other): no tool takes that; send flatter JSON")
    return json.loads(text)
