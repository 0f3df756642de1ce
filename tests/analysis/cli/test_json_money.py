"""Every money value in every JSON a command writes is a decimal string with exactly the contract's
10 places (or null), `parts` and per-day rows included: the whole JSON is walked, every key.
The service's JSON is walked the same way in tests/analysis/api/test_json_money.py."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from analysis.contract import MONEY_PLACES

from .examples import run_in_examples
MONEY = re.compile(rf"^-?\d+\.\d{{{MONEY_PLACES}}}$")
M3 = "gpt-4o,o3,claude-sonnet-4-5"


def is_money_key(key: str) -> bool:
    return key == "usd" or key.startswith("usd_")


def bad_money(data: Any, path: str = "") -> list[tuple[str, Any]]:
    """(path, value) of every money value that is not a 10-place decimal string or null."""
    out: list[tuple[str, Any]] = []
    if isinstance(data, dict):
        for key, value in data.items():
            here = f"{path}/{key}"
            if is_money_key(str(key)) and not isinstance(value, (dict, list)):
                if not (value is None or (isinstance(value, str) and MONEY.match(value))):
                    out.append((here, value))
            out += bad_money(value, here)
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out += bad_money(value, f"{path}[{i}]")
    return out


def test_the_walk_finds_what_breaks_the_contract():
    found = bad_money({"models": [{"usd_total": "1.0000000000", "parts": [{"usd": "1E+1"}, {"usd_per_mtok": "0.000"}]}],
                       "days": [{"usd": 0.5}], "usd_as_billed": None})
    assert [p for p, _ in found] == ["/models[0]/parts[0]/usd", "/models[0]/parts[1]/usd_per_mtok", "/days[0]/usd"]


COMMANDS = [
    ["count", "--messages", "chat.json", "-m", M3],
    ["compare", "hello", "-m", M3],
    ["models", "claude"],
    ["models", "--prices", "my-prices.csv", "my-model"],
    ["cost", "Summarise this contract.", "-m", M3],
    ["cost", "Summarise this contract.", "-m", M3, "--output-tokens", "300", "--reasoning-tokens", "777"],
    ["cost", "Summarise this contract.", "-m", "gpt-4o,o3", "--output-tokens", "300", "--batch"],
    ["cost", "-f", "prompt.txt", "-m", M3, "--output-tokens", "300", "--requests-per-month", "1000",
     "--reasoning-tokens", "777"],
    ["cost", "-f", "prompt.txt", "-m", "gpt-4o,o3", "--output-tokens", "300", "--requests-per-month", "1000",
     "--batch", "--cached-share", "0.4"],
    ["cost", "-f", "prompt.txt", "--prices", "my-prices.csv", "-m", "my-model,gpt-4o", "--on", "2026-06-01",
     "--requests-per-month", "1e5", "--output-tokens", "200"],
    ["cost", "--messages", "request.json", "-m", M3, "--output-tokens", "200", "--requests-per-month", "30000"],
    ["cost", "Where is my parcel?", "--system", "@system.txt", "-m", M3, "--output-tokens", "30"],
    *[["cost", "--logs", log, "-m", M3 + ",gpt-4.1-mini", "--output-tokens", "50"]
      for log in ("month.jsonl.gz", "support.jsonl", "o4-mini.jsonl", "batch-input.jsonl", "questions.txt")],
    ["cost", "--logs", "o4-mini.jsonl", "-m", "o4-mini,gpt-4.1-mini", "--batch"],
    ["cost", "--logs", "export.parquet", "--log-column", "conversation", "-m", "deepseek-chat",
     "--output-tokens", "50"],
    ["cost", "--builtin", "numbers", "-m", M3, "--requests-per-month", "10", "--output-tokens", "5"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a)[:70] for a in COMMANDS])
def test_every_money_value_in_the_json_has_ten_places(argv, capsys):
    code, out, _ = run_in_examples(capsys, [*argv, "--format", "json"])
    assert code == 0
    data = json.loads(out)
    assert bad_money(data) == []
    if argv[0] in ("cost", "models"):  # and there is money to check: a walk over nothing would pass
        assert json.dumps(data).count('"usd') > 0
