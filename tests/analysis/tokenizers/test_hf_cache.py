"""`hf:org/name` from the local Hugging Face cache: offline, by huggingface_hub's own lookup.

Each test lays a cache out in a temp dir as huggingface_hub does (models--org--name with refs/,
snapshots/<commit>/ and blobs/, the snapshot file a symlink to its blob) and points HF_HUB_CACHE
or HF_HOME at it. Sockets are closed for the duration: a lookup that tried the network would fail.
"""

from __future__ import annotations

import hashlib
import socket

import pytest
from tokenizers import Tokenizer as HF
from tokenizers import decoders, models, pre_tokenizers, trainers

from analysis import load_tokenizer
from analysis.cli import main
from analysis.tokenizers import hf_cache
from analysis.tokenizers.registry import LOADED
from analysis.tokenizers.vocab import VocabularyError

REPO = "tokenprism-test/tiny-bpe"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
TEXT = "hello world, hello tokens 123"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a socket was opened: the cache lookup must stay offline")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    yield
    for key in [k for k in LOADED.keys() if k.startswith("hf:")]:
        LOADED.discard(key)


@pytest.fixture(scope="module")
def tiny_json(tmp_path_factory):
    """A small byte-level BPE tokenizer.json, trained here."""
    tok = HF(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator([TEXT * 20, "the quick brown fox"],
                            trainers.BpeTrainer(vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                show_progress=False))
    path = tmp_path_factory.mktemp("tiny") / "tokenizer.json"
    tok.save(str(path))
    return path


def lay_out(hub, tiny_json, *, repo=REPO, commit=COMMIT, ref="main", with_file=True):
    """Write `repo` into the cache folder `hub` the way huggingface_hub does."""
    folder = hub / f"models--{repo.replace('/', '--')}"
    (folder / "snapshots" / commit).mkdir(parents=True)
    if ref:
        (folder / "refs").mkdir(parents=True, exist_ok=True)
        (folder / "refs" / ref).write_text(commit)
    if with_file:
        data = tiny_json.read_bytes()
        blob = folder / "blobs" / hashlib.sha256(data).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(data)
        (folder / "snapshots" / commit / "tokenizer.json").symlink_to(f"../../blobs/{blob.name}")
    else:
        (folder / "snapshots" / commit / "config.json").write_text("{}")
    return folder


def test_hf_hub_cache_is_used(tmp_path, tiny_json, monkeypatch):
    lay_out(tmp_path / "hub", tiny_json)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    tok = load_tokenizer(f"hf:{REPO}")
    assert tok.name == f"hf:{REPO}"
    assert tok.encode(TEXT) == HF.from_file(str(tiny_json)).encode(TEXT, add_special_tokens=False).ids
    assert tok.decode(tok.encode(TEXT)) == TEXT
    assert tok.source.version == COMMIT[:12]
    assert REPO in str(tok.source)


def test_hf_home_is_used(tmp_path, tiny_json, monkeypatch):
    lay_out(tmp_path / "home" / "hub", tiny_json)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert hf_cache.cache_dir() == tmp_path / "home" / "hub"
    path, repo, commit = hf_cache.find_tokenizer_json(REPO)
    assert path.read_bytes() == tiny_json.read_bytes()
    assert (repo, commit) == (REPO, COMMIT)


def test_hf_hub_cache_wins_over_hf_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert hf_cache.cache_dir() == tmp_path / "hub"


def test_revision_is_honoured(tmp_path, tiny_json, monkeypatch):
    lay_out(tmp_path / "hub", tiny_json, ref=None)  # downloaded at a commit, no "main" ref
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(VocabularyError, match=f"Cached revisions with a tokenizer.json: {COMMIT}"):
        load_tokenizer(f"hf:{REPO}")  # another revision is there, but it is not substituted
    assert load_tokenizer(f"hf:{REPO}@{COMMIT}").encode("hello") == HF.from_file(str(tiny_json)).encode("hello").ids


def test_missing_model_says_where_and_how(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(VocabularyError) as e:
        load_tokenizer("hf:someorg/absent-model")
    msg = str(e.value)
    assert "not in the local Hugging Face cache" in msg
    assert str(tmp_path / "hub" / "models--someorg--absent-model") in msg
    assert "huggingface-cli download someorg/absent-model tokenizer.json" in msg


def test_cached_repo_without_tokenizer_json(tmp_path, tiny_json, monkeypatch):
    lay_out(tmp_path / "hub", tiny_json, with_file=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(VocabularyError, match=r"has tokenprism-test/tiny-bpe but no tokenizer.json at revision 'main'"):
        load_tokenizer(f"hf:{REPO}")


def test_cli_missing_model_exits_2_with_the_fix(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert main(["compare", "-t", "hf:someorg/absent-model", "hello"]) == 2
    err = capsys.readouterr().err
    assert "huggingface-cli download someorg/absent-model tokenizer.json" in err
    assert "Traceback" not in err


def test_cli_compare_with_a_cached_model(tmp_path, tiny_json, monkeypatch, capsys):
    lay_out(tmp_path / "hub", tiny_json)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert main(["compare", "-t", f"hf:{REPO},cl100k_base", TEXT, "--format", "csv"]) == 0
    out = capsys.readouterr().out
    n = len(HF.from_file(str(tiny_json)).encode(TEXT).ids)
    assert f"hf:{REPO},hf," in out
    assert f",{n},{len(TEXT)}," in out


def test_a_path_still_wins_over_a_repo_id(tmp_path, tiny_json, monkeypatch):
    folder = tmp_path / "org" / "name"
    folder.mkdir(parents=True)
    (folder / "tokenizer.json").write_bytes(tiny_json.read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    assert load_tokenizer("hf:org/name").encode("hello") == HF.from_file(str(tiny_json)).encode("hello").ids


@pytest.mark.parametrize("arg,expected", [("org/name", True), ("org/name@main", True), ("org/na.me-1_2", True),
                                          ("./org/name", False), ("/abs/path", False), ("a/b/c", False),
                                          ("../x/y", False), ("name", False)])
def test_repo_ids(arg, expected):
    assert hf_cache.is_repo_id(arg) is expected
