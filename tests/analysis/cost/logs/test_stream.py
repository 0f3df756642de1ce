"""The fold (`cost.logs.fold`): a log priced chunk by chunk with its per-row state folded as the
partials come gives the report of the same log kept whole, in every case of its timestamps."""

from __future__ import annotations

import json
from datetime import date

import numpy as np
import pytest

from analysis.cost import iter_log_records, plan_traffic, price_records, summarise
from analysis.cost.logs import fold
from analysis.cost.logs.fold import Distinct, NotInTimeOrder, median, percentiles
from analysis.engine import price_logs
from analysis.engine.base import InProcessEngine
from analysis.report.traffic import report_json
from tests.benchmarks.bench_traffic import generate

ON = date(2026, 3, 15)


def test_percentiles_and_median_of_counts_are_numpys_bit_for_bit():
    rng = np.random.default_rng(4)
    for trial in range(300):
        n = int(rng.integers(1, 60))
        values = np.round(rng.random(n) * rng.choice([1e-6, 1e-3, 1.0, 7.0]), int(rng.integers(2, 12)))
        counts = rng.integers(1, 5, size=n)
        rows = np.repeat(values, counts)
        rng.shuffle(rows)
        assert percentiles(values, counts) == np.percentile(rows, [50, 95]).tolist(), trial
        assert median(values, counts) == float(np.median(rows)), trial
        d = Distinct(1)
        for part in np.array_split(rows, 3):
            d.add(part)
        assert d.n == len(rows)
        assert percentiles(d.rows[:, 0], d.counts) == np.percentile(rows, [50, 95]).tolist(), trial


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    log = tmp_path_factory.mktemp("stream") / "log.jsonl.gz"
    generate(log, 160, seed=5, in_order=True)
    return list(iter_log_records(log))


SYSTEMS = [" ".join(f"rule {k} of {name}: answer in full sentences." for k in range(300))
           for name in ("support", "review", "translation")]


def _timed(records, how):
    """The records with long shared system prompts (so caches hit; every 4th without one) and their timestamps as `how`
    says: 40 s apart (a cache lifetime holds several), none, every 5th missing, or one going back."""
    import dataclasses
    from datetime import timedelta

    out = []
    at = records[0].timestamp
    for i, r in enumerate(records):
        at += timedelta(seconds=600 if i % 7 == 2 else 40)  # now and then, past a 5-minute lifetime
        r = dataclasses.replace(r, request=dataclasses.replace(r.request, system=SYSTEMS[(i * i) % 3] if i % 4 else None),
                                timestamp=at)  # every 4th row too short for any cache
        if how == "none" or (how == "mixed" and i % 5 == 3):
            r = dataclasses.replace(r, timestamp=None)
        out.append(r)
    if how == "back":
        out[120] = dataclasses.replace(out[120], timestamp=out[3].timestamp)
    return out


def _report(partial, plan):
    return json.dumps(report_json(summarise(partial, plan, None)), sort_keys=True, default=str)


SLOW = pytest.mark.slow
CASES = [pytest.param(how, flags, marks=() if (how, flags) == ("kept", {}) else SLOW)
         for how in ("kept", "none", "mixed")
         for flags in ({}, {"cache_breakpoints": "auto", "requests_per_lifetime": 3}, {"cached_share": "0.25"})]


@pytest.mark.parametrize(("how", "flags"), CASES)
def test_folded_report_equals_the_whole_logs(records, how, flags):
    plan = plan_traffic("gpt-4o,claude-sonnet-4-5", on=ON, **flags)
    rows = _timed(records, how)
    whole = _report(price_records(rows, plan), plan)
    folded = price_logs(rows, plan, engine=InProcessEngine(), chunk_rows=16, stream_after=40)
    assert folded.folded is not None and not any(p.prompts for p in folded.models.values())
    assert _report(folded, plan) == whole
    read = {ref: sum(int(v[0]) for v in bill.cache.values()) for ref, bill in folded.folded.bills.items()}
    if not flags.get("cached_share"):  # the caches were hit: the fold carried them across chunks
        # (claude reads only at breakpoints: the rows carry none, and "auto" places them)
        assert read["gpt-4o"] > 0 and (read["claude-sonnet-4-5"] > 0) == ("cache_breakpoints" in flags), read


def test_a_log_going_back_in_time_is_refused_by_the_fold(records):
    plan = plan_traffic("gpt-4o", on=ON)
    with pytest.raises(NotInTimeOrder, match="earlier"):
        price_logs(_timed(records, "back"), plan, engine=InProcessEngine(), chunk_rows=16, stream_after=40)
    # held whole (no more rows than stream_after): the simulation sorts it, as before
    small = price_logs(_timed(records, "back"), plan, engine=InProcessEngine(), chunk_rows=16, stream_after=1000)
    assert small.folded is None
    assert _report(small, plan) == _report(price_records(_timed(records, "back"), plan), plan)


