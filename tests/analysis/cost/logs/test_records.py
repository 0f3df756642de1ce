"""Reading chat logs: each shape and container into one record type, and bad rows named."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from analysis.cost.logs import LogReport, iter_log_records, read_log_records
from analysis.requests import Request, TextPart, ToolCall, ToolResult


def turns(record):
    """(role, text) of each message of a record's request."""
    return [(m.role, m.text) for m in record.request.messages]

LOGS = Path(__file__).resolve().parents[3] / "fixtures" / "logs"


def test_openai_chat_rows_with_responses_and_timestamps():
    records, report = read_log_records(LOGS / "openai_chat.jsonl")
    assert report.shapes == {str(LOGS / "openai_chat.jsonl"): "openai-chat"}
    assert report.rows == 3
    first, second, third = records
    assert turns(first) == [("system", "You are a helpful assistant."), ("user", "Where is my parcel? It was due on Monday.")]
    assert first.response == "It is on its way and should arrive tomorrow."
    assert first.model == "gpt-4o"
    assert first.timestamp.isoformat() == "2026-03-01T09:00:00+00:00"
    # a Chat Completion response: text from choices[0], the serving model and time from the response
    assert second.response == "The meeting moved to Friday. Bring the report."
    assert second.model == "gpt-4o-2024-08-06"
    assert second.timestamp.date().isoformat() == "2026-03-02"
    assert third.response is None
    assert not any(r.request.tools for r in records)
    assert first.where == f"{LOGS / 'openai_chat.jsonl'}:1"


def test_openai_batch_lines_and_tools_are_tool_definitions():
    records, report = read_log_records(LOGS / "openai_batch.jsonl")
    assert set(report.shapes.values()) == {"openai-batch"}
    plain, with_tools = records
    assert [m.role for m in plain.request.messages] == ["developer", "user"]
    assert plain.model == "gpt-4o-mini"
    assert not plain.request.tools
    assert [t.name for t in with_tools.request.tools] == ["get_weather"]


def test_anthropic_system_blocks_usage_and_images_not_counted():
    records, report = read_log_records(LOGS / "anthropic.jsonl")
    assert set(report.shapes.values()) == {"anthropic"}
    first, second = records
    assert first.request.system == "You are a terse assistant."
    assert first.usage.input_tokens == 20
    assert first.usage.output_tokens == 9
    assert first.response == "2, 3 and 5."
    assert second.request.system == "Describe images briefly."
    assert second.request.messages[0].text == "What is in this picture?"
    assert second.not_counted == (("image", 1),)


def test_plain_text_one_request_per_line():
    records, report = read_log_records(LOGS / "plain.txt")
    assert [r.request for r in records] == [Request.from_text(t) for t in
                                            ("Where is my parcel?", "Please reset my password.",
                                             "Can I change my delivery address?")]
    assert set(report.shapes.values()) == {"text"}


