"""What a workload costs under each model, summed chunk by chunk in `Decimal`: the one arithmetic of cost reports.

Unlike `workload` (the assumed numbers), `cost.targets` (which models, prices and tokenizers),
`cost.bill` (the price of one request's parts) and `rows` (a model's row and notes in the report),
this module adds requests up. Each text (or
corpus sample) is one request, priced on its own (so context tiers apply per request), counted by
the one request counter (`cost.recount`, `analysis.requests`, its texts batched by `requests.batch`): one message holding the text is
the request `tokenprism count` counts, to the same number; N messages per request are N turns of
the model's chat format with the text in the last, an estimate that says so. `CorpusCost` receives chunks of
requests with their token counts (counted anywhere: in this process, on all cores or on a Dask
cluster, see `analysis.engine`) and keeps running sums per model and per model x category, so
memory does not grow with the corpus. `estimate` is the same sums over one chunk, the whole
input, with its per-request rows kept for the report's request table. A model without a price
is "no price" (None), never $0; a model without a usable tokenizer says why. Rounding happens
only in `report.tables` (and `analysis.money`), for people.

    >>> import pandas as pd
    >>> cc = CorpusCost(["gpt-4o"], workload=Workload(requests_per_month=1000, output_tokens=10), on=date(2025, 1, 1))
    >>> cc.tokenizers
    ['o200k_base']
    >>> cc.add(pd.DataFrame({"id": ["a"], "category": ["x"], "text": ["Hello, world"]}), {"o200k_base": [3]})
    >>> cc.report().models.loc[0, "usd_per_month"]
    Decimal('0.125000')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import pandas as pd

from ...errors import BadInput
from ..bill import NoPriceError, RequestCost, rates_for, request_cost, request_usd
from ..prices import MTOK, Price
from ...requests.batch import batch_tokenizers, count_request
from ..recount import least_exact, workload_request
from ..caching import REASONING_NOT_INCLUDED, reasoning_rule
from ..targets import check_fallback, plan_models, source_line, target_counter
from ...requests import RequestCounter
from ...requests.formats.parts import join_reasons
from ...tokenizers import Tokenizer, clean_text, load_tokenizer
from ...tokenizers.base import has_surrogates
from .rows import model_row, report_notes, row_notes, tier_requests
from .workload import CATEGORY_COLUMNS, MODEL_COLUMNS, Workload

# the input count's own exactness and reason, kept beside a row whose total is an estimate because
# its reasoning is unknown: the one-request table, which prices the input alone, shows these
# (`one_request.quick_frame`); no report writes them (`report.cost` drops them)
COUNT_EXACTNESS, COUNT_REASON = "count_exactness", "count_exactness_reason"

# -- the report ------------------------------------------------------------------------------
@dataclass(frozen=True)
class CostReport:
    """Everything a cost report shows.

    Attributes:
        models: one row per model (see `MODEL_COLUMNS`); money columns hold `Decimal` or None; token
            totals over the sampled requests are ints, per-request means floats.
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



def _whole(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_HALF_EVEN))


def workload_count(counter: RequestCounter, tokenizer: Tokenizer, text: str, workload: Workload) -> tuple[int, int, str, str]:
    """(content tokens, format tokens, exactness, reason) of one text as a request of `workload`.

    One message is the text as one user message, counted as `tokenprism count` counts it; N > 1
    messages are N turns of the family's format with the text in the last (an estimate: a real
    conversation splits its text and its format differently); 0 messages is the raw text, no
    chat format. A text scaled to `chars_per_request` scales its content tokens (rounded), not
    the format's, and is an estimate.
    """
    n = workload.messages_per_request
    if n == 0:
        exactness = "exact" if counter.text_exactness == "exact" else "estimate"
        content, fmt = tokenizer.count(text), 0
        reason = join_reasons("raw text (0 messages per request): no chat format, the text alone",
                              "" if exactness == "exact" else counter.text_note)
    else:
        c = count_request(counter, workload_request(text, n), tokenizer)
        content, fmt, exactness, reason = c.content_tokens, c.format_tokens, c.exactness, c.reason
        if n > 1:
            exactness = "estimate"
            reason = join_reasons(f"a described workload of {n} messages per request: the format's tokens are this "
                                  f"family's for {n} turns with the text in the last one (a real conversation splits "
                                  "its text, and so its format, its own way)", c.reason)
    if workload.chars_per_request and len(text):
        content = _whole(Decimal(content) * workload.chars_per_request / len(text))
        exactness = "estimate"
        reason = join_reasons(f"text scaled to {workload.chars_per_request:,f} characters, keeping its content "
                              "tokens per character", reason)
    return content, fmt, exactness, reason


