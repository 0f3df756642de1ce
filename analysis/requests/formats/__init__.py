"""One chat format per model family: what a request costs beyond its text.

Each family is a module with one pure function of the `ChatFormat` shape, named in its
docstring after the reference it is tested against. The registry that maps a family name to its
function lives here, beside the shared result type in `base`.

`FORMATS` is the registry: family name (one of `FAMILIES`) -> render function. A family whose
count depends on the model within it (the OpenAI rules per model, Claude's tool-use prompt per
model) also has a factory in `MODEL_FORMATS`, which `format_for` prefers. A family of `FAMILIES`
missing from both is not built yet, and `input_tokens` says so in its exactness reason.
"""

import dataclasses
import re
from collections.abc import Callable

from ...tokenizers import Tokenizer
from ..request import Request
from . import claude, deepseek, gemma3, harmony, llama3, llama4, mistral, none, openai, qwen
from .base import FAMILIES as FAMILIES, ChatFormat as ChatFormat, Exactness as Exactness, Rendered as Rendered, Span as Span

FORMATS: dict[str, ChatFormat] = {
    "none": none.render,
    "openai": openai.render,
    "claude": claude.render,
    "harmony": harmony.render,
    "llama3": llama3.render,
    "llama4": llama4.render,
    "mistral": mistral.render,
    "qwen": qwen.render,
    "deepseek": deepseek.render,
    "gemma3": gemma3.render,
}

# What each family needs of a chunk's texts counted ahead in one batch call per tokenizer (how
# `analysis.cost` recounts logs fast): "ids", its render encodes a message's text on its own
# (`Prompt.content_text`), so a batch of encodings answers it; "counts", its documented rules
# read counts only; "own", it reads its own tokenizer's extra methods (gemma3's SentencePiece
# markers), so it is never wrapped. A family absent (Qwen's template) encodes each message joined
# to its markers, which no batch of the texts alone can answer. DeepSeek-V3's markers are special
# tokens, so a message's text is counted on its own (`deepseek.texts_alone`; the structures it
# renders encode their texts on the spot).
BATCH_NEEDS: dict[str, str] = {
    "none": "ids", "llama3": "ids", "llama4": "ids", "harmony": "ids", "mistral": "ids",
    "openai": "counts", "claude": "counts", "deepseek": "counts",
    "gemma3": "own",
}

# How each family's own tokens can be had without rendering a request (issue 44): "arithmetic",
# its format tokens, exactness and reason depend only on the request's structure (roles, names,
# the kinds and number of parts, tool-call names, tool definitions, the API, whether a system
# prompt is given), and its content tokens are the sum of the counts of the request's texts
# (`requests.batch.counted_texts`), so a request of a structure already rendered is
# counted by adding; "render", its tokens depend on the content (a token may cross from a marker
# into the text, or ids are built), so every request is rendered. A family absent renders.
# tests/analysis/requests/test_batch.py holds every family to the same numbers both ways.
FORMAT_TOKENS: dict[str, str] = {
    "openai": "arithmetic", "claude": "arithmetic", "deepseek": "arithmetic",
    "none": "render", "llama3": "render", "llama4": "render", "harmony": "render", "mistral": "render",
    "qwen": "render", "gemma3": "render",
}
# An "arithmetic" family that is so only for some structures says which: (a system prompt is given
# apart, (role, name, part kinds) per message) -> whether its tokens are had by adding; the others render.
ARITHMETIC_WHEN: dict[str, Callable[[bool, tuple[tuple[str, str | None, tuple[object, ...]], ...]], bool]] = {
    "deepseek": deepseek.texts_alone,
}

# Qwen3 models share Qwen2.5's vocabulary but not its template (Qwen2.5 adds a default system
# prompt of about 20 tokens when a request has none; Qwen3 adds none).
_QWEN3 = re.compile(r"qwen-?3(?![.p]?[5-9])|qwq", re.IGNORECASE)
# The V3 template is the reference; R1, V3.1+ and V4 share the vocabulary but not the template.
_DEEPSEEK_V3 = re.compile(r"deepseek[-_]?v3(?![.p-]?[1-9])", re.IGNORECASE)


def _qwen_for_model(model_ids: tuple[str, ...]) -> ChatFormat:
    def render_model(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
        if tokenizer.name == "qwen2.5" and any(_QWEN3.search(m) for m in model_ids):
            return qwen.render_template(request, tokenizer, "qwen3", add_generation_prompt=add_generation_prompt)
        return qwen.render(request, tokenizer, add_generation_prompt=add_generation_prompt)

    return render_model


def _deepseek_for_model(model_ids: tuple[str, ...]) -> ChatFormat:
    v3 = any(_DEEPSEEK_V3.search(m) for m in model_ids)

    def render_model(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
        rendered = deepseek.render(request, tokenizer, add_generation_prompt=add_generation_prompt)
        if v3 or rendered.exactness != "exact":
            return rendered
        return dataclasses.replace(rendered, exactness="estimate", reason=(
            "estimate: DeepSeek-V3's template, the only one published as a template; this model (R1, V3.1 or "
            f"later, V4) shares its vocabulary but formats reasoning and tools its own way ({rendered.reason})"))

    return render_model


MODEL_FORMATS: dict[str, Callable[[tuple[str, ...]], ChatFormat]] = {
    "openai": openai.for_model,
    "claude": claude.for_model,
    "qwen": _qwen_for_model,
    "deepseek": _deepseek_for_model,
}


def format_for(family: str, model_ids: tuple[str, ...] = ()) -> ChatFormat | None:
    """The render function of a family for a model (its names, as typed and canonical); None if not built."""
    if family in MODEL_FORMATS:
        return MODEL_FORMATS[family](model_ids)
    return FORMATS.get(family)
