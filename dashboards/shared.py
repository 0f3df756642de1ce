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
from analysis.render import html_tokens
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


def compact_counts(rows: list[dict]) -> str:
    """The counts so far as a compact grid (class tp-counts): tokenizer, tokens, characters per token,
    in as many columns as the width holds (one on a phone). HTML the browser draws at once, as
    a Markdown table would be (its first `st.table` makes the browser fetch a dozen more scripts from a
    server busy loading tokenizers: 2 s before the first row showed). It carries the characters counted and the rows so far (data-chars,
    data-rows): how the typing benchmark sees the new counts arrive.

    >>> compact_counts([{"tokenizer": "gpt2", "n_tokens": 1234, "chars_per_token": 3.6667, "n_chars": 4525}])
    '<div class="tp-counts" data-chars="4525" data-rows="1"><div class="tp-head"><span>tokenizer</span><span>tokens</span><span>chars/tok</span></div><div><span>gpt2</span><span>1,234</span><span>3.67</span></div></div>'
    """
    import html

    def ratio(v: float) -> str:
        return "—" if math.isnan(v) else f"{v:,.2f}"

    head = '<div class="tp-head"><span>tokenizer</span><span>tokens</span><span>chars/tok</span></div>'
    cells = "".join(f"<div><span>{html.escape(r['tokenizer'])}</span><span>{r['n_tokens']:,}</span>"
                    f"<span>{ratio(r['chars_per_token'])}</span></div>" for r in rows)
    return (f'<div class="tp-counts" data-chars="{rows[0]["n_chars"] if rows else 0}" data-rows="{len(rows)}">'
            f'{head}{cells}</div>')


# A resource, not data: `cache_data` pickles what it stores and unpickles every hit, with the
# GIL held: a copy of a drawing's 2,000 Pieces per hit (measured: docs/performance.md). The
# tuple of immutable Pieces cannot be mutated by the page that gets it.
@st.cache_resource(max_entries=64, ttl=3600, show_spinner=False)
def pieces(text: str, name: str) -> tuple[Piece, ...]:
    return tuple(tokenizer(name).pieces(text))


@st.cache_resource(max_entries=64, ttl=3600, show_spinner=False)
def drawing(text: str, name: str, others: tuple[str, ...] = ()) -> str:
    """`html_tokens` of `text` under `name`, a token ringed where its span is not one of each of `others`.

    A resource, as `pieces`: the string is shared, never copied. A keystroke draws the new text
    twice, in the rerun of the first screen and in the page's rerun that follows it (Compare's
    `typed_screen`): the second is a hit.
    """
    return html_tokens(text, pieces(text, name), others=[pieces(text, o) for o in others])


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


def tokenizer_label(count: Count) -> str:
    """The tokenizer of a count as every table of the CLI names it: "~o200k_base" for a proxy."""
    choice = resolve(count.model).choice()
    return choice.label if choice.tokenizer == count.tokenizer else count.tokenizer


def whole_tokens(value: Any) -> str:
    """A token count as a whole number ("765", "1,105"), "not counted" where there is none.

    >>> whole_tokens(Decimal("765.0000")), whole_tokens(1105.0), whole_tokens(None)
    ('765', '1,105', 'not counted')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "not counted"
    return f"{Decimal(str(value)):,.0f}"


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


def money_first(table: pd.DataFrame) -> pd.DataFrame:
    """A models table with its dollar columns (a "$" in the name) right after the model, so a page
    shows what each model costs without scrolling sideways.

    >>> money_first(pd.DataFrame(columns=["model", "tokenizer", "$/Mtok in / out", "$/month", "status"])).columns.tolist()
    ['model', '$/month', '$/Mtok in / out', 'tokenizer', 'status']
    """
    money = [c for c in table.columns if "$" in c]
    money.sort(key=lambda c: "Mtok" in c)  # the totals first, the rates they come from after
    rest = [c for c in table.columns if c not in money]
    return table[rest[:1] + money + rest[1:]]


def billed_headline(traffic) -> str:
    """The log's as-billed line, its two figures naming the same parts: how much of the billed figure
    is the reasoning the log records (at the serving model's output rate, about), which a recount of
    the text cannot see, and that the recount leaves it out."""
    served = traffic.served
    if "billed_reasoning_tokens" not in served or traffic.billed_total is None:
        return traffic.billed_line()
    tokens, usd = 0, Decimal(0)
    for key, n in zip(served["priced_as"], served["billed_reasoning_tokens"]):
        if n is None or n != n or not n:
            continue
        tokens += int(n)
        price = get_price(key)
        usd += Decimal(int(n)) * (price.output.base if price.output else Decimal(0)) / Decimal(1_000_000)
    rows = (f"{traffic.billed_rows:,} of {traffic.n_rows:,} rows carry the provider's usage; on the models that "
            "served them")
    recounted = ("not recounted: a model that served them has no tokenizer" if traffic.recounted_billed is None
                 else f"recounted: {format_usd(traffic.recounted_billed)}")
    if not tokens:
        return (f"as billed: {format_usd(traffic.billed_total)}; {recounted} (both: the prompts and the responses; "
                f"{rows})")
    return (f"as billed: {format_usd(traffic.billed_total)}, of which about {format_usd(usd)} is the {tokens:,} "
            f"reasoning tokens the log records; {recounted}, the prompts and visible responses only: a recount "
            f"of the text cannot see reasoning ({rows})")


@st.cache_data(max_entries=8, show_spinner="Writing the report…")
def cost_html(report) -> bytes:
    from analysis.report.cost import render_html  # its figures import matplotlib: only when a report is asked for

    return render_html(report).encode("utf-8")


# The Cost page names a library message's fixes as its own controls (the CLI as its flags).
PAGE_WORDS = (("pass errors='skip'", 'tick "Skip malformed rows"'), ("with shape=SHAPE", 'in "Log format"'),
              ("drop the flag for this model", 'set "Prices" to standard or remove this model'),
              ("give --reasoning-tokens N or --reasoning-ratio R (or MODEL=VALUE)",
               'give "Reasoning tokens per request"'),
              ("give --reasoning-tokens N or --reasoning-ratio R", 'give "Reasoning tokens per request"'),
              ("(--batch/--service-tier)", '("Prices")'),
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
