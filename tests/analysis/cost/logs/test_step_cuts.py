"""OpenAI's prompt cache matches prefixes in 128-token steps from 1,024 tokens, wherever they end: within
a message or across messages (issue 58). A log's simulation keeps, for such a target, a cut every step
of the target's own token ids, so templated prompts with a per-user tail read their shared start."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import numpy as np
import pytest

from analysis.cli import main
from analysis.cost import iter_log_records, plan_traffic, price_records, summarise
from analysis.cost.caching import CacheRule, cache_rule
from analysis.cost.logs.cache_replay import simulate_rows
from analysis.cost.logs.cache_trace import MAX_STEP_CUTS, StepCuts, TraceChunk, with_steps
from analysis.engine import price_logs
from analysis.engine.base import InProcessEngine
from analysis.requests import Request, request_counter
from analysis.requests.batch import cache_ids
from analysis.tokenizers import load_tokenizer

ON = "2026-12-01"
ON_DAY = date(2026, 12, 1)
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _row(system: str, question: str, at: datetime, cached: int | None = None, prompt: int | None = None) -> dict:
    row = {"model": "gpt-4o-2024-08-06", "timestamp": at.isoformat().replace("+00:00", "Z"),
           "messages": [{"role": "system", "content": system}, {"role": "user", "content": question}],
           "response": {"model": "gpt-4o-2024-08-06",
                        "choices": [{"message": {"role": "assistant", "content": "Done."}}]}}
    if cached is not None:
        row["response"]["usage"] = {"prompt_tokens": prompt, "completion_tokens": 2,
                                    "prompt_tokens_details": {"cached_tokens": cached}}
    return row


def _write(tmp_path, rows, name="log.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def _lcp(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _openai_step(shared: int, prompt: int) -> int:
    """OpenAI's documented rule: nothing below 1,024 tokens, then the longest 1,024 + 128k within the shared start."""
    shared = min(shared, prompt)
    return 0 if shared < 1024 else 1024 + (shared - 1024) // 128 * 128


def _simulate(records, models="gpt-4o", *, steps=True):
    plan = plan_traffic(models, on=ON_DAY)
    partial = price_records(records, plan)
    (part,) = partial.models.values()
    rule = cache_rule("gpt-4o")
    read, _, _, _ = simulate_rows(rule, partial.traces, part.ends, part.prompts, steps=part.steps if steps else ())
    return read.tolist(), np.concatenate(part.prompts).tolist()


def test_two_system_prompts_sharing_2240_tokens_read_2176_on_gpt_4o(tmp_path):
    tok = load_tokenizer("o200k_base")
    base = "Start." + " word" * 2235
    a, b = base + " alpha42", base + " omega17"  # they differ in their last 8 characters
    ids_a, ids_b = tok.encode(a), tok.encode(b)
    # the premise: the system message's 3 leading tokens (<|im_start|>system<|im_sep|>) + 2,237 shared text tokens
    assert _lcp(ids_a, ids_b) == 2237 and len(ids_a) > 2237
    records = list(iter_log_records(_write(tmp_path, [_row(a, "Hi", START), _row(b, "Hi", START + timedelta(minutes=1))])))
    read, prompts = _simulate(records)
    assert read == [0, 2176] and 2176 == 1024 + 9 * 128
    # block ends alone (the system block differs) saw nothing: the defect this fixes
    assert _simulate(records, steps=False)[0] == [0, 0]
    # the sequences the cache matches are as long as the count, and share exactly 2,240 tokens
    counter = request_counter("gpt-4o")
    seqs = [cache_ids(counter, r.request) for r in records]
    assert [len(s) for s in seqs] == prompts and _lcp(*seqs) == 2240


TEMPLATE = " ".join(f"Policy {k}: answer in the customer's language and cite section {k} of the handbook."
                    for k in range(90)) + " Be kind, be brief, and never guess an order's status."
USERS = [("Ada Lovelace", "gold", "2019"), ("Alan Turing", "silver", "2021"), ("Grace Hopper", "gold", "2015"),
         ("Ada Lovelace", "gold", "2019")]


QUESTION = ("I have a question about my recent order and its delivery date, which the tracking page does not "
            "show clearly, and I would like to know")


def _system(user: tuple[str, str, str]) -> str:
    name, plan, since = user
    return f"{TEMPLATE}\nCustomer: {name}, {plan} plan, a customer since {since}."


def _shared_start_log():
    """(rows as (system, question, time)) a templated system prompt with a per-user tail; rows a minute or so
    apart, and a gap of 12 minutes, past the 5-minute lifetime, after the fifth."""
    minutes = [0, 1, 2, 3, 5, 17, 18, 19, 20, 21]
    rows = []
    for i, m in enumerate(minutes):
        user = USERS[i % len(USERS)]
        rows.append((_system(user), f"{QUESTION} where is order {1000 + i}?", START + timedelta(minutes=m)))
    return rows


def _by_hand(rows) -> tuple[list[int], list[int]]:
    """The logged cached_tokens under OpenAI's rule, worked from the texts' own ids: a row shares with an earlier
    row still alive (used within the 5-minute lifetime) its 3 leading tokens and the common start of the two
    system texts; where the system texts are equal, also the system's end (1), the user message's 3 leading
    tokens and the common start of the two questions. Returns (cached, prompt tokens by the Cookbook's rule)."""
    tok = load_tokenizer("o200k_base")
    cached, prompts = [], []
    for i, (system, question, at) in enumerate(rows):
        sys_i, q_i = tok.encode(system), tok.encode(question)
        prompt = 3 + len(sys_i) + 1 + 3 + len(q_i) + 1 + 3  # two messages, each 3 + role + text, and the priming
        best = 0
        for system_j, question_j, at_j in rows[:i]:
            if (at - at_j).total_seconds() > 300:
                continue
            sys_j = tok.encode(system_j)
            shared = 3 + _lcp(sys_i, sys_j)
            if sys_i == sys_j:
                shared += 1 + 3 + _lcp(q_i, tok.encode(question_j))
            best = max(best, shared)
        cached.append(_openai_step(best, prompt))
        prompts.append(prompt)
    return cached, prompts


