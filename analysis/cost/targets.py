"""The models to price with: references resolved to prices and tokenizer choices, once.

Unlike `prices` (what a model charges) and `analysis.models` (which tokenizer counts for a model
id), this module joins the two for a run: the default models, a model reference to its price
and its tokenizer choice (a tokenizer named in the price file wins; a fallback tokenizer stands
in as a proxy, so every count with it is an estimate, where no rule maps the model), and the lines
that name where prices come from. A model reaches its tokenizer through `analysis.models.resolve`
only, as on every face. The workload estimate and the pricing of logs resolve their
models here; `recount` turns each choice into the model's request counter.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Iterable, Sequence

from ..errors import BadInput, UnknownName
from .defaults import DEFAULT_MODELS
from ..models import ModelSpec, TokenizerChoice, choose, explicit_choice, resolve
from .prices import Price, get_price, price_source
from ..tokenizers import CATALOGUE


SPECIAL_TOKENS_NOTE = "text that looks like special tokens (<|endoftext|>, <|im_start|>) is counted as plain text"


def model_spec(ref: str) -> ModelSpec | None:
    """The resolver's `ModelSpec` of a priced model, None for a model only a price file knows."""
    try:
        return resolve(ref)
    except UnknownName:
        return None


def choice_for(price: Price, ref: str, fallback_tokenizer: str | None) -> TokenizerChoice:
    """The tokenizer that counts for `price`: the price file's, else the resolver's, else the fallback (an estimate)."""
    if price.tokenizer:
        return explicit_choice(price.model, price.tokenizer, price.exactness or "exact",
                               f"tokenizer stated in the price file ({price.source})")
    spec = model_spec(ref)
    choice = choose(spec.rule if spec is not None else None, price.model)
    if choice.exactness == "none" and choice.status == "no tokenizer" and fallback_tokenizer:
        return explicit_choice(price.model, fallback_tokenizer, "estimate",
                               f"{choice.note}; --fallback-tokenizer {fallback_tokenizer} used as a proxy")
    return choice


def check_fallback(fallback_tokenizer: str | None) -> None:
    """Raise UnknownName, with the valid names, for a fallback tokenizer the registry does not know."""
    if fallback_tokenizer is not None and fallback_tokenizer not in CATALOGUE:
        raise UnknownName("tokenizer", fallback_tokenizer, CATALOGUE,
                          message=f"unknown fallback tokenizer {fallback_tokenizer!r}; valid: {', '.join(CATALOGUE)}")


def plan_models(models: Sequence[str] | str | None, *, overrides: Iterable[Price] = (), on: date | datetime | None = None,
                fallback_tokenizer: str | None = None) -> tuple[list[str], date, list[Price], list[TokenizerChoice]]:
    """(model references, price day, prices, tokenizer choices) for `models`, as every cost report resolves them.

    Raises:
        UnknownName: an unknown model or fallback tokenizer.
        BadInput: no models.
    """
    check_fallback(fallback_tokenizer)
    overrides = list(overrides)
    if models is None:
        refs = list(DEFAULT_MODELS) + [o.key for o in overrides]
    elif isinstance(models, str):
        refs = [m.strip() for m in models.split(",") if m.strip()]
    else:
        refs = [m.strip() for m in models if m.strip()]
    refs = list(dict.fromkeys(refs))  # de-duplicated, order kept
    if not refs:
        raise BadInput("no models selected; name some with --models or see `tokenprism models`")
    day = on.date() if isinstance(on, datetime) else (on or datetime.now(UTC).date())
    prices = [get_price(ref, on=on or day, overrides=overrides) for ref in refs]
    choices = [choice_for(p, ref, fallback_tokenizer) for p, ref in zip(prices, refs)]
    return refs, day, prices, choices


def source_line(prices: list[Price]) -> str:
    """Where these prices come from: the package (with its version) and any override files."""
    parts = []
    if any(p.source.startswith("genai-prices") for p in prices):
        parts.append(price_source().describe())
    files = sorted({p.source.split(":", 1)[0] for p in prices if not p.source.startswith("genai-prices")})
    if files:
        parts.append("override file " + ", ".join(files) + " (each row's source and as_of in the table)")
    return "; ".join(parts)
