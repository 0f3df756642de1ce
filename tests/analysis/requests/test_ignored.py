"""`ignored_fields`: what a chat format leaves out of the prompt, found by counting without it."""

from analysis.requests import ignored_fields, ignored_note, input_tokens, parse, request_counter

BODY = {"messages": [
    {"role": "system", "content": "Be terse."},
    {"role": "user", "name": "ann", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": None,
     "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": '{"city":"Oslo"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "4 degrees"}],
    "tools": [{"type": "function", "function": {"name": "weather", "description": "The weather in a city.",
                                                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
    "tool_choice": "required"}


def test_qwen_writes_no_name_no_tool_choice_and_no_call_id():
    request = parse(BODY)
    counter = request_counter("qwen3-32b")
    fields = ignored_fields(request, counter)
    assert fields == ("the messages' name", "tool_choice", "the tool calls' ids")
    # each claim holds: the same ids without the field
    bare = parse({**BODY, "tool_choice": None, "messages": [{k: v for k, v in m.items() if k != "name"}
                                                             for m in BODY["messages"]]})
    assert input_tokens(bare, "qwen3-32b").ids == input_tokens(request, "qwen3-32b").ids


def test_harmony_needs_the_call_id_and_the_cookbook_counts_the_name():
    # gpt-oss finds a tool result's function by its call's id: without ids it cannot write the result
    assert "the tool calls' ids" not in ignored_fields(parse(BODY), request_counter("gpt-oss-120b"))
    chat = {"messages": BODY["messages"][:2]}
    assert ignored_fields(parse(chat), request_counter("gpt-4o")) == ()  # the name is counted (documented)
    assert ignored_fields(parse(chat), request_counter("qwen3-32b")) == ("the messages' name",)


def test_an_estimate_claims_nothing_and_a_bare_request_has_nothing_to_drop():
    # gpt-4o with tools is an estimate: what OpenAI's server writes of tool_choice is not known
    assert input_tokens(parse(BODY), "gpt-4o").exactness == "estimate"
    assert ignored_fields(parse(BODY), request_counter("gpt-4o")) == ()
    assert ignored_fields(parse({"messages": [{"role": "user", "content": "hi"}]}), request_counter("qwen3-32b")) == ()


def test_the_note_names_every_field():
    assert ignored_note((), "qwen") == ""
    note = ignored_note(("the messages' name", "tool_choice"), "qwen")
    assert note == "the qwen chat format does not write the messages' name or tool_choice: the count is the same without them"
