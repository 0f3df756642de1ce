"""Prices per million tokens: from the maintained `genai-prices` package, or the user's override file.

Unlike `cost.bill` (which multiplies token counts by rates) and `analysis.models` (which picks
the tokenizer), this module only answers "what does model X charge per token on day D, and who says so".
Nothing here holds a price table: prices come from `genai-prices` (through its one door, `genai`,
which imports it only when a price is asked for; it works offline from its bundled data) or from a CSV/TOML file the user
passes with ``--prices`` (read and validated by `overrides`). Money is `Decimal` throughout.

Two rules of the price data are handled explicitly, and every report says so:

* tiers ("above 200k input tokens the whole request pays more"): a `Rate` keeps its tiers and
  the cost step applies the tier that the *input tokens of each request* reach;
* time-of-day prices (DeepSeek's peak/off-peak hours): for a date, the highest price of that
  day is used, so a monthly budget is never understated; the lowest is named in a note.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any, Iterable

from ...models import genai
from .records import Price, PriceSource, Rate
from ...errors import BadInput, UnknownName, check_name, closest, shown

_NOON = time(12, 0, tzinfo=UTC)


_version = genai.version
_snapshot = genai.snapshot  # loaded on first use, never at import: `import analysis` must not load 1.6 MB of prices


def price_source() -> PriceSource:
    """Name and version of the price data in use.

    >>> price_source().package
    'genai-prices'
    """
    snap = _snapshot()
    dates = [c.constraint.start_date for p in snap.providers for m in p.models if isinstance(m.prices, list)
             for c in m.prices if hasattr(getattr(c, "constraint", None), "start_date")]
    return PriceSource("genai-prices", _version(), max(dates, default=None), bool(snap.from_auto_update))


def _rate(value: Any) -> Rate | None:
    if value is None:
        return None
    if isinstance(value, Decimal):
        return Rate(value)
    # genai-prices' TieredPrices: a base and tiers sorted by start
    return Rate(value.base, tuple((int(t.start), t.price) for t in value.tiers))


def _to_price(mp: Any, provider: Any, info: Any, *, day: date, notes: list[str], since: date | None,
              source: str, time_of_day: bool, next_change: date | None) -> Price:
    requests = getattr(mp, "requests_kcount", None)
    return Price(
        provider=provider.id, model=info.id, input=_rate(getattr(mp, "input_mtok", None)),
        output=_rate(getattr(mp, "output_mtok", None)), cached_input=_rate(getattr(mp, "cache_read_mtok", None)),
        cache_write=_rate(getattr(mp, "cache_write_mtok", None)),
        per_request=requests / 1000 if requests is not None else None,
        source=source, as_of=day, since=since, name=info.name or "", notes=tuple(notes),
        deprecated=bool(info.deprecated), time_of_day=time_of_day, next_change=next_change)


def _moments(info: Any) -> list[time]:
    """Instants that sample every time-of-day window of a model's price list (noon if none)."""
    bounds = {_NOON}
    for cond in info.prices if isinstance(info.prices, list) else ():
        c = cond.constraint
        if c is not None and hasattr(c, "start_time"):
            bounds.add(c.start_time if c.start_time.tzinfo else c.start_time.replace(tzinfo=UTC))
            bounds.add(c.end_time if c.end_time.tzinfo else c.end_time.replace(tzinfo=UTC))
    return sorted(bounds, key=lambda t: (t.hour, t.minute, t.second))


def _weight(mp: Any) -> Decimal:
    def base(v: Any) -> Decimal:
        return Decimal(0) if v is None else v if isinstance(v, Decimal) else v.base
    return base(getattr(mp, "input_mtok", None)) + base(getattr(mp, "output_mtok", None))


def _dated(info: Any) -> list[tuple[date, Any]]:
    out = []
    for cond in info.prices if isinstance(info.prices, list) else ():
        if hasattr(cond.constraint, "start_date"):
            out.append((cond.constraint.start_date, cond.prices))
    return out


def _fmt_pair(mp: Any) -> str:
    def b(v: Any) -> str:
        return "n/a" if v is None else str(v if isinstance(v, Decimal) else v.base)
    return f"${b(getattr(mp, 'input_mtok', None))} in / ${b(getattr(mp, 'output_mtok', None))} out per Mtok"


