"""Finding 14 of issue 34: one corrupt optional vocabulary must not block everything.

With a truncated `claude-legacy` in the data dir, `serve` answered 503 on every route forever
(gpt2 included), the default `compare` exited 2, and `tokenizers` said "no: fetch" while
`vocab list` said "yes". Now the rest works, the broken one is named with its fix, and only a
request that names it is refused.
"""

from __future__ import annotations

import pytest

from analysis import cli
from analysis.tokenizers import fetch


@pytest.fixture
def truncated_claude_legacy():
    """The start of a tokenizer.json, cut off, where `vocab fetch claude-legacy` puts the file."""
    path = fetch.data_dir() / "vocab" / "claude-legacy" / fetch.FETCHABLE["claude-legacy"].filename
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0, "b"')
    fetch._verified.discard("claude-legacy")
    yield path
    path.unlink()


def test_default_compare_runs_with_the_rest_and_says_what_it_skipped(truncated_claude_legacy, capsys, monkeypatch):
    # every other tokenizer, to keep it quick: the same default path with a shorter catalogue
    from analysis import compare as compare_mod

    monkeypatch.setattr(compare_mod, "available_tokenizers", lambda: ["gpt2", "claude-legacy"])
    assert cli.main(["compare", "hello world", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "gpt2" in out and "claude-legacy" not in out
    assert "note: claude-legacy skipped" in err and "tokenprism vocab fetch claude-legacy" in err


def test_tokenizers_and_vocab_list_agree(truncated_claude_legacy, capsys):
    assert cli.main(["tokenizers", "--no-load", "--format", "csv"]) == 0
    tokenizers_row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("claude-legacy,"))
    assert cli.main(["vocab", "list", "--format", "csv"]) == 0
    vocab_row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("claude-legacy,"))
    state = "no: corrupt, re-run tokenprism vocab fetch claude-legacy"
    assert state in tokenizers_row and state in vocab_row


def test_serve_stays_ready_with_the_rest(truncated_claude_legacy):
    pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")
    from analysis.api.settings import Settings
    from tests.analysis.api.conftest import ready_client

    client = ready_client(Settings(tokenizers=("gpt2", "claude-legacy")))
    try:
        ready = client.get("/readyz").json()
        assert ready["tokenizers"] == ["gpt2"]
        assert "vocab fetch claude-legacy" in ready["unavailable"]["claude-legacy"]
        r = client.post("/v1/count", json={"text": "hello world"})
        assert r.status_code == 200 and [x["tokenizer"] for x in r.json()["results"]] == ["gpt2"]
        r = client.post("/v1/count", json={"text": "hello", "tokenizers": ["claude-legacy"]})
        assert r.status_code == 503
        assert r.json()["type"].endswith("tokenizer-unavailable") and "claude-legacy" in r.json()["detail"]
    finally:
        client.__exit__(None, None, None)
