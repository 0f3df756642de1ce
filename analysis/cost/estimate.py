"""What a workload costs under each model: token counts times prices, in `Decimal` end to end.

Unlike `pricing` (per-token prices and who publishes them) and `models` (which tokenizer
counts for which model), this module puts them together with the user's text and workload:
requests per month, output tokens, the share of input served from cache, and the chat
format's overhead where the provider documents it. Each text (or corpus sample) is one
request; costs are computed per request (so context tiers apply per request), then averaged.
A model without a price is "no price" (None), never $0; a model without a usable tokenizer
says why. Rounding happens only in `format_usd`, for display.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Iterable, Sequence

import pandas as pd

from ..models import TokenizerChoice, explicit_choice, load_rules, tokenizer_for_model
from .genai import get_price, price_source
from .prices import MTOK, Price
from ..tokenizers import CATALOGUE, load_tokenizer

# A cross-provider default: flagship and small models of the makers people compare most,
# written as provider:model so no name matching is involved.
DEFAULT_MODELS = (
    "openai:gpt-4o-mini",
    "openai:gpt-4.1",
    "openai:gpt-5-mini",
    "openai:gpt-5.1",
    "anthropic:claude-haiku-4-5",
    "anthropic:claude-sonnet-4-5",
    "google:gemini-2.5-flash",
    "google:gemini-2.5-pro",
    "deepseek:deepseek-chat",
    "groq:qwen/qwen3-32b",
    "mistral:mistral-small-3.2-24b-instruct",
    "groq:llama-3.3-70b-versatile",
)

SPECIAL_TOKENS_NOTE = "text that looks like special tokens (<|endoftext|>, <|im_start|>) is counted as plain text"


class NoPriceError(ValueError):
    """The price data has no price for a part of the request (shown as "no price", never $0)."""


def percent(share: Decimal) -> str:
    """ "40%" for Decimal("0.4")."""
    return f"{(share * 100).normalize():f}%"


# Upper bounds of every workload number, shared by the CLI and the dashboard: far above any real
# workload, and low enough that no Decimal product overflows, no chart axis becomes infinite and
# no loop runs as long as a number someone typed. The messages bound is the one a chat overhead is
# multiplied by.
WORKLOAD_LIMITS: dict[str, Decimal] = {
    "requests_per_month": Decimal(10) ** 12,
    "output_tokens": Decimal(10) ** 9,
    "output_ratio": Decimal(1000),
    "cached_share": Decimal(1),
    "messages_per_request": Decimal(100_000),
    "chars_per_request": Decimal(10) ** 10,
}


def workload_value(name: str, value: Any, *, label: str | None = None) -> Decimal:
    """Validate one workload field against its bound in `WORKLOAD_LIMITS` (CLI and dashboard alike).

    >>> workload_value("output_ratio", "1e308")
    Traceback (most recent call last):
    ...
    ValueError: output_ratio must be at most 1000, got '1e308'
    """
    return to_decimal(label or name, value, maximum=WORKLOAD_LIMITS[name], integer=name == "messages_per_request")


def to_decimal(name: str, value: Any, *, maximum: Decimal | None = None, integer: bool = False) -> Decimal:
    """Parse a workload value: a non-negative finite number (int, str, Decimal or float).

    Raises:
        ValueError: naming the field and the value, for non-numbers, negatives, NaN,
            infinities, fractions where a whole number is needed, or values above `maximum`.

    >>> to_decimal("cached_share", "0.4", maximum=Decimal(1))
    Decimal('0.4')
    >>> to_decimal("requests_per_month", "-5")
    Traceback (most recent call last):
    ...
    ValueError: requests_per_month must be a non-negative number, got '-5'
    """
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{name} must be a number, got {value!r}")
    try:
        # floats via their shortest repr: 0.1 means 0.1, not 0.1000000000000000055...
        d = value if isinstance(value, Decimal) else Decimal(repr(value) if isinstance(value, float) else str(value).strip())
    except InvalidOperation:
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not d.is_finite():
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if d < 0:
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    if integer and d != d.to_integral_value():
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if maximum is not None and d > maximum:
        shown = value if not isinstance(value, str) or len(value) <= 40 else value[:37] + "..."
        raise ValueError(f"{name} must be at most {maximum:,f}".replace(",", "" if maximum < 10_000 else ",")
                         + f", got {shown!r}")
    return d


@dataclass(frozen=True)
class Workload:
    """How the model is used. Values are validated and stored as `Decimal` (messages as int).

    Attributes:
        requests_per_month: requests sent per month.
        output_tokens: output tokens per request, in each model's own tokens; or
        output_ratio: output tokens as a multiple of the request's input tokens (exactly one
            of the two is given).
        cached_share: share (0..1) of each request's input tokens served from the prompt cache.
        messages_per_request: chat messages per request, for the chat-format overhead.
        chars_per_request: scale each text to this many characters per request (keeping its
            tokens per character), e.g. "1,200-character prompts like this corpus".

    >>> Workload(requests_per_month=1000, output_tokens=300, cached_share="0.4").cached_share
    Decimal('0.4')
    """

    requests_per_month: Any
    output_tokens: Any = None
    output_ratio: Any = None
    cached_share: Any = Decimal(0)
    messages_per_request: Any = 1
    chars_per_request: Any = None

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        put("requests_per_month", workload_value("requests_per_month", self.requests_per_month))
        if (self.output_tokens is None) == (self.output_ratio is None):
            raise ValueError("give exactly one of output_tokens (tokens per request) and output_ratio "
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
                raise ValueError("chars_per_request must be positive, got 0")
            put("chars_per_request", c)

    def describe(self) -> str:
        """One line for report headers; numbers in plain digits, however they were typed.

        >>> Workload(requests_per_month="1e6", output_tokens="3E2").describe()[:65]
        '1,000,000 requests/month, 1 message(s)/request, 300 output tokens'
        """
        # ",f": a Decimal read from "1e6" would print as 1E+6 with the default format
        out = (f"{self.output_tokens:,f} output tokens/request" if self.output_tokens is not None
               else f"output = {self.output_ratio:,f} x input tokens")
        scale = f", texts scaled to {self.chars_per_request:,f} chars/request" if self.chars_per_request else ""
        return (f"{self.requests_per_month:,f} requests/month, {self.messages_per_request} message(s)/request, "
                f"{out}, cached share {percent(self.cached_share)} of input{scale}")


@dataclass(frozen=True, slots=True)
class RequestCost:
    """One request's tokens and dollars; input_tokens include the cached ones."""

    input_tokens: Decimal
    cached_tokens: Decimal
    output_tokens: Decimal
    usd_input: Decimal  # the uncached part
    usd_cached_input: Decimal
    usd_output: Decimal
    usd_fee: Decimal

    @property
    def usd_total(self) -> Decimal:
        return self.usd_input + self.usd_cached_input + self.usd_output + self.usd_fee