def price_from_info(info: Any, provider: Any, *, on: date | datetime | None = None) -> Price:
    """A `Price` from genai-prices' ModelInfo and Provider, in force on `on` (default: today, UTC).

    A `datetime` picks that instant. A `date` covers the whole day: for a model priced by time
    of day, the highest price of the day is used and the lowest is named in a note.
    """
    source = f"genai-prices {_version()}"
    if isinstance(on, datetime):
        stamp = on if on.tzinfo else on.replace(tzinfo=UTC)
        candidates = [info.get_prices(stamp)]
        day = stamp.date()
    else:
        day = on or datetime.now(UTC).date()
        candidates = [info.get_prices(datetime.combine(day, t)) for t in _moments(info)]
    notes: list[str] = []
    chosen = max(candidates, key=_weight)
    if any(_weight(c) != _weight(chosen) for c in candidates):
        low = min(candidates, key=_weight)
        notes.append(f"priced by time of day (UTC): the day's highest price is used ({_fmt_pair(chosen)}); "
                     f"off-peak {_fmt_pair(low)}")
    dated = _dated(info)
    since = next((d for d, p in dated if p is chosen), None)
    upcoming = sorted((d, p) for d, p in dated if d > day)
    if upcoming:
        d, p = upcoming[0]
        notes.append(f"price changes on {d} to {_fmt_pair(p)}")
    tiered = [(kind, r) for kind in ("input", "cache_read", "output")
              if (r := _rate(getattr(chosen, f"{kind}_mtok", None))) is not None and r.tiers]
    if tiered:
        steps = ", ".join(f"{kind.replace('_', ' ')} ${r.base} -> " + " -> ".join(f"${p}" for _, p in r.tiers)
                          for kind, r in tiered)
        starts = sorted({s for _, r in tiered for s, _ in r.tiers})
        notes.append(f"tiered per Mtok: {steps} once a request has more than "
                     f"{' / '.join(f'{s:,}' for s in starts)} input tokens (the whole request pays the tier price)")
    return _to_price(chosen, provider, info, day=day, notes=notes, since=since, source=source,
                     time_of_day=any(_weight(c) != _weight(chosen) for c in candidates),
                     next_change=upcoming[0][0] if upcoming else None)


# -- finding a model -------------------------------------------------------------------------
def _providers() -> list[Any]:
    return list(_snapshot().providers)


def split_ref(ref: str, provider_ids: Iterable[str] = ()) -> tuple[str | None, str]:
    """ "provider:model" -> (provider, model) when the prefix is a known provider, else (None, ref).

    >>> split_ref("groq:llama-3.3-70b-versatile", ["groq"])
    ('groq', 'llama-3.3-70b-versatile')
    >>> split_ref("ft:gpt-4o", ["openai"])
    (None, 'ft:gpt-4o')
    """
    head, sep, tail = ref.partition(":")
    if sep and tail and head.lower() in {p.lower() for p in provider_ids}:
        return head.lower(), tail
    return None, ref


def model_names(overrides: Iterable[Price] = ()) -> list[str]:
    """Every "provider:model" the overrides and the price data know: overrides first, then the
    model makers' own APIs, then hosts and resellers (the order suggestions prefer)."""
    providers = sorted(_providers(), key=lambda p: p.model_match is None)  # stable: data order within
    return [o.key for o in overrides] + [f"{p.id}:{m.id}" for p in providers for m in p.models]


def _suggest(ref: str, overrides: Iterable[Price]) -> str:
    names = model_names(overrides)
    by_model: dict[str, str] = {}
    for n in names:
        by_model.setdefault(n.split(":", 1)[-1].lower() if ":" in n else n.lower(), n)
    close = closest(ref.lower(), by_model, n=5)
    return ", ".join(by_model[c] for c in close)


def unknown_model_error(ref: str, overrides: Iterable[Price] = ()) -> UnknownName:
    close = _suggest(ref, overrides)
    hint = f" Closest names: {close}." if close else ""
    return UnknownName("model", ref, message=(
        f"unknown model {shown(ref)}: genai-prices {_version()} has no price for it"
        f"{' and neither has the --prices file' if overrides else ''}.{hint} "
        "List models with `tokenprism models SUBSTRING`; add your own with --prices FILE."))


def find_model(ref: str, *, overrides: Iterable[Price] = ()) -> tuple[Any, Any]:
    """(Provider, ModelInfo) of genai-prices for a model reference.

    `ref` is a model id as an API takes it ("gpt-4o", "claude-sonnet-4-5-20250929") or
    "provider:model" ("groq:llama-3.3-70b-versatile"). Without a provider, genai-prices infers
    it from the name; models only third-party hosts serve are looked up across all providers.

    Raises:
        KeyError: no such model (closest names listed), or several providers serve it and
            none was named (the choices listed).
        BadInput: a reference over `MAX_NAME` characters (refused before any search).
    """
    check_name("model", ref)
    providers = _providers()
    provider_id, model_ref = split_ref(ref.strip(), [p.id for p in providers])
    try:
        return genai.find(model_ref, provider_id)
    except LookupError:
        pass
    # Some hosts' match rules only accept their API's spelling ("accounts/fireworks/models/x"),
    # so the id `tokenprism models` lists is accepted too.
    key = model_ref.lower()
    hits = [(p, m) for p in providers if provider_id is None or p.id == provider_id
            for m in p.models if m.id.lower() == key or m.is_match(model_ref)]
    if not hits:
        raise unknown_model_error(ref, overrides)
    exact = [(p, m) for p, m in hits if m.id.lower() == key] or hits
    if len({p.id for p, _ in exact}) > 1:
        choices = ", ".join(f"{p.id}:{m.id}" for p, m in exact[:12])
        raise UnknownName("model", ref, message=f"model {ref!r} is priced by several providers; name one as "
                          f"PROVIDER:MODEL: {choices}{' ...' if len(exact) > 12 else ''}")
    return exact[0]


