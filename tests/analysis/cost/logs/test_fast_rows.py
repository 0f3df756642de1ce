"""The direct read of the commonest log row (issue 44) gives what the general path gives: the same
record for every row it takes, the same refusal (type and words) for every row it hands back."""

from __future__ import annotations

import random

import pytest

from analysis.cost.logs import read as records_mod, shapes


def _row(rng: random.Random) -> dict:
    """A random OpenAI-chat-like row: mostly the common case, often a little off it."""
    messages = []
    for _ in range(rng.randint(0, 3)):
        odd = rng.random() < 0.1  # a message off the plain-text case
        m = {"role": rng.choice(["tool", "robot", ["user"]] if odd else ["system", "user", "assistant", "developer"]),
             "content": rng.choice([None, [{"type": "text", "text": "x"}], 5] if odd else ["hi", "", "caf\u00e9 東京"])}
        if rng.random() < 0.2:
            m["name"] = rng.choice(["ann", None, 3] if odd else ["ann", None])
        if rng.random() < 0.05:
            m["tool_call_id"] = "c1"
        messages.append(m)
    row: dict = {"messages": messages} if rng.random() < 0.95 else {"messages": rng.choice([None, "hi", [1]])}
    if rng.random() < 0.8:
        row["model"] = rng.choice(["gpt-4o", "gpt-4o-mini", "", None, 4])
    if rng.random() < 0.7:
        row["response"] = rng.choice(["fine", "", None, 3, ["x"], {"choices": []},
                                      {"choices": [{"message": {"content": "ok"}}], "model": "gpt-4o-2024-08-06",
                                       "usage": {"prompt_tokens": 3, "completion_tokens": 1}, "created": 1772323200}])
    usage_key = rng.choice(["usage", "usage", "usageMetadata"])
    if rng.random() < 0.6:
        row[usage_key] = rng.choice([
            {"prompt_tokens": rng.randint(1, 90), "completion_tokens": rng.randint(1, 90)},
            {"prompt_tokens": 50, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 32}},
            {"prompt_tokens": 5}, {"prompt_tokens": -1, "completion_tokens": 2}, {"prompt_tokens": 1.5},
            {"input_tokens": 7, "output_tokens": 2}, {"promptTokenCount": 4, "candidatesTokenCount": 1},
            {"tokens": 3}, None, "12", {"prompt_tokens": 3, "completion_tokens": 1,
                                        "prompt_tokens_details": {"cached_tokens": 9}},
            {"prompt_tokens": True, "completion_tokens": 1}, {"prompt_tokens": 1, "completion_tokens": 1}, {}])
    for key in rng.sample(["timestamp", "created_at", "time", "created"], rng.randint(0, 2)):
        row[key] = rng.choice([1772323200, 1772323200.5, 1772323200123, "2026-03-01T10:00:00Z", "2026-03-01",
                               "yesterday", None, 1e30, True])
    if rng.random() < 0.1:
        row["service_tier"] = rng.choice(["flex", "", None, 2])
    if rng.random() < 0.1:
        row["tools"] = rng.choice(TOOLS)
    if rng.random() < 0.03:
        row[rng.choice(["system", "request", "body"])] = rng.choice(["Be brief.", {"messages": []}])
    return row


# tool lists a log may hold: the same one again and again, others, and ones the general reading refuses
TOOLS = [
    [{"type": "function", "function": {"name": "f"}}],
    [{"type": "function", "function": {"name": "track", "description": "Where a parcel is",
                                       "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}}],
    [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "default": None}}}],
    [{"type": "function", "function": {"name": "f", "parameters": {"max": 1.5, "n": 1, "flag": True}}}],
    [], None, {}, "f", [{"type": "web_search"}], [{"type": "function", "function": {"description": "no name"}}],
    [{"type": "function", "function": {"name": "f", "parameters": "not an object"}}], [{"type": "function"}],
]


def _read(row: dict):
    try:
        return shapes.parse_row(row, "openai-chat", where="log.jsonl:7")
    except Exception as e:  # noqa: BLE001 - the refusal itself is compared
        return type(e), str(e), getattr(e, "reason", None)


def test_the_direct_row_read_equals_the_general_one(monkeypatch, run):
    rows = [_row(random.Random(seed)) for seed in range(3000)]
    chat_row, declined = shapes.chat_row, []

    def counted(row, where):
        record = chat_row(row, where)
        declined.append(record is None)
        return record

    monkeypatch.setattr(shapes, "chat_row", counted)
    direct = [_read(row) for row in rows]
    assert declined.count(False) > 500 and declined.count(True) > 300  # both paths are exercised
    assert sum(isinstance(r, tuple) for r in direct) > 300  # and so are refusals
    run.clear()  # the general read in a fresh run: nothing read above is reused
    monkeypatch.setattr(shapes, "chat_row", lambda row, where: None)
    general = [_read(row) for row in rows]
    for row, ours, theirs in zip(rows, direct, general):
        assert ours == theirs, row


