"""GGUF files as tokenizers: the bounded reader, the split table, and llama.cpp's own vectors.

The reader and the spec are tested on small files written here (`gguf_writer`). llama.cpp's test
vocabularies come from the llama-cpp-python sdist (see `llamacpp_vocab`): every ``.inp`` text
must encode to its ``.out`` ids, and three files must agree with the bundled tokenizers of
their families on every built-in corpus and FLORES line.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import tracemalloc
import unicodedata
from pathlib import Path

import pytest

from analysis import load_builtin
from analysis.cli import main
from analysis.tokenizers import gguf_build, gguf_pre
from analysis.tokenizers.gguf_reader import GGUFError, read_metadata
from analysis.tokenizers.registry import load_tokenizer

from . import llamacpp_vocab as lv
from .gguf_writer import gguf_bytes, tiny_bpe, write_gguf
from .references import reference_builds


# -- the reader's bounds -------------------------------------------------------------------------
def test_reads_only_tokenizer_keys(tmp_path):
    kv = {**tiny_bpe(), "llama.context_length": 4096, "general.notes": ["a"] * 1000}
    meta = read_metadata(write_gguf(tmp_path / "t.gguf", kv))
    assert meta.model == "gpt2" and meta.pre == "gpt-2"
    assert meta.get("tokenizer.ggml.merges")[:2] == ["h e", "l l"]
    assert "llama.context_length" not in meta.values and "general.notes" not in meta.values
    assert meta.chat_template.startswith("{% for m in messages %}")
    assert len(meta.digest) == 64 and meta.metadata_bytes == (tmp_path / "t.gguf").stat().st_size


def _refused(path: Path, *words: str) -> str:
    tracemalloc.start()
    try:
        with pytest.raises(GGUFError) as e:
            read_metadata(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20  # refused from the counts, before anything of that size is allocated
    msg = str(e.value)
    for w in words:
        assert w in msg, msg
    assert str(path.parent) not in msg  # the file's name, never its whole path
    return msg


def test_truncated_file_is_refused(tmp_path):
    data = gguf_bytes(tiny_bpe())
    for cut in (30, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.gguf").write_bytes(data[:cut])
        _refused(tmp_path / "cut.gguf", "cut.gguf", "truncated")


def test_huge_array_is_refused(tmp_path):
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1)
    key = struct.pack("<Q", 21) + b"tokenizer.ggml.tokens"
    (tmp_path / "huge.gguf").write_bytes(head + key + struct.pack("<IIQ", 9, 8, 10**12) + b"\0" * 64)
    _refused(tmp_path / "huge.gguf", "1,000,000,000,000 elements", "tokenizer.ggml.tokens")
    # an int array that would fit the limit in count but not the file
    (tmp_path / "ints.gguf").write_bytes(head + key + struct.pack("<IIQ", 9, 5, 3_000_000) + b"\0" * 64)
    _refused(tmp_path / "ints.gguf", "truncated", "12,000,000 bytes")


def test_hostile_string_length_is_refused(tmp_path):
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1)
    (tmp_path / "key.gguf").write_bytes(head + struct.pack("<Q", 2**62) + b"abc")
    _refused(tmp_path / "key.gguf", "a key claims", "bytes")
    key = struct.pack("<Q", 23) + b"tokenizer.chat_template"
    (tmp_path / "val.gguf").write_bytes(head + key + struct.pack("<IQ", 8, 10**9) + b"x" * 100)
    _refused(tmp_path / "val.gguf", "1,000,000,000 bytes", "tokenizer.chat_template")


def test_not_gguf_wrong_version_and_bad_types(tmp_path):
    (tmp_path / "a.gguf").write_bytes(b"PK\x03\x04" + b"\0" * 40)
    _refused(tmp_path / "a.gguf", "not a GGUF file")
    (tmp_path / "b.gguf").write_bytes(b"GGUF" + struct.pack(">IQQ", 3, 0, 0))
    _refused(tmp_path / "b.gguf", "big-endian")
    (tmp_path / "c.gguf").write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 1) + b"k"
                                      + struct.pack("<I", 99) + b"\0" * 16)
    _refused(tmp_path / "c.gguf", "unknown value type 99")
    (tmp_path / "d.gguf").write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 10**9))
    _refused(tmp_path / "d.gguf", "key/value pairs")


# -- the split table and refusals ----------------------------------------------------------------
def test_unknown_pre_and_model_are_refused_naming_the_known_ones(tmp_path):
    with pytest.raises(gguf_build.GGUFFileError) as e:
        gguf_build.load(write_gguf(tmp_path / "p.gguf", tiny_bpe(pre="my-own-split")))
    assert "'my-own-split'" in str(e.value) and "llama-bpe" in str(e.value) and "qwen2" in str(e.value)
    with pytest.raises(gguf_build.GGUFFileError) as e:
        gguf_build.load(write_gguf(tmp_path / "k.gguf", tiny_bpe(pre="kimi-k2")))
    assert "custom code" in str(e.value)
    with pytest.raises(gguf_build.GGUFFileError) as e:
        gguf_build.load(write_gguf(tmp_path / "m.gguf", {**tiny_bpe(), "tokenizer.ggml.model": "rwkv"}))
    assert "'rwkv'" in str(e.value) and "gpt2, gemma4, bert, llama, t5" in str(e.value)


def test_every_pre_rule_compiles_in_hf_tokenizers(tmp_path):
    """Each name's regexes load into Hugging Face tokenizers and split ordinary text."""
    for name in gguf_pre.known_names():
        tok = gguf_build.load(write_gguf(tmp_path / f"{name}.gguf", tiny_bpe(pre=name)))
        assert tok.decode(tok.encode("hello world 12345, ok?\n\n  x")) == "hello world 12345, ok?\n\n  x"


