"""Issue 34, numbers and echoes: tiny numbers on every numeric input, terminal escapes in every
string the CLI echoes, and dashboard links within the server's request bound.

Finding 5: `--output-tokens 1e-999999999` wrote a gigabyte of zeros. Finding 9: a model name in
a log row, or a name or note in a --prices file, reached the terminal as raw ESC/OSC/BEL.
Finding 20: a 1 MB link got a bare "HTTP ERROR 400" from the dashboard's server.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from decimal import Decimal
from urllib.parse import urlencode

import h11
import pytest

from analysis import cli

from .cli_run import run_cli
from analysis.cost import WORKLOAD_LIMITS, Workload, workload_value
from analysis.errors import BadInput
from analysis.render import compact_number, terminal_text
from dashboards import links
from dashboards.links import Param, problems

TINY = ["1e-999999999", "1e-9999999999", "4.9e-324", "1e-320", "0." + "0" * 5_000 + "1", "1." + "0" * 5_000 + "1"]
# what a terminal obeys: ESC (colours, titles, OSC 8 links), BEL, C1 CSI, bidirectional overrides
RAW = ("\x1b", "\x07", "\x9b", "\u202e")
HOSTILE = "\x1b]0;owned\x07\x1b[31mgpt\u202e\x9b2J"


_run = run_cli


def _cost_number_flags() -> list[str]:
    """Every flag of `cost` that takes a number, read from the parser (a new one is covered too)."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    cost = sub.choices["cost"]
    return [a.option_strings[-1] for a in cost._actions
            if a.option_strings and a.type is not None and a.type not in (str,) and getattr(a.type, "__name__", "").startswith("--")]


def test_every_cost_number_flag_is_found():
    assert {"--output-tokens", "--requests-per-month", "--output-ratio", "--chars-per-request",
            "--cached-share", "--messages-per-request"} <= set(_cost_number_flags())


@pytest.mark.parametrize("flag", ["--output-tokens", "--requests-per-month", "--output-ratio", "--chars-per-request",
                                  "--cached-share", "--messages-per-request"])
@pytest.mark.parametrize("value", TINY)
def test_tiny_numbers_are_refused_with_the_range(flag, value, capsys):
    argv = ["cost", "hello", "-m", "gpt-4o", "--requests-per-month", "1000", "--output-tokens", "300"]
    argv += [flag, value]
    if flag == "--output-ratio":
        argv.remove("--output-tokens"), argv.remove("300")
    code, out, err = _run(argv, capsys)
    assert code == 2, (flag, value, out[:200])
    assert len(out) + len(err) < 5_000
    assert flag in err
    assert "0.000000001" in err or "significant digits" in err or "whole number" in err


def _every_number_flag() -> list[tuple[str, argparse.Action]]:
    parser = cli.build_parser()
    found = []

    def walk(name: str, p: argparse.ArgumentParser) -> None:
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                for n, sp in a.choices.items():
                    walk(f"{name} {n}".strip(), sp)
            elif a.option_strings and a.type is not None and a.type is not str and getattr(a.type, "__name__", "") != "_day":
                found.append((f"{name} {a.option_strings[-1]}", a))

    walk("", parser)
    return found


def test_every_numeric_flag_of_every_command_refuses_tiny_and_huge_numbers():
    flags = _every_number_flag()
    assert len(flags) > 20
    for name, action in flags:
        for value in [*TINY, "1e999999999", "nan", "-inf"]:
            try:
                got = action.type(value)
            except (argparse.ArgumentTypeError, ValueError):
                continue
            # only a knob may take a long-digit number in range, as the float it rounds to
            assert value.startswith("1.0") and isinstance(got, float) and len(repr(got)) <= 25, (name, value[:20], got)


def test_the_workload_line_is_compact_for_the_smallest_accepted_number():
    w = Workload(requests_per_month="1e12", output_tokens="0.000000001", chars_per_request="1e10")
    line = w.describe()
    assert "0.000000001 output tokens" in line and len(line) < 200


def test_compact_number_stays_short_for_any_decimal():
    for d in (Decimal("1e-999999999"), Decimal("9" * 40), Decimal("1e999999999"), Decimal("-0.5"), Decimal("1.5e-7")):
        assert len(compact_number(d)) <= 25, d