def test_a_log_out_of_order_within_its_first_rows_is_kept_whole_and_says_so(records):
    plan = plan_traffic("gpt-4o,claude-sonnet-4-5", on=ON)
    rows = _timed(records, "kept")
    rows[10], rows[11] = rows[11], rows[10]
    got = price_logs(rows, plan, engine=InProcessEngine(), chunk_rows=16, stream_after=40)
    assert got.folded is None and "not in time order" in got.order_note and "keeping every row" in got.order_note
    want = json.loads(_report(price_records(rows, plan), plan))
    have = json.loads(_report(got, plan))
    assert have["notes"] == want["notes"] + [got.order_note]
    assert {k: v for k, v in have.items() if k != "notes"} == {k: v for k, v in want.items() if k != "notes"}


@pytest.mark.slow  # five runs of the command
def test_cli_prices_a_log_out_of_time_order_as_a_whole_and_says_so(tmp_path, monkeypatch, capsys):
    # a log longer than STREAM_AFTER whose times go back: found while its first rows are held, it is
    # kept whole (one pass); found later, it is read again with every row kept (a second pass).
    # Either way the numbers are those of the log held whole, and one note says which.
    import gzip

    from analysis.cli import main
    from analysis.cost.logs import fold

    log = tmp_path / "log.jsonl.gz"
    generate(log, 120, seed=9, in_order=True)
    with gzip.open(log, "rt", encoding="utf-8") as f:
        lines = f.readlines()
    argv = ["cost", "--logs", "", "-m", "gpt-4o,claude-sonnet-4-5", "--on", "2026-03-15", "--format", "json",
            "--engine", "inprocess"]
    monkeypatch.setattr(InProcessEngine, "rows_per_task", 16)  # the CLI reads the log in chunks of this many rows
    for swap, how in ((5, "keeping every row"), (100, "second pass")):
        moved = list(lines)
        moved[swap], moved[swap + 1] = moved[swap + 1], moved[swap]
        path = tmp_path / f"swap{swap}.jsonl"
        path.write_text("".join(moved), encoding="utf-8")
        argv[2] = str(path)
        monkeypatch.setattr(fold, "STREAM_AFTER", 1000)
        assert main(argv) == 0
        whole = json.loads(capsys.readouterr().out)
        monkeypatch.setattr(fold, "STREAM_AFTER", 30)
        assert main(argv) == 0
        again = json.loads(capsys.readouterr().out)
        extra = [n for n in again["notes"] if n not in whole["notes"]]
        assert len(extra) == 1 and "not in time order" in extra[0] and how in extra[0], (swap, extra)
        assert again["models"] == whole["models"] and again["n_rows"] == whole["n_rows"] == 120
    # in time order: folded, the same bytes as held whole
    argv[2] = str(log)
    outputs = []
    for after in (1000, 30):
        monkeypatch.setattr(fold, "STREAM_AFTER", after)
        assert main(argv) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("k", [1, 2, 6])
def test_distinct_rows_are_numpys_unique_rows_in_its_order(k):
    # the fold's tables made distinct by lexsort: np.unique(axis=0)'s rows, order and counts, on rows that
    # repeat, differ in one column only, are negative, large (below 2**53) or fractions (float32 outputs)
    from analysis.cost.logs.fold import distinct_rows

    rng = np.random.default_rng(k)
    pool = np.concatenate([rng.integers(-3, 4, size=(40, k)).astype(np.float64),
                           rng.integers(0, 2**52, size=(10, k)).astype(np.float64),
                           rng.random((10, k)).astype(np.float32).astype(np.float64)])
    rows = pool[rng.integers(0, len(pool), size=2000)]
    weights = rng.integers(1, 5, size=len(rows))
    want, inverse = np.unique(rows, axis=0, return_inverse=True)
    counts = np.zeros(len(want), dtype=np.int64)
    np.add.at(counts, inverse.ravel(), weights)
    got, got_counts = distinct_rows(rows, weights)
    assert got.tobytes() == want.tobytes() and got_counts.tolist() == counts.tolist()
    # a NaN or a negative zero: numpy's own answer
    for odd in (np.nan, -0.0):
        rows[5, 0] = odd
        want = np.unique(rows, axis=0)
        assert distinct_rows(rows, weights)[0].tobytes() == want.tobytes()
    assert distinct_rows(np.empty((0, k)), np.empty(0, dtype=np.int64))[0].shape == (0, k)
