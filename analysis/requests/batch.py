"""The batched road to a request count: a chunk of requests counted under one counter, fast.

Unlike `count` (one request to one model: the content in the model's tokenizer, its family's chat
format and media), this module counts many requests at once to the same numbers: their texts in
one batch call per tokenizer (`tokenizers.batch.BatchTokenizer`), and, where the family's format
adds tokens by arithmetic (`formats.FORMAT_TOKENS`), each request's structure (its roles, names,
tool definitions, without the texts) rendered once and its texts' counts added to it. `count_many`
is the road for a list of requests; `row_shape` and `fast_counts` are its steps, which the pricing
of logs calls per chunk. Every fast road here falls back to `counter.count`, and is tested equal
to it. The memo of rendered structures is the run's (`analysis.memo`).
"""

from __future__ import annotations

import dataclasses
import json
from array import array
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence

from ..errors import BadInput
from ..memo import BoundedMemo, run_caches
from ..tokenizers import Tokenizer
from ..tokenizers.batch import BatchTokenizer
from .count import Count, RequestCounter
from .formats import ARITHMETIC_WHEN, BATCH_NEEDS, FORMAT_TOKENS
from .formats.openai import cache_sequence, rules_for
from .formats.parts import join_reasons
from .request import Request, TextPart, ToolCall, ToolDef, ToolResult

__all__ = ["RowShape", "Shaped", "batch_tokenizers", "count_many", "count_request", "counted_texts", "fast_counts",
           "row_shape", "shaped_memo", "structure_key"]


def count_request(counter: RequestCounter, request: Request, tokenizer: Tokenizer | None = None, *,
                  add_generation_prompt: bool = True, image_size: tuple[int, int] | None = None) -> Count:
    """`counter.count(request)`; where the model's format refuses the request (an image sent to a
    text-only template), its content alone, as an estimate that says why, so one such row of a log
    does not stop the pricing of the rest. `image_size` sizes the images given by URL (`--image-size`)."""
    try:
        return counter.count(request, tokenizer=tokenizer, add_generation_prompt=add_generation_prompt,
                             image_size=image_size)
    except BadInput as e:
        c = dataclasses.replace(counter, render=None).count(request, tokenizer=tokenizer,
                                                            add_generation_prompt=add_generation_prompt,
                                                            image_size=image_size)
        return dataclasses.replace(c, rendered=dataclasses.replace(c.rendered, exactness="estimate", reason=join_reasons(
            f"the {counter.family} format refuses this request ({e}): its content alone is counted", c.reason), ids=None))


def cache_ids_key(counter: RequestCounter) -> Hashable | None:
    """What `cache_ids` depends on beyond the request, where models share it: for the "openai"
    family the tokenizer and its rule set (gpt-4o and gpt-4.1-mini lay a prompt out alike); None
    for any other family (its render, per model)."""
    if counter.family == "openai" and counter.render is not None:
        return ("openai", counter.tokenizer.name, rules_for(counter.tokenizer, counter.names or (counter.model,)))
    return None


def cache_ids(counter: RequestCounter, request: Request, *, image_size: tuple[int, int] | None = None
              ) -> list[int] | None:
    """The prompt's ids as a prefix cache matches them, as many as the count (with the reply
    priming): the rendered ids where the count is exact; for the "openai" family, whose format is
    counted by rules, `formats.openai.cache_sequence` (its texts' own ids, stand-ins for the
    markers; a long text, such as a system prompt shared by a log's rows, encoded once per run);
    else None (no ids: a prefix cache is then matched at block ends only)."""
    if counter.family == "openai" and counter.render is not None:
        tok = counter.tokenizer
        memo = run_caches().memo(("cache_ids.encode", tok.name), 256)

        def encode(text: str) -> Sequence[int]:
            if len(text) < 2_000 or len(text) > 64_000:  # short texts cost little; long ones would fill the memo
                return tok.encode(text)
            return memo.get(text, lambda: array("i", tok.encode(text)))  # at most 256 x 256 kB

        return cache_sequence(request, tok, counter.names or (counter.model,), encode)
    c = count_request(counter, request, image_size=image_size)
    return list(c.ids) if c.ids is not None and not c.media_tokens else None


@dataclasses.dataclass(frozen=True, slots=True)
class Shaped:
    """What a request of one structure adds beyond its texts under one counter (`FORMAT_TOKENS`)."""

    format_tokens: int
    exactness: str
    reason: str


