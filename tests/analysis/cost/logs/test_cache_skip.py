"""The prompt-cache simulation of a log skips the rows that can use no cache (a prompt below the rule's
minimum, or, for breakpoints, no flagged mark at or above it) without changing a number: the outcomes and
notes are `caching.simulate`'s over every row, and a row below every target's minimum is not hashed."""

from __future__ import annotations

import random

import numpy as np
import pytest

from analysis.cost.caching import cache_rule, simulate
from analysis.cost.logs.cache_replay import chunk_marks, simulate_rows
from analysis.cost.logs.cache_trace import TraceChunk, trace_chunk
from analysis.cost.logs.read import read_log_records

RULES = ("gpt-4.1", "claude-sonnet-4-5", "deepseek-chat")


def _chunk(rng: random.Random, rows: int, times: str, rule_minimum: int) -> tuple[TraceChunk, np.ndarray, np.ndarray]:
    ptr, keys, flags, ends, prompts = [0], [], [], [], []
    for _ in range(rows):
        n = rng.choice((rng.randrange(1, rule_minimum), rng.randrange(rule_minimum, 4 * rule_minimum)))
        cuts = sorted(rng.sample(range(1, n + 1), min(n, rng.randrange(0, 4))))
        chain = 0
        for cut in cuts:
            chain = chain * 7 + rng.randrange(3)  # few keys: rows share prefixes
            keys.append(chain)
            ends.append(cut)
            flags.append(rng.choice((0, 0, 1, 2)))
        ptr.append(len(keys))
        prompts.append(n)
    base = 1_800_000_000.0
    when = [base + rng.randrange(0, 3 * 3600) for _ in range(rows)]
    if times == "none":
        when = [float("nan")] * rows
    elif times == "mixed":
        when = [w if rng.random() < 0.6 else float("nan") for w in when]
        if rows:
            when[0] = float("nan")  # before the first time: at 0
        if rows > 3:
            when[2] = 0.0  # a falsy time takes the one before it, as `simulate` fills them
    trace = TraceChunk(np.asarray(when), np.asarray(ptr, dtype=np.int64), np.zeros(len(keys), dtype=np.int32),
                       np.asarray(keys, dtype=np.int64), np.asarray(flags, dtype=np.int8))
    return trace, np.asarray(ends, dtype=np.int32), np.asarray(prompts, dtype=np.int32)


@pytest.mark.parametrize("model", RULES)
@pytest.mark.parametrize("times", ["all", "none", "mixed"])
def test_skipping_rows_that_use_no_cache_changes_no_outcome_nor_note(model, times):
    rule = cache_rule(model)
    rng = random.Random(f"{model}-{times}")
    for _ in range(20):
        chunks = [_chunk(rng, rng.randrange(0, 40), times, rule.minimum) for _ in range(3)]
        traces, ends, prompts = ([c[k] for c in chunks] for k in range(3))
        read, w5, w1, notes = simulate_rows(rule, traces, ends, prompts)
        marks = [m for t, e, p in chunks
                 for m in chunk_marks(t, e, p, [None if w != w else w for w in t.when.tolist()])]
        sim = simulate(rule, marks)
        assert read.tolist() == [o.read for o in sim.outcomes]
        assert w5.tolist() == [o.write_5m for o in sim.outcomes]
        assert w1.tolist() == [o.write_1h for o in sim.outcomes]
        assert notes == sim.notes


def test_a_row_below_every_minimum_is_not_hashed_but_keeps_its_breakpoint(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"system": "be brief", "messages": [{"role": "user", "content": "hi"}], "response": "hello"}\n'
                    '{"system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}],'
                    ' "messages": [{"role": "user", "content": "hi"}], "response": "hello"}\n')
    records, _ = read_log_records(str(path))
    short = np.ones(2, dtype=bool)
    full = trace_chunk(records, "request")
    assert len(full.keys) > 2 and full.flags.any()
    skipped = trace_chunk(records, "request", short=short)
    assert skipped.ptr.tolist() == [0, 0, 1] and skipped.keys.tolist() == [0] and skipped.flags.tolist() == [1]
    auto = trace_chunk(records, "auto", short=short)  # --cache-breakpoints auto flags every row
    assert auto.ptr.tolist() == [0, 1, 2] and auto.flags.tolist() == [1, 1]
    assert trace_chunk(records, "request", short=np.zeros(2, dtype=bool)).keys.tolist() == full.keys.tolist()


def test_short_rows_passed_over_leave_the_other_rows_marks_as_they_were(tmp_path):
    # rows below the minimum without a breakpoint are passed over: the rows around them keep their marks
    path = tmp_path / "log.jsonl"
    plain = '{"system": "be brief", "messages": [{"role": "user", "content": "hi %d"}], "response": "hello"}\n'
    marked = ('{"system": [{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}],'
              ' "messages": [{"role": "user", "content": "hi %d"}], "response": "hello"}\n')
    path.write_text("".join((marked if i % 3 == 0 else plain) % i for i in range(9)))
    records, _ = read_log_records(str(path))
    full = trace_chunk(records, "request")
    short = np.asarray([i % 2 == 1 for i in range(9)])
    mixed = trace_chunk(records, "request", short=short)
    for i in range(9):
        a, b = mixed.ptr[i], mixed.ptr[i + 1]
        if short[i]:  # one mark (block 0, key 0) where a breakpoint is, else none
            assert mixed.keys[a:b].tolist() == ([0] if i % 3 == 0 else [])
        else:
            f, g = full.ptr[i], full.ptr[i + 1]
            assert mixed.keys[a:b].tolist() == full.keys[f:g].tolist()
            assert mixed.flags[a:b].tolist() == full.flags[f:g].tolist()
    assert trace_chunk(records, None, short=short).ptr.tolist() == [0] * 10