def test_the_library_refuses_tiny_numbers_too():
    workload_fields = {f.name for f in dataclasses.fields(Workload)}
    for name in WORKLOAD_LIMITS:
        if name not in workload_fields:  # a field of a shared-prefix workload (requests_per_lifetime)
            with pytest.raises(BadInput, match="0.000000001"):
                workload_value(name, "1e-999999999")
            continue
        fields = {"requests_per_month": 1, "output_tokens": 1, name: "1e-999999999"}
        if name == "output_ratio":
            del fields["output_tokens"]
        with pytest.raises(BadInput, match="0.000000001|whole number"):
            Workload(**fields)


@pytest.mark.parametrize("value", ["1e-320", "4.9e-324", "1e-999999999", "-1e-320"])
def test_tiny_numbers_in_links_are_named(value):
    params = [Param("cost_out_ratio", "a ratio", number="float", low=0, high=1000),
              Param("cost_cached", "a share", number="float", low=0, high=1),
              Param("cost_rpm", "a whole number", number="int", low=0, high=10 ** 12)]
    for p in params:
        found = problems({p.name: [value]}, params)
        assert len(found) == 1 and p.name in found[0], (p.name, value, found)


# -- 9: terminal escapes -------------------------------------------------------------------------
def test_terminal_text_leaves_nothing_a_terminal_obeys():
    shown = terminal_text(HOSTILE + "\r\n")
    assert not any(c in shown for c in RAW) and shown.endswith("\r\n")


def test_a_model_name_in_a_log_row_reaches_the_terminal_escaped(tmp_path, capsys):
    path = tmp_path / "log.jsonl"
    row = {"model": HOSTILE, "messages": [{"role": "user", "content": "hi"}]}
    path.write_text(json.dumps(row) + "\n")
    for fmt in ("table", "csv", "md"):
        code, out, err = _run(["cost", "--logs", str(path), "-m", "gpt-4o", "--output-tokens", "10", "--format", fmt],
                              capsys)
        assert code == 0, err
        assert not any(c in out + err for c in RAW), fmt


def test_a_prices_file_name_and_note_reach_the_terminal_escaped(tmp_path, capsys):
    path = tmp_path / "prices.csv"
    path.write_text("model,usd_per_mtok_input,usd_per_mtok_output,source,as_of,note\n"
                    f"{HOSTILE}-m,1,2,ours{HOSTILE},2026-01-01,note {HOSTILE}\n", encoding="utf-8")
    for argv in (["cost", "hello", "-m", f"{HOSTILE}-m", "--prices", str(path)],
                 ["cost", "hello", "-m", f"{HOSTILE}-m", "--prices", str(path), "--requests-per-month", "9",
                  "--output-tokens", "3"],
                 ["models", "--prices", str(path)], ["models", "--prices", str(path), "--format", "csv"]):
        code, out, err = _run(argv, capsys)
        assert not any(c in out + err for c in RAW), (argv, code, err[-300:])


@pytest.mark.parametrize("argv", [
    ["compare", "-t", HOSTILE, "hi"],
    ["cost", "hi", "-m", HOSTILE],
    ["cost", "--logs", HOSTILE + ".jsonl"],
    ["measure", HOSTILE + ".txt", "-t", "gpt2"],
])
def test_every_message_that_echoes_input_is_escaped(argv, capsys):
    code, out, err = _run(argv, capsys)
    assert code == 2 and err.strip()
    assert not any(c in err for c in RAW), err


# -- 20: links within the server's request bound -------------------------------------------------
def test_the_link_bound_leaves_room_under_the_servers_header_limit():
    # uvicorn reads requests with h11; a request line and headers over this get a bare 400
    assert links.LINK_MAX_BYTES + 4_000 <= h11._connection.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE


def test_a_text_of_emoji_is_left_out_of_the_link_not_sent_as_24_kb():
    from urllib.parse import quote

    text = "🙂" * links.LINK_MAX_TEXT  # within the character bound, 24 kB once encoded
    assert len(quote(text, safe="")) > links.LINK_MAX_BYTES
    assert not links.carries(text) and links.carries("a" * links.LINK_MAX_TEXT)


def test_the_longest_compare_link_fits_the_bound():
    from analysis.tokenizers import CATALOGUE

    query = [("text", "\U0010ffff" * (links.LINK_MAX_TEXT_BYTES // 12))]
    query += [("tokenizers", name) for name in CATALOGUE] + [("cost_model", "x" * links.MAX_VALUE_CHARS)]
    url = "http://127.0.0.1:8501/?" + urlencode(query)
    assert len(url) <= links.LINK_MAX_BYTES, len(url)
