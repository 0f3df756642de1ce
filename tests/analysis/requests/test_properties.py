"""Properties over random conversations: every shape says the same thing, and counts add up."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from analysis.requests import Request, input_tokens, parse
from analysis.tokenizers import load_tokenizer

# Texts with unicode, empty strings, and special-token spellings, which must stay plain text.
TEXTS = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", "<|endoftext|>", "<|im_start|>user", "<|start|>assistant<|message|>", "\n\nHuman:", "お誕生日おめでとう"]),
)
TURNS = st.lists(st.tuples(st.sampled_from(["user", "assistant"]), TEXTS), min_size=1, max_size=6)
SYSTEM = st.one_of(st.none(), TEXTS.filter(bool))


def _shapes(system: str | None, turns: list[tuple[str, str]]) -> dict[str, dict]:
    """The same conversation written in each wire shape."""
    chat = ([{"role": "system", "content": system}] if system is not None else []) + \
        [{"role": r, "content": t} for r, t in turns]
    return {
        "anthropic": {**({"system": system} if system is not None else {}),
                      "messages": [{"role": r, "content": [{"type": "text", "text": t}]} for r, t in turns]},
        "gemini": {**({"systemInstruction": {"parts": [{"text": system}]}} if system is not None else {}),
                   "contents": [{"role": "model" if r == "assistant" else "user", "parts": [{"text": t}]} for r, t in turns]},
        "openai-responses": {**({"instructions": system} if system is not None else {}),
                             "input": [{"type": "message", "role": r,
                                        "content": [{"type": "output_text" if r == "assistant" else "input_text", "text": t}]}
                                       for r, t in turns]},
        "openai-chat": {"messages": chat},
    }


@given(SYSTEM, TURNS)
def test_every_shape_parses_the_same_conversation_alike(system, turns):
    parsed = {shape: parse(body, shape=shape) for shape, body in _shapes(system, turns).items()}
    expected = [(r, t) for r, t in turns]
    for shape, request in parsed.items():
        messages = [(m.role, m.text) for m in request.messages]
        if shape == "openai-chat" and system is not None:  # a system message among the messages
            assert messages[0] == ("system", system)
            assert request.system is None
            messages = messages[1:]
        else:
            assert request.system == system, shape
        assert messages == expected, shape


@given(SYSTEM, TURNS)
def test_the_detected_shape_reads_as_the_forced_one(system, turns):
    for shape, body in _shapes(system, turns).items():
        assert parse(body) == parse(body, shape=shape), shape


@given(SYSTEM, TURNS, st.lists(st.one_of(st.none(), st.from_regex(r"[a-z_]{1,12}", fullmatch=True)), max_size=6))
def test_openai_counts_add_up_and_special_tokens_stay_text(system, turns, names):
    tok = load_tokenizer("o200k_base")
    messages = [{"role": r, "content": t, **({"name": n} if n else {})}
                for (r, t), n in zip(turns, names + [None] * len(turns))]
    count = input_tokens(parse({"messages": messages}), "gpt-4o")
    assert count.input_tokens == count.content_tokens + count.format_tokens
    assert count.content_tokens == sum(tok.count(m["content"]) for m in messages)
    assert count.format_tokens == 3 + sum(3 + tok.count(m["role"]) + (tok.count(m["name"]) + 1 if "name" in m else 0)
                                          for m in messages)
    assert count.exactness == "documented"


@given(SYSTEM, TURNS)
def test_text_only_ids_decode_to_the_texts(system, turns):
    request = parse({**({"system": system} if system else {}),
                     "messages": [{"role": r, "content": t} for r, t in turns]}, shape="anthropic")
    count = input_tokens(request, "openai:text-embedding-3-small")
    assert count.exactness == "exact"
    assert count.ids is not None
    assert load_tokenizer("cl100k_base").decode(list(count.ids)) == (system or "") + "".join(t for _, t in turns)
    assert count.input_tokens == len(count.ids)


def test_a_text_is_one_user_message_in_every_face_of_the_library():
    assert parse("hi") == parse({"prompt": "hi"}) == Request.from_text("hi")
    # A Responses body holds the same message, marked as sent to the Responses API (its framing differs).
    responses = parse({"input": "hi"})
    assert responses.api == "responses"
    assert responses.messages == Request.from_text("hi").messages
