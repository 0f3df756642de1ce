"""The request counts cost prices: each model's `RequestCounter`, fed by one batch call per chunk.

Unlike `analysis.requests.input_tokens` (the one count of a request to a model, which this module
only calls) and `workloads`/`logs` (which decide what the requests are), this module answers two
questions for both of them:

* which counter stands for a priced model (`target_counter`): the resolver's model and chat
  format, counted with the tokenizer cost chose for it (a price file's tokenizer wins, a
  `--fallback-tokenizer` proxy is an estimate), so a model cost prices and `tokenprism count`
  counts the same request to the same number;
* how to count a chunk of requests fast (`BatchTokenizer`): the texts of the chunk are counted
  (or encoded, for the families that build ids) in one batch call per tokenizer, deduplicated,
  and the chat formats then read those counts from a dictionary. The counts are the tokenizer's
  own; a text the batch did not hold (a template's joined string) is counted on the spot.

A described workload of N messages per request (`workload_request`) is rendered as N turns with
the text in the last user message, so the format's tokens are the family's own for N messages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

import dataclasses
import json

from ..contract import EXACTNESS
from ..errors import BadInput
from ..models import TokenizerChoice
from ..requests import (Count, Message, Request, RequestCounter, TextPart, ToolCall, ToolDef, ToolResult, counter_for,
                        request_counter)
from ..requests.formats import ARITHMETIC_WHEN, BATCH_NEEDS, FORMAT_TOKENS
from ..requests.formats.parts import join_reasons
from ..tokenizers import Piece, Tokenizer
from .memo import BoundedMemo, ObjectMemo
from .targets import model_spec

def target_counter(ref: str, choice: TokenizerChoice) -> RequestCounter | None:
    """The counter of a priced model named `ref`, counted with `choice` (cost's tokenizer choice).

    None when the choice has no usable tokenizer (the caller reports `choice.status`). A model the
    resolver knows is counted by `analysis.requests.request_counter` with its chat format, as
    `tokenprism count` counts it; one only a price file knows is counted with no chat format,
    which the count's exactness says.
    """
    if not choice.usable:
        return None
    spec = model_spec(ref)
    if spec is None:
        return counter_for(ref, None, (), choice)
    return request_counter(spec, choice=choice)


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


# -- the request count by arithmetic -------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class Shaped:
    """What a request of one structure adds beyond its texts under one counter (`FORMAT_TOKENS`)."""

    format_tokens: int
    exactness: str
    reason: str


# (model, tokenizer, family) -> structure -> Shaped: a structure is rendered once per counter
_SHAPED: dict[tuple[str, str, str | None], BoundedMemo[Shaped]] = {}
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
    memo = _SHAPED.get((counter.model, counter.tokenizer.name, counter.family))
    if memo is None:
        memo = _SHAPED[(counter.model, counter.tokenizer.name, counter.family)] = BoundedMemo(SHAPED_LIMIT)
    return memo


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


# `_tools_part` kept per tuple of definitions: a log's rows share one tuple for each distinct `tools`
# list (`requests.shapes.openai_chat`), so their JSON is written once
_TOOL_PARTS: ObjectMemo[tuple[ToolDef, ...], tuple[object, ...] | None] = ObjectMemo(1024)


def row_shape(request: Request) -> RowShape:
    """(`structure_key`, `request_texts`) of a request: what `fast_counts` reads of it, computed once
    for every counter of a chunk (a request of one text part per message, with no tool choice, the
    common log row, is read in one pass; its tool definitions' part is kept per tuple of them)."""
    tools = () if not request.tools else _TOOL_PARTS.get(request.tools, _tools_part)
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
    return structure_key(request), tuple(request_texts(request))


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
            texts = request_texts(request) if shape is None else shape[1]
            return sum(map(tok.count, texts)), shaped.format_tokens, shaped.exactness, shaped.reason
        c = count_request(counter, request, tok, add_generation_prompt=add_generation_prompt, image_size=image_size)
        if not c.media_tokens:
            memo.put(key, Shaped(c.format_tokens, c.exactness, c.reason))
    # media tokens (images, audio, PDFs by the provider's rule) are billed as input: counted with the content
    return c.content_tokens + c.media_tokens, c.format_tokens, c.exactness, c.reason


def request_texts(request: Request) -> Iterator[str]:
    """The texts a chat format counts on their own: the system prompt, each message's text parts
    joined, tool-call arguments and tool-result texts."""
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


def workload_request(text: str, messages: int) -> Request:
    """The request a described workload stands for: `messages` turns (user and assistant
    alternating, ending with the user), the text in the last one, the earlier ones empty.

    >>> [m.role for m in workload_request("hi", 3).messages], workload_request("hi", 3).messages[-1].text
    (['user', 'assistant', 'user'], 'hi')
    """
    roles = ["user" if (messages - 1 - i) % 2 == 0 else "assistant" for i in range(messages)]
    return Request(tuple(Message(role, (TextPart(text if i == messages - 1 else ""),)) for i, role in enumerate(roles)))


FILL_SLICE = 256


class BatchTokenizer:
    """A tokenizer whose `count`/`encode` answer from one batch call over a chunk's texts.

    It wraps the real tokenizer (same vocabulary, same ids); `fill` counts or encodes the texts
    once, deduplicated; a text not filled is counted or encoded on the spot (and kept, for the
    chunk's lifetime only: one `BatchTokenizer` per chunk keeps memory bounded).
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.inner = tokenizer
        self.name, self.family, self.source = tokenizer.name, tokenizer.family, tokenizer.source
        self.normalize = tokenizer.normalize
        self._specials = tokenizer.special_tokens  # an adapter may build this dict on every call
        self._counts: dict[str, int] = {}
        self._ids: dict[str, list[int]] = {}

    def fill(self, texts: Iterable[str], *, ids: bool = False, counts: Sequence[int] | None = None) -> None:
        """Count (or with `ids`, encode) the texts not yet held, in one batch; `counts` given are used as is."""
        if counts is not None:
            self._counts.update(zip(texts, counts))
            return
        new = [t for t in dict.fromkeys(texts) if t not in (self._ids if ids else self._counts)]
        # in slices: a batch call over thousands of texts costs a backend more per text (Hugging Face
        # tokenizers: 2.2 CPU s for 20,000 short texts at once, 1.3 s in slices of 256; tiktoken: the same)
        for i in range(0, len(new), FILL_SLICE):
            part = new[i:i + FILL_SLICE]
            if ids:
                self._ids.update(zip(part, self.inner.encode_batch(part)))
            else:
                self._counts.update(zip(part, self.inner.count_batch(part)))

    # -- the Tokenizer protocol: everything else is the inner tokenizer's --------------------------
    @property
    def n_vocab(self) -> int:
        return self.inner.n_vocab

    @property
    def special_tokens(self) -> dict[str, int]:
        return self._specials

    def build(self) -> None:
        self.inner.build()

    def encode(self, text: str) -> list[int]:
        ids = self._ids.get(text)
        if ids is None:
            ids = self._ids[text] = self.inner.encode(text)
        return ids

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        self.fill(texts, ids=True)
        return [self._ids[t] for t in texts]

    def count(self, text: str) -> int:
        n = self._counts.get(text)
        if n is None:
            ids = self._ids.get(text)
            n = self._counts[text] = len(ids) if ids is not None else self.inner.count(text)
        return n

    def counts(self, texts: Sequence[str]) -> list[int]:
        """`count` of each text, without filling: one lookup each where every text was filled."""
        try:
            return list(map(self._counts.__getitem__, texts))
        except KeyError:
            return list(map(self.count, texts))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        self.fill([t for t in texts if t not in self._ids])
        return [self.count(t) for t in texts]

    def count_total(self, texts: Sequence[str]) -> int:
        return sum(self.count_batch(texts))

    def decode(self, ids: Sequence[int]) -> str:
        return self.inner.decode(ids)

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        return self.inner.decode_bytes(ids)

    def token_bytes(self, token_id: int) -> bytes:
        return self.inner.token_bytes(token_id)

    def pieces(self, text: str) -> list[Piece]:
        return self.inner.pieces(text)


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


def least_exact(seen: Counter) -> tuple[str, str]:
    """(the least exact label among counted requests, its reason): `seen` maps (exactness, reason)
    to how many requests had it; a reason that covers only some requests says how many.

    >>> least_exact(Counter({("exact", "x"): 3, ("estimate", "proxy"): 1}))
    ('estimate', 'proxy (1 of 4 requests)')
    """
    if not seen:
        return "estimate", "no request was counted"
    worst = max((e for e, _ in seen), key=EXACTNESS.index)  # the contract's words, from most to least exact
    reasons = [(n, why) for (e, why), n in seen.most_common() if e == worst]
    total = sum(seen.values())
    shown = "; ".join(f"{why} ({n:,} of {total:,} requests)" if len(reasons) > 1 or n < total else why
                      for n, why in reasons[:3])
    return worst, shown + (f"; and {len(reasons) - 3} other reason(s)" if len(reasons) > 3 else "")
