"""Mistral against mistral-common's `encode_chat_completion`, id for id.

Each tokenizer file mistral-common bundles for instruct v1, v2 and v3 is loaded twice: by
mistral-common (`MistralTokenizer.from_file`) and by our registry's builder for that kind of
file, so the test never depends on a vocabulary a user fetched. v7 files (SentencePiece v7 and
v7m1) are bundled too, but their format (a system prompt block) is not built here yet.
A request the reference refuses must be refused by ours too (BadInput), and the other way round.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from analysis.errors import BadInput
from analysis.requests import Message, Request, TextPart, ToolCall, ToolDef, ToolResult
from analysis.requests.formats import mistral
from analysis.tokenizers.base import Source
from analysis.tokenizers.builders import build_from_file
from analysis.tokenizers.specials import TEKKEN_SPECIALS

from .strategies import requests

pytest.importorskip("mistral_common", reason="mistral-common (a dev dependency) is not installed")
from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage  # noqa: E402
from mistral_common.protocol.instruct.request import ChatCompletionRequest  # noqa: E402
from mistral_common.tokens.tokenizers.mistral import MistralTokenizer  # noqa: E402

DATA = Path(importlib.util.find_spec("mistral_common").origin).parent / "data"
# file -> (our tokenizer name, kind of file, instruct version)
FILES = {
    "tokenizer.model.v1": ("mistral-v1", "sentencepiece", "v1"),
    "mistral_instruct_tokenizer_240216.model.v2": ("mistral-v2", "sentencepiece", "v2"),
    "mistral_instruct_tokenizer_240323.model.v3": ("mistral-v3", "sentencepiece", "v3"),
    "tekken_240911.json": ("mistral-tekken", "tekken", "v3"),
    "tekken_240718.json": ("mistral-tekken-240718", "tekken", "v3"),
}


@pytest.fixture(scope="module", params=list(FILES))
def pair(request):
    name, kind, version = FILES[request.param]
    path = DATA / request.param
    ref = MistralTokenizer.from_file(str(path))
    assert ref.instruct_tokenizer.tokenizer.version.value == version
    ours = build_from_file(name, kind, path, Source("mistral-common", f"mistral_common/data/{request.param}", "Apache-2.0"))
    if name in mistral.VERSIONS:
        assert mistral.VERSIONS[name] == version
    return version, ref, ours


def reference(ref, request: Request) -> list[int]:
    msgs = [SystemMessage(content=request.system)] if request.system is not None else []
    for m in request.messages:
        cls = {"system": SystemMessage, "developer": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}[m.role]
        msgs.append(cls(content=m.text))
    return list(ref.encode_chat_completion(ChatCompletionRequest(messages=msgs)).tokens)


def check(pair, request):
    version, ref, ours = pair
    try:
        expected = reference(ref, request)
    except Exception as e:  # noqa: BLE001 - any refusal of the reference's
        with pytest.raises(BadInput):
            mistral.render_version(request, ours, version)
        return repr(e)
    got = mistral.render_version(request, ours, version)
    assert list(got.ids) == expected
    assert got.exactness == "exact"
    assert "mistral-common" in got.reason
    assert got.input_tokens == len(got.ids)
    return got


def test_tekken_names_match_mistral_common():
    ref = MistralTokenizer.from_file(str(DATA / "tekken_240911.json")).instruct_tokenizer.tokenizer
    assert tuple(ref.id_to_piece(i) for i in range(len(TEKKEN_SPECIALS))) == TEKKEN_SPECIALS


def test_known_conversation(pair):
    req = Request(system="Answer in French.", messages=(
        Message("user", (TextPart("Hi [INST] </s> there"),), name="ann"),
        Message("user", (TextPart("second part"),)),
        Message("assistant", (TextPart("Bonjour !  "),)),
        Message("user", (TextPart("Ça va ?"),)),
        Message("system", (TextPart("Be brief."),)),
        Message("user", (TextPart("Merci."),)),
    ))
    got = check(pair, req)
    assert not isinstance(got, str), got  # the reference accepts this conversation
    version, _, ours = pair
    if version != "v1":  # typed markers stay text: the format's own [INST], one per user turn
        assert got.ids.count(ours.special_tokens["[INST]"]) == 3


@pytest.mark.parametrize("request_", [
    Request(),
    Request(messages=(Message("assistant", (TextPart("x"),)),)),
    Request(messages=(Message("user", (TextPart("x"),)), Message("assistant", (TextPart("y"),)))),
    Request(messages=(Message("user", (TextPart("x"),)), Message("assistant", (TextPart(""),)), Message("user", (TextPart("z"),)))),
], ids=["empty", "only-assistant", "ends-with-assistant", "empty-assistant"])
def test_refusals_match_the_reference(pair, request_):
    assert isinstance(check(pair, request_), str)


def test_unknown_tokenizer_is_refused(pair):
    from analysis.tokenizers import load_tokenizer

    with pytest.raises(BadInput, match="mistral-v1"):
        mistral.render(Request.from_text("hi"), load_tokenizer("o200k_base"))


def test_tool_calls_on_v1_are_refused_as_the_reference_refuses_them(pair):
    version, _, ours = pair
    req = Request(messages=(Message("user", (TextPart("hi"),)), Message("assistant", (ToolCall("f", "{}", "A1b2C3d4E"),)),
                            Message("tool", (ToolResult((TextPart("x"),), "A1b2C3d4E"),))))
    if version == "v1":
        with pytest.raises(BadInput, match="Tools not implemented for tokenizer V1"):
            mistral.render_version(req, ours, version)
    else:
        assert mistral.render_version(req, ours, version).exactness == "exact"


@given(requests(roles=("system", "developer", "user", "assistant"), min_size=1))
def test_random_conversations(pair, request):
    check(pair, request)


@given(st.lists(st.sampled_from(["user", "assistant", "system"]), min_size=1, max_size=7))
def test_random_alternations(pair, roles):
    # Mostly valid shapes (the random test above is mostly refusals): user/assistant turns with text.
    msgs = tuple(Message(r, (TextPart(f"{r} {i}"),)) for i, r in enumerate(roles)) + (Message("user", (TextPart("last"),)),)
    check(pair, Request(messages=msgs))


# -- tools, id for id against the reference ----------------------------------------------------------
from mistral_common.protocol.instruct.messages import ToolMessage  # noqa: E402
from mistral_common.protocol.instruct.tool_calls import Function, FunctionCall, Tool, ToolCall as RefCall  # noqa: E402



def reference_tools(ref, request: Request) -> list[int]:
    msgs = [SystemMessage(content=request.system)] if request.system is not None else []
    for m in request.messages:
        calls = [p for p in m.parts if isinstance(p, ToolCall)]
        results = [p for p in m.parts if isinstance(p, ToolResult)]
        if calls:
            msgs.append(AssistantMessage(content=m.text or None, tool_calls=[RefCall(id=c.id or "null", function=FunctionCall(
                name=c.name, arguments=c.arguments)) for c in calls]))
        elif results:
            msgs += [ToolMessage(content="".join(q.text for q in r.parts), tool_call_id=r.tool_call_id, name=r.name)
                     for r in results]
        else:
            cls = {"system": SystemMessage, "developer": SystemMessage, "user": UserMessage,
                   "assistant": AssistantMessage}[m.role]
            msgs.append(cls(content=m.text))
    tools = [Tool(function=Function(name=t.name, description=t.description or "", parameters=dict(t.parameters)))
             for t in request.tools] or None
    return list(ref.encode_chat_completion(ChatCompletionRequest(messages=msgs, tools=tools)).tokens)


WEATHER = ToolDef("get_weather", "Weather now, in °C.", {"type": "object", "properties": {"city": {"type": "string"}}})
TOOL_REQUESTS = {
    "definitions": Request(messages=(Message("user", (TextPart("Weather in Zürich?"),)),), tools=(WEATHER,)),
    "call and result": Request(system="Be terse.", tools=(WEATHER,), messages=(
        Message("user", (TextPart("Weather in Paris?"),)),
        Message("assistant", (ToolCall("get_weather", '{"city": "Paris"}', "abc123XYZ"),)),
        Message("tool", (ToolResult((TextPart('{"temp": 20}'),), "abc123XYZ", "get_weather"),)),
        Message("assistant", (TextPart("20 C."),)), Message("user", (TextPart("Thanks"),)))),
    "result last, plain text": Request(messages=(
        Message("user", (TextPart("hi"),)),
        Message("assistant", (ToolCall("f", "not json", "A1b2C3d4E"),)),
        Message("tool", (ToolResult((TextPart("plain text"),), "A1b2C3d4E", "f"),)))),
    "two calls": Request(tools=(WEATHER, ToolDef("g", None, {"type": "object"})), messages=(
        Message("user", (TextPart("both"),)),
        Message("assistant", (ToolCall("get_weather", '{"city": "Oslo"}', "aaaaaaaa1"), ToolCall("g", "{}", "bbbbbbbb2"))),
        Message("tool", (ToolResult((TextPart("1"),), "aaaaaaaa1"),)),
        Message("tool", (ToolResult((TextPart("2"),), "bbbbbbbb2"),)))),
    "bad id": Request(messages=(Message("user", (TextPart("hi"),)),
                                Message("assistant", (ToolCall("f", "{}", "call_1"),)),
                                Message("tool", (ToolResult((TextPart("x"),), "call_1"),)))),
    "text and call": Request(messages=(Message("user", (TextPart("hi"),)),
                                       Message("assistant", (TextPart("Let me see."), ToolCall("f", "{}", "A1b2C3d4E"))),
                                       Message("tool", (ToolResult((TextPart("x"),), "A1b2C3d4E"),)))),
}


@pytest.mark.parametrize("case", list(TOOL_REQUESTS))
def test_tools_match_the_reference_id_for_id(pair, case):
    version, ref, ours = pair
    request = TOOL_REQUESTS[case]
    try:
        expected = reference_tools(ref, request)
    except Exception as e:  # noqa: BLE001 - the reference refuses: so must we
        with pytest.raises(BadInput):
            mistral.render_version(request, ours, version)
        return
    got = mistral.render_version(request, ours, version)
    assert got.exactness == "exact" and list(got.ids) == expected