def request_cost(price: Price, *, input_tokens: Decimal | int, output_tokens: Decimal | int,
                 cached_share: Decimal = Decimal(0)) -> RequestCost:
    """Cost of one request: uncached input, cached input and output priced separately.

    The tier of a tiered price is chosen from this request's input tokens (cached included).
    Without a cached-input price, cached tokens pay the input price (no discount is invented).

    Raises:
        NoPriceError: the price has no input price, or no output price while output_tokens > 0.

    >>> from analysis.cost.prices import Rate
    >>> p = Price("x", "m", input=Rate(Decimal("2")), output=Rate(Decimal("8")), cached_input=Rate(Decimal("0.5")))
    >>> request_cost(p, input_tokens=1000, output_tokens=100, cached_share=Decimal("0.4")).usd_total
    Decimal('0.0022')
    """
    n_in, n_out = Decimal(input_tokens), Decimal(output_tokens)
    if price.input is None:
        raise NoPriceError(f"{price.key}: no input price in {price.source or 'the price data'}")
    if price.output is None and n_out > 0:
        raise NoPriceError(f"{price.key}: no output price in {price.source or 'the price data'}")
    cached = n_in * cached_share
    rate_in = price.input.for_request(n_in)
    rate_cached = price.cached_input.for_request(n_in) if price.cached_input is not None else rate_in
    rate_out = price.output.for_request(n_in) if price.output is not None else Decimal(0)
    return RequestCost(n_in, cached, n_out, (n_in - cached) * rate_in / MTOK, cached * rate_cached / MTOK,
                       n_out * rate_out / MTOK, price.per_request or Decimal(0))


