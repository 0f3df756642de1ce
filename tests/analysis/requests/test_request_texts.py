"""`Request.texts()` (every text a request carries, the measure a server holds to its limits) beside
`batch.counted_texts` (the texts a chat format counts on their own): two meanings, each in one place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from analysis.requests import ImagePart, Message, Request, TextPart, ToolCall, ToolDef, ToolResult
from analysis.requests.batch import counted_texts

TEXT = st.text(max_size=12)


def test_every_text_apart_in_order_none_empty():
    request = Request(
        system="Be brief.",
        messages=(Message("user", (TextPart("look"), ImagePart(url="https://x/y.png"), TextPart(" here"))),
                  Message("assistant", (ToolCall("lookup", '{"q": "oslo"}'), ToolCall("noop"))),
                  Message("tool", (ToolResult((TextPart("sunny"), TextPart("")), tool_call_id="a"),))),
        tools=(ToolDef("lookup", "finds things", {"type": "object", "x": None}), ToolDef("noop")),
    )
    assert request.texts() == ["Be brief.", "look", " here", "lookup", '{"q": "oslo"}', "noop", "sunny",
                               "lookup", "finds things", '{"type": "object", "x": null}', "noop", "{}"]
    # the format's texts: a message's parts joined, tool definitions left to the structure
    assert list(counted_texts(request)) == ["Be brief.", "look here", '{"q": "oslo"}', "sunny"]


def test_a_schema_that_json_cannot_write_is_still_measured():
    request = Request((Message.of_text("user", "hi"),), tools=(ToolDef("f", None, {"when": object()}),))
    assert request.texts()[0] == "hi" and request.texts()[1] == "f"
    assert request.texts()[2].startswith('{"when": "<object object at')


@given(st.one_of(st.none(), TEXT), st.lists(st.tuples(st.sampled_from(["user", "assistant"]), st.lists(TEXT, max_size=3)),
                                           max_size=4))
def test_text_only_requests_carry_what_the_format_counts(system, turns):
    request = Request(tuple(Message(role, tuple(TextPart(t) for t in parts)) for role, parts in turns), system=system)
    assert "".join(request.texts()) == "".join(counted_texts(request))
    assert all(request.texts())
