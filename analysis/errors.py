"""The errors a caller can cause, as types of their own.

Unlike a bare `KeyError` or `ValueError`, which a bug raises just as easily, these two types say
"the input was wrong": the faces map them, and only them, to a refusal (exit status 2 in the
CLI, 404 or 422 problem details in the API). Any other exception is a bug and is reported as
one. They subclass the built-in types, so `except ValueError` in older callers still catches
them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable


MAX_NAME = 256
"""The longest model, tokenizer or sample name any face accepts; a longer one is refused before
any work is done on it (the closest-name search included)."""
MAX_ECHO = 80
"""The most characters of a client's value that a message quotes; a longer value is cut."""


def clipped(value: object, limit: int = MAX_ECHO) -> str:
    r"""`value` as text a message or a field may echo: cut to about `limit` characters and every
    control character escaped (a newline as \n, ESC as \x1b, NUL as \x00), so that an echo can
    neither grow with the input nor forge a line or a terminal sequence. The one shortening and
    escaping function: `shown` quotes its result; problem details' `instance`, the 404 detail and
    the CLI's error line use it bare.

    >>> print(clipped("/v1/nope\nforged: line")), clipped("x" * 100, 10)
    /v1/nope\nforged: line
    (None, 'xxxxxxx... (100 characters)')
    """
    text = value if isinstance(value, str) else str(value)
    cut = text if len(text) <= limit else text[:max(limit - 3, 1)] + "..."
    out = "".join(_escape(c) for c in cut) if not cut.isprintable() else cut
    return out if cut is text else f"{out} ({len(text):,} characters)"


def _escape(c: str) -> str:
    return c if c.isprintable() else c.encode("unicode_escape").decode("ascii")


def shown(value: object, limit: int = MAX_ECHO) -> str:
    """`value` quoted for a message, cut to about `limit` characters, control characters escaped.

    >>> shown("gpt-4o"), shown("x" * 100, 10)
    ("'gpt-4o'", "'xxxxxxx...' (100 characters)")
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:max(limit - 3, 1)] + '...'!r} ({len(text):,} characters)"


def closest(name: str, valid: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The valid names closest to `name` (difflib), none for a name over `MAX_NAME` characters.

    difflib's time grows with the product of the lengths; bounding the name bounds the search.

    >>> closest("gpt-4oo", ["gpt-4o", "o3"]), closest("g" * 300, ["g"])
    (['gpt-4o'], [])
    """
    if len(name) > MAX_NAME:
        return []
    import difflib  # only when a name is refused

    return difflib.get_close_matches(name, list(valid), n=n, cutoff=cutoff)


def check_name(kind: str, name: str) -> None:
    """Refuse (BadInput) a name over `MAX_NAME` characters, before anything looks it up."""
    if len(name) > MAX_NAME:
        raise BadInput(f"the {kind} name {shown(name)} is longer than {MAX_NAME} characters; no {kind} name is. "
                       f"Fix: send the {kind}'s id")


class BadInput(ValueError):
    """Input that cannot be used as given; the message names the problem and the fix."""


class UnknownName(KeyError):
    """A name (a tokenizer, a model, a role, a content type, ...) that is not known.

    Args:
        kind: what was named, e.g. "model" or "tokenizer".
        name: the name as given.
        valid: every valid name; the closest ones are offered in the message.
        hint: an extra sentence with the fix, e.g. how to fetch a vocabulary.
        message: the whole message instead of the one built from the above, for a caller whose
            message already names the valid names its own way; `valid` and `closest` are kept.

    >>> str(UnknownName("model", "gpt-4oo", ["gpt-4o", "o3"]))
    "unknown model 'gpt-4oo'; did you mean gpt-4o?"
    """

    def __init__(self, kind: str, name: str, valid: Iterable[str] = (), *, hint: str = "",
                 message: str = "") -> None:
        self.kind, self.name, self.valid = kind, name, sorted(set(valid))
        self.closest = closest(name, self.valid)
        if not message:
            message = f"unknown {kind} {shown(name)}"
            if self.closest:
                message += f"; did you mean {', '.join(self.closest)}?"
            elif self.valid and len(self.valid) <= 12:
                message += f"; valid: {', '.join(self.valid)}"
            if hint:
                message += f" {hint}"
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # KeyError's own __str__ would quote the message
        return self.message

    def __reduce__(self) -> tuple:
        # Pickled across processes (an engine's workers): rebuilt from its fields, not from
        # `args`, which holds only the message.
        return (functools.partial(type(self), message=self.message), (self.kind, self.name, self.valid))


REFUSALS: tuple[type[BaseException], ...] = (BadInput, UnknownName, OSError)
"""What every face answers as a refusal of the input (exit 2, a 4xx, a message on the page): the
library's own two types, and an OS error reading a file the user named. Anything else is a bug."""
