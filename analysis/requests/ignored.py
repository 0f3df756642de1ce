"""`ignored_fields(request, counter)`: the fields of a request that a model's chat format does not write.

A chat template may drop what a client sends: Qwen's and Llama 3's templates write no message
`name`, most open templates take no `tool_choice`, and only some keep a tool call's id. A user
who sees the same count with and without a field should be told that the format ignores it, not
left to guess. This module finds out by counting, not by a table kept by hand: the request is
counted again with the field taken out, and a field whose removal leaves the prompt unchanged
(the same ids where the count is exact, the same number of tokens otherwise) is one the format
does not write. So the answer always agrees with the formats themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .count import Count, RequestCounter
from .request import Message, Request, ToolCall, ToolResult

# What each field is called on the page, and the request without it (None: the request has none).
_Strip = Callable[[Request], Request | None]


def _without_names(request: Request) -> Request | None:
    if not any(m.name for m in request.messages):
        return None
    return replace(request, messages=tuple(replace(m, name=None) for m in request.messages))


def _without_tool_choice(request: Request) -> Request | None:
    return None if request.tool_choice is None else replace(request, tool_choice=None)


def _without_call_ids(request: Request) -> Request | None:
    def strip(m: Message) -> Message:
        return replace(m, parts=tuple(replace(p, id=None) if isinstance(p, ToolCall)
                                      else replace(p, tool_call_id=None) if isinstance(p, ToolResult) else p
                                      for p in m.parts))
    if not any((isinstance(p, ToolCall) and p.id) or (isinstance(p, ToolResult) and p.tool_call_id)
               for m in request.messages for p in m.parts):
        return None
    return replace(request, messages=tuple(strip(m) for m in request.messages))


FIELDS: dict[str, _Strip] = {
    "the messages' name": _without_names,
    "tool_choice": _without_tool_choice,
    "the tool calls' ids": _without_call_ids,
}


def _same(a: Count, b: Count) -> bool:
    if a.ids is not None and b.ids is not None:
        return a.ids == b.ids
    return a.input_tokens == b.input_tokens


def ignored_fields(request: Request, counter: RequestCounter, count: Count | None = None) -> tuple[str, ...]:
    """The fields `request` carries that `counter`'s chat format leaves out of the prompt.

    Only where the count follows a reference (exact: the template or reference encoder; documented:
    the provider's rule): an estimate cannot tell what the provider's own format writes. A request
    that cannot be counted without a field (a tool result found by its call's id) needs it.
    `count` is the request's own count, where the caller has it.

    >>> from analysis.requests import request_counter
    >>> r = Request(messages=(Message("user", (), name="ann"),))
    >>> ignored_fields(r, request_counter("qwen3-32b")), ignored_fields(r, request_counter("gpt-4o"))
    (("the messages' name",), ())
    """
    if counter.render is None:
        return ()
    whole = counter.count(request) if count is None else count
    if whole.exactness == "estimate":
        return ()
    out = []
    for label, strip in FIELDS.items():
        bare = strip(request)
        if bare is None:
            continue
        try:
            same = _same(whole, counter.count(bare))
        except ValueError:  # BadInput: the format needs the field to write the request
            same = False
        if same:
            out.append(label)
    return tuple(out)


def ignored_note(fields: tuple[str, ...], family: str | None) -> str:
    """The one wording of `ignored_fields` on every face ('' for none).

    >>> ignored_note(("tool_choice",), "qwen")
    'the qwen chat format does not write tool_choice: the count is the same without it'
    """
    if not fields:
        return ""
    names = fields[0] if len(fields) == 1 else ", ".join(fields[:-1]) + " or " + fields[-1]
    return f"the {family} chat format does not write {names}: the count is the same without {'it' if len(fields) == 1 else 'them'}"
