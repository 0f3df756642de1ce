"""`tokenprism dashboard --tokenizer-dir DIR`: the folder's files in Compare, counted as the CLI counts them."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from analysis.cli import main
from analysis.tokenizers.folder import DASHBOARD_ENV
from analysis.tokenizers.gguf_reader import read_metadata
from analysis.tokenizers.vocab import sha256_file
from tests.analysis.tokenizers.gguf_writer import gguf_bytes, tiny_bpe, write_gguf
from tests.dashboards.conftest import as_read, open_link, open_page

PAGE = "app_pages/compare.py"
TEXT = "hello world, hello<|end|> tokens"


def _sentencepiece_model() -> bytes:
    import io

    import sentencepiece as spm

    model = io.BytesIO()
    corpus = ["the quick brown fox jumps over the lazy dog"] * 50 + ["hello world, hello tokens"] * 50
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus), model_writer=model, vocab_size=320,
                                   model_type="bpe", byte_fallback=True, minloglevel=2)
    return model.getvalue()


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """A tokenizer folder with a small GGUF, a SentencePiece model, a truncated GGUF and a file of another
    kind; the app sees it."""
    where = tmp_path / "models"
    where.mkdir()
    write_gguf(where / "tiny.gguf", tiny_bpe())
    (where / "mine.model").write_bytes(_sentencepiece_model())
    (where / "cut.gguf").write_bytes(gguf_bytes(tiny_bpe())[:200])
    (where / "notes.txt").write_text("not a tokenizer")
    (tmp_path / "outside.gguf").write_bytes(gguf_bytes(tiny_bpe()))
    monkeypatch.setenv(DASHBOARD_ENV, str(where))
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))
    return where


def _name(path) -> str:
    return f"gguf:{path.name}@{read_metadata(path).digest[:12]}"


def _cli(args: list[str], capsys) -> str:
    capsys.readouterr()
    assert main(args) == 0
    return capsys.readouterr().out


def test_folder_files_are_offered_and_counted_as_the_cli_counts_them(folder, capsys):
    name = _name(folder / "tiny.gguf")
    sp_name = f"sp:mine.model@{sha256_file(folder / 'mine.model')[:12]}"
    at = open_page(PAGE)
    options = at.multiselect(key="tokenizers").options
    assert options[-2:] == [sp_name, name] and "gpt2" in options  # the catalogue's, then the folder's by file name
    assert not any("cut.gguf" in o or "notes" in o for o in options)
    # the damaged file: one error naming it and its problem, without the folder's path; the page works
    errors = [as_read(e.value) for e in at.error]
    assert len(errors) == 1 and "cut.gguf" in errors[0] and "truncated" in errors[0], errors
    assert str(folder) not in errors[0]

    at.multiselect(key="tokenizers").set_value([name, sp_name, "gpt2"])
    at.text_area(key="text").set_value(TEXT).run()
    assert not at.exception, at.exception
    table = at.table[0].value
    counts = dict(zip(table["tokenizer"], table["n_tokens"]))
    spec, sp_spec = f"gguf:{folder / 'tiny.gguf'}", f"sp:{folder / 'mine.model'}"
    ids = _cli(["encode", "-t", spec, TEXT], capsys).split()
    cli_rows = json.loads(_cli(["compare", "-t", f"{spec},{sp_spec},gpt2", "--format", "json", TEXT], capsys))
    assert counts == {r["tokenizer"]: r["n_tokens"] for r in cli_rows}
    assert list(counts) == [name, sp_name, "gpt2"]
    assert counts[name] == len(ids) > 0
    assert counts[sp_name] == len(_cli(["encode", "-t", sp_spec, TEXT], capsys).split()) > 0
    # the drawings: one span per token of the file's tokenizer, at the top and side by side
    sp_ids = _cli(["encode", "-t", sp_spec, TEXT], capsys).split()
    at.selectbox(key="draw").set_value(sp_name)
    at.multiselect(key="show").set_value([name, "gpt2"]).run()
    assert not at.exception, at.exception
    drawn = [h.proto.body for h in at.html if h.proto.body.startswith('<div class="tp-text">')]
    assert len(drawn) == 3
    assert drawn[0].count('class="tp-tok') == len(sp_ids)
    assert drawn[1].count('class="tp-tok') == len(ids)


def test_a_link_names_only_files_of_the_folder(folder, tmp_path):
    name = _name(folder / "tiny.gguf")
    hostile = [f"gguf:{tmp_path / 'outside.gguf'}", "gguf:../outside.gguf", "sp:/etc/passwd", "gguf:tiny.gguf"]
    at = open_link(PAGE, {"tokenizers": [name, *hostile]})
    warned = as_read("\n".join(w.value for w in at.warning))
    for value in hostile:
        assert f"{value[:40]!r} is not one of the tokenizer names" in warned
    assert at.multiselect(key="tokenizers").value == [name]
    assert not any("outside.gguf" in r for r in at.table[0].value["tokenizer"])


def test_without_a_folder_nothing_is_added(monkeypatch):
    from analysis import available_tokenizers

    monkeypatch.setenv(DASHBOARD_ENV, "")
    at = open_page(PAGE)
    assert list(at.multiselect(key="tokenizers").options) == available_tokenizers()
    assert not at.error


def test_a_folder_gone_since_start_is_one_error(tmp_path, monkeypatch):
    monkeypatch.setenv(DASHBOARD_ENV, str(tmp_path / "gone"))
    at = open_page(PAGE)
    assert len(at.error) == 1 and "tokenizer folder" in at.error[0].value
    assert at.table  # the catalogue's tokenizers still count


def test_cli_flag_is_checked_and_handed_to_the_app(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(DASHBOARD_ENV, "")  # restored after the test: the command sets it
    assert main(["dashboard", "--tokenizer-dir", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["dashboard", "--tokenizer-dir"]) == 2
    seen = {}
    monkeypatch.setattr(os, "execv", lambda path, argv: seen.update(argv=argv, env=os.environ.get(DASHBOARD_ENV)))
    monkeypatch.setattr(subprocess, "call", lambda argv: seen.update(argv=argv) or 0)
    for given in (["--tokenizer-dir", str(tmp_path)], [f"--tokenizer-dir={tmp_path}"]):
        os.environ[DASHBOARD_ENV] = ""
        assert main(["dashboard", *given, "--server.port", "8600"]) == 0
        assert seen["env"] == os.path.abspath(tmp_path)
        assert not any("tokenizer-dir" in a for a in seen["argv"]) and seen["argv"][-2:] == ["--server.port", "8600"]


def test_serve_refuses_the_same_way(tmp_path, capsys):
    assert main(["serve", "--tokenizer-dir", str(tmp_path / "missing")]) == 2
    assert "is not a folder" in capsys.readouterr().err