# a run's memo per (model, tokenizer, family), structure -> Shaped: a structure is rendered once per counter
SHAPED_LIMIT = 4096


def _part_key(part: object) -> object:
    if isinstance(part, TextPart):
        return "t"
    if isinstance(part, ToolCall):
        return ("call", part.name)
    if isinstance(part, ToolResult):
        inner = tuple(_part_key(p) for p in part.parts)
        return None if None in inner else ("result", inner)
    return None  # media: counted by the provider's rule, on the rendered path


def structure_key(request: Request) -> tuple[object, ...] | None:
    """The request without its texts: what an "arithmetic" family's format tokens depend on (None:
    a request this shortcut does not take, such as one with media or tool schemas that are not JSON)."""
    messages = []
    for m in request.messages:
        parts = tuple(_part_key(p) for p in m.parts)
        if None in parts:
            return None
        messages.append((m.role, m.name, parts))
    tools: tuple[object, ...] = ()
    if request.tools:
        part = _tools_part(request.tools)
        if part is None:
            return None
        tools = part
    choice = None if request.tool_choice is None else (request.tool_choice.mode, request.tool_choice.name)
    return (request.api, bool(request.system), tuple(messages), tools, choice)


def _memo_of(counter: RequestCounter) -> BoundedMemo[Shaped]:
    return run_caches().memo(("batch.shaped", counter.model, counter.tokenizer.name, counter.family),
                             SHAPED_LIMIT)


def shaped_memo(counter: RequestCounter) -> BoundedMemo[Shaped] | None:
    """The structures `fast_counts` has rendered under `counter` (None: a family that renders every
    request): a structure found there is counted by adding its texts' counts to its format tokens."""
    return _memo_of(counter) if _arithmetic(counter) else None


def _arithmetic(counter: RequestCounter) -> bool:
    return FORMAT_TOKENS.get(counter.family or "") == "arithmetic" and counter.render is not None


RowShape = tuple[tuple[object, ...] | None, tuple[str, ...]]


_TEXT_ONLY = ("t",)


def _tools_part(tools: tuple[ToolDef, ...]) -> tuple[object, ...] | None:
    """`structure_key`'s part for the tool definitions (None: parameters that are not JSON)."""
    try:
        return tuple((t.name, t.description, json.dumps(t.parameters, ensure_ascii=False)) for t in tools)
    except (TypeError, ValueError):
        return None


# `_tools_part` kept per tuple of definitions (the run's "batch.tool_parts"): a log's rows share one
# tuple for each distinct `tools` list (`requests.shapes.openai_chat`), so their JSON is written once


def row_shape(request: Request) -> RowShape:
    """(`structure_key`, `counted_texts`) of a request: what `fast_counts` reads of it, computed once
    for every counter of a chunk (a request of one text part per message, with no tool choice, the
    common log row, is read in one pass; its tool definitions' part is kept per tuple of them)."""
    tools = () if not request.tools else run_caches().objects("batch.tool_parts", 1024).get(request.tools, _tools_part)
    if tools is not None and request.tool_choice is None:
        messages = []
        texts = [request.system] if request.system else []
        for m in request.messages:
            parts = m.parts
            if len(parts) != 1 or type(parts[0]) is not TextPart:
                break
            messages.append((m.role, m.name, _TEXT_ONLY))
            text = parts[0].text
            if text:
                texts.append(text)
        else:
            return (request.api, bool(request.system), tuple(messages), tools, None), tuple(texts)
    return structure_key(request), tuple(counted_texts(request))