def test_tiny_file_encodes_with_its_merges(tmp_path):
    tok = gguf_build.load(write_gguf(tmp_path / "tiny.gguf", tiny_bpe()))
    ids = tok.encode("hello world<|end|>")
    assert ids[:2] == [256 + 3, 256 + 8]  # "hello", " world": the merges ran
    assert tok.decode(ids) == "hello world<|end|>"
    assert tok.special_tokens == {"<|end|>": 265}
    assert tok.name == f"gguf:tiny.gguf@{read_metadata(tmp_path / 'tiny.gguf').digest[:12]}"


def test_spec_on_the_cli(tmp_path, capsys):
    path = write_gguf(tmp_path / "tiny.gguf", tiny_bpe())
    assert main(["encode", "-t", f"gguf:{path}", "hello world"]) == 0
    assert capsys.readouterr().out.split() == ["259", "264"]
    assert main(["compare", "-t", f"gguf:{path},gpt2", "hello world"]) == 0
    assert "gguf:tiny.gguf@" in capsys.readouterr().out
    (tmp_path / "bad.gguf").write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 1))
    assert main(["encode", "-t", f"gguf:{tmp_path / 'bad.gguf'}", "x"]) == 2
    assert "truncated" in capsys.readouterr().err


def test_engine_file_is_cached_by_digest(tmp_path, monkeypatch):
    from analysis.tokenizers.fetch import data_dir

    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))
    path = write_gguf(tmp_path / "tiny.gguf", tiny_bpe())
    gguf_build.load(path)
    digest = read_metadata(path).digest
    kept = list((data_dir() / "cache" / "gguf").glob(f"{digest}.*.json"))
    assert len(kept) == 1
    shutil.copyfile(path, tmp_path / "renamed.gguf")
    assert gguf_build.load(tmp_path / "renamed.gguf").encode("hello") == [259]
    assert list((data_dir() / "cache" / "gguf").glob("*.json")) == kept  # same metadata, same copy


# -- llama.cpp's vectors -------------------------------------------------------------------------
@pytest.mark.network
@pytest.mark.slow
def test_fetch_sdist_through_pip(tmp_path, request):
    """The llama-cpp-python sdist, with pip, kept in pytest's cache for the tests below."""
    sdist = lv.download(tmp_path)
    assert lv.sha256(sdist) == lv.SDIST_SHA256
    keep = lv.cache_folder(request.config)
    if keep is not None:
        shutil.copyfile(sdist, keep / lv.SDIST)
    (tmp_path / "models").mkdir()
    names = {p.name for p in lv.extract(sdist, tmp_path / "models").iterdir()}
    assert {f"ggml-vocab-{n}.gguf" for n in (*lv.WITH_VECTORS, *lv.WITHOUT_VECTORS)} <= names


