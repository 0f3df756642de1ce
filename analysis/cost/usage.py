"""One usage value per logged response, each billed part apart, and its price as the provider bills it.

Unlike `bill` (what a target would pay: parts times rates) and `logs` (which reads rows), this module
only turns a provider's `usage` object into what the log billed (a `LoggedBill`) and prices it as
billed, row by row (`billed_sum` sums many rows). Reading and pricing
are genai-prices' own `extract_usage` and `calc_price` (with `price_context` for batch and service
tiers); what is written here is only what the library lacks: which log shape is which provider and
API flavor, and the split of its totals into the parts a report shows (uncached input, cache read,
5-minute and 1-hour cache writes, visible output, reasoning output, media). The library itself is
reached through its one door, `models.genai`.

The providers mean different things by the same names, and genai-prices' `Usage` settles them:
its ``input_tokens`` is the whole prompt (cache reads and writes included, as OpenAI's
``prompt_tokens`` and Gemini's ``promptTokenCount`` are; Anthropic's ``input_tokens`` excludes
both cache buckets and is added up), and its ``output_tokens`` includes ``output_reasoning_tokens``
(Gemini's ``thoughtsTokenCount`` sits beside ``candidatesTokenCount`` and is added).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from collections.abc import Mapping
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import orjson

from ..errors import BadInput
from ..memo import run_caches
from ..models import genai

__all__ = ["SHAPE_PROVIDERS", "InvalidUsage", "LoggedBill", "LoggedBillRow", "as_billed", "price_context", "read_usage"]

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
class LoggedBill:
    """What the log billed for one response, each part apart (tokens): the first of cost's three bill
    nouns, beside `bill.Rates` (the rates) and `logs.whole_bill.TargetBill` (what a target would pay).

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
        return genai.new_usage(input_tokens=self.prompt_tokens, cache_read_tokens=self.cache_read_tokens,
                     cache_write_tokens=self.cache_write_tokens,
                     cache_write_1h_tokens=self.cache_write_1h_tokens,
                     output_tokens=self.billed_output_tokens,
                     output_reasoning_tokens=self.reasoning_tokens or 0)


def _int(usage: Any, key: str) -> int:
    """The usage's value of `key`: as reported, else as genai-prices infers a missing one (0, or its
    error), which depends only on the key and the reported keys that are not zero (kept per pair)."""
    d = genai.usage_values(usage)
    value = d.get(key)
    if value is None:
        absent = (type(usage), key, frozenset(k for k, v in d.items() if v))
        value = run_caches().memo("usage.inferred", 4096).get(absent, lambda: genai.usage_value(usage, key))
    return int(value or 0)


# The most tokens one part of one logged row's usage may say (input, cached, output, reasoning,
# media): a thousand times the largest context window sold. A row beyond it is a "bad usage" row;
# with it, a sum over a log's rows stays far inside an int64 (10^9 rows of 10^9 tokens is 10^18,
# below 9.2 x 10^18), so no usage total can wrap.
MAX_ROW_TOKENS = 10**9


class InvalidUsage(BadInput):
    """A logged usage whose parts contradict each other (genai-prices prices none of it)."""


