"""The assumed workload: how a model is used, as validated `Decimal` numbers.

Unlike `estimate` (which prices texts under a workload) and `cost.arithmetic` (the
multiplication), this module only holds and checks the numbers a user types: requests per
month, output tokens or an output ratio, the cached share, messages per request and the
scaling of texts, each against one bound shared by the CLI and the dashboard.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any
from ...errors import BadInput, shown
from ...render import compact_number


def percent(share: Decimal) -> str:
    """ "40%" for Decimal("0.4")."""
    return f"{(share * 100).normalize():f}%"


# Upper bounds of every workload number, shared by the CLI and the dashboard: far above any real
# workload, and low enough that no Decimal product overflows, no chart axis becomes infinite and
# no loop runs as long as a number someone typed. The messages bound is the one a chat overhead is
# multiplied by.
# ... and lower bounds: a number above 0 is at least MIN_POSITIVE, and none has more than
# MAX_DIGITS significant digits (a billion-digit number would be printed whole).
MIN_POSITIVE = Decimal("0.000000001")
MAX_DIGITS = 30
WORKLOAD_LIMITS: dict[str, Decimal] = {
    "requests_per_month": Decimal(10) ** 12,
    "output_tokens": Decimal(10) ** 9,
    "output_ratio": Decimal(1000),
    "cached_share": Decimal(1),
    "messages_per_request": Decimal(100_000),
    "chars_per_request": Decimal(10) ** 10,
    "reasoning_tokens": Decimal(10) ** 9,
    "reasoning_ratio": Decimal(1000),
    "requests_per_lifetime": Decimal(10) ** 9,  # requests per cache lifetime of a shared prefix; above 0
}
POSITIVE = frozenset({"requests_per_lifetime"})  # fields where 0 means nothing (leave the field out instead)


def workload_value(name: str, value: Any, *, label: str | None = None) -> Decimal:
    """Validate one workload field against its bound in `WORKLOAD_LIMITS` (CLI and dashboard alike).

    >>> workload_value("output_ratio", "1e308")
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: output_ratio must be at most 1000, got '1e308'
    """
    number = to_decimal(label or name, value, maximum=WORKLOAD_LIMITS[name], integer=name == "messages_per_request")
    if name in POSITIVE and not number:
        raise BadInput(f"{label or name} must be above 0 (left out, the requests are one burst), got {value!r}")
    return number


def to_decimal(name: str, value: Any, *, maximum: Decimal | None = None, integer: bool = False) -> Decimal:
    """Parse a workload value: a non-negative finite number (int, str, Decimal or float).

    Raises:
        BadInput: naming the field and the value, for non-numbers, negatives, NaN,
            infinities, fractions where a whole number is needed, or values above `maximum`.

    >>> to_decimal("cached_share", "0.4", maximum=Decimal(1))
    Decimal('0.4')
    >>> to_decimal("requests_per_month", "-5")
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: requests_per_month must be a non-negative number, got '-5'
    """
    echo = shown(value, 40) if isinstance(value, str) else repr(value)  # a typed value is quoted cut
    if isinstance(value, bool) or value is None:
        raise BadInput(f"{name} must be a number, got {echo}")
    try:
        # floats via their shortest repr: 0.1 means 0.1, not 0.1000000000000000055...
        d = value if isinstance(value, Decimal) else Decimal(repr(value) if isinstance(value, float) else str(value).strip())
    except InvalidOperation:
        raise BadInput(f"{name} must be a number, got {echo}") from None
    if not d.is_finite():
        raise BadInput(f"{name} must be a finite number, got {echo}")
    if len(d.as_tuple().digits) > MAX_DIGITS:  # "1.000...0001": digits no price or count needs
        raise BadInput(f"{name} has more than {MAX_DIGITS} significant digits, got {echo}; round it")
    if 0 < d < MIN_POSITIVE:  # 1e-999999999 would be printed with a billion zeros
        top = " or more" if maximum is None else f" to {compact_number(maximum)}"
        raise BadInput(f"{name} must be 0, or from {MIN_POSITIVE:f}{top}, got {echo}")
    if d < 0:
        raise BadInput(f"{name} must be a non-negative number, got {echo}")
    if integer and d != d.to_integral_value():
        raise BadInput(f"{name} must be a whole number, got {echo}")
    if maximum is not None and d > maximum:
        raise BadInput(f"{name} must be at most {maximum:,f}".replace(",", "" if maximum < 10_000 else ",")
                         + f", got {echo}")
    return d


@dataclass(frozen=True)
class Workload:
    """How the model is used. Values are validated and stored as `Decimal` (messages as int).

    Attributes:
        requests_per_month: requests sent per month.
        output_tokens: output tokens per request, in each model's own tokens; or
        output_ratio: output tokens as a multiple of the request's content tokens (exactly one
            of the two is given).
        cached_share: share (0..1) of each request's input tokens served from the prompt cache.
        messages_per_request: chat messages per request, for the chat-format overhead.
        chars_per_request: scale each text to this many characters per request (keeping its
            tokens per character), e.g. "1,200-character prompts like this corpus".
        reasoning_tokens / reasoning_ratio: reasoning output per request on a model that reasons
            (tokens, or a multiple of the visible output; at most one). Without either, such a
            model's row says "reasoning not included".
        batch, service_tier: price every model at genai-prices' batch price or at a service tier
            ("flex", "priority"); a model without that price is refused by name.

    >>> Workload(requests_per_month=1000, output_tokens=300, cached_share="0.4").cached_share
    Decimal('0.4')
    """

    requests_per_month: Any
    output_tokens: Any = None
    output_ratio: Any = None
    cached_share: Any = Decimal(0)
    messages_per_request: Any = 1
    chars_per_request: Any = None
    reasoning_tokens: Any = None
    reasoning_ratio: Any = None
    batch: bool = False
    service_tier: str | None = None

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        put("requests_per_month", workload_value("requests_per_month", self.requests_per_month))
        if (self.output_tokens is None) == (self.output_ratio is None):
            raise BadInput("give exactly one of output_tokens (tokens per request) and output_ratio "
                             f"(a multiple of input tokens); got output_tokens={self.output_tokens!r}, "
                             f"output_ratio={self.output_ratio!r}")
        if self.output_tokens is not None:
            put("output_tokens", workload_value("output_tokens", self.output_tokens))
        if self.output_ratio is not None:
            put("output_ratio", workload_value("output_ratio", self.output_ratio))
        put("cached_share", workload_value("cached_share", self.cached_share))
        put("messages_per_request", int(workload_value("messages_per_request", self.messages_per_request)))
        if self.chars_per_request is not None:
            c = workload_value("chars_per_request", self.chars_per_request)
            if c == 0:
                raise BadInput("chars_per_request must be positive, got 0")
            put("chars_per_request", c)
        if self.reasoning_tokens is not None and self.reasoning_ratio is not None:
            raise BadInput("give at most one of reasoning_tokens (per request) and reasoning_ratio (x visible output)")
        for name in ("reasoning_tokens", "reasoning_ratio"):
            if getattr(self, name) is not None:
                put(name, workload_value(name, getattr(self, name)))
        if self.service_tier is not None and self.service_tier not in ("default", "flex", "priority"):
            raise BadInput(f"unknown service tier {self.service_tier!r}; valid: default, flex, priority")
        put("batch", bool(self.batch))

    def describe(self) -> str:
        """One line for report headers; numbers in plain digits, however they were typed.

        >>> Workload(requests_per_month="1e6", output_tokens="3E2").describe()[:65]
        '1,000,000 requests/month, 1 message(s)/request, 300 output tokens'
        """
        # ",f": a Decimal read from "1e6" would print as 1E+6 with the default format
        out = (f"{compact_number(self.output_tokens)} output tokens/request" if self.output_tokens is not None
               else f"output = {compact_number(self.output_ratio)} x content tokens")
        scale = f", texts scaled to {compact_number(self.chars_per_request)} chars/request" if self.chars_per_request else ""
        reasoning = (f", {compact_number(self.reasoning_tokens)} reasoning tokens/request" if self.reasoning_tokens is not None
                     else f", reasoning = {compact_number(self.reasoning_ratio)} x output" if self.reasoning_ratio is not None
                     else "")
        variant = (", batch prices" if self.batch else "") + (f", {self.service_tier} tier" if self.service_tier else "")
        return (f"{compact_number(self.requests_per_month)} requests/month, {self.messages_per_request} message(s)/request, "
                f"{out}, cached share {percent(self.cached_share)} of input{scale}{reasoning}{variant}")


# The columns of a cost report, per model and per model x category (`estimate` fills them). Here,
# beside the workload and away from pandas, so that the service can describe them at import.
MODEL_COLUMNS = [
    "model", "priced_as", "provider", "tokenizer", "exactness", "exactness_reason", "status", "n_requests",
    "prompt_tokens", "input_tokens", "cache_read_tokens", "cache_write_tokens", "content_tokens", "format_tokens",
    "output_tokens", "reasoning_tokens", "reasoning",
    "chars_per_request", "chars_per_token", "content_tokens_per_request", "format_tokens_per_request",
    "prompt_tokens_per_request", "input_tokens_per_request", "cached_tokens_per_request", "output_tokens_per_request",
    "reasoning_tokens_per_request",
    "usd_per_mtok_input", "usd_per_mtok_cached_input", "usd_per_mtok_output",
    "usd_input_per_request", "usd_cached_input_per_request", "usd_output_per_request", "usd_fee_per_request",
    "usd_per_request", "usd_per_month", "usd_per_mchar_input", "price_source", "price_as_of", "note", "parts",
]
CATEGORY_COLUMNS = [
    "model", "category", "n_requests", "tokenizer", "exactness", "exactness_reason", "status", "chars_per_request",
    "chars_per_token",
    "prompt_tokens_per_request", "input_tokens_per_request", "usd_per_request", "usd_per_month", "usd_per_mchar_input",
]
