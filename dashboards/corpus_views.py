"""What the analysis pages (Explore, Why, BPE lab) share: built-in corpora, probes, traces and charts.

Unlike `shared` (the tokenizers, the counts of a pasted text, models and prices: what the
Compare page needs for its first answer), this module holds the caches of the pages that study
the built-in corpora; it is the one that imports altair, the charts, the probes and the BPE lab,
so the Compare page does not pay for them. Tables computed from widget values are `cache_data`,
keyed by those values and bounded by `max_entries`.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ownbpe
from analysis import Piece, probes
from analysis.corpora import load_builtin
from analysis.lab import bpe as bpe_lab
from analysis.lab import trace
from analysis.pipeline import summarize as summarize_measured
from analysis.pipeline.builtin_table import measured_builtin
from analysis.plots import charts
from analysis.probes import numbers as probes_numbers
from analysis.probes import whitespace as probes_whitespace
from analysis.tokenizers import CATALOGUE, tiktoken_params
from dashboards.shared import tokenizers


# -- BPE lab ---------------------------------------------------------------------------------------
@st.cache_data(max_entries=16, show_spinner="Training, one merge at a time…")
def lab_steps(corpus: str, n_merges: int):
    return bpe_lab.bpe_steps(corpus, n_merges)


@st.cache_data(max_entries=64, show_spinner=False)
def lab_pieces(corpus: str, n_merges: int, step: int) -> list[Piece]:
    return lab_steps(corpus, n_merges).pieces_at(step)


@st.cache_data(max_entries=64, show_spinner=False)
def lab_candidates(corpus: str, n_merges: int, step: int):
    return lab_steps(corpus, n_merges).candidates(step)


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


def show_chart(plot: str, table: pd.DataFrame) -> None:
    """Draw `analysis.plots.charts.CHARTS[plot](table)`: an interactive Vega-Lite chart.

    Every chart takes its column's width (`charts.FIT_X`) and the height its rows and legend need.
    """
    st.altair_chart(charts.CHARTS[plot](table), width="stretch")


@st.cache_data(max_entries=32, show_spinner=False)
def summarize(rows: pd.DataFrame, by: tuple[str, ...]) -> pd.DataFrame:
    return summarize_measured(rows, list(by))