# -- the report ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CostReport:
    """Everything a cost report shows.

    Attributes:
        models: one row per model (see `MODEL_COLUMNS`); money columns hold `Decimal` or None.
        categories: one row per model x category when the input has several categories.
        requests: one row per model x sample (tokens and dollars of each request).
        workload, on, price_source: what was assumed, and where prices come from.
        notes: lines every rendering must show (estimates, unknown overheads, tiers...).
    """

    models: pd.DataFrame
    categories: pd.DataFrame
    requests: pd.DataFrame
    workload: Workload
    on: date
    price_source: str
    n_samples: int
    n_chars: int
    notes: tuple[str, ...] = field(default_factory=tuple)


MODEL_COLUMNS = [
    "model", "priced_as", "provider", "tokenizer", "exactness", "status", "chat_overhead",
    "chars_per_request", "chars_per_token", "text_tokens_per_request", "overhead_tokens_per_request",
    "input_tokens_per_request", "cached_tokens_per_request", "output_tokens_per_request",
    "usd_per_mtok_input", "usd_per_mtok_cached_input", "usd_per_mtok_output",
    "usd_input_per_request", "usd_cached_input_per_request", "usd_output_per_request", "usd_fee_per_request",
    "usd_per_request", "usd_per_month", "usd_per_mchar_input", "price_source", "price_as_of", "note",
]
CATEGORY_COLUMNS = [
    "model", "category", "n_requests", "tokenizer", "exactness", "status", "chars_per_request", "chars_per_token",
    "input_tokens_per_request", "usd_per_request", "usd_per_month", "usd_per_mchar_input",
]
_MONEY = ("usd_input", "usd_cached_input", "usd_output", "usd_fee", "usd_total")


def as_samples(inputs: str | Sequence[str] | pd.DataFrame) -> pd.DataFrame:
    """Normalise the input to a frame with id, category, text (one row per request).

    A str is one request; a list of str is one request each; a DataFrame (e.g. from
    `analysis.corpora.load_builtin` or `load_corpus`) needs a `text` column and may have
    `id` and `category`.
    """
    if isinstance(inputs, str):
        return pd.DataFrame({"id": ["text"], "category": ["text"], "text": [inputs]})
    if isinstance(inputs, pd.DataFrame):
        if "text" not in inputs.columns:
            raise ValueError(f"the input frame needs a 'text' column; it has {list(inputs.columns)}")
        frame = inputs.reset_index(drop=True)
        return pd.DataFrame({
            "id": frame["id"].astype(str) if "id" in frame else [f"sample-{i + 1}" for i in range(len(frame))],
            "category": frame["category"].astype(str) if "category" in frame else "text",
            "text": frame["text"].astype(str),
        })
    texts = list(inputs)
    if not all(isinstance(t, str) for t in texts):
        raise TypeError("inputs must be a str, a list of str, or a DataFrame with a text column")
    return pd.DataFrame({"id": [f"text-{i + 1}" for i in range(len(texts))], "category": "text", "text": texts})


def choice_for(price: Price, ref: str, fallback_tokenizer: str | None, rules: list) -> TokenizerChoice:
    if price.tokenizer:
        return explicit_choice(price.model, price.tokenizer, price.exactness or "exact",
                               f"tokenizer stated in the price file ({price.source})")
    choice = tokenizer_for_model(price.model, also=(ref.split(":", 1)[-1],), rules=rules)
    if choice.exactness == "none" and choice.status == "no tokenizer" and fallback_tokenizer:
        return explicit_choice(price.model, fallback_tokenizer, "approximate",
                               f"{choice.note}; --fallback-tokenizer {fallback_tokenizer} used as a proxy")
    return choice


def chat_label(choice: TokenizerChoice) -> str:
    if choice.chat is None:
        return "unknown"
    return f"{choice.chat.per_message}/message + {choice.chat.per_request}/request"


def _mean(values: list[Decimal]) -> Decimal:
    return sum(values, Decimal(0)) / len(values)


