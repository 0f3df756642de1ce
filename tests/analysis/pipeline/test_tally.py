"""`Tally`: sums per group without pandas give the frames' numbers, row for row and in their order."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.corpora import iter_builtin
from analysis.corpora.sample import Labeled, Sample
from analysis.pipeline import (DETECT_SCRIPT, as_tokenizers, check_metrics, combine_sums, count_columns, measure,
                               partial_sums, summarize, summary_from_sums)
from analysis.pipeline.tally import Tally

TOKS = "o200k_base,cl100k_base,gpt2"


def _samples() -> list[Sample | Labeled]:
    """Built-in samples (with groups and variants), then texts whose script is left to detect,
    one with no tokens, one with a lone surrogate, and a few that repeat a label in a later chunk."""
    out: list[Sample | Labeled] = list(iter_builtin())[::7]
    texts = ["Привет, мир", "東京は大きい", "plain ascii", "مرحبا بالعالم", "   ", "ελληνικά", "x = 1\n", "lone \ud800 half"]
    out += [Sample(f"user-{i}", "prose" if i % 2 else "notes", "und", DETECT_SCRIPT, "text", t, "test")
            for i, t in enumerate(texts)]
    return out


def _records(rows: list[dict]) -> list[dict]:
    # NaN != NaN: compare it as a marker
    return [{k: ("NaN" if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()} for r in rows]


@pytest.mark.parametrize("by", [["category", "tokenizer"], ["tokenizer"], ["category"], ["script", "kind", "tokenizer"],
                                ["group", "variant", "tokenizer"], ["sample_id", "tokenizer"], ["language"]])
@pytest.mark.parametrize("metrics", ["", "scripts"])
def test_a_tally_of_samples_is_the_summary_of_the_rows(by, metrics):
    toks = as_tokenizers(TOKS)
    samples = _samples()
    wanted = check_metrics(metrics)
    if "script" in by:
        wanted = check_metrics([*wanted, "scripts"])
    # two tallies of consecutive parts, added up, as the workers' are
    half = len(samples) // 2
    first, second = Tally(by, count_columns(wanted)), Tally(by, count_columns(wanted))
    first.add_samples(samples[:half], toks, wanted)
    second.add_samples(samples[half:], toks, wanted)
    tally = first.merge(second)
    rows = measure(samples, toks, metrics=wanted)
    expected = summarize(rows, by)
    for k in by:  # the frame's labels are categoricals; the tally's are their strings
        expected[k] = expected[k].astype(str)
    got = tally.summary_rows([t.name for t in toks])
    assert list(got[0]) == tally.summary_columns() == list(expected.columns)
    assert _records(got) == _records(expected.to_dict("records"))
    # and its frame is the frames' sums
    pd.testing.assert_frame_equal(tally.frame(), combine_sums([partial_sums(rows, by)], by), check_dtype=False)


def test_a_tally_adds_frames_of_sums_and_gives_them_back():
    toks = as_tokenizers(TOKS)
    rows = measure(_samples(), toks, metrics="words")
    by = ["category", "tokenizer"]
    sums = combine_sums([partial_sums(rows.iloc[:300], by), partial_sums(rows.iloc[300:], by)], by)
    tally = Tally(by, count_columns(("words",)))
    tally.add_frame(sums)
    pd.testing.assert_frame_equal(tally.frame(), sums)
    expected = summary_from_sums(sums, by, [t.name for t in toks])
    for k in by:
        expected[k] = expected[k].astype(str)
    assert _records(tally.summary_rows([t.name for t in toks])) == _records(expected.to_dict("records"))
    assert "tokens_per_word_of_sums" in tally.summary_columns()


def test_a_tally_refuses_what_it_cannot_count_or_add():
    toks = as_tokenizers("gpt2")
    tally = Tally(["category", "tokenizer"], count_columns(()))
    with pytest.raises(ValueError, match="words"):  # words are counted in numpy, by `sums`
        tally.add_samples([Sample("a", "prose", "en", "Latn", "note", "hi", "t")], toks, ("words",))
    with pytest.raises(ValueError, match="cannot merge"):
        tally.merge(Tally(["language", "tokenizer"], count_columns(())))
    with pytest.raises(KeyError):  # an unknown grouping, named with the ones there are
        Tally(["colour"], count_columns(()))