@pytest.fixture(scope="session")
def llamacpp_models(request, tmp_path_factory) -> Path:
    from tests.conftest import SHARED

    found = lv.in_shared(SHARED)
    if found is not None:
        return found
    sdist = lv.cached_sdist(request.config)
    if sdist is None:
        pytest.skip("llama.cpp's test vocabularies are neither in ../shared nor in pytest's cache: run "
                    "`pytest -m network --runslow tests/analysis/tokenizers/test_gguf.py::test_fetch_sdist_through_pip` "
                    "once (pip downloads the llama-cpp-python sdist, 77 MB)")
    return lv.extract(sdist, tmp_path_factory.mktemp("llamacpp-models"))


@pytest.fixture(scope="module")
def shared_data(tmp_path_factory):
    """One data dir for the module, so that each vocabulary's engine file is written once."""
    return tmp_path_factory.mktemp("gguf-data")


# the large vocabularies (256k tokens and more, several seconds each to load on a busy host) run with --runslow
_LARGE = {"command-r", "gemma-4", "llama-bpe", "qwen2", "qwen35", "deepseek-llm", "nomic-bert-moe", "aquila"}


def _by_size(names):
    return [pytest.param(n, marks=pytest.mark.slow) if n in _LARGE else n for n in names]


@pytest.mark.parametrize("name", _by_size(lv.WITH_VECTORS))
def test_llamacpp_vectors(name, llamacpp_models, shared_data, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(shared_data))
    tok = gguf_build.load(llamacpp_models / f"ggml-vocab-{name}.gguf")
    pairs = lv.pairs(llamacpp_models, name)
    assert len(pairs) == {"gemma-4": 46, "qwen35": 51}.get(name, 47)
    wrong = [(text, ids, tok.encode(text)) for text, ids in pairs if tok.encode(text) != ids]
    assert not wrong, wrong[:3]


@pytest.mark.parametrize("name", _by_size(lv.WITHOUT_VECTORS))
def test_llamacpp_files_without_vectors_load(name, llamacpp_models, shared_data, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(shared_data))
    tok = gguf_build.load(llamacpp_models / f"ggml-vocab-{name}.gguf")
    text = "Hello world, this is 1234 tokens"
    assert tok.n_vocab == len(read_metadata(llamacpp_models / f"ggml-vocab-{name}.gguf").get("tokenizer.ggml.tokens"))
    assert tok.decode(tok.encode(text)).strip() == text


# ggml's reader takes minutes over all 19 files (numpy views per string): one small file in the fast suite
@pytest.mark.parametrize("name", [n if n == "llama-spm" else pytest.param(n, marks=pytest.mark.slow)
                                  for n in lv.WITH_VECTORS + lv.WITHOUT_VECTORS])
def test_reader_agrees_with_ggml_gguf(name, llamacpp_models):
    """Every tokenizer key, value for value, as ggml's own reader (the `gguf` package) reads it."""
    gguf = pytest.importorskip("gguf", reason="the gguf package is the oracle (pip install -e '.[dev]')")
    path = llamacpp_models / f"ggml-vocab-{name}.gguf"
    mine = read_metadata(path).values
    theirs = {k: f.contents() for k, f in gguf.GGUFReader(path).fields.items()
              if k.startswith(("tokenizer.", "general.architecture", "general.name"))}
    assert mine.keys() == theirs.keys()
    for key, value in theirs.items():
        if isinstance(value, list) and value and isinstance(value[0], float):
            assert mine[key] == pytest.approx(value, rel=0, abs=0), key  # float32 both ways: exactly equal
        else:
            assert mine[key] == value, key


# -- the same ids as the bundled tokenizers of the same families ---------------------------------
PARITY = [("llama-bpe", "llama3"), ("gpt-2", "gpt2"), ("qwen2", "qwen2.5")]


