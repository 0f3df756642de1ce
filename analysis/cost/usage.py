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
from bisect import bisect_left
from dataclasses import dataclass
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from decimal import Decimal, Inexact, Rounded, localcontext
from typing import Any

import orjson

from ..errors import BadInput
from .memo import BoundedMemo, ObjectMemo

__all__ = ["SHAPE_PROVIDERS", "BillPart", "BillUsage", "as_billed", "as_billed_total", "bill_parts", "price_context",
           "read_usage"]

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
    """The usage's value of `key`: as reported, else as genai-prices infers a missing one (0, or its
    error), which depends only on the key and the reported keys that are not zero (kept per pair)."""
    d = usage.__dict__
    value = d.get(key)
    if value is None:
        absent = (type(usage), key, frozenset(k for k, v in d.items() if v))
        value = _INFERRED.get(absent)
        if value is None:
            value = getattr(usage, key, 0)
            if len(_INFERRED) < 4096:
                _INFERRED[absent] = value
    return int(value or 0)


_INFERRED: dict[tuple[Any, str, frozenset[str]], Any] = {}


# The most tokens one part of one logged row's usage may say (input, cached, output, reasoning,
# media): a thousand times the largest context window sold. A row beyond it is a "bad usage" row;
# with it, a sum over a log's rows stays far inside an int64 (10^9 rows of 10^9 tokens is 10^18,
# below 9.2 x 10^18), so no usage total can wrap.
MAX_ROW_TOKENS = 10**9


