"""The models to price with: references resolved to prices and tokenizer choices, once.

Unlike `prices` (what a model charges) and `analysis.models` (which tokenizer counts for a model
id), this module joins the two for a run: the default models, a model reference to its price
and its tokenizer choice (a tokenizer named in the price file wins; a fallback tokenizer stands
in as a proxy, so every count with it is an estimate, where no rule maps the model), and the lines
that name where prices come from. A model reaches its tokenizer through `analysis.models.resolve`
only, as on every face. The workload estimate and the pricing of logs resolve their
models here, and `target_counter` turns each choice into the model's request counter.

The plan of a log run is here too: a `Target` per model (its price, tokenizer choice and tier
starts), the `TrafficPlan` every chunk is priced by (`plan_traffic`), the `Target` of the model
that served a row, and `warm_counters`, which builds the counters a run will use once, before
an engine forks its workers (`engine.run`'s `Engine.prepare`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ..errors import BadInput, UnknownName
from .defaults import DEFAULT_MODELS
from ..models import ModelSpec, TokenizerChoice, choose, explicit_choice, resolve
from .prices import Price, get_price, price_source
from ..requests import RequestCounter, counter_for, request_counter
from ..requests.media import parse_size
from ..tokenizers import CATALOGUE
from .usage import SERVICE_TIERS
from .workloads.workload import to_decimal

if TYPE_CHECKING:
    from .logs.read import LogRecord


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


# -- the plan of a run: the targets and how every row is priced ---------------------------------
@dataclass(frozen=True, slots=True)
class Target:
    """A model to price with: its price, its tokenizer choice, and the tier starts of its price."""

    ref: str
    price: Price
    choice: TokenizerChoice

    @property
    def starts(self) -> tuple[int, ...]:
        rates = (self.price.input, self.price.cached_input, self.price.output)
        return tuple(sorted({s for r in rates if r is not None for s, _ in r.tiers}))

    def counter(self) -> RequestCounter | None:
        """The request counter of this model (built once per process: a plan travels to workers without it)."""
        return _counter(self.ref, self.choice)


@functools.lru_cache(maxsize=256)
def _counter(ref: str, choice: TokenizerChoice) -> RequestCounter | None:
    return target_counter(ref, choice)


@dataclass(frozen=True)
class TrafficPlan:
    """What to price logged traffic with: picklable, so each worker of an engine can hold one.

    Attributes:
        targets: the models to price every row under.
        output_tokens, output_ratio: the output of rows without a logged response (at most one).
        cached_share: share of each request's input billed at the cached-input price.
        share_given: whether `cached_share` was given (0 included: no cache), in place of each
            target's own cache rule simulated over the log.
        on: the day whose prices apply.
        overrides, fallback_tokenizer: as `workloads.estimate`, also used for the models that served the rows.
        reasoning_tokens, reasoning_ratio: reasoning per request on a target that reasons (tokens,
            or a multiple of its visible output), where the log's own reasoning does not serve.
        reasoning_for: per-model reasoning figures, (model, "tokens" or "ratio", value); a model
            named here takes its figure in place of the log's or the plan-wide one.
        cache_breakpoints: "request" (a breakpoint rule caches at the request's own cache_control
            marks) or "auto" (also after the system prompt and tools and after the last message).
        batch, service_tier: price every target at genai-prices' batch or service-tier price.
        requests_per_lifetime: rows without a timestamp (requests given on the command line, or a
            log that has none) are spaced so that this many fall in each target's cache lifetime,
            in place of one burst.
        image_size: (width, height) of the images a row gives by URL (never fetched), priced at that
            size by each model's rule; None leaves them unsized (not counted, and said so).
        rate: the traffic's requests per second (`parse_rate`: "10000/day"), from which each target's
            cache simulation takes its own requests per lifetime (`per_lifetime`), in place of
            `requests_per_lifetime` (one figure counted in each model's own lifetime).
    """

    targets: tuple[Target, ...]
    output_tokens: Decimal | None = None
    output_ratio: Decimal | None = None
    cached_share: Decimal = Decimal(0)
    on: date = field(default_factory=lambda: datetime.now(UTC).date())
    overrides: tuple[Price, ...] = ()
    fallback_tokenizer: str | None = None
    reasoning_tokens: Decimal | None = None
    reasoning_ratio: Decimal | None = None
    reasoning_for: tuple[tuple[str, str, Decimal], ...] = ()
    cache_breakpoints: str = "request"
    batch: bool = False
    service_tier: str | None = None
    requests_per_lifetime: Decimal | None = None
    image_size: tuple[int, int] | None = None
    rate: Decimal | None = None
    share_given: bool = False

    def per_lifetime(self, rule: Any) -> float | None:
        """Requests per cache lifetime of `rule` for rows without a timestamp: `requests_per_lifetime`
        as given, else the rate times the rule's lifetime (the same traffic for every model), else None.

        >>> plan = TrafficPlan((), rate=parse_rate("10000/day"))
        >>> class Rule: ttl_seconds = 300
        >>> round(plan.per_lifetime(Rule), 2)
        34.72
        """
        if self.requests_per_lifetime is not None:
            return float(self.requests_per_lifetime)
        return float(self.rate) * rule.ttl_seconds if self.rate is not None else None

    @property
    def spaced_by(self) -> str:
        """The flag a spacing of rows without a timestamp comes from, for its note."""
        if self.rate is None or self.requests_per_lifetime is not None:
            return "--requests-per-lifetime"
        return f"--rate: {float(self.rate) * 86400:,.4g} a day times the lifetime"

    @property
    def simulates_cache(self) -> bool:
        """Each target's own cache rule is simulated over the log unless --cached-share is given
        (--cached-share 0: no cache at all)."""
        return not self.share_given


def plan_traffic(models: Sequence[str] | str, *, output_tokens: Any = None, output_ratio: Any = None,
                 cached_share: Any = None, overrides: Iterable[Price] = (), on: date | None = None,
                 fallback_tokenizer: str | None = None, reasoning_tokens: Any = None,
                 reasoning_ratio: Any = None, reasoning_for: Iterable[tuple[str, str, Any]] = (),
                 cache_breakpoints: str = "request", batch: bool = False,
                 service_tier: str | None = None, requests_per_lifetime: Any = None,
                 image_size: tuple[int, int] | str | None = None, rate: Any = None) -> TrafficPlan:
    """Resolve model references to prices and tokenizers once, before any row is read.

    `image_size` is the (width, height), or "WxH", of the images rows give by URL. `cached_share`
    None simulates each target's own prompt cache; a share (0 included) replaces the simulation.

    Raises:
        KeyError: an unknown model (with the closest names) or fallback tokenizer.
        ValueError: no models, both output fallbacks, a bad number or a bad image size.

    >>> plan_traffic("gpt-4o", output_tokens=10).targets[0].choice.tokenizer
    'o200k_base'
    """
    refs = [m.strip() for m in (models.split(",") if isinstance(models, str) else models) if m.strip()]
    refs = list(dict.fromkeys(refs))
    if not refs:
        raise BadInput("no models selected; name some with --models or see `tokenprism models`")
    if output_tokens is not None and output_ratio is not None:
        raise BadInput("give at most one of output_tokens and output_ratio")
    if reasoning_tokens is not None and reasoning_ratio is not None:
        raise BadInput("give at most one of --reasoning-tokens and --reasoning-ratio")
    from .bill import rates_by_tier
    from .logs.cache_trace import BREAKPOINT_MODES

    check_fallback(fallback_tokenizer)
    if rate is not None and requests_per_lifetime is not None:
        raise BadInput("give at most one of --rate (the traffic, once for every model) and --requests-per-lifetime "
                       "(requests in each model's own cache lifetime)")
    if cache_breakpoints not in BREAKPOINT_MODES:
        raise BadInput(f"cache breakpoints must be one of {', '.join(BREAKPOINT_MODES)}, got {cache_breakpoints!r}")
    if service_tier is not None and service_tier not in SERVICE_TIERS:
        raise BadInput(f"unknown service tier {service_tier!r}; valid: {', '.join(SERVICE_TIERS)}")
    day = on or datetime.now(UTC).date()
    overrides = tuple(overrides)
    targets = []
    for ref in refs:
        price = get_price(ref, on=day, overrides=overrides)
        targets.append(Target(ref, price, choice_for(price, ref, fallback_tokenizer)))
        if batch or service_tier:
            rates_by_tier(price, day, batch=batch, service_tier=service_tier)  # refuses a model without that price
    per_model = []
    for ref, kind, value in reasoning_for:
        if ref not in refs:
            raise BadInput(f"--reasoning-tokens/--reasoning-ratio name {ref!r}, which is not among the models "
                           f"priced ({', '.join(refs)}); name one of them")
        per_model.append((ref, kind, to_decimal(f"reasoning for {ref}", value)))
    return TrafficPlan(
        tuple(targets),
        None if output_tokens is None else to_decimal("output_tokens", output_tokens),
        None if output_ratio is None else to_decimal("output_ratio", output_ratio),
        to_decimal("cached_share", 0 if cached_share is None else cached_share, maximum=Decimal(1)), day, overrides,
        fallback_tokenizer,
        None if reasoning_tokens is None else to_decimal("reasoning_tokens", reasoning_tokens),
        None if reasoning_ratio is None else to_decimal("reasoning_ratio", reasoning_ratio),
        tuple(per_model), cache_breakpoints, batch, service_tier,
        None if requests_per_lifetime is None else _positive("requests_per_lifetime", requests_per_lifetime),
        _image_size(image_size), None if rate is None else parse_rate(rate), cached_share is not None)


_PER = {"s": 1, "sec": 1, "second": 1, "min": 60, "minute": 60, "h": 3600, "hour": 3600, "day": 86400, "d": 86400}


def parse_rate(value: Any) -> Decimal:
    """A traffic rate as requests per second: "N/day", "N/hour", "N/min" or "N/s" (a Decimal is
    taken as per second).

    >>> parse_rate("8640/day"), parse_rate("7200/hour"), parse_rate("5/s")
    (Decimal('0.1'), Decimal('2'), Decimal('5'))
    """
    if isinstance(value, Decimal):
        number, per = value, "s"
    else:
        text = str(value).strip().replace(" ", "").lower()
        count, slash, unit = text.partition("/")
        unit = unit.removesuffix("s") if unit not in ("s",) else unit
        if not slash or unit not in _PER:
            raise BadInput(f"rate {value!r} is not N/day, N/hour, N/min or N/s (e.g. --rate 10000/day)")
        number, per = to_decimal("rate", count), unit
    if number <= 0:
        raise BadInput(f"rate must be positive, got {value!r}")
    return number / _PER[per]


def _positive(name: str, value: Any) -> Decimal:
    number = to_decimal(name, value)
    if number <= 0:
        raise BadInput(f"{name} must be positive (requests per cache lifetime), got {value!r}")
    return number


def _image_size(value: tuple[int, int] | str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return parse_size(value)
    w, h = value
    return parse_size(f"{w}x{h}")  # the same check (positive whole pixels) and message as "WxH"


def served_target(model: str, on: date, overrides: tuple[Price, ...], fallback: str | None) -> Target | str:
    """The `Target` for the model a row was served by, or why it cannot be priced. The price is
    looked up once per process; the tokenizer is chosen on each call, so a vocabulary fetched since
    (`tokenprism vocab fetch` beside a running server) counts, as it does for the plan's targets."""
    price = _served_price(model, on, overrides)
    if isinstance(price, str):
        return price
    return Target(model, price, choice_for(price, model, fallback))


@functools.lru_cache(maxsize=256)
def _served_price(model: str, on: date, overrides: tuple[Price, ...]) -> Price | str:
    try:
        return get_price(model, on=on, overrides=overrides)
    except KeyError as e:
        return f"unknown model ({e.args[0].split(':', 1)[0] if e.args else 'no price'})"


def warm_counters(records: Iterable[LogRecord], plan: TrafficPlan) -> None:
    """Build the counters `price_chunk` will use for these records (the targets', and the serving
    models'), so that worker processes forked afterwards inherit them."""
    for t in plan.targets:
        t.counter()
    for model in {r.model for r in records if r.model}:
        served = served_target(model, plan.on, plan.overrides, plan.fallback_tokenizer)
        if isinstance(served, Target):
            served.counter()