def fast_counts(counter: RequestCounter, request: Request, tokenizer: Tokenizer | None = None, *,
                add_generation_prompt: bool = True, shape: RowShape | None = None,
                image_size: tuple[int, int] | None = None) -> tuple[int, int, str, str]:
    """(content + media tokens, format tokens, exactness, reason) of `count_request(counter, request)`,
    by arithmetic where the counter's family allows it (`FORMAT_TOKENS`): the format's part of a
    structure already rendered, plus the counts of the request's texts. The same numbers as the
    rendered count, which is what it falls back to. Without `add_generation_prompt`, the request
    cut where a prompt cache may end it (`logs.cache_trace`), not primed for a reply. `shape`: the
    request's `row_shape`, if known."""
    tok = counter.tokenizer if tokenizer is None else tokenizer
    if not _arithmetic(counter):
        key = None
    elif shape is None:
        key = structure_key(request)
    else:
        key = shape[0]
    when = ARITHMETIC_WHEN.get(counter.family or "")
    if key is not None and when is not None and not when(bool(key[1]), key[2]):  # type: ignore[arg-type]
        key = None  # a structure this family renders
    if key is not None and not add_generation_prompt:
        key = ("without the reply priming", key)
    if key is None:
        c = count_request(counter, request, tok, add_generation_prompt=add_generation_prompt, image_size=image_size)
    else:
        memo = _memo_of(counter)
        shaped = memo.peek(key)
        if shaped is not None:
            texts = counted_texts(request) if shape is None else shape[1]
            return sum(map(tok.count, texts)), shaped.format_tokens, shaped.exactness, shaped.reason
        c = count_request(counter, request, tok, add_generation_prompt=add_generation_prompt, image_size=image_size)
        if not c.media_tokens:
            memo.put(key, Shaped(c.format_tokens, c.exactness, c.reason))
    # media tokens (images, audio, PDFs by the provider's rule) are billed as input: counted with the content
    return c.content_tokens + c.media_tokens, c.format_tokens, c.exactness, c.reason


def counted_texts(request: Request) -> Iterator[str]:
    """The texts a chat format counts on their own: the system prompt, each message's text parts
    joined, tool-call arguments and tool-result texts; the rest (roles, names, tool definitions) is
    the request's `structure_key`. Unlike `Request.texts` (every text the request carries, each apart:
    the measure a server holds to its limits), these are what `fast_counts` adds to a structure's
    format tokens, so they are joined as the formats render them."""
    if request.system:
        yield request.system
    for message in request.messages:
        text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
        if text:
            yield text
        for part in message.parts:
            if isinstance(part, ToolCall) and part.arguments:
                yield part.arguments
            elif isinstance(part, ToolResult):
                inner = "".join(p.text for p in part.parts if isinstance(p, TextPart))
                if inner:
                    yield inner


def batch_tokenizers(counters: Iterable[RequestCounter], texts: Sequence[str],
                     counts: Mapping[str, Sequence[int]] | None = None) -> dict[str, BatchTokenizer]:
    """One `BatchTokenizer` per tokenizer of `counters`, filled with `texts` (`counts`: known counts per name).

    What each counter's family needs is its row of `requests.formats.BATCH_NEEDS`; a family
    that reads its own tokenizer ("own") gets none, and counts with that tokenizer.
    """
    counters = list(counters)
    out: dict[str, BatchTokenizer] = {}
    needs = [(c.tokenizer.name, "ids" if c.render is None else BATCH_NEEDS.get(c.family or "", "")) for c in counters]
    encode = {name for name, need in needs if need == "ids"}
    count = {name for name, need in needs if need == "counts"}
    skip = {name for name, need in needs if need == "own"}
    for c in counters:
        name = c.tokenizer.name
        if name in out or name in skip:
            continue
        batch = out[name] = BatchTokenizer(c.tokenizer)
        if counts is not None and name in counts:
            batch.fill(texts, counts=counts[name])
        if name in encode:
            batch.fill(texts, ids=True)
        elif name in count:
            batch.fill(texts)
    return out


def count_many(counter: RequestCounter, requests: Sequence[Request], *, add_generation_prompt: bool = True,
               image_size: tuple[int, int] | None = None) -> list[tuple[int, int, str, str]]:
    """(content + media tokens, format tokens, exactness, reason) of each request under `counter`:
    `count_request`'s numbers, with the requests' texts counted in one batch and each structure
    rendered once (`fast_counts`).

    >>> from analysis.requests import parse, request_counter
    >>> reqs = [parse({"messages": [{"role": "user", "content": t}]}, shape="openai-chat") for t in ("hi", "hello there")]
    >>> [n + f for n, f, _, _ in count_many(request_counter("gpt-4o"), reqs)]
    [8, 9]
    """
    shapes = [row_shape(r) for r in requests]
    batch = batch_tokenizers([counter], [t for _, texts in shapes for t in texts]).get(counter.tokenizer.name)
    return [fast_counts(counter, r, batch, add_generation_prompt=add_generation_prompt, shape=shape,
                        image_size=image_size) for r, shape in zip(requests, shapes)]