class InvalidUsage(BadInput):
    """A logged usage whose parts contradict each other (genai-prices prices none of it)."""


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
    return BillUsage(
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
    key = _json_key(value)
    if key is None:  # not JSON (a caller's own object): read it without the memo
        return _read_usage(value, shape, model)
    return READ_MEMO.get((key, shape, model), lambda: _read_usage(value, shape, model))


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


# A month of logs repeats usage objects (the same prompt and reply sizes): each distinct one is
# read by genai-prices once. The BillUsage is frozen, so rows share it.
READ_MEMO: BoundedMemo[BillUsage] = BoundedMemo(1 << 16)


def _read_usage(value: Mapping[str, Any], shape: str, model: str | None) -> BillUsage:
    provider, flavor, key = SHAPE_PROVIDERS[shape]
    from genai_prices import extract_usage

    body = _wrap(value, key, model)
    extracted = _fast_extract(body, provider, flavor)
    if extracted is None:
        try:
            extracted = extract_usage(body, provider_id=provider, api_flavor=flavor).usage
        except (ValueError, TypeError, KeyError, LookupError) as exc:
            raise BadInput(f"the {shape} usage cannot be read ({exc}); it must be the provider's usage object as "
                           "the API returned it") from None
    usage = body.get(key) or {}
    reported = _reasoning_reported(usage)
    return _split(extracted, reasoning_reported=reported)


# A genai-prices extractor is data: a root, and mappings (path -> usage key, summed, required or not).
# `_compiled` reads those of genai-prices' own extractor; `_fast_extract` follows them over plain dicts
# and integers, and leaves anything else (a missing required value, a list step, a float, a bool, an
# error to word) to genai-prices' `extract_usage` itself. Tested equal to it (tests/analysis/cost/test_usage_read.py).
Compiled = tuple[tuple[Any, ...], tuple[tuple[tuple[Any, ...], str, bool], ...]]


@functools.lru_cache(maxsize=64)
def _compiled(provider: str, flavor: str) -> Compiled | None:
    """(root path, ((path, usage key, required), ...)) of genai-prices' extractor, or None where a path is not keys only."""
    from genai_prices.data_snapshot import get_snapshot

    try:
        extractor = next(e for p in get_snapshot().providers if p.id == provider for e in p.extractors or ()
                         if e.api_flavor == flavor)
    except StopIteration:
        return None
    reported = getattr(extractor, "_reported_usage_keys", None)  # the usage keys it fills (others skipped)
    if reported is None:
        return None
    root = (extractor.root,) if isinstance(extractor.root, str) else tuple(extractor.root)
    if not all(isinstance(step, str) for step in root):
        return None
    mappings: list[tuple[tuple[Any, ...], str, bool]] = []
    for m in extractor.mappings:
        if m.dest not in reported:
            continue
        path = (m.path,) if isinstance(m.path, str) else tuple(m.path)
        if not all(isinstance(step, str) for step in root + path):
            # a list step (Gemini's per-modality details): taken only while its first key is absent
            first = next(i for i, step in enumerate(path) if not isinstance(step, str))
            if m.required:
                return None
            path = path[:first] + (None,)  # type: ignore[operator]
        mappings.append((path, m.dest, bool(m.required)))
    return root, tuple(mappings)


def _fast_extract(body: Mapping[str, Any], provider: str, flavor: str) -> Any:
    """genai-prices' `Usage` of `body` by its extractor's mappings, or None to ask genai-prices itself."""
    compiled = _compiled(provider, flavor)
    if compiled is None:
        return None
    root, mappings = compiled
    data: Any = body
    for step in root:
        if type(data) is not dict or step not in data:
            return None
        data = data[step]
    if type(data) is not dict:
        return None
    values: dict[str, int] = {}
    for path, dest, required in mappings:
        node: Any = data
        for step in path[:-1]:
            node = node.get(step, _ABSENT) if type(node) is dict else None
            if node is _ABSENT:
                break
            if type(node) is not dict:
                return None  # None, a list, a number: genai-prices decides
        if node is _ABSENT:
            if required:
                return None
            continue
        last = path[-1]
        if last is None:  # a list step follows a key that is present
            return None
        value = node.get(last, _ABSENT)
        if value is _ABSENT:
            if required:
                return None
            continue
        if type(value) is not int or value < 0:
            return None
        values[dest] = values[dest] + value if dest in values else value
    if mappings and not values:
        return None
    from genai_prices import Usage

    # what `Usage(**values)` stores for validated integers of its own keys, without its per-call checks
    usage = Usage.__new__(Usage)
    usage.__dict__.update(values)
    return usage


_ABSENT = object()


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


@functools.lru_cache(maxsize=256)
def _constraints(model: str, provider: str | None) -> tuple[tuple[Any, ...], bool] | None:
    """(the constraints of the model's dated or timed prices, then of its variants; whether each is a
    start date), or None when genai-prices has no such model."""
    from genai_prices.types import StartDateConstraint

    info = _model_info(model, provider)
    if info is None:
        return None
    prices = info.prices if isinstance(info.prices, list) else ()
    found = tuple(p.constraint for p in prices if p.constraint is not None)
    found += tuple(v.constraint for v in info.price_variants or () if v.constraint is not None)
    return found, all(type(c) is StartDateConstraint for c in found)


def _prices_in_force(model: str, provider: str | None, when: datetime | None) -> tuple[bool, ...] | None:
    """Which of the model's dated or timed prices and variants are active at `when`: the only way a
    timestamp changes genai-prices' answer. None when genai-prices has no such model."""
    found = _constraints(model, provider)
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
    flags = _BY_DAY.get(key)
    if flags is None:
        if len(_BY_DAY) >= 4096:
            _BY_DAY.clear()
        flags = _BY_DAY[key] = tuple(c.active(at) for c in constraints)
    return flags


# (model, provider, UTC date) -> `_prices_in_force` of a model whose constraints are all start dates
_BY_DAY: dict[tuple[str, str | None, Any], tuple[bool, ...]] = {}


def _calc_price(usage: BillUsage, model: str, provider: str | None, when: datetime | None,
                ctx: dict[str, str] | None) -> Decimal:
    import genai_prices

    try:
        calc = genai_prices.calc_price(usage.to_genai(), model, provider_id=provider, genai_request_timestamp=when,
                                       price_context=ctx)
    except LookupError as exc:
        raise BadInput(f"no genai-prices price for model {model!r} ({exc}); list models with "
                       "`tokenprism models SUBSTRING`") from None
    except ValueError as exc:  # its parts do not add up, e.g. more cache reads than input tokens
        if not str(exc).startswith("Invalid usage data"):
            raise
        raise InvalidUsage(f"a logged usage of {model} cannot be billed, as genai-prices refuses it: "
                           f"{str(exc).removeprefix('Invalid usage data: ')}") from None
    return Decimal(calc.total_price)



# -- the bill of many rows: genai-prices' price of sums, where it is the sum of the prices ---------------
# genai-prices prices a usage as a sum over its priced units of rate x (leaf tokens) / per, plus a
# fixed amount per request; the leaves are the reported values less their priced descendants (input
# less cache reads and writes, output less reasoning), and the rate is chosen by the prices in force
# at the timestamp, the batch/service-tier context and, for tiered prices, the request's input
# tokens. So over rows that share those (and report the same keys), the price of the summed usage
# plus the per-request amount for each further row is the sum of the rows' prices, exactly, as long
# as Decimal rounds nothing (checked: any rounding falls back to pricing row by row). The usage keys
# below are the ones whose nesting is checked per row (a row whose descendants exceed their parent,
# which genai-prices refuses, is priced on its own, so it fails as it would).
_LINEAR_KEYS = frozenset({"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
                          "cache_write_5m_tokens", "cache_write_1h_tokens", "output_reasoning_tokens"})
BilledRow = tuple[BillUsage, datetime | None, bool, str | None]  # usage, timestamp, batch, service tier


def _linear_form(usage: BillUsage) -> tuple[tuple[str, ...], tuple[int, ...], int] | None:
    """(reported keys, their values, input tokens) of a usage whose price is linear in it, else None."""
    values = usage.to_genai().__dict__
    if not values.keys() <= _LINEAR_KEYS or any(type(v) is not int or v < 0 for v in values.values()):
        return None
    get = values.get
    inp, read, write = get("input_tokens"), get("cache_read_tokens", 0), get("cache_write_tokens")
    w5, w1, out, why = get("cache_write_5m_tokens", 0), get("cache_write_1h_tokens", 0), get("output_tokens"), \
        get("output_reasoning_tokens", 0)
    if (w5 or w1) and write is None or write is not None and write < w5 + w1:
        return None
    if (read or write) and inp is None or inp is not None and inp < read + (write or 0):
        return None
    if why and out is None or out is not None and out < why:
        return None
    keys = tuple(sorted(values))
    return keys, tuple(values[k] for k in keys), inp or 0


def _kept_linear_form(usage: BillUsage) -> tuple[tuple[str, ...], tuple[int, ...], int] | None:
    """`_linear_form(usage)`, kept for the usage object: `read_usage` gives the rows of one usage
    the same object, so a usage that recurs in later chunks is not taken apart again."""
    return _FORMS.get(usage, _linear_form)


_FORMS: ObjectMemo[BillUsage, tuple[tuple[str, ...], tuple[int, ...], int] | None] = ObjectMemo(1 << 16)


@functools.lru_cache(maxsize=256)
def _tier_starts(model: str, provider: str | None) -> tuple[int, ...] | None:
    """Every tier start of the model's tiered prices (any period, any variant); None when a per-request
    price is tiered (a fixed amount per row this module cannot take apart) or genai-prices lacks the model."""
    from genai_prices.types import TieredPrices

    info = _model_info(model, provider)
    if info is None:
        return None
    prices = info.prices if isinstance(info.prices, list) else [info.prices]
    tables = [getattr(p, "prices", p) for p in prices] + [v.prices for v in info.price_variants or ()]
    starts: set[int] = set()
    for table in tables:
        for key, value in table.__dict__.items():
            if isinstance(value, TieredPrices):
                if "request" in key:
                    return None
                starts.update(t.start for t in value.tiers)
    return tuple(sorted(starts))


def as_billed_total(rows: Iterable[BilledRow], model: str, *, provider: str | None = None) -> tuple[Decimal, int]:
    """(the sum of `as_billed` over `rows`, rows it could not price): what the provider billed for them all.

    Rows that share the prices in force, the batch/service-tier context, the price tier of their
    input and the reported usage keys are priced once as their sum (see `_LINEAR_KEYS` above); the
    others one by one. The total equals the sum row by row to the last decimal. A row genai-prices
    refuses (`InvalidUsage`; `read_usage` already refuses a usage whose parts contradict each other)
    or has no price for is counted among the rows not priced.
    """
    starts = _tier_starts(model, provider)
    forms: dict[int, tuple[tuple[str, ...], tuple[int, ...], int] | None] = {}
    groups: dict[tuple[Any, ...], list[Any]] = {}
    singles: list[BilledRow] = []
    for row in rows:
        usage, when, batch, tier = row
        if id(usage) in forms:
            form = forms[id(usage)]
        else:
            form = forms[id(usage)] = _kept_linear_form(usage) if starts is not None else None
        flags = _prices_in_force(model, provider, when) if form is not None else None
        if form is None or flags is None:
            singles.append(row)
            continue
        assert starts is not None  # by `form`
        keys, values, inp = form
        key = (keys, batch, tier, flags, bisect_left(starts, inp))  # the tier starts below the input
        group = groups.get(key)
        if group is None:
            groups[key] = [row]
        else:
            group.append(row)
    total, unpriced = Decimal(0), 0
    ceilings = starts or ()
    for (keys, batch, tier, flags, bucket), members in groups.items():
        for pack in _packs(members, forms, ceilings[bucket] if bucket < len(ceilings) else None):
            summed = dict(zip(keys, map(sum, zip(*(_form(forms, u)[1] for u, _, _, _ in pack)))))
            price = _group_price(summed, pack, forms, model, provider, batch, tier, flags)
            if price is None:  # Decimal would round, or a price this module cannot follow: row by row
                singles.extend(pack)
            else:
                total += price
    for usage, when, batch, tier in singles:
        try:
            total += as_billed(usage, model, provider=provider, when=when, batch=batch, service_tier=tier)
        except BadInput:
            unpriced += 1
    return total, unpriced


def _form(forms: Mapping[int, Any], usage: BillUsage) -> tuple[tuple[str, ...], tuple[int, ...], int]:
    form = forms[id(usage)]
    assert form is not None  # a grouped row's
    return form


def _packs(members: list[BilledRow], forms: Mapping[int, Any], ceiling: int | None) -> list[list[BilledRow]]:
    """The rows in runs whose summed input stays at most `ceiling` (the next tier start: genai-prices
    picks a tiered rate by the input of the usage it prices, so a sum must stay in its rows' tier)."""
    if ceiling is None:
        return [members]
    packs: list[list[BilledRow]] = []
    run: list[BilledRow] = []
    room = 0
    for row in members:
        inp = forms[id(row[0])][2]
        if run and room + inp > ceiling:
            packs.append(run)
            run, room = [], 0
        run.append(row)
        room += inp
    if run:
        packs.append(run)
    return packs


# genai-prices' price key -> the usage key it prices, for the keys a linear usage reports ("requests":
# one per row). A price key not named here prices a usage key such a usage does not report (0 tokens).
_PRICE_KEYS = {"input_mtok": "input_tokens", "output_mtok": "output_tokens", "cache_read_mtok": "cache_read_tokens",
               "cache_write_mtok": "cache_write_tokens", "cache_write_5m_mtok": "cache_write_5m_tokens",
               "cache_write_1h_mtok": "cache_write_1h_tokens", "output_reasoning_mtok": "output_reasoning_tokens",
               "requests_kcount": "requests"}
# a usage key's priced descendants among those (genai-prices subtracts their leaves from its value)
_DESCENDANTS = {"input_tokens": ("cache_read_tokens", "cache_write_tokens", "cache_write_5m_tokens",
                                 "cache_write_1h_tokens"),
                "cache_write_tokens": ("cache_write_5m_tokens", "cache_write_1h_tokens"),
                "output_tokens": ("output_reasoning_tokens",)}


def _v(n: int, p: int) -> int:
    """How many times the prime `p` divides `n` > 0."""
    k = 0
    while n % p == 0:
        n //= p
        k += 1
    return k


def _exponent(values: Mapping[str, int], rates: list[tuple[str | None, int, int, int, int, int]]) -> int:
    """The Decimal exponent of genai-prices' price of one row (its digits after the point, negated).

    genai-prices adds, per priced unit, rate x leaf / per, from Decimal(0); each quotient is exact, so
    its exponent is the ideal one (the rate's) or, when the value needs more places, the value's own;
    a sum takes the smallest exponent. `rates` are (usage key, rate exponent, the rate's coefficient
    without trailing zeros, its exponent, 2s and 5s in that coefficient... see `_rate_table`)."""
    leaves: dict[str, int] = {}
    exp = 0
    for key, e_rate, e_c, twos, fives, e_per in rates:  # deepest units first, as genai-prices decomposes
        if key is None:
            leaf = 0
        elif key == "requests":
            leaf = 1
        else:
            leaf = values.get(key, 0) - sum(leaves.get(d, 0) for d in _DESCENDANTS.get(key, ()))
            leaves[key] = leaf
        if leaf:
            e = min(e_rate, e_c - e_per + min(twos + _v(leaf, 2), fives + _v(leaf, 5)))
        else:
            e = e_rate
        exp = min(exp, e)
    return exp


def _exponent_floor(rates: list[tuple[str | None, int, int, int, int, int]], reported: Iterable[str]) -> int:
    """The smallest `_exponent` a linear usage reporting the keys `reported` can have under `rates`:
    each unit's term with a leaf that neither 2 nor 5 divides (more factors of 2 or 5 in the leaf only
    raise it), where a key not reported has a leaf of 0 (`_linear_form`: nor do its descendants), and 0.

    >>> _exponent_floor([("input_tokens", -2, -1, 0, 2, 6)], ["input_tokens"])  # $2.50 per million tokens
    -7
    """
    keys = set(reported) | {"requests"}
    return min([0] + [min(e_rate, e_c - e_per + min(twos, fives)) if key in keys else e_rate
                      for key, e_rate, e_c, twos, fives, e_per in rates])


def _rate_table(model_price: Any, input_tokens: int) -> list[tuple[str | None, int, int, int, int, int]] | None:
    """Per priced unit of genai-prices' resolved `ModelPrice`: (usage key or None, the rate's exponent, its
    coefficient's stripped exponent, 2s and 5s of that coefficient, log10 of the unit's `per`), deepest
    first; None for a price this module does not follow (a `per` that is not a power of ten)."""
    from genai_prices.types import TieredPrices

    rows = []
    for price_key, value in model_price.__dict__.items():
        if value is None or price_key.startswith("_"):
            continue
        if isinstance(value, TieredPrices):
            rate = value.base
            for t in reversed(value.tiers):
                if input_tokens > t.start:
                    rate = t.price
                    break
        else:
            rate = value
        if not isinstance(rate, Decimal) or not rate.is_finite():
            return None
        usage_key = _PRICE_KEYS.get(price_key)
        per = {"mtok": 6, "kcount": 3}.get(price_key.rsplit("_", 1)[-1]) if usage_key else 0
        if per is None:
            return None
        sign, digits, e_rate = rate.as_tuple()
        assert isinstance(e_rate, int)
        c = int("".join(map(str, digits)) or "0")
        stripped = rate.normalize().as_tuple().exponent if c else e_rate
        assert isinstance(stripped, int)
        c_stripped = c // 10 ** (stripped - e_rate) if c else 0
        rows.append((usage_key, e_rate, stripped, _v(c_stripped, 2) if c else 0, _v(c_stripped, 5) if c else 0, per))
    depth = {"cache_write_5m_tokens": 0, "cache_write_1h_tokens": 0, "cache_write_tokens": 1, "cache_read_tokens": 1,
             "output_reasoning_tokens": 1, "input_tokens": 2, "output_tokens": 2}
    rows.sort(key=lambda r: depth.get(r[0] or "", -1))
    return rows


def _group_price(values: dict[str, int], members: list[BilledRow], forms: Mapping[int, Any], model: str,
                 provider: str | None, batch: bool, tier: str | None, flags: tuple[bool, ...]) -> Decimal | None:
    """genai-prices' price of the rows `members`, summed to `values`: the price of the sum, plus the fixed
    amount of a request (the price of a usage of no tokens) for each row after the first, written with
    the places the sum row by row has; None if Decimal would round."""
    import genai_prices
    from genai_prices import Usage

    ctx = price_context(batch=batch, service_tier=tier)
    first = members[0]
    n = len(members)
    with localcontext() as dec:
        dec.traps[Inexact] = dec.traps[Rounded] = True
        try:
            calc = genai_prices.calc_price(Usage(**values), model, provider_id=provider,
                                           genai_request_timestamp=first[1], price_context=ctx)
            price = Decimal(calc.total_price)
            if n > 1:
                key = (model, provider, batch, tier, flags)
                fixed = _FIXED.get(key)
                if fixed is None:
                    fixed = _FIXED[key] = _calc_price(BillUsage(0, genai=Usage()), model, provider, first[1], ctx)
                price += fixed * (n - 1)
            rates = _rate_table(calc.model_price, forms[id(first[0])][2])
            if rates is None:
                return None
            # the places of the sum row by row: the most any row needs, never more than `floor`
            # (`_exponent_floor`), so once a row needs that many the others are not looked at
            floor = _exponent_floor(rates, values)
            places, seen = 0, set()
            for usage, _, _, _ in members:
                if id(usage) not in seen:
                    seen.add(id(usage))
                    keys, vals, _ = forms[id(usage)]
                    places = min(places, _exponent(dict(zip(keys, vals)), rates))
                    if places <= floor:
                        break
            exact = price.quantize(Decimal(1).scaleb(places))
        except (Inexact, Rounded, LookupError):
            return None
    return exact if exact == price else None


# (model, provider, batch, tier, prices in force) -> the price of a request of no tokens
_FIXED: dict[tuple[Any, ...], Decimal] = {}


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