def _summary(rows: list[dict], workload: Workload) -> dict:
    """Aggregate per-request rows of one model (or one model x category)."""
    n = len(rows)
    chars = sum((r["chars"] for r in rows), Decimal(0))
    raw_chars = sum(r["raw_chars"] for r in rows)
    raw_tokens = sum(r["raw_tokens"] for r in rows)
    out = {
        "n_requests": n,
        "chars_per_request": float(chars / n),
        "chars_per_token": raw_chars / raw_tokens if raw_tokens else float("nan"),
        "text_tokens_per_request": float(_mean([r["text_tokens"] for r in rows])),
        "overhead_tokens_per_request": float(_mean([r["overhead_tokens"] for r in rows])),
        "input_tokens_per_request": float(_mean([r["input_tokens"] for r in rows])),
        "cached_tokens_per_request": float(_mean([r["cached_tokens"] for r in rows])),
        "output_tokens_per_request": float(_mean([r["output_tokens"] for r in rows])),
    }
    if any(r["usd_total"] is None for r in rows):
        out.update({f"{m}_per_request": None for m in ("usd_input", "usd_cached_input", "usd_output", "usd_fee")},
                   usd_per_request=None, usd_per_month=None, usd_per_mchar_input=None)
        return out
    for m in ("usd_input", "usd_cached_input", "usd_output", "usd_fee"):
        out[f"{m}_per_request"] = _mean([r[m] for r in rows])
    out["usd_per_request"] = _mean([r["usd_total"] for r in rows])
    out["usd_per_month"] = out["usd_per_request"] * workload.requests_per_month
    spent_in = sum((r["usd_input"] + r["usd_cached_input"] for r in rows), Decimal(0))
    out["usd_per_mchar_input"] = spent_in / chars * MTOK if chars else None
    return out


def plan_models(models: Sequence[str] | str | None, *, overrides: Iterable[Price] = (), on: date | datetime | None = None,
                fallback_tokenizer: str | None = None) -> tuple[list[str], date, list[Price], list[TokenizerChoice]]:
    """(model references, price day, prices, tokenizer choices) for `models`, as `estimate` resolves them.

    Raises:
        KeyError: an unknown model or fallback tokenizer.
        ValueError: no models.
    """
    if fallback_tokenizer is not None and fallback_tokenizer not in CATALOGUE:
        raise KeyError(f"unknown fallback tokenizer {fallback_tokenizer!r}; valid: {', '.join(CATALOGUE)}")
    overrides = list(overrides)
    if models is None:
        refs = list(DEFAULT_MODELS) + [o.key for o in overrides]
    elif isinstance(models, str):
        refs = [m.strip() for m in models.split(",") if m.strip()]
    else:
        refs = [m.strip() for m in models if m.strip()]
    refs = list(dict.fromkeys(refs))  # de-duplicated, order kept
    if not refs:
        raise ValueError("no models selected; name some with --models or see `tokenprism models`")
    day = on.date() if isinstance(on, datetime) else (on or datetime.now(UTC).date())
    prices = [get_price(ref, on=on or day, overrides=overrides) for ref in refs]
    rules = load_rules()
    choices = [choice_for(p, ref, fallback_tokenizer, rules) for p, ref in zip(prices, refs)]
    return refs, day, prices, choices