@pytest.mark.parametrize("row", [
    pytest.param({"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}, id="anthropic-system"),
    pytest.param({"request": {"messages": [{"role": "user", "content": "hi"}]}}, id="logger-wrapper"),
    pytest.param({"messages": [{"role": "user", "content": "hi"}], "response": {"choices": []}}, id="response-object"),
    pytest.param({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}, id="content-parts"),
    pytest.param({"messages": [{"role": "user", "content": "hi"}], "tool_choice": "auto"}, id="tool-choice"),
    pytest.param({"messages": [{"role": "user", "content": "hi"}], "functions": []}, id="legacy-functions"),
    pytest.param({"messages": [{"role": ["user"], "content": "hi"}]}, id="role-not-a-string"),
])
def test_rows_off_the_common_case_fall_back_to_the_general_path(row):
    assert shapes.chat_row(row, "") is None


def test_a_role_that_is_not_a_string_is_named_not_a_crash():
    with pytest.raises(shapes.RowError, match="unknown role"):
        shapes.parse_row({"messages": [{"role": ["user"], "content": "hi"}]}, "openai-chat")


def test_blank_lines_of_any_whitespace_are_left_out_and_counted_in_line_numbers(tmp_path):
    from analysis.cost.logs import read_log_records

    row = '{"messages": [{"role": "user", "content": "hi"}]}'
    log = tmp_path / "log.jsonl"
    log.write_text(f"\n  \t\n\u3000\u2028\n\x1c\r\n{row}\n \n{row}", encoding="utf-8")
    records, report = read_log_records(log)
    assert [r.where for r in records] == [f"{log}:5", f"{log}:7"] and report.rows == 2


def test_a_flat_usage_is_read_once_per_model_and_only_when_it_is_all_integers(run):
    row = {"messages": [{"role": "user", "content": "hi"}], "model": "gpt-4o",
           "usage": {"prompt_tokens": 8, "completion_tokens": 2}}
    first, again = shapes.parse_row(row, "openai-chat"), shapes.parse_row(dict(row), "openai-chat")
    assert first.logged_bill is again.logged_bill and first.usage == again.usage  # one read, shared
    other = shapes.parse_row({**row, "model": "gpt-4o-mini"}, "openai-chat")
    assert other.logged_bill is not first.logged_bill and len(run.memo("shapes.flat_usage")) == 2
    # True is not 1, nor 1.0: a usage holding anything but integers is read as it is, never from the memo
    for usage in ({"prompt_tokens": True, "completion_tokens": 2}, {"prompt_tokens": 8.0, "completion_tokens": 2}):
        with pytest.raises(shapes.RowError, match="must be a non-negative integer"):
            shapes.parse_row({**row, "usage": usage}, "openai-chat")
    assert len(run.memo("shapes.flat_usage")) == 2


def _general_records(chunk):
    """`RowChunk.records` as the general loop reads it: each line parsed, then `_read_row`."""
    import copy

    out, report = list(chunk.parsed), copy.deepcopy(chunk.report)
    for where, line in chunk.lines:
        record, _ = records_mod._read_row(where, records_mod._json_row(line), chunk.path, chunk.container,
                                          chunk.shape, chunk.errors, report)
        if record is not None:
            out.append(record)
    return out, report


def _lines(n: int) -> list[tuple[str, str]]:
    import json

    odd = ['{"messages": [', "[1, 2]", '"hi"', "null", "{}", '{"messages": [], "n": 123456789012345678901234}',
           '{"messages": [{"role": "user", "content": "hi"}], "temperature": 1e400}',
           "[" * 3000 + "]" * 3000, '{"messages": [{"role": "user", "content": "\ud800"}]}', "NaN",
           '{"messages": [{"role": "user", "content": "hi"}], "usage": {"prompt_tokens": 1e3}}']
    lines = []
    for i in range(n):
        rng = random.Random(i)
        line = rng.choice(odd) if rng.random() < 0.1 else json.dumps(_row(rng), ensure_ascii=rng.random() < 0.5)
        lines.append((f"log.jsonl:{i + 1}", line + "\n"))
    return lines


def test_a_chat_chunk_read_in_one_loop_equals_the_general_read():
    lines = _lines(2000)
    chunk = records_mod.RowChunk("log.jsonl", "jsonl", "openai-chat", "skip", lines=lines)
    ours, ours_report = chunk.records()
    theirs, their_report = _general_records(chunk)
    assert ours == theirs and ours_report == their_report
    assert their_report.rows > 500 and their_report.n_skipped > 500  # both kinds are there
    # strict: the same first refusal, in the same words
    for start in range(0, 2000, 97):
        strict = records_mod.RowChunk("log.jsonl", "jsonl", "openai-chat", "strict", lines=lines[start:start + 97])
        outcomes = []
        for read in (lambda c=strict: c.records(), lambda c=strict: _general_records(c)):
            try:
                outcomes.append(read())
            except Exception as e:  # noqa: BLE001 - the refusal itself is compared
                outcomes.append((type(e), str(e)))
        assert outcomes[0] == outcomes[1]
