"""The batched road to a request count (`requests.batch`) gives the rendered count's numbers (issue 44):
for every family, over the log fixtures and a generated log of many structures, `fast_counts` and
`count_many` equal `count_request`; and a chunk of a log recounted by structure (`cost.logs.chunk`)
equals its rows counted one by one."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

from analysis.cost import read_log_records
from analysis.requests.batch import (batch_tokenizers, count_many, count_request, counted_texts, fast_counts,
                                     structure_key)
from analysis.errors import BadInput
from analysis.requests import Request, parse, request_counter
from analysis.requests.formats import FAMILIES, FORMAT_TOKENS

LOGS = Path(__file__).resolve().parents[2] / "fixtures" / "logs"
# one model per family that this machine counts offline (gemma3 needs a fetched vocabulary)
MODELS = {"openai": ["gpt-4o", "gpt-4"], "claude": ["claude-sonnet-4-5"], "harmony": ["gpt-oss-120b"],
          "qwen": ["qwen3", "qwen2.5"], "deepseek": ["deepseek-chat"], "llama3": ["llama3"],
          "mistral": ["mistral-large"], "none": ["gemini-2.5-flash"]}
WORDS = "the parcel refund is late please call me bonjour merci 42 tokens äöü 東京 🙂".split()


def _text(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(0, 12)))


def _generated(n: int = 120, seed: int = 5) -> list[Request]:
    """Chat requests of a few repeating structures with fresh texts: system, developer, names, several
    text parts, tool definitions, tool calls and results, an image."""
    rng = random.Random(seed)
    tool = {"type": "function", "function": {"name": "track", "description": "Where a parcel is.",
                                             "parameters": {"type": "object", "properties": {
                                                 "id": {"type": "string", "description": "Parcel id."}}}}}
    out = []
    for i in range(n):
        kind = i % 6
        messages: list[dict] = [{"role": "system", "content": _text(rng)}] if kind != 1 else []
        if kind == 1:
            messages.append({"role": "developer", "content": _text(rng)})
            if i % 12 == 7:  # two system prompts (DeepSeek joins them into one string)
                messages.append({"role": "system", "content": _text(rng)})
        messages.append({"role": "user", "content": _text(rng), **({"name": "ann"} if kind == 2 else {})})
        if kind == 3:
            messages.append({"role": "user", "content": [{"type": "text", "text": _text(rng)},
                                                         {"type": "text", "text": _text(rng)}]})
        body: dict = {"model": "gpt-4o", "messages": messages}
        if kind == 4:
            body["tools"] = [tool]
            messages += [{"role": "assistant", "content": None, "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": "track", "arguments": json.dumps({"id": _text(rng)})}}]},
                {"role": "tool", "tool_call_id": f"c{i}", "content": _text(rng)}]
        if kind == 5:
            messages.append({"role": "user", "content": [{"type": "text", "text": _text(rng)}, {
                "type": "image_url", "image_url": {"url": "https://example.invalid/a.png", "detail": "low"}}]})
        out.append(parse(body, shape="openai-chat"))
    return out


def _fixture_requests() -> list[Request]:
    requests = []
    for path in sorted(LOGS.iterdir()):
        records, _ = read_log_records(path, errors="skip")
        requests += [r.request for r in records]
    assert len(requests) >= 15
    return requests


def test_every_family_says_how_its_format_tokens_are_had():
    assert set(FORMAT_TOKENS) == set(FAMILIES)
    assert set(FORMAT_TOKENS.values()) <= {"arithmetic", "render"}


# the two arithmetic families every run; the rendered ones (about a second each) under `slow`
@pytest.mark.parametrize("model", [m if m in ("gpt-4o", "claude-sonnet-4-5") else pytest.param(m, marks=pytest.mark.slow)
                                   for models in MODELS.values() for m in models])
def test_fast_count_equals_the_rendered_count(model, run):
    try:
        counter = request_counter(model)
    except BadInput as e:  # a vocabulary this machine has not fetched
        pytest.skip(f"{model} cannot be counted here: {e}")
    requests = _fixture_requests() + _generated()
    requests = requests + requests[::-1]  # every structure is met again, after its first render
    batch = batch_tokenizers([counter], [t for r in requests for t in counted_texts(r)]).get(counter.tokenizer.name)
    for r in requests:
        c = count_request(counter, r, batch)
        assert fast_counts(counter, r, batch) == (c.content_tokens + c.media_tokens, c.format_tokens, c.exactness,
                                                  c.reason)
        assert fast_counts(counter, r) == fast_counts(counter, r, batch)  # the plain tokenizer too
        cuts = list(range(len(r.messages) + 1))  # prefixes without the reply priming, as the cache trace counts them
        for cut in cuts:
            short = dataclasses.replace(r, messages=r.messages[:cut])
            c = count_request(counter, short, batch, add_generation_prompt=False)
            assert fast_counts(counter, short, batch, add_generation_prompt=False) == (
                c.content_tokens + c.media_tokens, c.format_tokens, c.exactness, c.reason)
    memos = [m for key, m in run.items() if key[:2] == ("batch.shaped", counter.model)]
    if FORMAT_TOKENS[counter.family or "none"] == "arithmetic":
        assert memos and memos[0].hits > len(requests)  # the arithmetic was taken, not only the render
    else:
        assert not memos


def test_a_structure_key_keeps_what_the_format_reads_and_drops_the_texts():
    a = parse({"messages": [{"role": "user", "content": "one"}]}, shape="openai-chat")
    b = parse({"messages": [{"role": "user", "content": "two words"}]}, shape="openai-chat")
    named = parse({"messages": [{"role": "user", "content": "one", "name": "ann"}]}, shape="openai-chat")
    system = parse({"system": "s", "messages": [{"role": "user", "content": "one"}]}, shape="anthropic")
    image = parse({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {
        "url": "https://example.invalid/a.png"}}]}]}, shape="openai-chat")
    assert structure_key(a) == structure_key(b)
    assert len({structure_key(a), structure_key(named), structure_key(system)}) == 3
    assert structure_key(image) is None  # media are counted by the provider's rule, on the rendered path


@pytest.mark.parametrize("model", ["gpt-4o", "claude-sonnet-4-5", "deepseek-chat", "gemini-2.5-flash"])
def test_a_chunk_recounted_by_structure_equals_its_rows_counted_one_by_one(model, run):
    # `chunk_sums._recount` takes each structure once and adds for all its rows at once: the same
    # numbers, and the same (exactness, reason) tallies in the same order, as `fast_counts` row by row
    # (a structure first met in the chunk, one kept from an earlier chunk, media rows, structures
    # DeepSeek renders, and a family that renders every request)
    from collections import Counter

    from analysis.cost import plan_traffic
    from analysis.cost.logs.chunk import ChunkShapes, _recount, _text_counts
    from analysis.cost.logs.read import LogRecord

    counter = plan_traffic(model).targets[0].counter()
    assert counter is not None
    rng = random.Random(3)
    requests = _generated(90) + _fixture_requests()
    records = [LogRecord(f"x:{i}", r, response=_text(rng) or None, response_json=rng.choice(["", '{"a": 1}']))
               for i, r in enumerate(requests)]
    for chunk in (records[:40], records[40:], records[::-1]):  # the later chunks meet kept structures
        shapes = ChunkShapes.of(chunk)
        batch = batch_tokenizers([counter], shapes.texts).get(counter.tokenizer.name)
        tok = batch or counter.tokenizer
        ours = _recount(counter, batch, chunk, shapes)
        one_by_one = [fast_counts(counter, r.request, tok) for r in chunk]
        assert ours.content.tolist() == [c for c, _, _, _ in one_by_one]
        assert ours.format.tolist() == [f for _, f, _, _ in one_by_one]
        assert list(ours.exactness.items()) == list(Counter((e, why) for _, _, e, why in one_by_one).items())
        texts, out = _text_counts(tok, shapes)
        assert texts.tolist() == [sum(map(tok.count, counted_texts(r.request))) for r in chunk]
        assert out.tolist() == ours.out.tolist() == [
            (tok.count(r.response) if r.response else 0) + (tok.count(r.response_json) if r.response_json else 0)
            for r in chunk]


@pytest.mark.parametrize("model", ["gpt-4o", "claude-sonnet-4-5", "deepseek-chat"])
def test_count_many_equals_each_request_counted_alone(model, run):
    # the batched road (`requests.batch.count_many`: texts in one batch, structures rendered once) gives
    # each request's own count, met first or again, with and without the reply priming
    counter = request_counter(model)
    requests = _generated(60) + _fixture_requests()
    requests = requests + requests[::-1]
    for prime in (True, False):
        many = count_many(counter, requests, add_generation_prompt=prime)
        alone = [count_request(counter, r, add_generation_prompt=prime) for r in requests]
        assert many == [(c.content_tokens + c.media_tokens, c.format_tokens, c.exactness, c.reason) for c in alone]