def test_gzip_csv_and_parquet_give_the_same_records(tmp_path):
    plain, _ = read_log_records(LOGS / "openai_chat.jsonl")
    gz = tmp_path / "month.jsonl.gz"
    with open(LOGS / "openai_chat.jsonl", "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    from_csv, _ = read_log_records(LOGS / "chat.csv")
    frame = pd.read_csv(LOGS / "chat.csv", keep_default_na=False)
    frame.to_parquet(tmp_path / "month.parquet")
    from_parquet, _ = read_log_records(tmp_path / "month.parquet")
    def key(records):
        return [(r.request, r.response, r.model, r.timestamp) for r in records]
    assert key(read_log_records(gz)[0]) == key(plain)
    assert key(from_csv) == key(plain) == key(from_parquet)


def test_parquet_with_a_list_of_structs_and_another_column_name(tmp_path):
    frame = pd.DataFrame({"conversation": [[{"role": "user", "content": "Hi there"}]], "response": ["Hello!"],
                          "usage": [{"prompt_tokens": 9, "completion_tokens": 2}]})
    frame.to_parquet(tmp_path / "log.parquet")
    (record,), _ = read_log_records(tmp_path / "log.parquet", column="conversation")
    assert record.request == Request.from_text("Hi there")
    assert record.usage.input_tokens == 9
    with pytest.raises(ValueError, match="has no column 'messages'.*--log-column"):
        read_log_records(tmp_path / "log.parquet")


BAD_ROWS = [
    pytest.param('{"messages": [{"role": "user", "content": "ok"}]}\n{"messages": [\n', ":2: not valid JSON", id="json"),
    pytest.param('{"messages": [{"role": "wizard", "content": "x"}]}\n', ":1: unknown role 'wizard'", id="role"),
    pytest.param('{"messages": [{"role": "user", "content": [{"type": "hologram"}]}]}\n',
                 "unknown content type 'hologram'", id="content-type"),
    pytest.param('{"model": "gpt-4o"}\n', ":1: has no 'messages' (keys: model)", id="no-messages"),
    pytest.param('{"messages": [{"role": "user", "content": "x"}], "usage": {"prompt_tokens": -3}}\n',
                 "usage.prompt_tokens must be a non-negative integer", id="usage"),
    pytest.param('{"messages": [{"role": "user", "content": "x"}], "timestamp": "last tuesday"}\n',
                 "timestamp 'last tuesday' is neither ISO 8601 nor Unix seconds", id="time"),
    pytest.param('[1, 2]\n', ":1: a row must be a JSON object, got list", id="not-object"),
]


@pytest.mark.parametrize(("content", "message"), BAD_ROWS)
def test_a_malformed_row_names_file_line_and_problem(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(ValueError) as info:
        read_log_records(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)
    assert "errors='skip'" in str(info.value)


def test_errors_skip_loads_the_rest_and_counts_reasons(tmp_path):
    path = tmp_path / "mixed.jsonl"
    good = json.dumps({"messages": [{"role": "user", "content": "fine"}]})
    path.write_text("\n".join([good, "{oops", good, '{"messages": [{"role": "wizard", "content": "x"}]}', "{nope", ""]))
    report = LogReport()
    records = list(iter_log_records(path, errors="skip", report=report))
    assert len(records) == 2
    assert report.rows == 2
    assert report.n_skipped == 3
    assert report.skipped == {"not valid JSON": 2, "unknown role 'wizard'": 1}
    assert f"{path}:2" in report.summary()
    assert "3 skipped" in report.summary()


def test_a_forced_shape_names_what_does_not_fit():
    with pytest.raises(ValueError, match="top-level 'system'.*read as openai-chat.*shape=SHAPE"):
        read_log_records(LOGS / "anthropic.jsonl", shape="openai-chat")
    records, _ = read_log_records(LOGS / "openai_chat.jsonl", shape="openai-chat")
    assert len(records) == 3
    with pytest.raises(ValueError, match="unknown log format 'yaml'"):
        read_log_records(LOGS / "openai_chat.jsonl", shape="yaml")


def test_anthropic_tool_use_and_results_are_request_parts(tmp_path):
    row = {"system": "s", "messages": [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "18 C, sunny"},
                                     {"type": "document", "source": {"type": "base64", "data": "JVBE"}}]}]}
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (record,), _ = read_log_records(path)
    assert record.request.system == "s"
    call = record.request.messages[1].parts[0]
    assert isinstance(call, ToolCall) and call.name == "get_weather" and call.arguments == '{"city": "Paris"}'
    result = record.request.messages[2].parts[0]
    assert isinstance(result, ToolResult) and result.parts == (TextPart("18 C, sunny"),)
    assert record.not_counted == (("file", 1),)


