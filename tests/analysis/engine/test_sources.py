"""A run's sources measured on one engine: the files' reader the plan picks never changes the sums."""

from __future__ import annotations

import pytest

from analysis.engine import Sources, measure_sources, open_engine
from analysis.pipeline import Tally, check_metrics
from analysis.tokenizers import load_tokenizer

KEYS = ["category", "tokenizer"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("sources")
    (root / "a.txt").write_text("Hello there, world.\nSecond line of prose.\n", encoding="utf-8")
    (root / "b.jsonl").write_text('{"text": "東京 and more"}\n{"text": "def f(x): return x"}\n', encoding="utf-8")
    return root


def _run(sources, *, rows=False):
    toks = [load_tokenizer("o200k_base"), load_tokenizer("gpt2")]
    with open_engine("inprocess") as opened:
        return measure_sources(sources, toks, engine=opened, keys=KEYS, metrics=check_metrics(None), rows=rows)


def test_workers_reading_their_parts_and_this_process_reading_the_files_sum_alike(files):
    sources = Sources(files=(str(files),), category="mine")
    by_parts, here = _run(sources), _run(sources, rows=True)
    assert by_parts.tally.summary_rows(["o200k_base", "gpt2"]) == here.tally.summary_rows(["o200k_base", "gpt2"])
    # a text file is one sample, and so is a .jsonl file that a folder holds (read as text)
    assert by_parts.file_samples == here.file_samples == 2 and by_parts.report.files_read == 2
    assert by_parts.rows == [] and len(here.rows) == 1  # rows only when asked
    assert sorted(here.rows[0]["sample_id"].unique()) == sorted([f"{files.name}/a.txt", f"{files.name}/b.jsonl"])


def test_every_source_adds_into_one_tally_in_order(files):
    both = _run(Sources(builtin=True, categories=["code"], files=(str(files / "a.txt"),), category="mine"))
    alone = _run(Sources(builtin=True, categories=["code"]))
    categories = {row["category"] for row in both.tally.summary_rows(["o200k_base", "gpt2"])}
    assert categories == {"code", "mine"}  # the built-in rows and the file's, side by side
    assert both.report is not None and alone.report is None and alone.file_samples == 0
    code = [r for r in both.tally.summary_rows(["o200k_base", "gpt2"]) if r["category"] == "code"]
    assert code == alone.tally.summary_rows(["o200k_base", "gpt2"])
    assert isinstance(both.tally, Tally)
