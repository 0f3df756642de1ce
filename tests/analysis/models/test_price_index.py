"""Resolving a priced model a second time reads no price data, and answers exactly as the first time.

The first resolve of an id asks genai-prices (half a second of imports); what it answered is
kept in the data dir per genai-prices release (`price_index`). A fresh process resolving the same
ids must then not import genai-prices at all, and every field of the ModelSpec must be the same.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import pytest

from analysis.models import price_index

IDS = ["gpt-4o", "openai:gpt-4.1-mini", "claude-sonnet-4-5-20250929", "groq:llama-3.3-70b-versatile", "llama3",
       "deepseek-chat"]
_PROBE = """
import json, sys
from dataclasses import asdict
from analysis.models import resolve
specs = [asdict(resolve(i)) for i in sys.argv[1:]]
for s in specs:
    s.pop("rule")
print(json.dumps({"specs": specs, "genai_prices": "genai_prices" in sys.modules}))
"""


def _resolve_in_a_fresh_process(env) -> dict:
    out = subprocess.run([sys.executable, "-c", _PROBE, *IDS], env=env, capture_output=True, text=True, timeout=120,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_second_process_reads_no_price_data_and_gets_the_same_specs(tmp_path, monkeypatch):
    import os

    env = {**os.environ, "TOKENPRISM_DATA_DIR": str(tmp_path / "data")}
    first = _resolve_in_a_fresh_process(env)
    second = _resolve_in_a_fresh_process(env)
    assert first["genai_prices"] and not second["genai_prices"]
    assert second["specs"] == first["specs"]
    assert {s["price_ref"] for s in first["specs"]} >= {"openai:gpt-4o", "openai:gpt-4.1-mini"}  # priced, not empty
    (kept,) = (tmp_path / "data" / "cache" / "models").glob("genai-prices-*.json")
    assert "openai" in json.loads(kept.read_text(encoding="utf-8"))["providers"]


@pytest.fixture
def fresh_index(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(price_index, "_kept", None)
    price_index._file.cache_clear()
    yield
    monkeypatch.setattr(price_index, "_kept", None)
    price_index._file.cache_clear()


def test_an_unknown_id_is_kept_only_when_known_apart_from_the_prices(fresh_index):
    calls = []

    def compute():
        calls.append(1)
        return [], False

    for _ in range(2):
        assert price_index.lookup(None, "no-such-model", compute) == ([], False)  # a typo: asked again
    assert len(calls) == 2
    for _ in range(2):
        assert price_index.lookup(None, "llama3", compute, keep_empty=True) == ([], False)  # a family: kept
    assert len(calls) == 3


@pytest.mark.parametrize("damage", ["{not json", json.dumps({"version": 99, "ids": {}}),
                                    json.dumps({"version": price_index.VERSION, "ids": {":gpt-4o": {"hits": [["x"]]}}})])
def test_a_damaged_copy_is_not_trusted(fresh_index, caplog, damage):
    path = price_index._file()
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_text(damage, encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="tokenprism.cache"):
        hits = price_index.lookup(None, "gpt-4o", lambda: ([("openai", "gpt-4o", 128000)], True))
    assert hits == ([("openai", "gpt-4o", 128000)], True)  # computed, not read from the damaged copy
    assert json.loads(path.read_text(encoding="utf-8"))["ids"][":gpt-4o"]["hits"] == [["openai", "gpt-4o", 128000]]