def test_missing_file_and_streaming_is_lazy(tmp_path):
    with pytest.raises(ValueError, match="no such log file"):
        read_log_records(tmp_path / "absent.jsonl")
    path = tmp_path / "late.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "ok"}]}) + "\n{broken\n")
    stream = iter_log_records(path)
    assert next(stream).request.messages[0].text == "ok"  # the first row arrives before the bad one is read
    with pytest.raises(ValueError, match=":2: not valid JSON"):
        next(stream)


def test_a_forced_json_shape_reads_a_file_with_another_name(tmp_path):
    path = tmp_path / "requests.log"
    path.write_bytes((LOGS / "anthropic.jsonl").read_bytes())
    records, report = read_log_records(path, shape="anthropic")
    assert len(records) == 2
    assert records[0].request.system
    auto, _ = read_log_records(path)  # by default a .log file is text, one request per line
    assert auto[0].request.messages[0].text.startswith('{"model"')


def test_names_and_the_unknown_role_name_reach_the_request(tmp_path):
    path = tmp_path / "names.jsonl"
    path.write_text(json.dumps({"messages": [{"role": "system", "name": "example_user", "content": "Hi"}]}) + "\n")
    (record,), _ = read_log_records(path)
    assert record.request.messages[0].name == "example_user"  # the old reader dropped names
    path.write_text(json.dumps({"messages": [{"role": "user", "content": [{"type": "hologram"}]}]}) + "\n")
    report = LogReport()
    assert list(iter_log_records(path, errors="skip", report=report)) == []
    assert report.skipped == {"unknown content type 'hologram'": 1}


# The log reader reads every request shape `analysis.requests` reads, by its parser: the same
# body gives the same `Request` in a log row as in `count --messages`.
NEW_SHAPES = [
    pytest.param({"model": "gpt-4o", "input": "Hi", "instructions": "Be brief.",
                  "response": {"model": "gpt-4o-2024-08-06", "output": [
                      {"type": "reasoning", "summary": []},
                      {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello"}]},
                      {"type": "function_call", "name": "f", "arguments": "{}", "call_id": "c1"}],
                      "usage": {"input_tokens": 12, "output_tokens": 5, "input_tokens_details": {"cached_tokens": 4}}}},
                 "openai-responses", ("Hello", '[{"name": "f", "arguments": "{}"}]', 12, 5, 4, "gpt-4o-2024-08-06"),
                 id="responses"),
    pytest.param({"request": {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
                              "systemInstruction": {"parts": [{"text": "Be brief."}]}},
                  "response": {"modelVersion": "gemini-2.5-flash", "candidates": [{"content": {"role": "model", "parts": [
                      {"text": "thinking...", "thought": True}, {"text": "Hello"}]}}],
                      "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3, "thoughtsTokenCount": 7,
                                        "cachedContentTokenCount": 2}}},
                 "gemini", ("Hello", "", 10, 10, 2, "gemini-2.5-flash"), id="gemini"),
    pytest.param({"prompt": "Hi", "model": "gpt-4o"}, "text", (None, "", None, None, None, "gpt-4o"), id="prompt"),
]


@pytest.mark.parametrize(("row", "shape", "expected"), NEW_SHAPES)
def test_every_request_shape_is_read_through_the_request_parser(tmp_path, row, shape, expected):
    from analysis.requests import parse

    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (record,), report = read_log_records(path)
    assert report.shapes == {str(path): shape}
    body = row.get("request", row)
    assert record.request == parse({k: v for k, v in body.items() if k not in ("model", "response")})
    text, calls, n_in, n_out, cached, model = expected
    assert (record.response, record.response_json, record.model) == (text, calls, model)
    usage = record.usage
    assert ((usage.input_tokens, usage.output_tokens, usage.cached_tokens) if usage else (None, None, None)) == (
        n_in, n_out, cached)


def test_a_batch_line_for_the_responses_url_is_a_responses_request(tmp_path):
    path = tmp_path / "batch.jsonl"
    path.write_text(json.dumps({"custom_id": "r1", "url": "/v1/responses", "body": {"model": "gpt-4o", "input": "Hi"}})
                    + "\n" + json.dumps({"custom_id": "r2", "url": "/v1/embeddings", "body": {"input": "Hi"}}) + "\n")
    report = LogReport()
    (record,) = iter_log_records(path, errors="skip", report=report)
    assert record.request.api == "responses" and record.request.messages[0].text == "Hi"
    assert report.skipped == {"not a chat request": 1}


def test_logs_and_requests_share_one_anthropic_detector():
    from analysis.cost.logs import shapes as log_shapes
    from analysis.requests import shapes

    assert not hasattr(log_shapes, "_ANTHROPIC_ONLY")
    row = {"messages": [{"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}]}
    assert log_shapes.detect_shape(row) == shapes.detect_shape(row) == "anthropic"
