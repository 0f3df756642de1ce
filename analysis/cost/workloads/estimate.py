"""What a workload costs under each model, summed chunk by chunk in `Decimal`: the one arithmetic of cost reports.

Unlike `workload` (the assumed numbers), `cost.targets` (which models, prices and tokenizers)
and `cost.arithmetic` (the price of one request), this module adds requests up. Each text (or
corpus sample) is one request, priced on its own (so context tiers apply per request) with the
chat format's overhead where the provider documents it. `CorpusCost` receives chunks of
requests with their token counts (counted anywhere: in this process, on all cores or on a Dask
cluster, see `analysis.engine`) and keeps running sums per model and per model x category, so
memory does not grow with the corpus. `estimate` is the same sums over one chunk, the whole
input, with its per-request rows kept for the report's request table. A model without a price
is "no price" (None), never $0; a model without a usable tokenizer says why. Rounding happens
only in `cost.display`, for people.

    >>> import pandas as pd
    >>> cc = CorpusCost(["gpt-4o"], workload=Workload(requests_per_month=1000, output_tokens=10), on=date(2025, 1, 1))
    >>> cc.tokenizers
    ['o200k_base']
    >>> cc.add(pd.DataFrame({"id": ["a"], "category": ["x"], "text": ["Hello, world"]}), {"o200k_base": [3]})
    >>> cc.report().models.loc[0, "usd_per_month"]
    Decimal('0.125000')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pandas as pd

from ...errors import BadInput
from ..arithmetic import NoPriceError, request_cost
from ...models import TokenizerChoice
from ..prices import MTOK, Price
from ..targets import SPECIAL_TOKENS_NOTE, chat_label, check_fallback, plan_models, source_line
from ...tokenizers import clean_text, load_tokenizer
from ...tokenizers.base import has_surrogates
from .workload import Workload, percent

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
    # Texts are cleaned as every tokenizer cleans them (a lone surrogate becomes U+FFFD, one for
    # one) before they enter a frame: pandas' Arrow-backed strings cannot hold a surrogate, and
    # the tokenizers would count the cleaned text anyway.
    if isinstance(inputs, str):
        return pd.DataFrame({"id": ["text"], "category": ["text"], "text": [clean_text(inputs)]})
    if isinstance(inputs, pd.DataFrame):
        if "text" not in inputs.columns:
            raise BadInput(f"the input frame needs a 'text' column; it has {list(inputs.columns)}")
        frame = inputs.reset_index(drop=True)
        return pd.DataFrame({
            "id": frame["id"].astype(str) if "id" in frame else [f"sample-{i + 1}" for i in range(len(frame))],
            "category": frame["category"].astype(str) if "category" in frame else "text",
            "text": _cleaned(list(frame["text"].map(str))),
        })
    texts = list(inputs)
    if not all(isinstance(t, str) for t in texts):
        raise TypeError("inputs must be a str, a list of str, or a DataFrame with a text column")
    return pd.DataFrame({"id": [f"text-{i + 1}" for i in range(len(texts))], "category": "text",
                         "text": _cleaned(texts)})


def _cleaned(texts: list[str]) -> list[str]:
    return [clean_text(t) for t in texts] if has_surrogates(texts) else texts



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
    """One row of a report's per-model table."""
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



def tier_requests(price: Price, rows: Iterable[dict]) -> int:
    """How many of these request rows pass the first tier threshold of the price."""
    starts = [t for rate in (price.input, price.output) if rate for t, _ in rate.tiers]
    return sum(1 for r in rows if starts and r["input_tokens"] > min(starts))


def row_notes(price: Price, choice: TokenizerChoice, n_requests: int, over: int, workload: Workload) -> list[str]:
    """What a reader of a model's row must know, most important first: `n_requests` priced, `over` of
    them past the first tier."""
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


# -- the sums --------------------------------------------------------------------------------
_DECIMALS = ("chars", "text_tokens", "overhead_tokens", "input_tokens", "cached_tokens", "output_tokens")
_MONEY_PARTS = ("usd_input", "usd_cached_input", "usd_output", "usd_fee")