def test_a_log_whose_cached_tokens_come_from_shared_starts_is_simulated_row_by_row(tmp_path, capsys):
    rows = _shared_start_log()
    cached, prompts = _by_hand(rows)
    # the figures, worked once and written out: the first row and the first after the gap read nothing;
    # a new customer reads the template's steps; the same customer again reads into the question
    assert cached == [0, 1536, 1536, 1664, 1664, 0, 1536, 1536, 1664, 1664]
    log = _write(tmp_path, [_row(s, q, at, c, p) for (s, q, at), c, p in zip(rows, cached, prompts)])
    records = list(iter_log_records(log))
    read, ours = _simulate(records)
    assert ours == prompts  # the recount is the Cookbook's count of the same rows
    assert read == cached
    # block ends alone read only the rows whose whole system prompt was seen alive (the same customer)
    assert sum(_simulate(records, steps=False)[0]) < sum(cached)
    # the CLI agrees, and its calibration of the cache part on the serving model is exact
    rc = main(["cost", "--logs", log, "-m", "gpt-4o", "--on", ON, "--format", "json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    data = json.loads(out)
    (m,) = data["models"]
    assert m["cache_read_tokens"] == sum(cached)
    (cal,) = data["calibration"]
    assert (cal["cache_read_simulated"], cal["cache_read_logged"], cal["cache_read_error"]) == \
        (sum(cached), sum(cached), 0)


def test_the_fold_matches_the_steps_as_the_whole_log_does(tmp_path):
    rows = _shared_start_log()
    records = list(iter_log_records(_write(tmp_path, [_row(s, q, at) for s, q, at in rows])))
    plan = plan_traffic("gpt-4o,claude-sonnet-4-5", on=ON_DAY)
    whole = summarise(price_records(records, plan), plan, None)
    folded = summarise(price_logs(records, plan, engine=InProcessEngine(), chunk_rows=3, stream_after=3), plan, None)
    reads = [dict(zip(report.models["model"], report.models["cache_read_tokens"])) for report in (whole, folded)]
    assert reads[0] == reads[1]
    assert reads[0]["gpt-4o"] == sum(_by_hand(rows)[0])


def test_with_steps_puts_each_rows_cuts_after_its_block_marks():
    trace = TraceChunk(np.zeros(3), np.array([0, 2, 2, 3]), np.array([0, 2, 0], dtype=np.int32),
                       np.array([10, 11, 12]), np.array([0, 1, 0], dtype=np.int8))
    steps = StepCuts(np.array([0, 1, 1, 3]), np.array([1024, 1024, 1152], dtype=np.int32), np.array([7, 8, 9]))
    joined, ends = with_steps(trace, np.array([5, 1500, 900], dtype=np.int32), steps)
    assert joined.ptr.tolist() == [0, 3, 3, 6]
    assert joined.keys.tolist() == [10, 11, 7, 12, 8, 9] and ends.tolist() == [5, 1500, 1024, 900, 1024, 1152]
    assert joined.flags.tolist() == [0, 1, 0, 0, 0, 0] and joined.blocks.tolist() == [0, 2, -1, 0, -1, -1]
    assert with_steps(trace, ends[:3], StepCuts.empty(3))[0] is trace


def test_cuts_are_capped_per_row_and_only_openai_matches_in_steps():
    counter = request_counter("gpt-4o")
    long = Request.from_text("word " * 20_000)
    ids = cache_ids(counter, long)
    assert ids is not None and len(ids) > 1024 + MAX_STEP_CUTS * 128
    from analysis.cost.logs.cache_trace import _cut_keys  # the cut list itself
    cuts, keys = _cut_keys(ids, 1024, 128)
    assert len(cuts) == MAX_STEP_CUTS == len(set(keys)) and cuts[-1] == 1024 + (MAX_STEP_CUTS - 1) * 128
    # the keys chain: a prefix's key is the same in any prompt that starts with it
    assert _cut_keys(ids[:1500], 1024, 128)[1] == keys[:4]
    assert cache_rule("gpt-4.1-mini").granularity == "step"
    assert {cache_rule(m).granularity for m in ("claude-sonnet-4-5", "deepseek-chat", "gemini-2.5-flash")} == {"block"}


def test_a_step_granularity_is_refused_on_a_breakpoint_rule(monkeypatch):
    from analysis.cost import caching

    rule = CacheRule("x", ("x*",), "breakpoints", 1024, 1, 300, 0.1, 1.25, "estimate", "s", "2026-12-01", "w",
                     granularity="step")
    caching._rules.cache_clear()
    real = caching.tomllib.loads

    def loads(text):
        data = real(text)
        data["cache"].append({f: getattr(rule, f) for f in ("provider", "kind", "minimum", "step", "ttl_seconds",
                                                            "read", "write", "exactness", "source", "checked", "why",
                                                            "granularity")} | {"match": ["x*"]})
        return data

    monkeypatch.setattr(caching.tomllib, "loads", loads)
    try:
        with pytest.raises(ValueError, match="granularity 'step'"):
            caching._rules()
    finally:
        monkeypatch.undo()
        caching._rules.cache_clear()
