"""`input_tokens(request, model)`: the one count of a request to a model, on every face.

Unlike `formats` (how each family frames a request) and `analysis.models` (what a model id is),
this module only joins them: it resolves the model, loads its tokenizer, renders the request in
the model's family, and lowers the exactness to "estimate" when the text itself is counted with a
proxy vocabulary. The result, `Count`, is what the faces print, as rows of the JSON contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import BadInput
from ..models import ModelSpec, TokenizerChoice, resolve
from ..tokenizers import Tokenizer, load_tokenizer
from .formats import FAMILIES, ChatFormat, Exactness, Rendered, Span, format_for, none
from .formats.build import NoVariant
from .formats.parts import join_reasons
from .media import MediaCount, MediaLine, count_media, media_parts, without_media
from .request import Request


@dataclass(frozen=True, slots=True)
class Count:
    """The input tokens of one request to one model.

    `input_tokens == content_tokens + format_tokens + media_tokens`: content is the text the caller
    wrote (message and system text, tool-call arguments, tool results), format is what the model's
    chat format adds (roles, names, separators, tool definitions, the reply priming), media the
    images, audio and PDFs priced by the provider's rule (`media`: one line per part, see
    `analysis.requests.media`). `ids` is the rendered prompt where the count is exact, else None;
    `spans` then tile it into format and content runs (for drawing the format apart, see
    `prompt_tokens`). The text's fields are those of `rendered`, the family's `Rendered` as this
    count lowers it (a proxy vocabulary makes it an estimate).
    """
    model: str
    tokenizer: str
    family: str | None
    rendered: Rendered  # the counts, exactness and reason as the count gives them (ids only where exact)
    media_tokens: int = 0
    media: tuple[MediaLine, ...] = ()

    @property
    def content_tokens(self) -> int:
        return self.rendered.content_tokens

    @property
    def format_tokens(self) -> int:
        return self.rendered.format_tokens

    @property
    def exactness(self) -> Exactness:
        return self.rendered.exactness

    @property
    def reason(self) -> str:
        return self.rendered.reason

    @property
    def ids(self) -> tuple[int, ...] | None:
        return self.rendered.ids

    @property
    def spans(self) -> tuple[Span, ...]:
        return self.rendered.spans

    @property
    def input_tokens(self) -> int:
        return self.rendered.input_tokens + self.media_tokens

    def row(self, *, ids: bool = False) -> dict[str, Any]:
        """The JSON contract's row: counts are ints; `ids` (with ids=True) is a list or None."""
        out: dict[str, Any] = {
            "model": self.model, "tokenizer": self.tokenizer, "input_tokens": int(self.input_tokens),
            "content_tokens": int(self.content_tokens), "format_tokens": int(self.format_tokens),
            "media_tokens": int(self.media_tokens), "exactness": self.exactness, "exactness_reason": self.reason,
        }
        if self.media:
            out["media"] = [line.row() for line in self.media]
        if ids:
            out["ids"] = list(self.ids) if self.ids is not None else None
        return out


def _names(spec: ModelSpec) -> tuple[str, ...]:
    return tuple(dict.fromkeys((spec.id, spec.model)))


@dataclass(frozen=True)
class RequestCounter:
    """`input_tokens` for one model, resolved once: its tokenizer, its family's render function and
    what lowers the exactness. A face that counts many requests to one model (a log, a corpus)
    builds one and calls `count` per request; `input_tokens` is `request_counter(model).count`.

    `count(..., tokenizer=t)` counts with `t` in place of the loaded tokenizer: a wrapper of the
    same vocabulary (a cache filled by one batch call), never another vocabulary.
    """
    model: str
    tokenizer: Tokenizer
    family: str | None
    render: ChatFormat | None
    text_exactness: str
    text_note: str
    wanted: str = ""  # the tokenizer the model is counted with where it is fetched
    names: tuple[str, ...] = ()  # the model's ids, as media.toml's rules match them

    def count(self, request: Request, *, add_generation_prompt: bool = True,
              tokenizer: Tokenizer | None = None, image_size: tuple[int, int] | None = None) -> Count:
        """`image_size` is the (width, height) of the images whose size is not inline (URLs)."""
        tok = self.tokenizer if tokenizer is None else tokenizer
        media = MediaCount()
        if media_parts(request):
            media = count_media(request, self.names or (self.model,), image_size=image_size)
            request = without_media(request)
        why = (f"the {self.family} chat format is not built in this version" if self.family in FAMILIES
               else "no chat format is known for this model")
        rendered = None
        if self.render is not None:
            try:
                rendered = self.render(request, tok, add_generation_prompt=add_generation_prompt)
            except NoVariant:
                # A proxy vocabulary stands in for the model's own, and this format is written in the
                # model's own tokens (mistral-common's, a template's): it cannot be rendered with it.
                if self.text_exactness == "exact":
                    raise
                why = (f"the {self.family} chat format needs the model's own vocabulary ({self.wanted}, "
                       f"`tokenprism vocab fetch {self.wanted}`)")
        if rendered is None:
            rendered = none.render(request, tok, add_generation_prompt=add_generation_prompt)
            exactness: Exactness = "estimate"
            reason = join_reasons(f"{why}: only the content is counted, the format's tokens are not", rendered.reason)
        else:
            exactness, reason = rendered.exactness, rendered.reason
        if self.text_exactness != "exact":
            exactness = "estimate"
            reason = join_reasons(reason, self.text_note)
        if media.lines:  # media by a documented rule make an exact count documented; else an estimate
            exactness = "estimate" if media.exactness != "documented" or exactness == "estimate" else "documented"
            reason = join_reasons(reason, media.reason())
        exact = exactness == "exact"
        return Count(self.model, self.tokenizer.name, self.family, Rendered(
            rendered.content_tokens, rendered.format_tokens, exactness, reason,
            rendered.ids if exact else None, rendered.spans if exact else ()), media.tokens, media.lines)