def request_rows(ref: str, price: Price, counter: RequestCounter, tokenizer: Tokenizer, samples: pd.DataFrame,
                 workload: Workload) -> tuple[list[dict], str]:
    """One row per request (sample) of one model: tokens (ints), exactness, and the dollars of each part.

    An output ratio multiplies the content tokens, not the chat format's (the same answer has one
    length whatever the model's format adds), rounded to a whole number of tokens. The cached
    tokens are shown rounded; their price uses the exact share.
    """
    rows, status = [], "ok"
    for sample_id, category, text in zip(samples["id"], samples["category"], samples["text"]):
        content, fmt, exactness, reason = workload_count(counter, tokenizer, text, workload)
        n_in = content + fmt
        # a request's output is a whole number of tokens: an assumed one is rounded before it is priced
        n_out = _whole(workload.output_tokens if workload.output_tokens is not None else workload.output_ratio * content)
        reasoning = workload_reasoning(ref, workload, n_out)
        count_exactness, count_reason = exactness, reason  # the input count's own, before reasoning
        if reasoning is None:
            exactness = "estimate"
            reason = join_reasons(f"{REASONING_NOT_INCLUDED}: {ref} bills its reasoning as output tokens, which no "
                                  "text shows; give --reasoning-tokens N or --reasoning-ratio R", reason)
        row = {"model": ref, "id": sample_id, "category": category,
               "chars": workload.chars_per_request or Decimal(len(text)), "raw_chars": len(text),
               "raw_tokens": tokenizer.count(text), "content_tokens": content, "format_tokens": fmt,
               # input_tokens is the uncached input; prompt_tokens the whole prompt (cached included)
               "prompt_tokens": n_in, "input_tokens": n_in - _whole(n_in * workload.cached_share),
               "cached_tokens": _whole(n_in * workload.cached_share), "output_tokens": n_out,
               "reasoning_tokens": reasoning or 0, "reasoning_known": reasoning is not None,
               "exactness": exactness, "exactness_reason": reason,
               COUNT_EXACTNESS: count_exactness, COUNT_REASON: count_reason}
        try:  # reasoning is billed at the output price
            rc = (variant_cost(price, workload, n_in, n_out + (reasoning or 0)) if workload.batch or workload.service_tier
                  else request_cost(price, input_tokens=n_in, output_tokens=n_out + (reasoning or 0),
                                    cached_share=workload.cached_share))
            row.update({m: getattr(rc, m) for m in _MONEY})
        except NoPriceError:
            status = "no price" if price.input is None else "no output price"
            row.update({m: None for m in _MONEY})  # unknown, never 0
        rows.append(row)
    return rows, status


def variant_cost(price: Price, workload: Workload, n_in: int, n_out: int) -> RequestCost:
    """One request at genai-prices' batch or service-tier rates (`cost.bill.rates_for`), by part."""
    if price.input is None or (price.output is None and n_out):
        raise NoPriceError(f"{price.key}: no {'input' if price.input is None else 'output'} price")
    r = rates_for(price, price.as_of or datetime.now(UTC).date(), n_in, batch=workload.batch,
                  service_tier=workload.service_tier)
    return request_usd(r, input_tokens=n_in, output_tokens=n_out, cached_share=workload.cached_share)


