"""The one door to genai-prices: the only module that imports `genai_prices`.

It sits in `models/`, the lowest layer that needs the library (the resolver finds a model's
provider and context window in it), so that `models.resolve` and `cost/` both reach it downward.
Unlike `cost.prices.lookup` (which finds a model's `Price` on a day) and `cost.usage` / `cost.bill` (which read
and price a logged usage), this module only talks to the library, and gives the rest of the code
plain functions: the data snapshot, a `Usage` from values, a response's usage (`extract`), the
price of a usage (`calc`, genai-prices' own `calc_price`), a model's entry and its constraints, and
the fields of a resolved `ModelPrice`. The library is imported lazily, inside each function, so
`import analysis` never loads its 1.6 MB of prices.

The public road (`extract_usage`, `calc_price`, `price_context`, `Usage(**values)`) is the default.
Private access remains in three places only, each because the public road cannot meet the speed
targets of docs/performance.md (CPU at most 1.5x the count on `cost --logs`; short chats already
stand at 1.46-1.53x), measured 2026-12-07 on genai-prices 0.2.5 (a loaded, shared host;
`/tmp`-free scripts, in process):

* `extract`'s fast road follows the extractor's own mappings (its `_reported_usage_keys`: the keys it
  fills) over plain dicts: 3.4 us a distinct usage against 35.7 us for `extract_usage` (a 20,000-row
  log of short chats has about 10,000 distinct usages: 0.3 CPU s, some 10% of its run). The road
  builds the `Usage` with the public constructor; anything it cannot follow goes to `extract_usage`.
* `usage_values` reads the values a `Usage` holds as reported (its `__dict__`), which the library
  gives no public way to list (`reported_value` says 0 for a key not reported, and a missing key is
  not the same as 0: the library infers it from the others).
* `price_fields` lists a resolved `ModelPrice`'s rates (its attributes: `ModelPrice` is not a
  dataclass), for `cost.billed_sum`, whose proof that the price of a sum is the sum of the prices
  earns its place: 0.028 s against 0.416 s per 10,000 rows of 4,817 distinct usages priced by
  `calc_price` once each (75 us a call, nearly all in `ModelPrice.calc_price`'s decomposition).

Each is written for the version in `WRITTEN_FOR`; `check_version` refuses another, naming the fix,
and pyproject.toml pins the same range (tests/analysis/models/test_genai_door.py).
"""

from __future__ import annotations

import functools
import importlib.metadata as md
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

__all__ = ["WRITTEN_FOR", "calc", "check_version", "extract", "find", "is_tiered", "model_info", "new_usage",
           "price_constraints", "price_fields", "snapshot", "usage_value", "usage_values", "version", "version_problem"]

# The releases this door was written and tested for (the private reads above depend on them);
# pyproject.toml's pin is the same range.
WRITTEN_FOR = ((0, 2, 5), (0, 2, 6))  # at least the first, below the second


@functools.cache
def version() -> str:
    """The installed genai-prices version ("0.2.5")."""
    return md.version("genai-prices")


def _parts(text: str) -> tuple[int, ...]:
    out = []
    for piece in text.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        out.append(int(digits or 0))
    return tuple(out)


def version_problem(found: str) -> str | None:
    """Why release `found` of genai-prices will not do, naming the fix; None for one of `WRITTEN_FOR`.

    >>> version_problem("0.2.5") is None, version_problem("0.3.1")[:34]
    (True, 'genai-prices 0.3.1 is installed, b')
    """
    low, high = WRITTEN_FOR
    if low <= _parts(found) < high:
        return None
    want = f">={'.'.join(map(str, low))},<{'.'.join(map(str, high))}"
    return (f"genai-prices {found} is installed, but analysis/models/genai.py was written for "
            f"genai-prices{want} (it reads the library's Usage values and extractor mappings): "
            f"reinstall with `pip install 'genai-prices{want}'`, or re-test the door on "
            f"{found} and widen WRITTEN_FOR and the pin in pyproject.toml")


@functools.cache
def check_version() -> None:
    """Refuse a genai-prices release outside `WRITTEN_FOR`, naming the fix (`version_problem`).

    Raises:
        RuntimeError: the installed release is not one the door was written for.
    """
    problem = version_problem(version())
    if problem is not None:
        raise RuntimeError(problem)


def snapshot() -> Any:
    """genai-prices' data snapshot (providers, models, prices), imported on first use."""
    check_version()
    from genai_prices import data_snapshot

    return data_snapshot.get_snapshot()


def new_usage(**values: int) -> Any:
    """genai-prices' `Usage` of these values (its own constructor)."""
    from genai_prices import Usage

    return Usage(**values)


def usage_values(usage: Any) -> dict[str, Any]:
    """The values `usage` holds as reported, in the order they were set (not a copy: do not change it).

    Private: a `Usage` keeps them in its `__dict__` in the releases of `WRITTEN_FOR`, and has no public
    listing that tells a key not reported from a reported 0."""
    return usage.__dict__


def usage_value(usage: Any, key: str) -> Any:
    """`usage`'s value of `key` as genai-prices answers it: the reported one, else its inference."""
    return getattr(usage, key, 0)


