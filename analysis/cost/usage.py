"""One usage value per logged response, each billed part apart, and its price as the provider bills it.

Unlike `arithmetic` (which multiplies our own counts by prices) and `logs` (which reads rows), this
module only turns a provider's `usage` object into a `BillUsage` and prices it. Reading and pricing
are genai-prices' own `extract_usage` and `calc_price` (with `price_context` for batch and service
tiers); what is written here is only what the library lacks: which log shape is which provider and
API flavor, the split of its totals into the parts a report shows (uncached input, cache read,
5-minute and 1-hour cache writes, visible output, reasoning output, media), and a part-by-part list.

The providers mean different things by the same names, and genai-prices' `Usage` settles them:
its ``input_tokens`` is the whole prompt (cache reads and writes included, as OpenAI's
``prompt_tokens`` and Gemini's ``promptTokenCount`` are; Anthropic's ``input_tokens`` excludes
both cache buckets and is added up), and its ``output_tokens`` includes ``output_reasoning_tokens``
(Gemini's ``thoughtsTokenCount`` sits beside ``candidatesTokenCount`` and is added).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Mapping

from ..errors import BadInput
from .memo import BoundedMemo

__all__ = ["SHAPE_PROVIDERS", "BillPart", "BillUsage", "as_billed", "bill_parts", "price_context", "read_usage"]

# Log shape -> (genai-prices provider id, api_flavor, key of the usage object in a response).
SHAPE_PROVIDERS: dict[str, tuple[str, str, str]] = {
    "openai-chat": ("openai", "chat", "usage"),
    "openai-batch": ("openai", "chat", "usage"),
    "openai-responses": ("openai", "responses", "usage"),
    "anthropic": ("anthropic", "default", "usage"),
    "gemini": ("google", "default", "usageMetadata"),
    "openrouter": ("openrouter", "chat", "usage"),
}

SERVICE_TIERS = ("default", "flex", "priority")


@dataclass(frozen=True, slots=True)
class BillUsage:
    """What one response was billed for, each part apart (tokens).

    Attributes:
        input_tokens: input billed at the full input price (uncached; media included).
        cache_read_tokens: input read from the prompt cache.
        cache_write_5m_tokens / cache_write_1h_tokens: input written to the cache for 5 minutes
            (Anthropic's default, and OpenAI/Gemini never bill writes) or for 1 hour.
        output_tokens: visible output (the text and tool calls the response shows).
        reasoning_tokens: output spent on reasoning, billed as output; None when the usage does
            not say (which is not the same as zero on a model that reasons).
        media: (genai-prices usage key, tokens) of audio/image parts the usage reports apart.
        genai: the genai-prices `Usage` the parts come from, priced as is by `as_billed`.
    """

    input_tokens: int
    cache_read_tokens: int = 0
    cache_write_5m_tokens: int = 0
    cache_write_1h_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int | None = None
    media: tuple[tuple[str, int], ...] = ()
    genai: Any = None

    @property
    def cache_write_tokens(self) -> int:
        return self.cache_write_5m_tokens + self.cache_write_1h_tokens

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt: uncached + cache read + cache writes (OpenAI's `prompt_tokens`)."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens

    @property
    def billed_output_tokens(self) -> int:
        return self.output_tokens + (self.reasoning_tokens or 0)

    def to_genai(self) -> Any:
        """The genai-prices `Usage` of these parts (the one read, when there is one)."""
        if self.genai is not None:
            return self.genai
        from genai_prices import Usage

        return Usage(input_tokens=self.prompt_tokens, cache_read_tokens=self.cache_read_tokens,
                     cache_write_tokens=self.cache_write_tokens,
                     cache_write_1h_tokens=self.cache_write_1h_tokens,
                     output_tokens=self.billed_output_tokens,
                     output_reasoning_tokens=self.reasoning_tokens or 0)


def _int(usage: Any, key: str) -> int:
    value = getattr(usage, key, 0)
    return int(value or 0)


def _split(usage: Any, *, reasoning_reported: bool) -> BillUsage:
    """A genai-prices `Usage` as parts. Its totals nest: input ⊇ cache read + writes ⊇ 1h writes."""
    d = usage.__dict__
    write = _int(usage, "cache_write_tokens")
    write_1h = _int(usage, "cache_write_1h_tokens")
    write_5m = d.get("cache_write_5m_tokens")
    write_5m = int(write_5m) if write_5m is not None else max(write - write_1h, 0)
    read = _int(usage, "cache_read_tokens")
    out = _int(usage, "output_tokens")
    reasoning = d.get("output_reasoning_tokens")
    media = tuple((k, int(v)) for k, v in sorted(d.items())
                  if v and any(m in k for m in ("audio", "image", "video")))
    return BillUsage(
        input_tokens=max(_int(usage, "input_tokens") - read - write_5m - write_1h, 0),
        cache_read_tokens=read, cache_write_5m_tokens=write_5m, cache_write_1h_tokens=write_1h,
        output_tokens=out - int(reasoning or 0),
        reasoning_tokens=int(reasoning) if reasoning is not None and (reasoning_reported or reasoning) else None,
        media=media, genai=usage)


def _wrap(value: Mapping[str, Any], key: str, model: str | None) -> dict[str, Any]:
    if key in value or "usage" in value or "usageMetadata" in value:
        body = dict(value)
    else:  # a bare usage object, as a logger stores it
        body = {key: dict(value)}
    if model and "model" not in body and "modelVersion" not in body:
        body["model"] = model
    return body


def read_usage(value: Mapping[str, Any], shape: str, *, model: str | None = None) -> BillUsage:
    """A response (or its bare usage object) of log shape `shape` as a `BillUsage`.

    Args:
        value: the response JSON, or its ``usage`` / ``usageMetadata`` object alone.
        shape: a key of `SHAPE_PROVIDERS` ("openai-chat", "openai-responses", "anthropic", "gemini"...).
        model: the serving model, when the response does not name it (not needed to read).

    Raises:
        BadInput: an unknown shape, or usage genai-prices cannot read (named, with the fix).

    >>> u = read_usage({"prompt_tokens": 1200, "completion_tokens": 900,
    ...                 "prompt_tokens_details": {"cached_tokens": 1024},
    ...                 "completion_tokens_details": {"reasoning_tokens": 850}}, "openai-chat")
    >>> (u.input_tokens, u.cache_read_tokens, u.output_tokens, u.reasoning_tokens)
    (176, 1024, 50, 850)
    """
    if shape not in SHAPE_PROVIDERS:
        raise BadInput(f"no usage reader for log shape {shape!r}; known: {', '.join(SHAPE_PROVIDERS)}")
    try:
        # the usage's JSON text is its value exactly (1, 1.0 and true differ), in the order it came
        text = json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):  # not JSON (a caller's own object): read it without the memo
        return _read_usage(value, shape, model)
    return READ_MEMO.get((text, shape, model), lambda: _read_usage(value, shape, model))


# A month of logs repeats usage objects (the same prompt and reply sizes): each distinct one is
# read by genai-prices once. The BillUsage is frozen, so rows share it.
READ_MEMO: BoundedMemo[BillUsage] = BoundedMemo(1 << 16)


def _read_usage(value: Mapping[str, Any], shape: str, model: str | None) -> BillUsage:
    provider, flavor, key = SHAPE_PROVIDERS[shape]
    from genai_prices import extract_usage

    body = _wrap(value, key, model)
    try:
        extracted = extract_usage(body, provider_id=provider, api_flavor=flavor)
    except (ValueError, TypeError, KeyError, LookupError) as exc:
        raise BadInput(f"the {shape} usage cannot be read ({exc}); it must be the provider's usage object as "
                       "the API returned it") from None
    usage = body.get(key) or {}
    reported = _reasoning_reported(usage)
    return _split(extracted.usage, reasoning_reported=reported)


def _reasoning_reported(usage: Any) -> bool:
    if not isinstance(usage, Mapping):
        return False
    for details in ("completion_tokens_details", "output_tokens_details"):
        if isinstance(usage.get(details), Mapping) and "reasoning_tokens" in usage[details]:
            return True
    return "thoughtsTokenCount" in usage or "reasoning_tokens" in usage


def price_context(*, batch: bool = False, service_tier: str | None = None) -> dict[str, str] | None:
    """genai-prices' `price_context` for a Batch line and/or a service tier (None: standard prices).

    >>> price_context(batch=True, service_tier="flex")
    {'processing': 'batch', 'service_tier': 'flex'}
    """
    ctx: dict[str, str] = {}
    if batch:
        ctx["processing"] = "batch"
    if service_tier:
        ctx["service_tier"] = service_tier
    return ctx or None


def as_billed(usage: BillUsage, model: str, *, provider: str | None = None, when: datetime | None = None,
              batch: bool = False, service_tier: str | None = None) -> Decimal:
    """What the provider billed for `usage` on `model`: genai-prices' `calc_price`, to the last decimal.

    `when` is the request's timestamp (prices in force then; None: now). `batch` and `service_tier`
    select genai-prices' price variants; a model without such a variant keeps its standard price.

    Raises:
        BadInput: a model genai-prices has no price for.
    """
    ctx = price_context(batch=batch, service_tier=service_tier)
    key = (_usage_key(usage), model, provider, None if ctx is None else tuple(ctx.items()),
           _prices_in_force(model, provider, when))
    if key[-1] is None:  # genai-prices does not know the model: its own call says so
        return _calc_price(usage, model, provider, when, ctx)
    return PRICE_MEMO.get(key, lambda: _calc_price(usage, model, provider, when, ctx))


# Each distinct (usage, model, provider, price context, prices in force) is priced by genai-prices
# once; the Decimal it returns is the one every such row adds.
PRICE_MEMO: BoundedMemo[Decimal] = BoundedMemo(1 << 16)


def _usage_key(usage: BillUsage) -> tuple[Any, ...]:
    """What genai-prices prices: the `Usage` values as read (or the parts, for a usage built here)."""
    if usage.genai is not None:
        return ("genai", type(usage.genai).__name__, tuple(usage.genai.__dict__.items()))
    return ("parts", usage.prompt_tokens, usage.cache_read_tokens, usage.cache_write_tokens,
            usage.cache_write_1h_tokens, usage.billed_output_tokens, usage.reasoning_tokens or 0)


@functools.lru_cache(maxsize=256)
def _model_info(model: str, provider: str | None) -> Any:
    """genai-prices' model entry for `model` (None when it has none), found as `calc_price` finds it."""
    from genai_prices.data_snapshot import get_snapshot

    try:
        return get_snapshot().find_provider_model(model, None, provider, None)[1]
    except LookupError:
        return None


def _prices_in_force(model: str, provider: str | None, when: datetime | None) -> tuple[bool, ...] | None:
    """Which of the model's dated or timed prices and variants are active at `when`: the only way a
    timestamp changes genai-prices' answer. None when genai-prices has no such model."""
    info = _model_info(model, provider)
    if info is None:
        return None
    at = when or datetime.now(tz=UTC)
    prices = info.prices if isinstance(info.prices, list) else ()
    flags = [p.constraint.active(at) for p in prices if p.constraint is not None]
    flags += [v.constraint.active(at) for v in info.price_variants or () if v.constraint is not None]
    return tuple(flags)


def _calc_price(usage: BillUsage, model: str, provider: str | None, when: datetime | None,
                ctx: dict[str, str] | None) -> Decimal:
    import genai_prices

    try:
        calc = genai_prices.calc_price(usage.to_genai(), model, provider_id=provider, genai_request_timestamp=when,
                                       price_context=ctx)
    except LookupError as exc:
        raise BadInput(f"no genai-prices price for model {model!r} ({exc}); list models with "
                       "`tokenprism models SUBSTRING`") from None
    return Decimal(calc.total_price)


@dataclass(frozen=True, slots=True)
class BillPart:
    """One billed part of a row: its tokens, rate ($ per million), USD and how exact it is."""

    name: str
    tokens: int
    usd_per_mtok: Decimal | None
    usd: Decimal
    exactness: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "tokens": self.tokens,
                "usd_per_mtok": None if self.usd_per_mtok is None else str(self.usd_per_mtok),
                "usd": str(self.usd), "exactness": self.exactness}


