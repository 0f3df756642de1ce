"""One chat format per model family: what a request costs beyond its text.

Each family is a module with one pure function of the `ChatFormat` shape, named in its
docstring after the reference it is tested against. The registry that maps a family name to its
function lives here, beside the shared result type in `base`.

`FORMATS` is the registry: family name (one of `FAMILIES`) -> render function. A family whose
count depends on the model within it (the OpenAI rules per model, Claude's tool-use prompt per
model) also has a factory in `MODEL_FORMATS`, which `format_for` prefers. A family of `FAMILIES`
missing from both is not built yet, and `input_tokens` says so in its exactness reason.
"""

from collections.abc import Callable

from . import claude, none, openai
from .base import FAMILIES as FAMILIES, ChatFormat as ChatFormat, Exactness as Exactness, Rendered as Rendered, Span as Span

FORMATS: dict[str, ChatFormat] = {
    "none": none.render,
    "openai": openai.render,
    "claude": claude.render,
    # The exact open-model formats register here, one line each, e.g. "harmony": harmony.render
    # (harmony, llama3, llama4, mistral, qwen, deepseek; gemma3 later).
}

MODEL_FORMATS: dict[str, Callable[[tuple[str, ...]], ChatFormat]] = {
    "openai": openai.for_model,
    "claude": claude.for_model,
}


def format_for(family: str, model_ids: tuple[str, ...] = ()) -> ChatFormat | None:
    """The render function of a family for a model (its names, as typed and canonical); None if not built."""
    if family in MODEL_FORMATS:
        return MODEL_FORMATS[family](model_ids)
    return FORMATS.get(family)
