"""Each wire shape parses into the one Request, and nothing unknown is dropped."""

from __future__ import annotations

import pytest

from analysis.errors import BadInput, UnknownName
from analysis.requests import (
    AudioPart, FilePart, ImagePart, Message, Request, TextPart, ToolCall, ToolChoice, ToolDef, ToolResult, detect_shape,
    parse,
)

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_openai_chat_roles_names_parts_tool_calls_and_results():
    r = parse({
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "name": "ann", "content": [
                {"type": "text", "text": "Look: "}, {"type": "image_url", "image_url": {"url": "https://x/a.png", "detail": "low"}},
                {"type": "input_audio", "input_audio": {"data": "...", "format": "wav"}},
                {"type": "file", "file": {"filename": "a.pdf"}}]},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "12 C"},
        ],
        "tools": [{"type": "function", "function": {"name": "weather", "description": "Weather now.", "parameters": WEATHER}}],
        "tool_choice": {"type": "function", "function": {"name": "weather"}},
    })
    dev, user, asst, tool = r.messages
    assert dev == Message("developer", (TextPart("Be brief."),))
    assert user.name == "ann"
    assert (user.parts == (TextPart("Look: "), ImagePart(url="https://x/a.png", detail="low"),
                                                  AudioPart(media_type="wav"), FilePart(name="a.pdf")))
    assert asst.parts == (ToolCall("weather", "{\"city\":\"Oslo\"}", "c1"),)
    assert tool == Message("tool", (ToolResult((TextPart("12 C"),), "c1"),))
    assert r.tools == (ToolDef("weather", "Weather now.", WEATHER),)
    assert r.tool_choice == ToolChoice("tool", "weather")


def test_openai_legacy_functions_and_function_role():
    r = parse({"messages": [{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}},
                            {"role": "function", "name": "f", "content": "ok"}],
               "functions": [{"name": "f", "parameters": {}}], "function_call": "auto"})
    assert r.messages[0].parts == (ToolCall("f", "{}"),)
    assert r.messages[1] == Message("tool", (ToolResult((TextPart("ok"),), None, "f"),))
    assert r.tools == (ToolDef("f", None, {}),)
    assert r.tool_choice == ToolChoice("auto")


def test_responses_string_items_instructions_and_tools():
    assert parse({"input": "Hi"}) == Request(Request.from_text("Hi").messages, api="responses")
    r = parse({"instructions": "Be brief.", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "Weather?"}, {"type": "input_image", "image_url": "u"}]},
        {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "12 C"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "12 C."}]},
    ], "tools": [{"type": "function", "name": "weather", "parameters": WEATHER}], "tool_choice": "required"})
    assert r.system == "Be brief."
    assert [m.role for m in r.messages] == ["user", "assistant", "tool", "assistant"]
    assert r.messages[0].parts[1] == ImagePart(url="u")
    assert r.messages[2].parts == (ToolResult((TextPart("12 C"),), "c1"),)
    assert r.tools == (ToolDef("weather", None, WEATHER),)
    assert r.tool_choice == ToolChoice("required")
    assert r.api == "responses"


def test_anthropic_system_blocks_tools_and_choice():
    r = parse({
        "system": [{"type": "text", "text": "Be "}, {"type": "text", "text": "brief."}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather?"},
                                         {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "x"}}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "signature": "s"},
                                              {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Oslo"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "12 C"}]}]},
        ],
        "tools": [{"name": "weather", "description": "Weather now.", "input_schema": WEATHER}],
        "tool_choice": {"type": "any"},
    })
    assert r.system == "Be brief."
    assert r.messages[0].parts[1] == ImagePart(media_type="image/png")
    assert r.messages[1].parts == (TextPart("hmm"), ToolCall("weather", "{\"city\": \"Oslo\"}", "t1"))
    assert r.messages[2].parts == (ToolResult((TextPart("12 C"),), "t1"),)
    assert r.tools == (ToolDef("weather", "Weather now.", WEATHER),)
    assert r.tool_choice == ToolChoice("required")


def test_gemini_contents_system_tools_and_snake_case():
    r = parse({
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Weather?"}, {"inlineData": {"mimeType": "image/png", "data": "x"}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "weather", "args": {"city": "Oslo"}}}]},
            {"role": "user", "parts": [{"function_response": {"name": "weather", "response": {"c": 12}}}]},
        ],
        "tools": [{"functionDeclarations": [{"name": "weather", "parameters": WEATHER}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["weather"]}},
    })
    assert r.system == "Be brief."
    assert [m.role for m in r.messages] == ["user", "assistant", "tool"]
    assert r.messages[0].parts[1] == ImagePart(media_type="image/png")
    assert r.messages[2].parts == (ToolResult((TextPart("{\"c\": 12}"),), None, "weather"),)
    assert r.tools == (ToolDef("weather", None, WEATHER),)
    assert r.tool_choice == ToolChoice("tool", "weather")
    assert parse({"generateContentRequest": {"contents": [{"parts": [{"text": "hi"}]}]}}) == Request.from_text("hi")