def _split(usage: Any, *, reasoning_reported: bool) -> LoggedBill:
    """A genai-prices `Usage` as parts. Its totals nest: input ⊇ cache read + writes ⊇ 1h writes."""
    d = genai.usage_values(usage)
    write = _int(usage, "cache_write_tokens")
    write_1h = _int(usage, "cache_write_1h_tokens")
    write_5m = d.get("cache_write_5m_tokens")
    write_5m = int(write_5m) if write_5m is not None else max(write - write_1h, 0)
    read = _int(usage, "cache_read_tokens")
    out = _int(usage, "output_tokens")
    reasoning = d.get("output_reasoning_tokens")
    media = tuple((k, int(v)) for k, v in sorted(d.items())
                  if v and any(m in k for m in ("audio", "image", "video")))
    total_in = _int(usage, "input_tokens")
    parts = {"input": total_in, "cache read": read, "cache write": write_5m + write_1h, "output": out,
             "reasoning": int(reasoning or 0), **dict(media)}
    beyond = next(((k, v) for k, v in parts.items() if v > MAX_ROW_TOKENS), None)
    if beyond is not None:  # no request holds this many: a logger's bug, and sums of such rows could wrap
        raise InvalidUsage(f"its usage says {beyond[1]:,} {beyond[0]} tokens; a row holds from 0 to "
                           f"{MAX_ROW_TOKENS:,}, so no provider bill is computed from it")
    if read + write_5m + write_1h > total_in:  # genai-prices would refuse it, and the uncached input would be negative
        raise InvalidUsage(f"its usage says {read:,} cache-read and {write_5m + write_1h:,} cache-write tokens, more "
                           f"than its {total_in:,} input tokens in all: its parts contradict each other, so no "
                           "provider bill can be computed from it")
    if int(reasoning or 0) > out:
        raise InvalidUsage(f"its usage says {int(reasoning or 0):,} reasoning tokens, more than its {out:,} output "
                           "tokens in all: its parts contradict each other, so no provider bill can be computed from it")
    return LoggedBill(
        input_tokens=max(total_in - read - write_5m - write_1h, 0),
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


def read_usage(value: Mapping[str, Any], shape: str, *, model: str | None = None) -> LoggedBill:
    """A response (or its bare usage object) of log shape `shape` as a `LoggedBill`.

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
    key = _json_key(value)
    if key is None:  # not JSON (a caller's own object): read it without the memo
        return _read_usage(value, shape, model)
    return run_caches().memo("usage.read").get((key, shape, model), lambda: _read_usage(value, shape, model))


def _json_key(value: Any) -> bytes | str | None:
    """The usage's JSON text, which is its value exactly (1, 1.0 and true differ), in the order it
    came: orjson's bytes (fast), or the standard library's text where orjson would write null for a
    value that is not null (NaN, infinities) or cannot write it (an integer beyond 64 bits); None
    for a value that is not JSON."""
    try:
        raw = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        raw = None
    if raw is not None and b"null" not in raw:
        # a copy of exactly its size: orjson's own bytes object keeps about 4 kB however short the
        # text, which a memo of 65,536 keys would hold (tests/analysis/cost/test_usage_read.py)
        return bytes(memoryview(raw))
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError):
        return None


# A month of logs repeats usage objects (the same prompt and reply sizes): each distinct one is read by
# genai-prices once a run (the run's "usage.read" memo). The LoggedBill is frozen, so rows share it.


def _read_usage(value: Mapping[str, Any], shape: str, model: str | None) -> LoggedBill:
    provider, flavor, key = SHAPE_PROVIDERS[shape]
    body = _wrap(value, key, model)
    try:
        extracted = genai.extract(body, provider, flavor)
    except (ValueError, TypeError, KeyError, LookupError) as exc:
        raise BadInput(f"the {shape} usage cannot be read ({exc}); it must be the provider's usage object as "
                       "the API returned it") from None
    usage = body.get(key) or {}
    reported = _reasoning_reported(usage)
    return _split(extracted, reasoning_reported=reported)


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


def as_billed(usage: LoggedBill, model: str, *, provider: str | None = None, when: datetime | None = None,
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
    # each distinct (usage, model, provider, price context, prices in force) is priced by genai-prices
    # once a run; the Decimal it returns is the one every such row adds
    return run_caches().memo("usage.price").get(key, lambda: _calc_price(usage, model, provider, when, ctx))


def _usage_key(usage: LoggedBill) -> tuple[Any, ...]:
    """What genai-prices prices: the `Usage` values as read (or the parts, for a usage built here)."""
    if usage.genai is not None:
        return ("genai", type(usage.genai).__name__, tuple(genai.usage_values(usage.genai).items()))
    return ("parts", usage.prompt_tokens, usage.cache_read_tokens, usage.cache_write_tokens,
            usage.cache_write_1h_tokens, usage.billed_output_tokens, usage.reasoning_tokens or 0)


def _prices_in_force(model: str, provider: str | None, when: datetime | None) -> tuple[bool, ...] | None:
    """Which of the model's dated or timed prices and variants are active at `when`: the only way a
    timestamp changes genai-prices' answer. None when genai-prices has no such model."""
    found = genai.price_constraints(model, provider)
    if found is None:
        return None
    constraints, by_date = found
    if not constraints:
        return ()
    at = when or datetime.now(tz=UTC)
    if not by_date:
        return tuple(c.active(at) for c in constraints)
    # a start date is active or not by the request's UTC date alone (genai-prices' StartDateConstraint,
    # a naive time taken as UTC): the flags are worked out once per day, where a log has a row per second
    key = (model, provider, at.astimezone(UTC).date() if at.tzinfo is not None else at.date())
    return run_caches().memo("usage.prices_by_day", 4096).get(key, lambda: tuple(c.active(at) for c in constraints))


def _calc_price(usage: LoggedBill, model: str, provider: str | None, when: datetime | None,
                ctx: dict[str, str] | None) -> Decimal:
    try:
        calc = genai.calc(usage.to_genai(), model, provider=provider, when=when, context=ctx)
    except LookupError as exc:
        raise BadInput(f"no genai-prices price for model {model!r} ({exc}); list models with "
                       "`tokenprism models SUBSTRING`") from None
    except ValueError as exc:  # its parts do not add up, e.g. more cache reads than input tokens
        if not str(exc).startswith("Invalid usage data"):
            raise
        raise InvalidUsage(f"a logged usage of {model} cannot be billed, as genai-prices refuses it: "
                           f"{str(exc).removeprefix('Invalid usage data: ')}") from None
    return Decimal(calc.total_price)


# one row's `LoggedBill` with what prices it: (logged bill, timestamp, batch, service tier)
LoggedBillRow = tuple[LoggedBill, datetime | None, bool, str | None]
