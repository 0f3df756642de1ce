"""Finding 7: a fetched vocabulary is checked against its pinned sha256 on first load.

A llama3 rank file cut at a line boundary used to load with 512 tokens and give wrong counts
silently; now the CLI and every dashboard page name it and say to re-run the fetch.
"""

from __future__ import annotations

import base64

import pytest

from analysis import cli
from analysis.tokenizers import fetch, load_tokenizer
from analysis.tokenizers.vocab import VocabularyError


@pytest.fixture
def corrupt_llama3():
    """A well-formed but truncated llama3 rank file in the (isolated) data directory."""
    path = fetch.data_dir() / "vocab" / "llama3" / fetch.FETCHABLE["llama3"].filename
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines += [f"{base64.b64encode(b'ab' + bytes([b])).decode()} {256 + b}" for b in range(256)]
    path.write_text("\n".join(lines) + "\n")
    fetch._verified.discard("llama3")
    yield path
    path.unlink()


def test_truncated_fetched_vocabulary_is_refused_with_the_fix(corrupt_llama3):
    with pytest.raises(VocabularyError, match=r"re-run `tokenprism vocab fetch llama3`"):
        load_tokenizer("llama3")
    assert "llama3" in fetch.vocabulary_problems()


def test_cli_names_the_fetch_command(corrupt_llama3, capsys):
    assert cli.main(["compare", "-t", "llama3", "hello"]) == 2
    err = capsys.readouterr().err
    assert "re-run `tokenprism vocab fetch llama3`" in err
    assert "Traceback" not in err


def test_every_dashboard_page_names_the_fix(corrupt_llama3):
    from streamlit.testing.v1 import AppTest

    from tests.dashboards.browser import APP

    at = AppTest.from_file(str(APP), default_timeout=120).run()
    assert not at.exception, at.exception
    assert any("re-run `tokenprism vocab fetch llama3`" in e.value for e in at.error)


def test_the_check_runs_once_per_process_unless_the_file_changes(corrupt_llama3, monkeypatch):
    spec = fetch.FETCHABLE["llama3"]
    good = fetch.Fetchable(**{**{f: getattr(spec, f) for f in spec.__dataclass_fields__},
                              "sha256": fetch.sha256_file(corrupt_llama3)})
    monkeypatch.setitem(fetch.FETCHABLE, "llama3", good)
    calls = []
    real = fetch.sha256_file
    monkeypatch.setattr(fetch, "sha256_file", lambda p: calls.append(p) or real(p))
    fetch.verified_path("llama3")
    fetch.verified_path("llama3")
    assert len(calls) == 1  # cheap: the second load only stats the file
    corrupt_llama3.write_text(corrupt_llama3.read_text() + "\n")  # changed on disk: checked again
    with pytest.raises(VocabularyError):
        fetch.verified_path("llama3")
    fetch._verified.discard("llama3")
