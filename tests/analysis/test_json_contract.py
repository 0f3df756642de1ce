"""The JSON contract (README, "JSON contract"), checked on every face that writes numbers for programs.

Each face is one line of a table: a CLI command run through `analysis.cli.main`, or an API call
on the in-process service. Every output is walked recursively and each value is checked by its
key's name:

- a count (`n_*`, `*_tokens`, `tokens`, `input_tokens`, `totalTokens`, `count`) is an int; a
  key named `tokens` may instead hold a list or null (the ids of vLLM's shape);
- money (`usd_*`) is a string with exactly `MONEY_PLACES` decimals, or null;
- a ratio (`*_per_*`, `*_pct`, `*share*`, `premium*`, `*ratio`, `agreement`, `f1`, `jaccard`) is a
  number or null (checked first: `tokens_per_word` is a ratio, not a count);
- an exactness is one of `EXACTNESS`, and anything but "exact" carries a non-empty reason;
- no float is NaN or infinite (JSON has neither), and no count is written `13.0`.

A CSV face is read back as text and held to the same rules (an empty cell is a null).
Adding a face is one line in `CLI_JSON`, `CLI_CSV`, `CLI_FILES` or `API_JSON`.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any

import pytest

from analysis.cli import main
from analysis.contract import EXACTNESS, MONEY_PLACES
from tests.analysis.api.conftest import client  # noqa: F401  (the in-process service, as the API tests use it)

# -- the faces: name -> argv (CLI) or (method, path, body) (API) ----------------------------------
CHAT = json.dumps([{"role": "system", "content": "Be brief."}, {"role": "user", "name": "ann", "content": "Hi there"}])

CLI_JSON: dict[str, list[str]] = {
    "count text": ["count", "hello world", "-m", "gpt-4o,qwen3-32b,claude-sonnet-4-5", "--format", "json", "--ids"],
    "count messages": ["count", "--messages", "{chat}", "-m", "gpt-4o,gpt-oss-120b,qwen3-32b", "--format", "json"],
    "compare tokenizers": ["compare", "hello world", "-t", "cl100k_base,o200k_base,gpt2", "--format", "json"],
    "compare empty": ["compare", "", "-t", "cl100k_base", "--format", "json"],
    "compare models": ["compare", "hello world", "-m", "gpt-4o,deepseek-v3", "-t", "gpt2", "--format", "json"],
    "tokenizers": ["tokenizers", "--format", "json"],
    "probe numbers": ["probe", "digit-grouping", "-t", "cl100k_base,o200k_base", "--format", "json", "--no-progress"],
    "probe whitespace": ["probe", "trailing-whitespace", "-t", "cl100k_base,gpt2", "--format", "json", "--no-progress"],
    "measure": ["measure", "--by", "category", "-t", "cl100k_base,gpt2", "--format", "json", "--no-progress"],
}
CLI_CSV: dict[str, list[str]] = {
    "count text": ["count", "hello world", "-m", "gpt-4o,deepseek-v3", "--format", "csv"],
    "compare tokenizers": ["compare", "hello world", "-t", "cl100k_base,gpt2", "--format", "csv"],
    "compare models": ["compare", "hello world", "-m", "gpt-4o,deepseek-v3", "--format", "csv"],
    "tokenizers": ["tokenizers", "--format", "csv"],
    "probe numbers": ["probe", "digit-grouping", "-t", "cl100k_base,o200k_base", "--format", "csv", "--no-progress"],
    "measure": ["measure", "--by", "category", "-t", "cl100k_base,gpt2", "--format", "csv", "--no-progress"],
}
# Faces that write files: argv ({out} is a fresh folder) -> the glob of the data files to check.
# Each runs once per session (`written_by_cli`): the report is the one report/test_bundle.py reads.
CLI_FILES: dict[str, tuple[list[str], str]] = {
    "report tables": (["report", "--out", "{out}", "-t", "gpt2,cl100k_base,o200k_base", "--no-progress"], "tables/*.csv"),
}
API_JSON: dict[str, tuple[str, str, dict[str, Any] | None]] = {
    "/v1/count": ("post", "/v1/count", {"texts": ["hello world", ""], "tokenizers": ["o200k_base", "gpt2"]}),
    "/v1/tokenize": ("post", "/v1/tokenize", {"text": "héllo", "tokenizer": "o200k_base", "pieces": True}),
    "/v1/detokenize": ("post", "/v1/detokenize", {"ids": [24912, 2375], "tokenizer": "o200k_base"}),
    "/v1/tokenizers": ("get", "/v1/tokenizers", None),
    "/v1/explain": ("post", "/v1/explain", {"text": "unbelievably 2024", "tokenizer": "o200k_base"}),
    "vLLM /tokenize": ("post", "/tokenize", {"model": "gpt-4o", "prompt": "hello world"}),
    "Anthropic count_tokens": ("post", "/v1/messages/count_tokens",
                               {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "hello"}]}),
    "/v1/count messages": ("post", "/v1/count", {"model": "gpt-4o", "messages": json.loads(CHAT)}),
    "vLLM /tokenize messages": ("post", "/tokenize", {"model": "gpt-4o", "messages": json.loads(CHAT)}),
    "vLLM /tokenize proxy": ("post", "/tokenize", {"model": "claude-sonnet-4-5", "prompt": "hello"}),
    "vLLM /detokenize proxy": ("post", "/detokenize", {"model": "claude-sonnet-4-5", "tokens": [24912]}),
    "OpenAI responses input_tokens": ("post", "/v1/responses/input_tokens",
                                      {"model": "gpt-4o", "input": "hello", "instructions": "Be brief."}),
    "Gemini countTokens": ("post", "/v1beta/models/gemini-2.5-flash:countTokens",
                           {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}),
}

# -- the rules -------------------------------------------------------------------------------------
_RATIO = re.compile(r"^(.+_per_.+|.+_pct|.*share.*|premium.*|.*ratio|agreement|f1|jaccard)$")
_COUNT = re.compile(r"^(n_.+|.+_tokens|tokens|tokens_(new|old)|count|totalTokens|.+TokenCount)$")
# A key named `tokens` may hold a list instead of a count: vLLM's ids, /v1/explain's token strings.
_MONEY = re.compile(r"^usd(_.+)?$")
_PLACES = re.compile(rf"^-?\d+\.\d{{{MONEY_PLACES}}}$")
_REASON_KEYS = ("exactness_reason", "exactnessReason", "reason", "note")


def problems(value: Any, where: str = "$") -> list[str]:
    """Every breach of the contract in a decoded JSON value, as "path: what is wrong"."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}"
            found += _key_problems(str(key), item, path, value)
            found += problems(item, path)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += problems(item, f"{where}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        found.append(f"{where}: {value} (JSON has no NaN or infinity: write null)")
    return found


def _key_problems(key: str, item: Any, path: str, parent: dict) -> list[str]:
    if _RATIO.match(key):  # first: "tokens_per_word" is a ratio, not a count
        if item is not None and (isinstance(item, bool) or not isinstance(item, (int, float))):
            return [f"{path}: a ratio must be a number or null, got {item!r}"]
    elif _COUNT.match(key):
        if key == "tokens" and (item is None or isinstance(item, list)):
            return []  # ids (vLLM's shape; null where the count is not exact) or token strings, not a count
        if item is None and key.startswith("n_"):
            return []  # a count not measured (n_vocab of a vocabulary not on this machine)
        if type(item) is not int:
            return [f"{path}: a count must be an int, got {item!r}"]
    elif _MONEY.match(key):
        if item is not None and not (isinstance(item, str) and _PLACES.match(item)):
            return [f"{path}: money must be a string with {MONEY_PLACES} decimals or null, got {item!r}"]
    elif key == "exactness":
        if item not in EXACTNESS:
            return [f"{path}: exactness must be one of {EXACTNESS}, got {item!r}"]
        if item != "exact" and not any(parent.get(k) for k in _REASON_KEYS):
            return [f"{path}: a {item} count must say why (one of {_REASON_KEYS})"]
    return []


def csv_problems(text: str) -> list[str]:
    """The same rules over a CSV's cells (an empty cell is a null)."""
    found: list[str] = []
    for i, row in enumerate(csv.DictReader(io.StringIO(text))):
        for key, cell in row.items():
            where = f"row {i} {key}"
            if cell in ("", None):
                continue
            if _RATIO.match(key):
                try:
                    float(cell)
                except ValueError:
                    found.append(f"{where}: a ratio must be a number, got {cell!r}")
            elif _COUNT.match(key) and not re.fullmatch(r"-?\d+", cell):
                found.append(f"{where}: a count must be written as an integer, got {cell!r}")
            elif _MONEY.match(key) and not _PLACES.match(cell):
                found.append(f"{where}: money must have {MONEY_PLACES} decimals, got {cell!r}")
    return found


def _argv(argv: list[str], tmp_path) -> list[str]:
    chat = tmp_path / "chat.json"
    chat.write_text(CHAT, encoding="utf-8")
    return [a.replace("{chat}", str(chat)).replace("{out}", str(tmp_path / "out")) for a in argv]


# -- the checks ------------------------------------------------------------------------------------
def test_the_checker_catches_each_breach():
    bad = {"n_tokens": 13.0, "usd_input": "0.25", "chars_per_token": "4.1", "exactness": "estimate",
           "rows": [{"input_tokens": "7", "ratio": float("nan")}]}
    found = "\n".join(problems(bad))
    for path in ("$.n_tokens", "$.usd_input", "$.chars_per_token", "$.exactness", "$.rows[0].input_tokens",
                 "$.rows[0].ratio"):
        assert path in found
    good = {"n_tokens": 13, "usd_input": "0.0000250000", "chars_per_token": None, "exactness": "estimate",
            "exactness_reason": "a proxy", "tokens": [1, 2]}
    assert problems(good) == []
    assert csv_problems("n_tokens,usd_x\n13.0,0.1\n") and not csv_problems("n_tokens,usd_x\n13,0.1000000000\n")


@pytest.mark.parametrize("face", list(CLI_JSON))
def test_cli_json(face, capsys, tmp_path):
    assert main(_argv(CLI_JSON[face], tmp_path)) == 0
    out = json.loads(capsys.readouterr().out)
    assert out, f"{face} printed no rows"
    assert problems(out) == []


@pytest.mark.parametrize("face", list(CLI_CSV))
def test_cli_csv(face, capsys, tmp_path):
    assert main(_argv(CLI_CSV[face], tmp_path)) == 0
    out = capsys.readouterr().out
    assert out.count("\n") > 1, f"{face} printed no rows"
    assert csv_problems(out) == []


@pytest.mark.parametrize("face", list(CLI_FILES))
def test_cli_files(face, written_by_cli):
    argv, pattern = CLI_FILES[face]
    files = sorted(written_by_cli(argv).glob(pattern))
    assert files, f"{face} wrote no {pattern}"
    found = {f.name: csv_problems(f.read_text(encoding="utf-8")) if f.suffix == ".csv"
             else problems(json.loads(f.read_text(encoding="utf-8"))) for f in files}
    assert {name: p for name, p in found.items() if p} == {}


@pytest.mark.parametrize("face", list(API_JSON))
def test_api_json(face, client):
    method, path, body = API_JSON[face]
    response = client.request(method.upper(), path, json=body)
    assert response.status_code == 200, response.text
    assert problems(response.json()) == []


def test_one_exactness_vocabulary_is_named_once_and_used_everywhere():
    # the rules, the resolver, the chat formats, the API schemas and the price files share the contract's words
    import typing

    from analysis import contract
    from analysis.api import schemas
    from analysis.models import rules
    from analysis.models.resolve import ModelSpec
    from analysis.requests.formats import base

    assert base.Exactness is contract.RequestExactness and schemas.RequestExactness is contract.RequestExactness
    assert schemas.Exactness is contract.TextExactness and rules.EXACTNESS == contract.TEXT_EXACTNESS
    assert typing.get_type_hints(ModelSpec)["exactness"] is contract.TextExactness
    assert typing.get_type_hints(rules.TokenizerChoice)["exactness"] is contract.TextExactness
    assert contract.EXACTNESS == ("exact", "documented", "estimate")  # most to least exact: `least_exact` ranks by it
    assert contract.TEXT_EXACTNESS == ("exact", "estimate", "none")
