"""Log rows whose time or usage cannot be summed are bad rows, never an internal error (findings 3
and 4 of the fifth audit, and finding 11's cache_control in logs).

3: a timestamp "0001-01-01T00:00:00+14:00" or "9999-12-31T23:59:59-14:00" overflowed moving to
   UTC, and usage >= 2^63 overflowed: "internal error ... a bug" (exit 1), even with --errors skip.
4: three rows of 2^62 prompt tokens summed to -4,611,686,018,427,387,904 billed input tokens, and
   one row of 2^63 - 1 was "as billed $23,058,430,092,136.94", exit 0.
11: an Anthropic cache_control.ttl of "forever" passed silently.
Now each is a "bad timestamp", "bad usage" or "bad cache_control" row: exit 2 naming it, or
dropped by --errors skip. A usage part above 10^9 tokens (`usage.MAX_ROW_TOKENS`) is refused, so
sums of rows stay inside an int64.
"""

from __future__ import annotations

import json

import pytest

from analysis.errors import BadInput
from tests.reliability.cli_run import run_cli

MAX_ROW_TOKENS = 10**9  # cost.usage.MAX_ROW_TOKENS, checked below

GOOD = {"timestamp": "2026-03-01T10:00:00Z", "model": "gpt-4o", "messages": [{"role": "user", "content": "hello"}],
        "response": {"model": "gpt-4o", "choices": [{"message": {"role": "assistant", "content": "hi"}}],
                     "usage": {"prompt_tokens": 8, "completion_tokens": 2}}}


def _with_usage(prompt: int) -> dict:
    return dict(GOOD, response=dict(GOOD["response"], usage={"prompt_tokens": prompt, "completion_tokens": 2}))


def _anthropic(ttl) -> dict:
    return {"timestamp": "2026-03-01T10:00:00Z", "model": "claude-sonnet-4-5",
            "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": ttl}}],
            "messages": [{"role": "user", "content": "hello"}],
            "response": {"model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "hi"}],
                         "usage": {"input_tokens": 8, "output_tokens": 2}}}


BAD_ROWS = [
    pytest.param(dict(GOOD, timestamp="0001-01-01T00:00:00+14:00"), "timestamp", id="year-1-east-of-utc"),
    pytest.param(dict(GOOD, timestamp="9999-12-31T23:59:59-14:00"), "timestamp", id="year-9999-west-of-utc"),
    pytest.param(_with_usage(2**63), "usage", id="usage-2^63"),
    pytest.param(_with_usage(2**63 - 1), "usage", id="usage-2^63-1"),
    pytest.param(_with_usage(2**62), "usage", id="usage-2^62"),
    pytest.param(_with_usage(MAX_ROW_TOKENS + 1), "usage", id="usage-just-past-the-bound"),
    pytest.param(_anthropic("forever"), "cache_control", id="ttl-forever"),
    pytest.param(_anthropic(-1), "cache_control", id="ttl-minus-1"),
    pytest.param(_anthropic({"a": 1}), "cache_control", id="ttl-object"),
]


def _good(row: dict) -> dict:
    """A good row of the same shape as `row`."""
    return _anthropic("5m") if "system" in row else GOOD


def _log(tmp_path, rows: list[dict]) -> str:
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("row", "what"), BAD_ROWS)
def test_a_row_that_cannot_be_summed_is_refused_by_name(tmp_path, capsys, row, what):
    log = _log(tmp_path, [_good(row), row])
    code, out, err = run_cli(["cost", "--logs", log, "-m", "gpt-4o"], capsys)
    assert code == 2, err
    assert f"{log}:2" in err and what in err and "internal error" not in err, err


@pytest.mark.parametrize(("row", "what"), BAD_ROWS)
def test_errors_skip_drops_such_a_row(tmp_path, capsys, row, what):
    log = _log(tmp_path, [_good(row), row, _good(row)])
    code, out, err = run_cli(["cost", "--logs", log, "-m", "gpt-4o", "--errors", "skip", "--format", "json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["n_rows"] == 2 and "1 skipped" in data["log"], data["log"]
    if what != "cache_control":  # that one is refused as the request is read: "malformed request"
        assert f"bad {what}" in data["log"], data["log"]


def test_huge_usage_never_sums_to_a_negative_or_absurd_bill(tmp_path, capsys):
    log = _log(tmp_path, [_with_usage(2**62)] * 3 + [GOOD])
    code, out, err = run_cli(["cost", "--logs", log, "-m", "gpt-4o", "--errors", "skip", "--format", "json"], capsys)
    assert code == 0, err
    text = out
    assert "-4611686018427387904" not in text and "34587645138205" not in text
    data = json.loads(out)
    assert data["n_rows"] == 1
    billed = [row.get("usd_as_billed") for row in data["served"]]
    assert all(b is None or float(b) < 1 for b in billed), billed


@pytest.mark.parametrize("ttl", ["5m", "1h"])
def test_documented_ttls_still_read(tmp_path, capsys, ttl):
    log = _log(tmp_path, [_anthropic(ttl)])
    code, out, err = run_cli(["cost", "--logs", log, "-m", "claude-sonnet-4-5"], capsys)
    assert code == 0, err


def test_the_documented_bound_is_the_one_applied():
    from analysis.cost import usage

    assert usage.MAX_ROW_TOKENS == MAX_ROW_TOKENS


@pytest.mark.parametrize("value", ["²", "١٠", "9" * 5000, "1_000", 2**63, "inf", -1, True, "1e300", "1.5"])
def test_an_export_token_count_is_bounded_ascii_digits(value):
    # the export readers (issue 58) took "²" by str.isdigit and then int() raised: an internal error
    from analysis.cost.logs.export_rules import parts_of, rules

    with pytest.raises(BadInput, match="non-negative whole number of tokens, at most 1,000,000,000"):
        parts_of({"gen_ai.usage.input_tokens": value, "gen_ai.usage.output_tokens": 4}, rules()["otel"])


@pytest.mark.parametrize(("value", "tokens"), [("1200", 1200), ("1200.0", 1200), ("1.2e3", 1200), (1200.0, 1200)])
def test_an_export_token_count_as_csv_and_otlp_write_it_still_reads(value, tokens):
    from analysis.cost.logs.export_rules import parts_of, rules

    assert parts_of({"gen_ai.usage.input_tokens": value, "gen_ai.usage.output_tokens": 4}, rules()["otel"]).input == tokens
