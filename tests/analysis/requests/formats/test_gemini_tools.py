"""Gemini requests with tools, counted as google-genai's LocalTokenizer counts them.

The oracle is google-genai's own text accumulator (`local_tokenizer._TextsAccumulator`, the part
of `LocalTokenizer.count_tokens` that picks the texts to encode): it needs no model file, so the
texts and their counts are compared with any vocabulary (o200k_base here). The Gemma 3 model
file would make the totals Gemini's own; the texts are the same whichever vocabulary encodes them.
"""

from __future__ import annotations

import pytest

from analysis.requests import Request, input_tokens, parse
from analysis.requests.formats import none
from analysis.tokenizers import load_tokenizer

genai_local = pytest.importorskip("google.genai.local_tokenizer", reason="google-genai (a dev dependency) is not installed")
from google.genai import types  # noqa: E402

WEATHER = {"name": "get_weather", "description": "The weather now, in °C.", "parameters": {
    "type": "object", "required": ["city"], "properties": {
        "city": {"type": "string", "description": "A city name", "example": "Zürich"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "format": "enum"},
        "days": {"type": "array", "items": {"type": "integer", "description": "a day offset"}}}}}
BODIES = {
    "definitions": {"contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}],
                    "tools": [{"functionDeclarations": [WEATHER, {"name": "now"}]}]},
    "call and response": {
        "systemInstruction": {"parts": [{"text": "Be terse."}]},
        "tools": [{"functionDeclarations": [WEATHER]}],
        "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                     {"role": "model", "parts": [{"functionCall": {"name": "get_weather",
                                                                   "args": {"city": "Paris", "days": [0, 1]}}}]},
                     {"role": "user", "parts": [{"functionResponse": {"name": "get_weather", "response": {
                         "temp": 20, "sky": "clear", "wind": {"dir": "NW", "speed": 3}}}}]}]},
}


def reference_texts(body) -> list[str]:
    acc = genai_local._TextsAccumulator()
    acc.add_contents([types.Content.model_validate(c) for c in body["contents"]])
    for tool in body.get("tools", []):
        acc.add_tool(types.Tool.model_validate(tool))
    if "systemInstruction" in body:
        acc.add_contents([types.Content.model_validate(body["systemInstruction"])])
    return list(acc.get_texts())


@pytest.mark.parametrize("case", list(BODIES))
def test_tool_texts_and_counts_equal_the_local_tokenizers(case):
    body = BODIES[case]
    tok = load_tokenizer("o200k_base")
    expected = sum(len(tok.encode(t)) for t in reference_texts(body))
    got = none.render(parse(body, shape="gemini"), tok)
    assert got.input_tokens == expected
    assert got.exactness == "documented" and "google-genai local count" in got.reason


def test_tool_texts_are_not_the_json():
    tok = load_tokenizer("o200k_base")
    request = parse(BODIES["definitions"], shape="gemini")
    as_json = none.render(Request(messages=request.messages), tok).input_tokens + tok.count(str(BODIES["definitions"]["tools"]))
    assert none.render(request, tok).input_tokens < as_json
    assert sorted(t for tool in request.tools for t in none.tool_texts(tool)) == sorted(
        t for t in reference_texts({"contents": [], "tools": BODIES["definitions"]["tools"]}))


def test_a_gemini_model_count_with_tools_is_labelled_by_the_local_count():
    count = input_tokens(parse(BODIES["call and response"], shape="gemini"), "gemini-2.5-flash")
    assert "google-genai local count" in count.reason
