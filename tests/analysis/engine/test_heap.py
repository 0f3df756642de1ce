"""The collector held quiet for a log run (`engine.heap`), and given back as it was."""

from __future__ import annotations

import contextlib
import gc
import io
from pathlib import Path

from analysis.cli import main
from analysis.engine.heap import OLDER, YOUNG, quiet_collector

LOG = Path(__file__).resolve().parents[2] / "fixtures" / "logs" / "openai_chat.jsonl"


def test_inside_the_block_the_loaded_objects_are_frozen_and_young_collections_rarer():
    kept = [object()]  # alive before the block: frozen with the rest
    with quiet_collector():
        assert gc.get_threshold() == (YOUNG, OLDER, OLDER)
        assert gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())  # frozen objects are out of the collector's lists
    assert gc.get_freeze_count() == 0


def test_a_failing_block_restores_the_collector_too():
    before = gc.get_threshold()
    with contextlib.suppress(RuntimeError), quiet_collector():
        raise RuntimeError("boom")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_cost_logs_in_this_process_leaves_the_collector_as_it_found_it():
    gc.set_threshold(900, 11, 12)  # not the default, so a reset to the defaults would show
    try:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert main(["cost", "--logs", str(LOG), "-m", "gpt-4o", "--output-tokens", "50", "--engine", "inprocess",
                         "--format", "json", "--on", "2026-03-15"]) == 0
        assert '"n_rows"' in out.getvalue()
        assert gc.get_threshold() == (900, 11, 12)
        assert gc.get_freeze_count() == 0
    finally:
        gc.set_threshold(700, 10, 10)