def workload_reasoning(ref: str, workload: Workload, n_out: int) -> int | None:
    """Reasoning tokens of one request on `ref`: 0 on a model that does not reason (or reasons only
    when asked), the workload's figure on one that does, None when that figure is not given."""
    rule = reasoning_rule(ref)
    if workload.reasoning_tokens is not None and rule is not None:
        return _whole(workload.reasoning_tokens)
    if workload.reasoning_ratio is not None and rule is not None:
        return _whole(workload.reasoning_ratio * n_out)
    return 0 if rule is None or rule.optional else None


# -- the sums --------------------------------------------------------------------------------
_DECIMALS = ("chars", "content_tokens", "format_tokens", "prompt_tokens", "input_tokens", "cached_tokens", "output_tokens",
             "reasoning_tokens")
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
    exactness: Counter = field(default_factory=Counter)
    reasoning_unknown: int = 0

    def add(self, rows: Iterable[dict]) -> None:
        s = self.sums
        for r in rows:  # request after request, so the sums do not depend on how the input was chunked
            self.n += 1
            self.exactness[(r["exactness"], r["exactness_reason"])] += 1
            self.raw_chars += r["raw_chars"]
            self.raw_tokens += r["raw_tokens"]
            self.reasoning_unknown += not r["reasoning_known"]
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
        """The per-request means of a report row (means as float, totals as int, money as Decimal or None)."""
        n, s = self.n, self.sums
        exactness, reason = least_exact(self.exactness)
        out: dict[str, Any] = {
            "n_requests": n, "exactness": exactness, "exactness_reason": "" if exactness == "exact" else reason,
            **{k: _whole(s[k]) for k in ("prompt_tokens", "input_tokens", "content_tokens", "format_tokens",
                                         "output_tokens", "reasoning_tokens")},
            "cache_read_tokens": _whole(s["cached_tokens"]), "cache_write_tokens": 0,
            "reasoning": REASONING_NOT_INCLUDED if self.reasoning_unknown else "",
            "chars_per_request": float(s["chars"] / n),
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
        self.counters = [target_counter(ref, choice) for ref, choice in zip(self.refs, self.choices)]
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
        texts = chunk["text"].tolist()
        usable = [c for c in self.counters if c is not None]
        # The engine's counts of each text fill the batch; a format that needs more (ids, a joined string) counts it here.
        batches = batch_tokenizers(usable, texts, {name: list(v) for name, v in counts.items()})
        for i, (ref, price, counter) in enumerate(zip(self.refs, self.prices, self.counters)):
            if counter is None:
                continue
            tokenizer = batches.get(counter.tokenizer.name, counter.tokenizer)
            rows, status = request_rows(ref, price, counter, tokenizer, chunk, self.workload)
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
                                        row_notes(price, choice, totals.n, self._over[i], self.workload),
                                        self.workload))
            for category in sorted(self._categories[i]):
                categories.add(category)
                category_rows.append({"model": ref, "category": category, "tokenizer": choice.label, "status": status,
                                      **self._categories[i][category].summary(self.workload)})
        models = pd.DataFrame(model_rows).reindex(columns=MODEL_COLUMNS)
        cats = pd.DataFrame(category_rows).reindex(columns=CATEGORY_COLUMNS)
        if len(categories) < 2:
            cats = cats.iloc[0:0]
        return CostReport(models, cats, pd.DataFrame(self._requests or []), self.workload, self.day,
                          source_line(self.prices), self.n_samples, self.n_chars,
                          report_notes(models, self.workload))


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
        fallback_tokenizer: proxy for models that no rule maps (an estimate); None
            leaves them without a count.

    Returns:
        A `CostReport` with one row per request in `requests`.

    Raises:
        UnknownName: an unknown model (with the closest names) or an unknown tokenizer.
        BadInput: no models, no input, or an empty text with `chars_per_request`.

    >>> r = estimate("Hello, world", ["gpt-4o"], workload=Workload(requests_per_month=1000, output_tokens=10),
    ...              on=date(2025, 1, 1))
    >>> row = r.models.iloc[0]
    >>> int(row["input_tokens"]), int(row["content_tokens"]), int(row["format_tokens"]), row["usd_per_month"]  # as `tokenprism count`
    (10, 3, 7, Decimal('0.125000'))
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
