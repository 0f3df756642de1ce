"""`input_tokens(request, model)`: the one count of a request to a model, on every face.

Unlike `formats` (how each family frames a request) and `analysis.models` (what a model id is),
this module only joins them: it resolves the model, loads its tokenizer, renders the request in
the model's family, and lowers the exactness to "estimate" when the text itself is counted with a
proxy vocabulary. The result, `Count`, is what the faces print, as rows of the JSON contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..models import ModelSpec, resolve
from ..tokenizers import load_tokenizer
from .formats import FAMILIES, Exactness, format_for, none
from .formats.build import NoVariant
from .formats.parts import join_reasons
from .request import Request


@dataclass(frozen=True, slots=True)
class Count:
    """The input tokens of one request to one model.

    `input_tokens == content_tokens + format_tokens`: content is the text the caller wrote (message
    and system text, tool-call arguments, tool results), format is what the model's chat format
    adds (roles, names, separators, tool definitions, the reply priming). `ids` is the rendered
    prompt where the count is exact, else None.
    """
    model: str
    tokenizer: str
    family: str | None
    content_tokens: int
    format_tokens: int
    exactness: Exactness
    reason: str
    ids: tuple[int, ...] | None = None

    @property
    def input_tokens(self) -> int:
        return self.content_tokens + self.format_tokens

    def row(self, *, ids: bool = False) -> dict[str, Any]:
        """The JSON contract's row: counts are ints; `ids` (with ids=True) is a list or None."""
        out: dict[str, Any] = {
            "model": self.model, "tokenizer": self.tokenizer, "input_tokens": int(self.input_tokens),
            "content_tokens": int(self.content_tokens), "format_tokens": int(self.format_tokens),
            "exactness": self.exactness, "exactness_reason": self.reason,
        }
        if ids:
            out["ids"] = list(self.ids) if self.ids is not None else None
        return out


def _names(spec: ModelSpec) -> tuple[str, ...]:
    return tuple(dict.fromkeys((spec.id, spec.model)))


def input_tokens(request: Request, model: str | ModelSpec, *, add_generation_prompt: bool = True) -> Count:
    """The input tokens of `request` to `model`, with the exactness of the count and its reason.

    Args:
        request: the request (see `analysis.requests.parse` for wire shapes).
        model: a model id as `analysis.models.resolve` takes it, or its `ModelSpec`.
        add_generation_prompt: count the header that primes the reply (on by default, as the
            chat APIs always add it).

    Raises:
        UnknownName: the model id is not known (the closest ids are named).
        BadInput: the model has no text tokenizer, or its vocabulary is not on this machine (the
            message gives the fetch command).

    >>> c = input_tokens(Request.from_text("hello world"), "gpt-4o")
    >>> (c.input_tokens, c.content_tokens, c.format_tokens, c.exactness)
    (9, 2, 7, 'documented')
    """
    spec = model if isinstance(model, ModelSpec) else resolve(model)
    choice = spec.usable_choice()
    assert choice.tokenizer is not None  # usable_choice refuses a choice without one
    tokenizer = load_tokenizer(choice.tokenizer)
    family = spec.format
    render = format_for(family, _names(spec)) if family is not None else None
    why = (f"the {family} chat format is not built in this version" if family in FAMILIES
           else "no chat format is known for this model")
    rendered = None
    if render is not None:
        try:
            rendered = render(request, tokenizer, add_generation_prompt=add_generation_prompt)
        except NoVariant:
            # A proxy vocabulary stands in for the model's own, and this format is written in the
            # model's own tokens (mistral-common's, a template's): it cannot be rendered with it.
            if choice.exactness == "exact":
                raise
            why = (f"the {family} chat format needs the model's own vocabulary ({spec.tokenizer}, "
                   f"`tokenprism vocab fetch {spec.tokenizer}`)")
    if rendered is None:
        rendered = none.render(request, tokenizer, add_generation_prompt=add_generation_prompt)
        exactness: Exactness = "estimate"
        reason = join_reasons(f"{why}: only the content is counted, the format's tokens are not", rendered.reason)
    else:
        exactness, reason = rendered.exactness, rendered.reason
    if choice.exactness != "exact":
        exactness = "estimate"
        reason = join_reasons(reason, choice.note)
    return Count(spec.id, tokenizer.name, family, rendered.content_tokens, rendered.format_tokens, exactness, reason,
                 rendered.ids if exactness == "exact" else None)