def estimate(inputs: str | Sequence[str] | pd.DataFrame, models: Sequence[str] | str | None = None, *,
             workload: Workload, overrides: Iterable[Price] = (), on: date | datetime | None = None,
             fallback_tokenizer: str | None = None) -> CostReport:
    """Cost of `workload` under each model, for the requests in `inputs`.

    Args:
        inputs: the text of one request, a list of them, or a corpus frame (text, category, id).
        models: model references ("gpt-4o", "provider:model", override names), a
            comma-separated string, or None for `DEFAULT_MODELS` plus every override model.
        workload: requests per month, output tokens, cached share, messages per request.
        overrides: rows from `pricing.load_overrides` (add or replace models).
        on: the day (default today, UTC) whose prices apply.
        fallback_tokenizer: proxy for models that no rule maps (labelled approximate); None
            leaves them without a count.

    Returns:
        A `CostReport`.

    Raises:
        KeyError: an unknown model (with the closest names) or an unknown tokenizer.
        ValueError: no models, no input, or an empty text with `chars_per_request`.

    >>> r = estimate("Hello, world", ["gpt-4o"], workload=Workload(requests_per_month=1000, output_tokens=10),
    ...              on=date(2025, 1, 1))
    >>> row = r.models.iloc[0]
    >>> float(row["input_tokens_per_request"]), row["usd_per_month"]  # 3 text + 7 chat-format tokens
    (10.0, Decimal('0.125000'))
    """
    if fallback_tokenizer is not None and fallback_tokenizer not in CATALOGUE:
        raise KeyError(f"unknown fallback tokenizer {fallback_tokenizer!r}; valid: {', '.join(CATALOGUE)}")
    samples = as_samples(inputs)
    if samples.empty:
        raise ValueError("no input text: give a text, files or a corpus")
    refs, day, prices, choices = plan_models(models, overrides=overrides, on=on, fallback_tokenizer=fallback_tokenizer)

    texts = samples["text"].tolist()
    raw_chars = [len(t) for t in texts]
    if workload.chars_per_request and not all(raw_chars):
        empty = samples["id"][[c == 0 for c in raw_chars]].tolist()
        raise ValueError(f"cannot scale empty texts to chars_per_request: {empty[:5]}")
    counts: dict[str, list[int]] = {}
    for c in choices:
        if c.usable and c.tokenizer is not None and c.tokenizer not in counts:
            counts[c.tokenizer] = load_tokenizer(c.tokenizer).count_batch(texts)

    all_rows: list[dict] = []
    model_rows, category_rows = [], []
    for ref, price, choice in zip(refs, prices, choices):
        rows: list[dict] = []
        status = choice.status
        if choice.usable and choice.tokenizer is not None:
            rows, status = request_rows(ref, price, choice, counts[choice.tokenizer], samples, workload)
        elif price.input is None:
            status = f"no price; {status}"
        all_rows.extend(rows)
        model_rows.append(model_row(ref, price, choice, status, _summary(rows, workload) if rows else {},
                                    _row_notes(price, choice, rows, workload)))
        for category, group in _by_category(rows):
            category_rows.append({"model": ref, "category": category, "tokenizer": choice.label,
                                  "exactness": choice.exactness, "status": status, **_summary(group, workload)})

    models_frame = pd.DataFrame(model_rows).reindex(columns=MODEL_COLUMNS)
    categories = pd.DataFrame(category_rows).reindex(columns=CATEGORY_COLUMNS)
    if samples["category"].nunique() < 2:
        categories = categories.iloc[0:0]
    return CostReport(models_frame, categories, pd.DataFrame(all_rows), workload, day,
                      source_line(prices), len(samples), sum(raw_chars), report_notes(models_frame, choices, workload))


def request_rows(ref: str, price: Price, choice: TokenizerChoice, counts: list[int], samples: pd.DataFrame,
                  workload: Workload) -> tuple[list[dict], str]:
    """One row per request (sample) of one model: tokens and the dollars of each part."""
    overhead = Decimal(choice.chat.tokens(workload.messages_per_request)) if choice.chat else Decimal(0)
    rows, status = [], "ok"
    for sample_id, category, text, n_tokens in zip(samples["id"], samples["category"], samples["text"], counts):
        # scaling keeps the text's tokens per character; chars_per_request forbids empty texts
        scale = workload.chars_per_request / len(text) if workload.chars_per_request else Decimal(1)
        text_tokens = Decimal(n_tokens) * scale
        n_in = text_tokens + overhead
        n_out = workload.output_tokens if workload.output_tokens is not None else workload.output_ratio * n_in
        row = {"model": ref, "id": sample_id, "category": category,
               "chars": workload.chars_per_request or Decimal(len(text)), "raw_chars": len(text),
               "raw_tokens": n_tokens, "text_tokens": text_tokens, "overhead_tokens": overhead,
               "input_tokens": n_in, "cached_tokens": n_in * workload.cached_share, "output_tokens": n_out}
        try:
            rc = request_cost(price, input_tokens=n_in, output_tokens=n_out, cached_share=workload.cached_share)
            row.update({m: getattr(rc, m) for m in _MONEY})
        except NoPriceError:
            status = "no price" if price.input is None else "no output price"
            row.update({m: None for m in _MONEY})  # unknown, never 0
        rows.append(row)
    return rows, status


