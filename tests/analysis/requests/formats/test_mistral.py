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
from analysis.requests import Message, Request, TextPart, ToolCall, ToolDef
from analysis.requests.formats import mistral
from analysis.tokenizers.base import Source
from analysis.tokenizers.registry import TEKKEN_SPECIALS, build_from_file

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


def test_tools_are_an_estimate(pair):
    version, _, ours = pair
    req = Request(messages=(Message("user", (TextPart("hi"),)), Message("assistant", (ToolCall("f", '{"a": 1}'),))),
                  tools=(ToolDef("f", "does f", {"type": "object"}),))
    got = mistral.render_version(req, ours, version)
    assert got.exactness == "estimate"
    assert got.ids is None
    assert got.format_tokens > 0


@given(requests(roles=("system", "developer", "user", "assistant"), min_size=1))
def test_random_conversations(pair, request):
    check(pair, request)


@given(st.lists(st.sampled_from(["user", "assistant", "system"]), min_size=1, max_size=7))
def test_random_alternations(pair, roles):
    # Mostly valid shapes (the random test above is mostly refusals): user/assistant turns with text.
    msgs = tuple(Message(r, (TextPart(f"{r} {i}"),)) for i, r in enumerate(roles)) + (Message("user", (TextPart("last"),)),)
    check(pair, Request(messages=msgs))