def _override_for(overrides: Iterable[Price], model: str, provider: str | None) -> Price | None:
    for o in overrides:
        if o.model.lower() == model.lower() and (provider is None or not o.provider or o.provider == provider):
            return o
    return None


def get_price(ref: str, *, on: date | datetime | None = None, overrides: Iterable[Price] = ()) -> Price:
    """The price in force for a model: an override row if one names it, else genai-prices.

    Args:
        ref: "gpt-4o", "claude-sonnet-4-5", "provider:model", or a model of the override file.
        on: the day (default today, UTC) or instant the price must be in force.
        overrides: rows from `load_overrides`; they add models and replace genai-prices rows.

    Returns:
        A `Price`; its notes say when the name was matched to a different id.

    Raises:
        KeyError: unknown model (the closest names are listed) or an ambiguous one.

    >>> p = get_price("gpt-4o", on=date(2025, 1, 1))
    >>> (p.provider, p.model, p.input.base, p.output.base, p.cached_input.base)
    ('openai', 'gpt-4o', Decimal('2.5'), Decimal('10'), Decimal('1.25'))
    """
    overrides = list(overrides)
    known = {o.provider for o in overrides if o.provider} | {p.id for p in _providers()}
    provider_id, model_ref = split_ref(ref.strip(), known)
    hit = _override_for(overrides, model_ref, provider_id)
    if hit is not None:
        return hit
    provider, info = find_model(ref, overrides=overrides)
    hit = _override_for(overrides, info.id, provider.id)
    if hit is not None:
        return hit
    price = price_from_info(info, provider, on=on)
    if model_ref.lower() != info.id.lower():
        price = replace(price, notes=(f"{model_ref!r} is priced as {provider.id}:{info.id} "
                                      "(genai-prices' name matching)",) + price.notes)
    return price


def list_prices(*, on: date | datetime | None = None, provider: str | None = None, contains: str | None = None,
                all_providers: bool = False, overrides: Iterable[Price] = (),
                include_deprecated: bool = True) -> list[Price]:
    """Prices of many models, for `tokenprism models`.

    Args:
        on: day or instant (default today, UTC).
        provider: only this provider id.
        contains: only models whose "provider:model" or name contains this (case-insensitive).
        all_providers: include hosts and resellers (OpenRouter, Together, Groq...); by default
            only providers genai-prices can infer from a model name, i.e. the model makers' own APIs.
        overrides: override rows; they replace rows of the same model and are listed first.
    """
    overrides = list(overrides)
    needle = (contains or "").lower()
    out: list[Price] = []

    def wanted(p: Price) -> bool:
        hay = f"{p.key} {p.name}".lower()
        return (provider is None or p.provider == provider) and needle in hay and (include_deprecated or not p.deprecated)

    out.extend(o for o in overrides if wanted(o))
    for prov in _providers():
        if provider is None and not all_providers and prov.model_match is None:
            continue
        if provider is not None and prov.id != provider:
            continue
        for info in prov.models:
            if _override_for(overrides, info.id, prov.id) is not None:
                continue
            if needle and needle not in f"{prov.id}:{info.id} {info.name or ''}".lower():
                continue
            price = price_from_info(info, prov, on=on)
            if wanted(price):
                out.append(price)
    return out


def provider_ids() -> list[str]:
    """The provider ids of the price data ("openai", "anthropic", "groq", ...)."""
    return [p.id for p in _providers()]


def model_price_on(price: Price, day: date, context: dict[str, str] | None = None) -> Any:
    """genai-prices' own `ModelPrice` behind `price` on `day` (the instant `price_from_info` chose:
    the day's highest for a price by time of day), with the variant `context` selects (batch, a
    service tier).

    Raises:
        BadInput: `price` is not genai-prices' (a --prices row), or the model has no variant for
            `context` (named, so a batch or flex price is never silently the standard one).
    """
    if not price.source.startswith("genai-prices"):
        raise BadInput(f"{price.key} is priced from {price.source or 'a price file'}, which has no batch or "
                       "service-tier prices; drop --batch/--service-tier for it, or price it from genai-prices")
    provider, info = find_model(price.key if price.provider else price.model)
    moments = [datetime.combine(day, t) for t in _moments(info)]
    stamp = max(moments, key=lambda m: _weight(info.get_prices(m)))
    if context:
        variants = [v for v in info.price_variants or () if all(context.get(k) == w for k, w in v.when.items())
                    and (v.constraint is None or v.constraint.active(stamp))]
        if not variants or not any(m is info for m in provider.models):  # genai-prices ignores a context there
            wanted = ", ".join(f"{k} {v}" for k, v in context.items())
            raise BadInput(f"genai-prices has no {wanted} price for {price.key}; drop the flag for this model, or "
                           "choose a model that offers it")
    return info.get_prices(stamp, context)