@pytest.mark.parametrize(("body", "shape"), [
    pytest.param("plain", "text", id="text"),
    pytest.param({"prompt": "plain"}, "text", id="prompt"),
    pytest.param({"messages": [{"role": "user", "content": "hi"}]}, "openai-chat", id="chat"),
    pytest.param([{"role": "user", "content": "hi"}], "openai-chat", id="bare-list"),
    pytest.param({"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}]}, "anthropic",
                 id="anthropic-blocks"),
    pytest.param({"messages": [], "tools": [{"name": "f", "input_schema": {}}]}, "anthropic", id="anthropic-tools"),
    pytest.param({"input": [{"role": "user", "content": "hi"}]}, "openai-responses", id="responses"),
    pytest.param([{"type": "function_call_output", "call_id": "c", "output": "x"}], "openai-responses", id="responses-list"),
    pytest.param({"contents": []}, "gemini", id="gemini"),
    pytest.param([{"role": "user", "parts": [{"text": "hi"}]}], "gemini", id="gemini-list"),
])
def test_detection(body, shape):
    assert detect_shape(body) == shape


@pytest.mark.parametrize("body", [
    pytest.param({"messages": 5}, id="messages-int"),
    pytest.param({"messages": "hi", "tools": 3}, id="messages-str-tools-int"),
    pytest.param({"messages": {"role": "user"}}, id="messages-object"),
    pytest.param({"messages": [{"role": "user", "content": "hi"}], "tools": {"name": "f"}}, id="tools-object"),
])
def test_a_field_that_is_not_a_list_is_refused_by_name(body):
    # detection must not trip over it (a TypeError would be an internal error); the parser names it
    with pytest.raises(BadInput, match="messages|tools"):
        parse(body)


def test_forced_shape_wins_and_an_unknown_shape_is_named():
    r = parse({"messages": [{"role": "user", "content": "hi"}]}, shape="anthropic")
    assert r.messages[0].text == "hi"
    with pytest.raises(UnknownName, match="request shape 'openai'; did you mean openai-chat"):
        parse({}, shape="openai")
    with pytest.raises(BadInput, match="cannot tell the shape"):
        parse({"model": "gpt-4o"})


@pytest.mark.parametrize(("body", "kind", "name", "where"), [
    pytest.param({"messages": [{"role": "wizard", "content": "hi"}]}, "role", "wizard", "messages[0]", id="chat-role"),
    pytest.param({"system": "s", "messages": [{"role": "system", "content": "hi"}]}, "role", "system", "top-level 'system'",
                 id="anthropic-system-role"),
    pytest.param({"messages": [{"role": "user", "content": [{"type": "video", "url": "x"}]}]}, "content type", "video",
                 "messages[0].content[0]", id="chat-part"),
    pytest.param({"system": "s", "messages": [{"role": "user", "content": [{"type": "video"}]}]}, "content type", "video",
                 "messages[0].content[0]", id="anthropic-block"),
    pytest.param({"input": [{"type": "reasoning", "summary": []}]}, "input item type", "reasoning", "input[0]",
                 id="responses-item"),
    pytest.param({"contents": [{"role": "wizard", "parts": []}]}, "role", "wizard", "contents[0]", id="gemini-role"),
    pytest.param({"contents": [{"parts": [{"videoMetadata": {}}]}]}, "content type", "videoMetadata",
                 "contents[0].parts[0]", id="gemini-part"),
    pytest.param({"messages": [], "tools": [{"type": "web_search"}]}, "tool type", "web_search", "tools[0]",
                 id="hosted-tool"),
])
def test_unknown_names_are_refused_with_where_they_are(body, kind, name, where):
    with pytest.raises(UnknownName) as info:
        parse(body)
    assert info.value.kind == kind
    assert info.value.name == name
    assert where in str(info.value)


@pytest.mark.parametrize("body", [
    pytest.param({"messages": "hi"}, id="messages-not-list"),
    pytest.param({"messages": [{"role": "user", "content": 3}]}, id="content-number"),
    pytest.param({"messages": [{"role": "user", "content": [{"type": "text", "text": None}]}]}, id="text-null"),
    pytest.param({"system": [{"type": "image", "source": {}}], "messages": []}, id="system-image"),
    pytest.param({"contents": [{"parts": "hi"}]}, id="gemini-parts"),
])
def test_wrong_types_are_bad_input_naming_the_field(body):
    with pytest.raises(BadInput):
        parse(body)


def test_plain_chat_fast_path_equals_the_general_reading(monkeypatch):
    # issue 44: plain-text chats are built without the per-field reads; the value is the same
    import random

    from analysis.requests.shapes import openai_chat

    rng = random.Random(4)
    bodies = []
    for _ in range(300):
        messages = []
        for _ in range(rng.randint(0, 4)):
            m = {"role": rng.choice(["system", "developer", "user", "assistant", "tool", "robot"]),
                 "content": rng.choice(["hi", "", "a\u00e9", None, [{"type": "text", "text": "x"}], 5])}
            if rng.random() < 0.3:
                m["name"] = rng.choice(["ann", None, 3])
            if rng.random() < 0.1:
                m["tool_call_id"] = "c1"
            messages.append(m)
        body = {"model": "gpt-4o", "messages": messages}
        if rng.random() < 0.3:
            body["tools"] = rng.choice([
                [{"type": "function", "function": {"name": "f"}}],
                [{"type": "function", "function": {"name": "g", "description": "d", "parameters": {"type": "object"}}}],
                [{"type": "function", "function": {"name": "f", "parameters": {"x": float("nan")}}}],  # NaN: json, not orjson
                [{"type": "function", "function": {"name": "f", "parameters": {"x": None}}}],
                [{"type": "function", "function": {"name": "f", "parameters": {"big": 2 ** 70}}}],
                [{"type": "code_interpreter"}], [{"type": "function", "function": {"name": 3}}], [], "tools"])
        if rng.random() < 0.05:
            body["functions"] = [{"name": "legacy"}]
        bodies.append(body)

    def read(body):
        try:
            return parse(body, shape="openai-chat")
        except Exception as e:  # noqa: BLE001 - the refusal itself is compared
            return type(e), str(e)

    fast = [read(b) for b in bodies]
    assert sum(openai_chat.plain_chat(b) is not None for b in bodies) > 30
    monkeypatch.setattr(openai_chat, "plain_chat", lambda body: None)
    assert fast == [read(b) for b in bodies]


def test_a_repeated_system_prompt_is_one_shared_value(run):
    # issue 44: a log's rows repeat their system prompts; each distinct one is kept once, equal to a fresh one
    from analysis.requests.shapes import openai_chat

    def body(user):
        return {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": user}]}

    first, second = parse(body("hi"), shape="openai-chat"), parse(body("bye"), shape="openai-chat")
    assert first.messages[0] is second.messages[0]
    assert first.messages[0] == Message("system", (TextPart("Be brief."),))
    run.clear()  # emptied (as when full, or in another run): read again, the same value
    assert parse(body("hi"), shape="openai-chat") == first
    long = {"messages": [{"role": "system", "content": "x" * (openai_chat._PROMPT_CHARS + 1)}]}
    assert parse(long, shape="openai-chat") == parse(dict(long), shape="openai-chat")
    assert len(run.memo("openai_chat.prompts")) == 1  # a long prompt is read, equal, but not kept


def test_a_repeated_tools_list_is_read_once_and_shared(run):
    # issue 44: an agent's requests repeat their tool definitions; each distinct list is read once
    from analysis.requests.batch import counted_texts, row_shape, structure_key
    from analysis.requests.shapes import openai_chat

    tools = [{"type": "function", "function": {"name": "track", "description": "Where a parcel is",
                                               "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}}]

    def body(user, tool_list=tools):
        return {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": user}],
                "tools": tool_list}

    first, second = parse(body("hi"), shape="openai-chat"), parse(body("bye"), shape="openai-chat")
    assert first.tools is second.tools and first.tools[0].name == "track"
    run.clear()
    again = parse(body("hi"), shape="openai-chat")
    assert again == first and again.tools is not first.tools
    # the structure read in one pass equals the general one, for shared and for fresh tool tuples
    for request in (first, second, again, parse(body("hi", tools + tools), shape="openai-chat")):
        assert row_shape(request) == (structure_key(request), tuple(counted_texts(request)))
    # NaN is written as null by orjson: a list holding a null is read every time, never from the memo
    nan = [{"type": "function", "function": {"name": "f", "parameters": {"x": float("nan")}}}]
    none = [{"type": "function", "function": {"name": "f", "parameters": {"x": None}}}]
    assert parse(body("hi", none), shape="openai-chat").tools[0].parameters == {"x": None}
    read_nan = parse(body("hi", nan), shape="openai-chat").tools[0].parameters["x"]
    assert read_nan != read_nan  # NaN, not the None read before it
