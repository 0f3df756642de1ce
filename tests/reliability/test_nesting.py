"""JSON nested past Python's parser, in every place a user's JSON is read (issue 45).

Before: `count --messages` with tools nested 5,000 levels exited 1 as an internal error
(RecursionError), and so did a tool call whose *arguments string* held such JSON, under the
qwen3, Mistral and Gemini formats (the API's body depth check does not look inside strings), and
the dashboard's Tools box showed the traceback. Now each is refused by name, exit 2 / 422.
"""

from __future__ import annotations

import json

import pytest

from analysis.textio.json_text import MAX_JSON_DEPTH, read_json
from tests.reliability.cli_run import run_cli

DEEP = "[" * 5000 + "]" * 5000


def _call(arguments: str) -> dict:
    return {"messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": None, "tool_calls": [
                             {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}]},
                         {"role": "tool", "tool_call_id": "c1", "content": arguments}]}


def test_a_deep_request_file_is_refused_by_name(tmp_path, capsys):
    body = tmp_path / "deep.json"
    body.write_text('{"messages": [{"role": "user", "content": "hi"}], "tools": ' + DEEP + "}")
    code, _, err = run_cli(["count", "--messages", str(body), "-m", "gpt-4o"], capsys)
    assert code == 2 and "nested too deeply" in err and str(MAX_JSON_DEPTH) in err, err


@pytest.mark.slow  # each model's vocabulary loads (seconds); the unit test below is the fast guard
@pytest.mark.parametrize("model", ["gpt-4o", "qwen3-32b", "mistral-large-latest", "gemini-2.5-flash",
                                   "claude-sonnet-4-5", "gpt-oss-120b"])
def test_deep_json_inside_a_tool_call_string_is_no_internal_error(tmp_path, capsys, model):
    body = tmp_path / "args.json"
    body.write_text(json.dumps(_call(DEEP)))
    code, out, err = run_cli(["count", "--messages", str(body), "-m", model], capsys)
    assert code in (0, 2), err  # counted as a text, or refused by name: never exit 1
    if code == 2:
        assert "nest too deeply" in err, err


def test_the_reader_keeps_ordinary_json_and_names_bad_json():
    assert read_json('{"a": [[1]], "s": "' + "[" * 500 + '"}', source="x", what="w")["a"] == [[1]]
    with pytest.raises(ValueError, match=r"x: not JSON \(Expecting value at line 1, column 1\); w"):
        read_json("", source="x", what="w")


def test_a_tool_calls_deep_arguments_are_refused_where_they_are_parsed():
    from analysis.requests.formats.build import call_arguments
    from analysis.requests.formats.none import _json_texts
    from analysis.requests.request import ToolCall

    with pytest.raises(ValueError, match="arguments of the call to 'f' nest too deeply"):
        call_arguments(ToolCall(name="f", arguments=DEEP), "qwen3")
    assert _json_texts(DEEP) == [DEEP]  # the estimate counts it as the text it is
