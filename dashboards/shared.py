"""What every page shares: cached tokenizers and measurements, and the CSS for drawn tokens.

Unlike the pages (scripts that draw), this module only wraps `analysis` calls in Streamlit's
caches. Tokenizer adapters are `cache_resource` (loaded once per process, thread-safe, never
mutated); frames computed from widget values are `cache_data`, keyed by those values and
bounded by `max_entries`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st

import ownbpe
from analysis import (
    Piece,
    Tokenizer,
    available_tokenizers,
    load_tokenizer,
    plots,
    probes,
)
from analysis.tokenizers.fetch import vocabulary_problems
from analysis.compare import compare
from analysis.errors import BadInput, UnknownName
from analysis.models import closest_models, resolve
from analysis.requests import Count, input_tokens, parse
from analysis.corpora import load_builtin
from analysis.corpora import sample_text as corpora_sample_text
from analysis.cost import DEFAULT_MODELS, NoPriceError, Workload, estimate, format_usd, get_price, model_names, request_cost
from analysis.lab import bpe as bpe_lab
from analysis.lab import trace
from analysis.pipeline.builtin_table import measured_builtin
from analysis.pipeline import summarize as summarize_measured
from analysis.plots import charts
from analysis.probes import numbers as probes_numbers
from analysis.probes import whitespace as probes_whitespace
from analysis.tokenizers import CATALOGUE, tiktoken_params

# Two alternating token colours (the terminal renderer's light blue and light orange), a pink
# for tokens holding part of a character, and a red bar under tokens the other side lacks.
CSS = """
<style>
.tp-text { font-family: "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 0.92rem;
  line-height: 2.0; white-space: pre-wrap; overflow-wrap: break-word; color: #1d1d1f; background: #fbfbfd;
  border: 1px solid #e3e5ea; border-radius: 0.5rem; padding: 0.6rem 0.8rem; max-height: 26rem; overflow-y: auto; }
.tp-tok { border-radius: 3px; padding: 2px 0; margin-right: 1px; }
.tp-t0 { background: #cfe2ff; }
.tp-t1 { background: #ffe0bd; }
.tp-partial { background: #ffc2d1; font-size: 0.8em; }
.tp-diff { box-shadow: inset 0 -3px 0 #d62728; }
.tp-fmt { background: #ececef; color: #8e8e96; font-size: 0.85em; }
.tp-legend span.tp-tok { padding: 1px 6px; margin-right: 6px; }
</style>
"""

LEGEND = ('<div class="tp-legend" style="font-size:0.85rem;color:#555">'
          '<span class="tp-tok tp-t0">token</span><span class="tp-tok tp-t1">next token</span>'
          '<span class="tp-tok tp-partial">&lt;0xE3&gt; part of a character</span>'
          '· space &nbsp; → tab &nbsp; ↵ newline &nbsp; — hover a token for its id and bytes</div>')
CHAT_LEGEND = ('<div class="tp-legend" style="font-size:0.85rem;color:#555">'
               '<span class="tp-tok tp-fmt">format</span>the chat format\'s own tokens (roles, markers, separators) '
               '&nbsp; <span class="tp-tok tp-t0">content</span><span class="tp-tok tp-t1">next</span>your text '
               '&nbsp; — hover a token for its id and bytes</div>')


class Html(str):
    """HTML for `st.html` to take as it is.

    Given a plain string, Streamlit dedents and strips it (`textwrap.dedent`: regular
    expressions over the whole of a 170 KB drawing, with the GIL held: a fifth of the server's
    time on the drawing line with five sessions at once); an object with `_repr_html_` is used
    unchanged. The drawings start with their `<div>`, so there is nothing to dedent or strip.
    """

    def _repr_html_(self) -> str:
        return str(self)


def inject_css() -> None:
    st.html(CSS)


# Focus the first text box of the page once it is drawn, unless the reader is already somewhere
# else (a rerun must never steal focus). Streamlit has no autofocus option.
_FOCUS_JS = """<script>
(function () {
  let tries = 0;
  const focus = () => {
    const box = document.querySelector('[data-testid="stTextArea"] textarea');
    if (!box) { if (tries++ < 100) setTimeout(focus, 50); return; }
    const active = document.activeElement;
    if (!active || active === document.body) box.focus();
  };
  focus();
})();
</script>"""


def focus_text_area() -> None:
    st.html(_FOCUS_JS, unsafe_allow_javascript=True)


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


@st.cache_data(max_entries=32, show_spinner="Counting…")
def compare_frame(text: str, names: tuple[str, ...]) -> pd.DataFrame:
    return compare(text, tokenizers(names))


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


# -- BPE lab ---------------------------------------------------------------------------------------
@st.cache_data(max_entries=16, show_spinner="Training, one merge at a time…")
def lab_steps(corpus: str, n_merges: int):
    return bpe_lab.bpe_steps(corpus, n_merges)


@st.cache_data(max_entries=64, show_spinner=False)
def lab_pieces(corpus: str, n_merges: int, step: int) -> list[Piece]:
    return lab_steps(corpus, n_merges).pieces_at(step)


@st.cache_data(max_entries=8, show_spinner="Training ownbpe and Hugging Face…")
def train_both(corpus: str, vocab_size: int):
    return bpe_lab.train_both(corpus, vocab_size)


@st.cache_data(max_entries=8, show_spinner="Loading the built-in corpus…")
def builtin_corpus(category: str) -> str:
    """Every built-in sample of one category, joined by blank lines."""
    return "\n\n".join(load_builtin([category])["text"])


@st.cache_data(max_entries=4, show_spinner=False)
def builtin_samples() -> pd.DataFrame:
    """id, category, language and text of every stored (not generated) built-in sample."""
    return load_builtin(["prose", "code", "multilingual"])[["id", "category", "language", "text"]]


# -- Why -------------------------------------------------------------------------------------------
def family(name: str) -> str:
    return CATALOGUE[name].family


@st.cache_data(max_entries=32, show_spinner=False)
def digit_grouping(names: tuple[str, ...], number: str) -> pd.DataFrame:
    return probes_numbers.digit_grouping(tokenizers(names), [number])


@st.cache_data(max_entries=4, show_spinner="Encoding every year…")
def single_token_years(names: tuple[str, ...], context: str) -> pd.DataFrame:
    start, stop = probes_numbers.YEARS
    single = probes_numbers.single_token_numbers(tokenizers(names), stop=stop + 1, contexts=[context])
    return probes_numbers.single_token_years(single)


@st.cache_data(max_entries=32, show_spinner=False)
def trailing_whitespace(names: tuple[str, ...], text: str, max_spaces: int) -> pd.DataFrame:
    return probes_whitespace.trailing_whitespace(tokenizers(names), [text], max_spaces=max_spaces)


@st.cache_resource(max_entries=4, show_spinner="Loading the ranks into ownbpe…")
def explainer(name: str):
    """ownbpe replaying a tiktoken-family vocabulary (shared; `explain` does not change it)."""
    return ownbpe.Tokenizer.from_tiktoken(*tiktoken_params(name))


@st.cache_data(max_entries=64, show_spinner=False)
def merge_trace(name: str, text: str) -> tuple[pd.DataFrame, pd.DataFrame, list[int]]:
    """(pieces, steps, ids) of ownbpe's explanation of `text` under `name`'s ranks."""
    explanations = explainer(name).explain(text, ordinary=True)
    pieces, steps = trace.merge_trace(explanations)
    return pieces, steps, [i for p in explanations for i in p.ids]


# -- Explore ---------------------------------------------------------------------------------------
@st.cache_data(max_entries=2, show_spinner="Measuring the built-in corpora (once)…")
def explore_measured(names: tuple[str, ...]) -> pd.DataFrame:
    """The built-in corpora measured under `names` (one row per sample x tokenizer).

    Read from the checked-in table for the bundled tokenizers (measured once per release), and
    measured now only for the ones it lacks.
    """
    return measured_builtin(list(names))


@st.cache_data(max_entries=64, show_spinner="Running the probe…")
def probe_table(names: tuple[str, ...], name: str) -> pd.DataFrame:
    """One `analysis.probes.PROBE_TABLES` table for `names`; the code probes reuse the measurement."""
    measured = explore_measured(names) if name.startswith("code-") else None
    return probes.run_probe(name, probes.ProbeRun(tokenizers=list(names), measured=measured))


@st.cache_data(max_entries=64, show_spinner=False)
def figure_png(plot: str, table: pd.DataFrame) -> bytes | None:
    """`analysis.plots.<plot>(table)` (or "plots_cost.<plot>") as PNG bytes; None for an empty table."""
    if table.empty:
        return None
    module, _, name = plot.rpartition(".")
    if module == "plots_cost":
        from analysis.plots import cost as plots_cost  # matplotlib: imported by the first figure, not the first page

        fig = getattr(plots_cost, name)(table)
    else:
        fig = getattr(plots, name)(table)
    return plots.figure_bytes(fig)


def show_chart(plot: str, table: pd.DataFrame) -> None:
    """Draw `analysis.plots.charts.CHARTS[plot](table)`: an interactive Vega-Lite chart.

    Single views stretch to the column; concatenated ones (heatmaps with their tokenizer
    strip) keep the size their cells give them.
    """
    chart = charts.CHARTS[plot](table)
    single = isinstance(chart, (alt.Chart, alt.LayerChart))
    st.altair_chart(chart, width="stretch" if single else "content")


@st.cache_data(max_entries=32, show_spinner=False)
def summarize(rows: pd.DataFrame, by: tuple[str, ...]) -> pd.DataFrame:
    return summarize_measured(rows, list(by))


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
def request_price(n_tokens: int, model: str) -> tuple[Decimal | None, str]:
    """(what `n_tokens` input tokens cost on `model`, the price's source or why there is none)."""
    spec = resolve(model)
    if spec.price_ref is None:
        return None, spec.price_note or "no price is known for this model"
    price = get_price(spec.price_ref)
    rate = f"${price.input.base}/M input tokens" if price.input else "no input price"
    try:
        usd = request_cost(price, input_tokens=n_tokens, output_tokens=0).usd_total
    except NoPriceError as e:
        return None, str(e)
    return usd, f"{price.key}: {rate} ({price.source}, {price.as_of})"


@st.cache_data(max_entries=16, show_spinner="Counting and pricing…")
def cost_report(inputs, models: tuple[str, ...], *, requests: int, messages: int, chars: int | None,
                output_tokens: int | None, output_ratio: str | None, cached: str):
    """`analysis.cost.estimate` for the form's values (numbers as given: Workload validates them)."""
    workload = Workload(requests_per_month=requests, output_tokens=output_tokens, output_ratio=output_ratio,
                        cached_share=cached, messages_per_request=messages, chars_per_request=chars)
    return estimate(inputs, list(models), workload=workload)


@st.cache_data(max_entries=8, show_spinner="Writing the report…")
def cost_html(report) -> bytes:
    from analysis.report.cost import render_html  # its figures import matplotlib: only when a report is asked for

    return render_html(report).encode("utf-8")
