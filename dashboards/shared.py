"""What the Compare page needs for its first answer, shared with Chat and Cost: tokenizers, counts, prices.

Unlike the pages (scripts that draw), this module only wraps `analysis` calls in Streamlit's
caches; unlike `corpus_views` (the built-in corpora, probes and charts of Explore, Why and the
BPE lab), it imports no altair, probes or plots, so a pasted text is counted without them.
Tokenizer adapters are `cache_resource` (loaded once per process, thread-safe, never mutated);
rows and frames computed from widget values are `cache_data`, keyed by those values and bounded
by `max_entries`.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.runtime.scriptrunner import add_script_run_ctx, get_script_run_ctx

from analysis import Piece, Tokenizer, available_tokenizers, load_tokenizer
from analysis.compare import COLUMNS, PARALLEL_CHARS, compare_rows
from analysis.corpora import sample_text as corpora_sample_text
from analysis.cost import (DEFAULT_MODELS, NoPriceError, Workload, estimate, format_usd, get_price, model_names,
                           price_shared_prefix, table_rates, usd)
from analysis.errors import BadInput, UnknownName
from analysis.models import closest_models, resolve
from analysis.requests import Count, ignored_fields, ignored_note, input_tokens, parse, request_counter
from analysis.tokenizers.fetch import vocabulary_problems


def default_names(names: list[str], preferred=("o200k_base", "cl100k_base")) -> list[str]:
    """The preferred tokenizers that are offered, else the first two offered."""
    return [n for n in preferred if n in names] or names[:2]


@st.cache_resource(max_entries=64, show_spinner="Loading tokenizer…")
def tokenizer(name: str) -> Tokenizer:
    return load_tokenizer(name)


def tokenizers(names) -> list[Tokenizer]:
    return [tokenizer(n) for n in names]


@st.cache_data(ttl=600, max_entries=1, show_spinner=False)
def tokenizer_names() -> list[str]:
    broken = vocabulary_problems()  # named on every page by the app; not offered until re-fetched
    return [n for n in available_tokenizers() if n not in broken]


@st.cache_data(max_entries=320, show_spinner=False)
def count_row(text: str, name: str) -> dict:
    """`compare`'s row (COLUMNS) of `text` under one tokenizer, loading it first if need be.

    It loads through the registry, not `tokenizer`, whose spinner is an element: rows may be
    counted in worker threads, and the page shows its own progress.
    """
    return compare_rows(text, [load_tokenizer(name)])[0]


def count_rows(text: str, names: Sequence[str]) -> Iterator[list[dict]]:
    """The rows of `compare` in the order of `names`, yielded each time one more is in (the rows so far).

    The Compare table fills as they come: the first row waits for one tokenizer, not for all
    of them. A text longer than `PARALLEL_CHARS` is counted under several tokenizers at once,
    one thread per core (the Rust engines release the interpreter lock while they encode);
    the rows still come in the order of `names`.
    """
    rows: list[dict] = []
    if len(text) <= PARALLEL_CHARS or len(names) < 2:
        for name in names:
            rows.append(count_row(text, name))
            yield rows
        return
    # The workers call the cached `count_row` as the script would: with its run's context.
    ctx = get_script_run_ctx()
    with ThreadPoolExecutor(max_workers=min(len(names), os.cpu_count() or 1), initializer=add_script_run_ctx,
                            initargs=(None, ctx)) as pool:
        for future in [pool.submit(count_row, text, name) for name in names]:
            rows.append(future.result())
            yield rows


def counts_frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS)


SHOWN_COUNTS = [c for c in COLUMNS if c not in ("n_chars", "n_bytes")]  # the page shows these two once, above


def counts_markdown(rows: list[dict]) -> str:
    """The rows counted so far as a Markdown table, numbers formatted as `styled` formats them.

    The Compare page shows the rows this way while they come in: the browser draws Markdown
    with the scripts it loaded with the page, whereas its first `st.table` (Arrow) makes it fetch
    a dozen more scripts from a server busy loading tokenizers (measured: 2 s before the first
    row showed). The finished table is an `st.table`.

    >>> print(counts_markdown([{"tokenizer": "gpt2", "family": "tiktoken", "n_vocab": 50257, "n_tokens": 3,
    ...                         "chars_per_token": 3.6667, "bytes_per_token": float("nan")}]))
    | tokenizer | family | n_vocab | n_tokens | chars_per_token | bytes_per_token |
    |---|---|---:|---:|---:|---:|
    | gpt2 | tiktoken | 50,257 | 3 | 3.67 | — |
    """
    def cell(v: object) -> str:
        if isinstance(v, float):
            return "—" if math.isnan(v) else f"{v:,.2f}"
        if isinstance(v, int):
            return f"{v:,}"
        return str(v).replace("|", "\\|")

    numeric = {c for c in SHOWN_COUNTS if rows and isinstance(rows[0][c], (int, float))}
    lines = ["| " + " | ".join(SHOWN_COUNTS) + " |",
             "|" + "|".join("---:" if c in numeric else "---" for c in SHOWN_COUNTS) + "|"]
    lines += ["| " + " | ".join(cell(r[c]) for c in SHOWN_COUNTS) + " |" for r in rows]
    return "\n".join(lines)


# A resource, not data: `cache_data` pickles what it stores and unpickles every hit, with the
# GIL held: a copy of a drawing's 2,000 Pieces per hit (measured: docs/performance.md). The
# tuple of immutable Pieces cannot be mutated by the page that gets it.
@st.cache_resource(max_entries=64, ttl=3600, show_spinner=False)
def pieces(text: str, name: str) -> tuple[Piece, ...]:
    return tuple(tokenizer(name).pieces(text))


@st.cache_data(max_entries=1, show_spinner=False)
def sample_text() -> str:
    """The built-in sample text (read once, not on every script run: it parses the manifest)."""
    return corpora_sample_text()


def styled(df: pd.DataFrame, digits: int = 2):
    """A Styler for st.table: floats with `digits` decimals, counts with thousands separators,
    booleans as ✓ / ✗.

    The frame's values stay as they are (tests read them); only their display is formatted.
    """
    formats: dict[str, str | Callable[[Any], str]] = {}
    for col in df.columns:
        kind = df[col].dtype.kind
        if col.startswith("usd"):
            formats[col] = format_usd  # money: Decimal, "no price" for None (never $0)
        elif kind == "f":
            formats[col] = f"{{:,.{digits}f}}"
        elif kind in "iu" and not col.endswith(("_id", "_size", "step")):
            formats[col] = "{:,}"
        elif kind == "b" or str(df[col].dtype) == "boolean":
            formats[col] = _tick
    return df.style.format(formats, na_rep="—")


def _tick(v) -> str:
    return "—" if pd.isna(v) else "✓" if v else "✗"


# -- cost ------------------------------------------------------------------------------------------
@st.cache_data(ttl=3600, max_entries=1, show_spinner=False)
def model_choices() -> list[str]:
    """The default cross-provider models first, then every model with a price."""
    return list(dict.fromkeys([*DEFAULT_MODELS, *model_names()]))


def model_problem(model: str) -> str | None:
    """None when `model` is a known model id; else the refusal naming the closest ids."""
    try:
        resolve(model)
    except UnknownName as e:
        close = closest_models(model)
        return f"{e}" + ("" if not close or all(c in str(e) for c in close) else f" Closest ids: {', '.join(close)}.")
    except BadInput as e:
        return str(e)
    return None


@st.cache_data(max_entries=64, show_spinner="Counting…")
def request_count(body: str, model: str) -> Count:
    """`input_tokens` of a request body (JSON text; a plain text is one user message) to `model`.

    The one count `tokenprism count` gives for the same request and model. Raises what `parse`
    and `input_tokens` raise (BadInput, UnknownName): the page shows it.
    """
    return input_tokens(parse(json.loads(body)), model)


@st.cache_data(max_entries=64, show_spinner=False)
def request_ignored(body: str, model: str) -> str:
    """What `model`'s chat format leaves out of the request (`body`, JSON text), worded; '' for nothing.

    Cached: finding out counts the request again once per field it carries."""
    counter = request_counter(model)
    return ignored_note(ignored_fields(parse(json.loads(body)), counter), counter.family)


@st.cache_data(max_entries=64, show_spinner=False)
def request_price(n_tokens: int, model: str) -> tuple[Decimal | None, str]:
    """(what `n_tokens` input tokens cost on `model`, the price's source or why there is none)."""
    spec = resolve(model)
    if spec.price_ref is None:
        return None, spec.price_note or "no price is known for this model"
    price = get_price(spec.price_ref)
    try:  # the rates of the tier these tokens reach, priced by the cost package's one arithmetic
        rates = table_rates(price, n_tokens)
    except NoPriceError as e:
        return None, str(e)
    cost = usd({"input": n_tokens}, rates, 1)
    return cost, f"{price.key}: ${rates.input}/M input tokens ({price.source}, {price.as_of})"


@st.cache_data(max_entries=16, show_spinner="Counting and pricing…")
def cost_report(inputs, models: tuple[str, ...], *, requests: int, messages: int, chars: int | None,
                output_tokens: int | None, output_ratio: str | None, cached: str, reasoning: int | None = None,
                prices: tuple[bool, str | None] = (False, None)):
    """`analysis.cost.estimate` for the form's values (numbers as given: Workload validates them);
    `prices` is (batch, service tier)."""
    workload = Workload(requests_per_month=requests, output_tokens=output_tokens, output_ratio=output_ratio,
                        cached_share=cached, messages_per_request=messages, chars_per_request=chars,
                        reasoning_tokens=reasoning, batch=prices[0], service_tier=prices[1])
    return estimate(inputs, list(models), workload=workload)


@st.cache_data(max_entries=16, show_spinner="Counting, simulating each model's cache and pricing…")
def prefix_report(texts: tuple[str, ...], models: tuple[str, ...], *, system: str, tools: str,
                  per_lifetime: str | None, breakpoints: str, requests: str, output_tokens: str | None,
                  output_ratio: str | None, cached: str, reasoning: str | None = None,
                  prices: tuple[bool, str | None] = (False, None)):
    """`analysis.cost.price_shared_prefix` for the form's values (as `tokenprism cost TEXT --system S
    --requests-per-lifetime R` prices them); `tools` is JSON text ('' for none)."""
    return price_shared_prefix(list(texts), list(models), system=system or None,
                               tools=json.loads(tools) if tools.strip() else None,
                               requests_per_lifetime=per_lifetime, cache_breakpoints=breakpoints,
                               requests_per_month=requests, output_tokens=output_tokens, output_ratio=output_ratio,
                               cached_share=cached if float(cached) else None,  # 0: each model's own cache
                               reasoning_tokens=reasoning, batch=prices[0],
                               service_tier=prices[1])


def cost_chart(plot: str, table: pd.DataFrame, column: str | None = None) -> None:
    """Draw `analysis.plots.cost_charts.<plot>(table)`, the same interactive kind of chart as the other
    pages', and name the models it leaves out for want of a cost in `column`."""
    if table.empty:
        return
    from analysis.plots import cost_charts

    st.altair_chart(getattr(cost_charts, plot)(table), width="stretch")
    missing = cost_charts.not_drawn(table, column) if column else []
    if missing:
        st.caption("Not drawn (no cost): " + "; ".join(missing))


@st.cache_data(max_entries=8, show_spinner="Writing the report…")
def cost_html(report) -> bytes:
    from analysis.report.cost import render_html  # its figures import matplotlib: only when a report is asked for

    return render_html(report).encode("utf-8")


# The Cost page names a library message's fixes as its own controls (the CLI as its flags).
PAGE_WORDS = (("pass errors='skip'", 'tick "Skip malformed rows"'), ("with shape=SHAPE", 'in "Log format"'),
              ("drop the flag for this model", 'set "Prices" to standard or remove this model'),
              ("give --reasoning-tokens N or --reasoning-ratio R (or MODEL=VALUE)",
               'give "Reasoning tokens per request"'),
              ("--cache-breakpoints auto places them", '"Anthropic cache breakpoints: auto" places them'),
              ("(--requests-per-lifetime)", '("Requests per cache lifetime")'),
              ("--cached-share", '"Share of input served from the prompt cache"'))


def page_words(message: str) -> str:
    """A library message with its fixes named as this page's controls.

    >>> page_words("a.jsonl:3: bad (read as text; force another with shape=SHAPE). Fix the row, or pass errors='skip'")
    'a.jsonl:3: bad (read as text; force another in "Log format"). Fix the row, or tick "Skip malformed rows"'
    """
    for words, control in PAGE_WORDS:
        message = message.replace(words, control)
    return message
