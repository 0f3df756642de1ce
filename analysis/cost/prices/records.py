"""The price records: `Rate`, `Price` and `PriceSource`, in USD per million tokens (`MTOK`).

Unlike `lookup` (prices from the maintained `genai-prices` package) and `overrides` (prices from
the user's file), this module reads nothing: it is the leaf both sources build on, so neither
has to import the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from ...contract import TextExactness

MTOK = Decimal(1_000_000)


@dataclass(frozen=True, slots=True)
class Rate:
    """USD per million tokens, with optional context tiers.

    Tiers follow the providers' "cliff" rule (as genai-prices does): when a request's input
    tokens exceed a tier's start, *all* its tokens of this kind pay the tier price.
    """

    base: Decimal
    tiers: tuple[tuple[int, Decimal], ...] = ()  # (start, price), ascending

    def for_request(self, input_tokens: Decimal | int) -> Decimal:
        """The price per million tokens for a request with `input_tokens` input tokens.

        >>> Rate(Decimal("3"), ((200_000, Decimal("6")),)).for_request(250_000)
        Decimal('6')
        """
        price = self.base
        for start, tier_price in self.tiers:
            if input_tokens > start:
                price = tier_price
        return price

    def describe(self) -> str:
        tiers = "".join(f"; >{start:,} input tokens/request: {p}" for start, p in self.tiers)
        return f"{self.base}{tiers}"


@dataclass(frozen=True, slots=True)
class Price:
    """What one model charges, per million tokens, and where that figure comes from.

    Attributes:
        provider: the provider id in the price data ("openai"), or the file's `provider`
            column ("" when an override row gives none).
        model: the model id in the price data (or the override's `model`).
        input, cached_input, output: rates; None when the source has no such price
            (a missing input or output price is shown as "no price", never as $0).
        cache_write: the price of writing the cache, reported but not charged (see notes).
        per_request: a flat fee per request (a few search models), or None.
        source: "genai-prices 0.2.3" or "FILE: <the row's source>".
        as_of: the day the price is in force for (genai-prices) or the row's `as_of`.
        notes: what a reader must know: tiers, time-of-day pricing, a scheduled change.
        tokenizer, exactness: from an override row; None to use models.toml.
    """

    provider: str
    model: str
    input: Rate | None
    output: Rate | None
    cached_input: Rate | None = None
    cache_write: Rate | None = None
    per_request: Decimal | None = None
    source: str = ""
    as_of: date | None = None
    since: date | None = None
    name: str = ""
    notes: tuple[str, ...] = ()
    tokenizer: str | None = None
    exactness: TextExactness | None = None
    deprecated: bool = False
    time_of_day: bool = False  # the price varies by hour; this is the day's highest
    next_change: date | None = None  # a dated price change after `as_of`

    @property
    def key(self) -> str:
        """ "provider:model", the form `get_price` accepts back."""
        return f"{self.provider}:{self.model}" if self.provider else self.model


@dataclass(frozen=True, slots=True)
class PriceSource:
    """The price package and its data, for the header of every report."""

    package: str
    version: str
    newest_change: date | None
    auto_updated: bool

    def describe(self) -> str:
        data = "data fetched by its auto-updater" if self.auto_updated else "bundled data snapshot"
        newest = f", newest dated price change in it: {self.newest_change}" if self.newest_change else ""
        return f"{self.package} {self.version} ({data}{newest})"