def _reference(name: str):
    refs = {t.name: t for t in reference_builds()}
    if name in refs:
        return refs[name]
    try:
        return load_tokenizer(name)
    except (KeyError, ValueError) as e:
        pytest.skip(f"{name} is not available here: {e}")


def _check_parity(gguf_tok, ref, texts: list[str], nfc: bool) -> None:
    mine = gguf_tok.encode_batch([unicodedata.normalize("NFC", t) for t in texts] if nfc else texts)
    theirs = ref.encode_batch(texts)
    wrong = [t for t, a, b in zip(texts, mine, theirs) if a != b]
    assert not wrong, (len(wrong), wrong[:2])


@pytest.mark.parametrize("gguf_name, ref_name", [pytest.param(*p, marks=pytest.mark.slow) if p[0] in _LARGE else p
                                                 for p in PARITY])
def test_same_ids_as_bundled_on_builtin_corpora(gguf_name, ref_name, llamacpp_models, shared_data, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(shared_data))
    tok = gguf_build.load(llamacpp_models / f"ggml-vocab-{gguf_name}.gguf")
    texts = [t for t in load_builtin()["text"].tolist() if t]
    # Qwen's own tokenizer puts text in NFC first; llama.cpp does not (and neither does the GGUF here)
    _check_parity(tok, _reference(ref_name), texts, nfc=ref_name == "qwen2.5")


@pytest.mark.slow
@pytest.mark.parametrize("gguf_name, ref_name", PARITY)
def test_same_ids_as_bundled_on_flores(gguf_name, ref_name, llamacpp_models, shared_data, shared_dir, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(shared_data))
    files = sorted(p for p in (shared_dir / "corpora" / "flores200").glob("*/*") if p.suffix != ".md")
    if not files:
        pytest.skip("../shared/corpora/flores200 holds no FLORES-200 files")
    texts = [line for f in files for line in f.read_text(encoding="utf-8").splitlines() if line]
    tok = gguf_build.load(llamacpp_models / f"ggml-vocab-{gguf_name}.gguf")
    ref = _reference(ref_name)
    if ref_name == "qwen2.5":
        # the measured difference: exactly the lines that are not in NFC differ, and NFC makes them equal
        raw = tok.encode_batch(texts)
        theirs = ref.encode_batch(texts)
        differ = {i for i, (a, b) in enumerate(zip(raw, theirs)) if a != b}
        not_nfc = {i for i, t in enumerate(texts) if not unicodedata.is_normalized("NFC", t)}
        assert differ <= not_nfc
    _check_parity(tok, ref, texts, nfc=ref_name == "qwen2.5")


# -- sp:PATH -------------------------------------------------------------------------------------
def test_sp_spec_loads_any_sentencepiece_model(tmp_path, capsys):
    import io

    import sentencepiece as spm

    model = io.BytesIO()
    corpus = ["the quick brown fox jumps over the lazy dog"] * 50 + ["hello world, hello tokens"] * 50
    spm.SentencePieceTrainer.train(sentence_iterator=iter(corpus), model_writer=model, vocab_size=320,
                                   model_type="bpe", byte_fallback=True, minloglevel=2)
    (tmp_path / "mine.model").write_bytes(model.getvalue())
    tok = load_tokenizer(f"sp:{tmp_path / 'mine.model'}")
    reference = spm.SentencePieceProcessor(model_proto=model.getvalue())
    assert tok.encode("hello lazy world") == reference.EncodeAsIds("hello lazy world")
    assert tok.name.startswith("sp:mine.model@") and tok.family == "sentencepiece"
    assert main(["encode", "-t", f"sp:{tmp_path / 'mine.model'}", "hello"]) == 0
    assert capsys.readouterr().out.split() == [str(i) for i in reference.EncodeAsIds("hello")]
    (tmp_path / "not.model").write_bytes(b"nonsense")
    assert main(["encode", "-t", f"sp:{tmp_path / 'not.model'}", "x"]) == 2
    assert "not a SentencePiece model" in capsys.readouterr().err


# -- a 2 GB model file costs what its vocabulary costs -------------------------------------------
_LOAD = """
import resource, sys, json
from analysis.tokenizers.gguf_build import load
tok = load(sys.argv[1])
ids = tok.encode("Hello world, a flat load")
print(json.dumps({"rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "ids": ids}))
"""