def counter_for(name: str, family: str | None, names: tuple[str, ...], choice: TokenizerChoice) -> RequestCounter:
    """A counter for a model named `name`, of chat-format `family` (None: not known), counted with
    `choice` (the resolver's, or one a caller states, such as a price file's tokenizer).

    Raises:
        BadInput: the choice has no usable tokenizer on this machine (the message says why).
    """
    if not choice.usable or choice.tokenizer is None:
        raise BadInput(choice.refusal(name))
    render = format_for(family, names) if family is not None else None
    return RequestCounter(name, load_tokenizer(choice.tokenizer), family, render, choice.exactness, choice.note,
                          choice.wanted or "", names)


def request_counter(model: str | ModelSpec, *, choice: TokenizerChoice | None = None) -> RequestCounter:
    """The `RequestCounter` of a model id (as `analysis.models.resolve` takes it) or its `ModelSpec`.

    Raises:
        UnknownName: the model id is not known (the closest ids are named).
        BadInput: the model has no text tokenizer, or its vocabulary is not on this machine.
    """
    if isinstance(model, str) and model.strip().startswith("gguf:") and choice is None:
        return file_counter(model.strip())
    spec = model if isinstance(model, ModelSpec) else resolve(model)
    return counter_for(spec.id, spec.format, _names(spec), choice or spec.usable_choice())


def file_counter(spec: str) -> RequestCounter:
    """A counter for ``gguf:PATH``: the file's own vocabulary, in the format its chat template writes when that is
    a family rendered here (`gguf_chat`); otherwise the content alone, an estimate that says why."""
    from ..tokenizers.gguf_chat import match_template
    from .formats import FORMATS

    tok = load_tokenizer(spec)
    match = match_template(getattr(tok, "chat_template", None))
    render = FORMATS.get(match.family or "")
    if match.variant:  # a family with several templates: the one the file's matched
        from .formats import qwen

        def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
            return qwen.render_template(request, tokenizer, match.variant, add_generation_prompt=add_generation_prompt)
    # the text is the file's own vocabulary; with no format, the reason says why the count is an estimate
    return RequestCounter(spec, tok, match.family, render, "exact" if render else "estimate", match.reason, "", (spec,))


def input_tokens(request: Request, model: str | ModelSpec, *, add_generation_prompt: bool = True,
                 image_size: tuple[int, int] | None = None) -> Count:
    """The input tokens of `request` to `model`, with the exactness of the count and its reason.

    Args:
        request: the request (see `analysis.requests.parse` for wire shapes).
        model: a model id as `analysis.models.resolve` takes it, or its `ModelSpec`.
        add_generation_prompt: count the header that primes the reply (on by default, as the
            chat APIs always add it).
        image_size: (width, height) for images whose size is not inline (a URL is never fetched).

    Raises:
        UnknownName: the model id is not known (the closest ids are named).
        BadInput: the model has no text tokenizer, or its vocabulary is not on this machine (the
            message gives the fetch command).

    >>> c = input_tokens(Request.from_text("hello world"), "gpt-4o")
    >>> (c.input_tokens, c.content_tokens, c.format_tokens, c.exactness)
    (9, 2, 7, 'documented')
    """
    return request_counter(model).count(request, add_generation_prompt=add_generation_prompt, image_size=image_size)


def prompt_tokens(count: Count) -> list[tuple[int, bytes, str]]:
    """The rendered prompt of an exact count as (id, bytes, "format" | "content"), token by token.

    What a token view draws: the format's markers and headers apart from the caller's text.

    Raises:
        BadInput: the count is not exact, so there are no ids to show (only the two totals).

    >>> c = input_tokens(Request.from_text("hi"), "qwen3-32b")
    >>> [(b, kind) for _, b, kind in prompt_tokens(c)][:4]
    [(b'<|im_start|>', 'format'), (b'user', 'format'), (b'\\n', 'format'), (b'hi', 'content')]
    """
    if count.ids is None:
        raise BadInput(f"the count for {count.model!r} is {count.exactness}, not exact: it has no rendered ids to "
                       "show, only content_tokens and format_tokens")
    token_bytes = load_tokenizer(count.tokenizer).token_bytes
    kinds = [span.kind for span in count.spans for _ in range(span.start, span.end)]
    return [(i, token_bytes(i), kind) for i, kind in zip(count.ids, kinds, strict=True)]