def model_row(ref: str, price: Price, choice: TokenizerChoice, status: str, summary: dict,
              notes: list[str]) -> dict:
    """One row of a report's per-model table (the in-memory and the streamed report share it)."""
    return {
        "model": ref, "priced_as": price.key, "provider": price.provider, "tokenizer": choice.label,
        "exactness": choice.exactness, "chat_overhead": chat_label(choice), "status": status,
        **summary,
        "usd_per_mtok_input": price.input.base if price.input else None,
        "usd_per_mtok_cached_input": price.cached_input.base if price.cached_input else None,
        "usd_per_mtok_output": price.output.base if price.output else None,
        "price_source": price.source, "price_as_of": price.as_of.isoformat() if price.as_of else "",
        "note": "; ".join(notes),
    }


def _row_notes(price: Price, choice: TokenizerChoice, rows: list[dict], workload: Workload) -> list[str]:
    """What a reader of this model's row must know, most important first."""
    return row_notes(price, choice, len(rows), tier_requests(price, rows), workload)


def tier_requests(price: Price, rows: Iterable[dict]) -> int:
    """How many of these request rows pass the first tier threshold of the price."""
    starts = [t for rate in (price.input, price.output) if rate for t, _ in rate.tiers]
    return sum(1 for r in rows if starts and r["input_tokens"] > min(starts))


def row_notes(price: Price, choice: TokenizerChoice, n_requests: int, over: int, workload: Workload) -> list[str]:
    """`_row_notes` from counts: `n_requests` priced, `over` of them past the first tier."""
    notes = list(price.notes)
    if choice.exactness != "exact" or choice.status != "ok" or choice.note.startswith("tokenizer stated"):
        notes.insert(0, choice.note)
    if n_requests and workload.cached_share > 0:
        if price.input is not None and price.cached_input is None:
            notes.append("no cached-input price: cached tokens are billed at the input price")
        if price.cache_write is not None:
            notes.append(f"cache writes (${price.cache_write.base}/Mtok) are not included")
    starts = [t for rate in (price.input, price.output) if rate for t, _ in rate.tiers]
    if over:
        notes.append(f"{over} of {n_requests} requests exceed {min(starts):,} input tokens and pay the tier price")
    return notes


def _by_category(rows: list[dict]) -> list[tuple[str, list[dict]]]:
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["category"], []).append(r)
    return sorted(groups.items())


def source_line(prices: list[Price]) -> str:
    parts = []
    if any(p.source.startswith("genai-prices") for p in prices):
        parts.append(price_source().describe())
    files = sorted({p.source.split(":", 1)[0] for p in prices if not p.source.startswith("genai-prices")})
    if files:
        parts.append("override file " + ", ".join(files) + " (each row's source and as_of in the table)")
    return "; ".join(parts)


def report_notes(models: pd.DataFrame, choices: list[TokenizerChoice], workload: Workload) -> tuple[str, ...]:
    notes = []
    approx = models.loc[models["exactness"] == "approximate", "model"].tolist()
    if approx:
        notes.append(f"ESTIMATE: {', '.join(approx)}: tokenprism has no exact tokenizer for "
                     f"{'this model' if len(approx) == 1 else 'these models'}; token counts come from a proxy "
                     "tokenizer (marked ~) and are estimates (why: per-model notes)")
    missing = models.loc[models["status"] != "ok", ["model", "status"]]
    for model, status in missing.itertuples(index=False):
        notes.append(f"{model}: {status}")
    known = {c.chat.source for c in choices if c.chat is not None and c.chat.per_message}
    unknown = [m for m, c in zip(models["model"], choices) if c.chat is None and c.usable]
    if known:
        notes.append(f"chat-format overhead counted where documented ({len(known)} source(s)): "
                     + " | ".join(sorted(known)))
    if unknown:
        notes.append(f"chat-format overhead unknown (not counted) for: {', '.join(unknown)}")
    if workload.cached_share > 0:
        notes.append(f"{percent(workload.cached_share)} of each request's input tokens are billed at the "
                     "cached-input price; cache-write charges are not included")
    notes.append("tiered prices: the tier is chosen per request from its input tokens (cached included)")
    notes.append(SPECIAL_TOKENS_NOTE)
    return tuple(notes)