def _load_in_child(path: Path, data_dir: Path) -> dict:
    import json
    import os

    out = subprocess.run([sys.executable, "-c", _LOAD, str(path)], capture_output=True, text=True, check=True,
                         env=dict(os.environ, TOKENPRISM_DATA_DIR=str(data_dir)), timeout=600)
    return json.loads(out.stdout)


@pytest.mark.slow
def test_two_gigabyte_file_loads_with_flat_memory(tmp_path, llamacpp_models):
    """llama-bpe's metadata, then 2 GB of weights (a hole: sparse), against the vocabulary alone."""
    vocab = llamacpp_models / "ggml-vocab-llama-bpe.gguf"
    meta = read_metadata(vocab)
    big = tmp_path / "model-2gb.gguf"
    with open(vocab, "rb") as src, open(big, "wb") as out:
        out.write(src.read(meta.metadata_bytes))
        out.truncate(2 << 30)
    assert read_metadata(big).digest == meta.digest  # the same tokenizer, whatever follows
    small = _load_in_child(vocab, tmp_path / "a")
    large = _load_in_child(big, tmp_path / "b")
    assert large["ids"] == small["ids"]
    assert large["rss_kb"] - small["rss_kb"] < 64 * 1024, (small, large)  # not a byte of the 2 GB held


# -- the file's chat template: shown, and used by count -m gguf:PATH where it is a family rendered here
def test_template_without_a_rendered_family_is_an_estimate_that_says_why(tmp_path, capsys):
    import json

    path = write_gguf(tmp_path / "chatml.gguf", tiny_bpe())  # a ChatML template, not Qwen 2.5's
    assert main(["count", "-m", f"gguf:{path}", "--format", "json", "hello world"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["input_tokens"] == 2 and row["format_tokens"] == 0 and row["exactness"] == "estimate"
    assert "ChatML markers" in row["exactness_reason"] and "none of the formats" in row["exactness_reason"]
    assert main(["tokenizers", "-t", f"gguf:{path}", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)[-1]
    assert listed["name"].startswith("gguf:chatml.gguf@") and listed["chat_template"] == tiny_bpe()["tokenizer.chat_template"]
    assert "metadata sha256" in listed["source"]


LLAMA3_TEMPLATE = ("{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + "
                   "'<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}"
                   "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}")


@pytest.mark.slow
def test_llama3_template_counts_as_the_llama3_format(tmp_path, llamacpp_models, capsys):
    """llama-bpe's vocabulary with a Llama 3 template: the same count as the llama3 family's own."""
    import json

    meta = read_metadata(llamacpp_models / "ggml-vocab-llama-bpe.gguf")
    kv = {k: v for k, v in meta.values.items() if k != "tokenizer.chat_template"}
    path = write_gguf(tmp_path / "llama3-chat.gguf", {**kv, "tokenizer.chat_template": LLAMA3_TEMPLATE})
    from analysis.requests import Request
    from analysis.requests.count import file_counter
    from analysis.requests.formats import llama3

    ref = _reference("llama3")
    request = Request.from_text("What is the capital of France?")
    mine = file_counter(f"gguf:{path}").count(request)
    theirs = llama3.render(request, ref)
    assert (mine.input_tokens, mine.format_tokens, mine.exactness) == (theirs.input_tokens, theirs.format_tokens,
                                                                       theirs.exactness)
    assert mine.ids == theirs.ids
    assert main(["count", "-m", f"gguf:{path}", "--format", "json", "What is the capital of France?"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["input_tokens"] == theirs.input_tokens


def test_measure_runs_a_gguf_tokenizer_in_its_workers(tmp_path, capsys):
    """The engines pass tokenizer names to their workers: a file's display name finds the same adapter."""
    path = write_gguf(tmp_path / "tiny.gguf", tiny_bpe())
    tok = load_tokenizer(f"gguf:{path}")
    assert load_tokenizer(tok.name) is tok
    assert main(["measure", "-t", f"gguf:{path},gpt2"]) == 0
    out = capsys.readouterr().out
    assert tok.name in out and "prose" in out