@dataclass
class _Totals:
    """Running sums of request rows (one model, or one model x category), started from Decimal(0)."""

    n: int = 0
    raw_chars: int = 0
    raw_tokens: int = 0
    sums: dict[str, Decimal] = field(default_factory=lambda: {k: Decimal(0) for k in (*_DECIMALS, *_MONEY_PARTS,
                                                                                        "usd_total", "spent_in")})
    unpriced: bool = False

    def add(self, rows: Iterable[dict]) -> None:
        s = self.sums
        for r in rows:  # request after request, so the sums do not depend on how the input was chunked
            self.n += 1
            self.raw_chars += r["raw_chars"]
            self.raw_tokens += r["raw_tokens"]
            for k in _DECIMALS:
                s[k] += r[k]
            if r["usd_total"] is None:
                self.unpriced = True
            elif not self.unpriced:
                for k in _MONEY_PARTS:
                    s[k] += r[k]
                s["usd_total"] += r["usd_total"]
                s["spent_in"] += r["usd_input"] + r["usd_cached_input"]

    def summary(self, workload: Workload) -> dict[str, Any]:
        """The per-request means of a report row (tokens as float, money as Decimal or None)."""
        n, s = self.n, self.sums
        out: dict[str, Any] = {
            "n_requests": n, "chars_per_request": float(s["chars"] / n),
            "chars_per_token": self.raw_chars / self.raw_tokens if self.raw_tokens else float("nan"),
            **{f"{k}_per_request": float(s[k] / n) for k in _DECIMALS if k != "chars"},
        }
        if self.unpriced:
            out.update({f"{m}_per_request": None for m in _MONEY_PARTS},
                       usd_per_request=None, usd_per_month=None, usd_per_mchar_input=None)
            return out
        for m in _MONEY_PARTS:
            out[f"{m}_per_request"] = s[m] / n
        out["usd_per_request"] = s["usd_total"] / n
        out["usd_per_month"] = out["usd_per_request"] * workload.requests_per_month
        out["usd_per_mchar_input"] = s["spent_in"] / s["chars"] * MTOK if s["chars"] else None
        return out


