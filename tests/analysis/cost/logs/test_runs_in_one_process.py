"""Two runs in one process see none of each other's caches: every cache belongs to a run
(`analysis.memo`), so two different logs priced one after the other, in either order, print what
each prints alone (the goldens, generated one run per log)."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.memo import run_caches

from .golden_cases import GOLDEN, cases, run_case, same_output

# a log with usage and tools that repeat (OpenAI chat), and one of Anthropic rows with cache writes
PAIR = ("readme-support.jsonl", "fixture-anthropic.jsonl")


@pytest.mark.parametrize("order", [PAIR, PAIR[::-1]], ids=["support-first", "anthropic-first"])
def test_two_logs_in_one_process_print_what_each_prints_alone(tmp_path: Path, order):
    argv = cases(tmp_path)
    for name in order + order:  # and each once more, after the other
        rc, out, err = run_case(argv[name], "json", tmp_path)
        assert rc == 0, err
        assert same_output(out, (GOLDEN / f"{name}.json").read_text(encoding="utf-8")), name


def test_outside_a_run_nothing_is_kept():
    first = run_caches()
    first.memo("x").get("k", lambda: 1)
    assert len(run_caches().memo("x")) == 0 and run_caches() is not first