# Part name -> (BillUsage attribute, genai-prices ModelPrice keys tried in order).
_PART_RATES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("input", "input_tokens", ("input_mtok",)),
    ("cache read", "cache_read_tokens", ("cache_read_mtok", "input_mtok")),
    ("cache write 5m", "cache_write_5m_tokens", ("cache_write_mtok", "input_mtok")),
    ("cache write 1h", "cache_write_1h_tokens", ("cache_write_1h_mtok", "cache_write_mtok", "input_mtok")),
    ("output", "output_tokens", ("output_mtok",)),
    ("reasoning", "reasoning_tokens", ("output_reasoning_mtok", "output_mtok")),
)


def _rate_at(value: Any, prompt_tokens: int) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, Decimal):
        return value
    rate = value.base
    for tier in value.tiers:
        if prompt_tokens > tier.start:
            rate = tier.price
    return Decimal(rate)


def bill_parts(usage: BillUsage, model_price: Any, *, exactness: Mapping[str, str] | None = None) -> list[BillPart]:
    """The parts of `usage` at genai-prices' `ModelPrice` (tiered by the request's prompt size).

    `exactness` names each part's exactness ("as billed", "recount", "simulated cache: estimate",
    "reasoning not included"...); "as billed" by default. Parts with no tokens are left out, except
    reasoning when its exactness says it is not included.
    """
    exactness = exactness or {}
    out: list[BillPart] = []
    for name, attr, keys in _PART_RATES:
        tokens = getattr(usage, attr)
        label = exactness.get(name, "as billed")
        if not tokens and not (name == "reasoning" and "not included" in label):
            continue
        rate = next((r for k in keys if (r := _rate_at(getattr(model_price, k, None), usage.prompt_tokens)) is not None),
                    None)
        usd = Decimal(0) if rate is None else rate * (tokens or 0) / 1_000_000
        out.append(BillPart(name, tokens or 0, rate, usd, label))
    return out