class CorpusCost:
    """Cost of a workload per model, fed chunk by chunk (see the module docstring).

    Args:
        models, workload, overrides, on, fallback_tokenizer: as `estimate`.
        keep_requests: keep every request's row for `CostReport.requests` (memory then grows
            with the input; `estimate` keeps them, a streamed corpus does not).

    Attributes:
        tokenizers: the tokenizer names whose counts `add` needs (registry names).
    """

    def __init__(self, models: Sequence[str] | str | None = None, *, workload: Workload, overrides: Iterable[Price] = (),
                 on: date | datetime | None = None, fallback_tokenizer: str | None = None,
                 keep_requests: bool = False) -> None:
        self.workload = workload
        self.refs, self.day, self.prices, self.choices = plan_models(models, overrides=overrides, on=on,
                                                                      fallback_tokenizer=fallback_tokenizer)
        self.tokenizers: list[str] = list(dict.fromkeys(c.tokenizer for c in self.choices if c.usable and c.tokenizer))
        self._models = [_Totals() for _ in self.refs]
        self._over = [0] * len(self.refs)
        self._status = [c.status for c in self.choices]
        self._categories: list[dict[str, _Totals]] = [{} for _ in self.refs]
        self._requests: list[dict] | None = [] if keep_requests else None
        self.n_samples = 0
        self.n_chars = 0

    def add(self, chunk: pd.DataFrame, counts: Mapping[str, Sequence[int]]) -> None:
        """One chunk of requests (id, category, text) and its token counts per tokenizer name.

        Raises:
            BadInput: an empty text while the workload scales texts (chars_per_request).
        """
        chunk = chunk.reset_index(drop=True)
        lengths = chunk["text"].str.len()
        if self.workload.chars_per_request and not lengths.all():
            raise BadInput(f"cannot scale empty texts to chars_per_request: {chunk['id'][lengths == 0].tolist()[:5]}")
        self.n_samples += len(chunk)
        self.n_chars += int(lengths.sum())
        for i, (ref, price, choice) in enumerate(zip(self.refs, self.prices, self.choices)):
            if not choice.usable or choice.tokenizer is None:
                continue
            rows, status = request_rows(ref, price, choice, list(counts[choice.tokenizer]), chunk, self.workload)
            if status != "ok":
                self._status[i] = status
            self._models[i].add(rows)
            self._over[i] += tier_requests(price, rows)
            for category in sorted({r["category"] for r in rows}):
                self._categories[i].setdefault(category, _Totals()).add(r for r in rows if r["category"] == category)
            if self._requests is not None:
                self._requests.extend(rows)

    def report(self) -> CostReport:
        """The `CostReport` of everything added; `requests` is empty unless `keep_requests`.

        Raises:
            BadInput: nothing was added.
        """
        if not self.n_samples:
            raise BadInput("no input text: give a text, files or a corpus")
        model_rows, category_rows = [], []
        categories = set()
        for i, (ref, price, choice) in enumerate(zip(self.refs, self.prices, self.choices)):
            totals = self._models[i]
            status = self._status[i]
            if not choice.usable and price.input is None:
                status = f"no price; {status}"
            model_rows.append(model_row(ref, price, choice, status,
                                        totals.summary(self.workload) if totals.n else {},
                                        row_notes(price, choice, totals.n, self._over[i], self.workload)))
            for category in sorted(self._categories[i]):
                categories.add(category)
                category_rows.append({"model": ref, "category": category, "tokenizer": choice.label,
                                      "exactness": choice.exactness, "status": status,
                                      **self._categories[i][category].summary(self.workload)})
        models = pd.DataFrame(model_rows).reindex(columns=MODEL_COLUMNS)
        cats = pd.DataFrame(category_rows).reindex(columns=CATEGORY_COLUMNS)
        if len(categories) < 2:
            cats = cats.iloc[0:0]
        return CostReport(models, cats, pd.DataFrame(self._requests or []), self.workload, self.day,
                          source_line(self.prices), self.n_samples, self.n_chars,
                          report_notes(models, self.choices, self.workload))


def estimate(inputs: str | Sequence[str] | pd.DataFrame, models: Sequence[str] | str | None = None, *,
             workload: Workload, overrides: Iterable[Price] = (), on: date | datetime | None = None,
             fallback_tokenizer: str | None = None) -> CostReport:
    """Cost of `workload` under each model, for the requests in `inputs`: one chunk of `CorpusCost`.

    Args:
        inputs: the text of one request, a list of them, or a corpus frame (text, category, id).
        models: model references ("gpt-4o", "provider:model", override names), a
            comma-separated string, or None for `DEFAULT_MODELS` plus every override model.
        workload: requests per month, output tokens, cached share, messages per request.
        overrides: rows from `prices.load_overrides` (add or replace models).
        on: the day (default today, UTC) whose prices apply.
        fallback_tokenizer: proxy for models that no rule maps (labelled approximate); None
            leaves them without a count.

    Returns:
        A `CostReport` with one row per request in `requests`.

    Raises:
        UnknownName: an unknown model (with the closest names) or an unknown tokenizer.
        BadInput: no models, no input, or an empty text with `chars_per_request`.

    >>> r = estimate("Hello, world", ["gpt-4o"], workload=Workload(requests_per_month=1000, output_tokens=10),
    ...              on=date(2025, 1, 1))
    >>> row = r.models.iloc[0]
    >>> float(row["input_tokens_per_request"]), row["usd_per_month"]  # 3 text + 7 chat-format tokens
    (10.0, Decimal('0.125000'))
    """
    check_fallback(fallback_tokenizer)  # before the input, as the CLI reports a bad flag first
    samples = as_samples(inputs)
    if samples.empty:
        raise BadInput("no input text: give a text, files or a corpus")
    cost = CorpusCost(models, workload=workload, overrides=overrides, on=on, fallback_tokenizer=fallback_tokenizer,
                      keep_requests=True)
    texts = samples["text"].tolist()
    cost.add(samples, {name: load_tokenizer(name).count_batch(texts) for name in cost.tokenizers})
    return cost.report()
