"""Figures: each takes a tidy frame, returns a Figure with titles and units; saving is reproducible."""

from __future__ import annotations

import pandas as pd
import pytest
from matplotlib.figure import Figure

from analysis import plots
from analysis.pipeline import summarize
from analysis.probes import ProbeRun, run_probe

TOKS = "gpt2,cl100k_base,o200k_base,qwen2.5"


@pytest.fixture(scope="module")
def run():
    return ProbeRun(tokenizers=TOKS, texts={"a": "Hello world", "b": "The answer is 42."})


def _texts(fig: Figure) -> str:
    parts = [fig._suptitle.get_text() if fig._suptitle else ""]
    parts += [fig._supxlabel.get_text() if fig._supxlabel else ""]
    for ax in fig.axes:
        parts += [ax.get_title(), ax.get_title(loc="left"), ax.get_xlabel(), ax.get_ylabel()]
    return " ".join(parts)


def test_chars_per_token_by_category(run):
    fig = plots.chars_per_token_by_category(summarize(run.corpus, ["category", "tokenizer"]))
    assert isinstance(fig, Figure)
    assert [ax.get_title() for ax in fig.axes] == ["prose", "code", "multilingual", "numbers", "whitespace"]
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == TOKS.split(",")
    assert "characters per token" in _texts(fig)


@pytest.mark.parametrize("table, fn, words", [
    ("code-languages", plots.code_languages, "characters per token"),
    ("code-variants", plots.code_variants, "%"),
    ("language-premium", plots.language_premium, "relative to en"),
    ("tokenizer-reduction", plots.tokenizer_reduction, "fewer tokens with o200k_base than with cl100k_base (%)"),
    ("digit-lengths", plots.tokens_vs_digits, "tokens per integer"),
    ("single-token-years", plots.single_token_years, "year"),
    ("trailing-whitespace", plots.whitespace_deltas, "extra tokens"),
    ("agreement-matrix", plots.boundary_agreement, "Jaccard"),
])
def test_each_figure_has_titles_and_units(run, table, fn, words):
    fig = fn(run_probe(table, run))
    assert isinstance(fig, Figure)
    assert fig.axes
    assert words in _texts(fig) + " ".join(a.get_ylabel() for a in fig.axes)


def test_language_premium_rows_are_sorted(run):
    fig = plots.language_premium(run_probe("language-premium", run))
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[0] == "en (Latn)"  # parity first, the most expensive languages last


def test_identical_tokenizers_are_drawn_once(run):
    fig = plots.tokens_vs_digits(run_probe("digit-lengths", run))
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "cl100k_base = o200k_base" in legend
    assert "cl100k_base" not in legend


def test_merge_identical_keeps_order_and_joins_names():
    f = pd.DataFrame({"tokenizer": pd.Categorical(["b", "b", "a", "a"], categories=["b", "a"]),
                      "x": [1, 2, 1, 2], "y": [3.0, 4.0, 3.0, 4.0]})
    merged = plots.merge_identical(f, key="tokenizer", index=["x"], value="y")
    assert merged["tokenizer"].astype(str).unique().tolist() == ["b = a"]
    assert len(merged) == 2


def test_save_figure_is_reproducible(run, tmp_path):
    fig = plots.tokens_vs_digits(run_probe("digit-lengths", run))
    for suffix in (".svg", ".png"):
        a = plots.save_figure(fig, tmp_path / f"a{suffix}").read_bytes()
        b = plots.save_figure(plots.tokens_vs_digits(run_probe("digit-lengths", run)), tmp_path / f"b{suffix}").read_bytes()
        assert a == b, suffix
    svg = (tmp_path / "a.svg").read_text()
    assert "<dc:date>" not in svg
    assert "Matplotlib v" not in svg
    with pytest.raises(ValueError, match=r"\.png, \.svg, \.pdf"):
        plots.save_figure(fig, tmp_path / "x.gif")


def test_one_tokenizer_still_draws_cleanly(tmp_path):
    import warnings

    one = ProbeRun(tokenizers="cl100k_base")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # e.g. "constrained_layout not applied": a collapsed figure
        for table, fn in (("tokenizer-reduction", plots.tokenizer_reduction), ("digit-lengths", plots.tokens_vs_digits),
                          ("single-token-years", plots.single_token_years)):
            plots.save_figure(fn(run_probe(table, one)), tmp_path / f"{table}.png")
    with pytest.raises(ValueError, match="at least two"):
        run_probe("agreement-matrix", one)