def calc(usage: Any, model: str, *, provider: str | None = None, when: datetime | None = None,
         context: Mapping[str, str] | None = None) -> Any:
    """genai-prices' `calc_price` (a `PriceCalculation`; raises LookupError for an unknown model and
    ValueError for usage it refuses)."""
    check_version()
    import genai_prices

    return genai_prices.calc_price(usage, model, provider_id=provider, genai_request_timestamp=when,
                                   price_context=dict(context) if context else None)


def find(model: str, provider: str | None = None) -> tuple[Any, Any]:
    """(Provider, ModelInfo) as `calc_price` infers them from a model reference (LookupError if none)."""
    calc_ = calc(new_usage(), model, provider=provider)
    return calc_.provider, calc_.model


def price_of(model_price: Any, **parts: int) -> Decimal:
    """A resolved `ModelPrice`'s own `calc_price` of a usage of these parts (its total)."""
    return Decimal(model_price.calc_price(new_usage(**parts))["total_price"])


def _extract_public(body: Mapping[str, Any], provider: str, flavor: str) -> Any:
    from genai_prices import extract_usage

    return extract_usage(body, provider_id=provider, api_flavor=flavor).usage


def extract(body: Mapping[str, Any], provider: str, flavor: str) -> Any:
    """The `Usage` genai-prices' `extract_usage` reads from a response `body`: by the fast road when it
    can follow it, else by `extract_usage` itself (whose errors, ValueError and the like, pass through).
    Tested equal to `extract_usage` (tests/analysis/cost/test_usage_read.py)."""
    usage = _fast_extract(body, provider, flavor)
    return usage if usage is not None else _extract_public(body, provider, flavor)


# A genai-prices extractor is data: a root, and mappings (path -> usage key, summed, required or not).
# `_compiled` reads those of genai-prices' own extractor; `_fast_extract` follows them over plain dicts
# and integers, and leaves anything else (a missing required value, a list step, a float, a bool, an
# error to word) to `extract_usage` itself.
Compiled = tuple[tuple[Any, ...], tuple[tuple[tuple[Any, ...], str, bool], ...]]


@functools.lru_cache(maxsize=64)
def _compiled(provider: str, flavor: str) -> Compiled | None:
    """(root path, ((path, usage key, required), ...)) of genai-prices' extractor, or None where a path is not keys only."""
    try:
        extractor = next(e for p in snapshot().providers if p.id == provider for e in p.extractors or ()
                         if e.api_flavor == flavor)
    except StopIteration:
        return None
    # private: the usage keys the extractor fills (it skips mappings to others); see the module docstring
    reported = getattr(extractor, "_reported_usage_keys", None)
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
            path = path[:first] + (None,)
        mappings.append((path, m.dest, bool(m.required)))
    return root, tuple(mappings)


_ABSENT = object()


def _fast_extract(body: Mapping[str, Any], provider: str, flavor: str) -> Any:
    """genai-prices' `Usage` of `body` by its extractor's mappings, or None to ask `extract_usage` itself."""
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
    return new_usage(**values)


@functools.lru_cache(maxsize=256)
def model_info(model: str, provider: str | None) -> Any:
    """genai-prices' model entry for `model` (None when it has none), found as `calc_price` finds it."""
    try:
        return snapshot().find_provider_model(model, None, provider, None)[1]
    except LookupError:
        return None


@functools.lru_cache(maxsize=256)
def price_constraints(model: str, provider: str | None) -> tuple[tuple[Any, ...], bool] | None:
    """(the constraints of the model's dated or timed prices, then of its variants; whether each is a
    start date), or None when genai-prices has no such model."""
    from genai_prices.types import StartDateConstraint

    info = model_info(model, provider)
    if info is None:
        return None
    prices = info.prices if isinstance(info.prices, list) else ()
    found = tuple(p.constraint for p in prices if p.constraint is not None)
    found += tuple(v.constraint for v in info.price_variants or () if v.constraint is not None)
    return found, all(type(c) is StartDateConstraint for c in found)


def is_tiered(value: Any) -> bool:
    """Whether a price field is genai-prices' `TieredPrices` (a base and tiers by input size)."""
    from genai_prices.types import TieredPrices

    return isinstance(value, TieredPrices)


def price_fields(model_price: Any) -> list[tuple[str, Any]]:
    """(price key, rate) of every field a `ModelPrice` sets ("input_mtok", "requests_kcount"...), in its
    order. Private: a `ModelPrice` keeps its rates as attributes, with no public listing."""
    return [(k, v) for k, v in vars(model_price).items() if v is not None and not k.startswith("_")]


@functools.lru_cache(maxsize=256)
def tier_starts(model: str, provider: str | None) -> tuple[int, ...] | None:
    """Every tier start of the model's tiered prices (any period, any variant); None when a per-request
    price is tiered (a fixed amount per row that cannot be taken apart) or genai-prices lacks the model."""
    info = model_info(model, provider)
    if info is None:
        return None
    prices = info.prices if isinstance(info.prices, list) else [info.prices]
    tables = [getattr(p, "prices", p) for p in prices] + [v.prices for v in info.price_variants or ()]
    starts: set[int] = set()
    for table in tables:
        for key, value in price_fields(table):
            if is_tiered(value):
                if "request" in key:
                    return None
                starts.update(t.start for t in value.tiers)
    return tuple(sorted(starts))
