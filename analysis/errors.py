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
        import difflib  # only when a name is refused

        self.closest = difflib.get_close_matches(name, self.valid, n=3, cutoff=0.6)
        if not message:
            message = f"unknown {kind} {name!r}"
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
