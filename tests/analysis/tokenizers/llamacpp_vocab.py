"""llama.cpp's test vocabularies (``ggml-vocab-*.gguf`` with their ``.inp``/``.out`` pairs), for tests.

They ship in the llama-cpp-python sdist on PyPI (``vendor/llama.cpp/models``), never in this
repository. Tests find them in ../shared (any folder holding ``ggml-vocab-llama-bpe.gguf``) or take
the pinned sdist from pytest's cache, where the one network test (`test_gguf.py::
test_fetch_sdist_through_pip`) leaves it, and skip with that command otherwise.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

SDIST = "llama_cpp_python-0.3.36.tar.gz"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
CACHE_KEY = "tokenprism-llama-cpp-python-0.3.36"
MEMBERS = "vendor/llama.cpp/models/ggml-vocab-"
SEPARATOR = "\n__ggml_vocab_test__\n"
# the 19 vocabularies of this sdist; the four without vectors are loaded and round-tripped only
WITH_VECTORS = ("bert-bge", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2", "llama-bpe",
                "llama-spm", "mpt", "phi-3", "qwen2", "qwen35", "refact", "starcoder")
WITHOUT_VECTORS = ("aquila", "baichuan", "gpt-neox", "nomic-bert-moe")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_folder(config) -> Path | None:
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    return None if cache is None else Path(cache.mkdir(CACHE_KEY))


def cached_sdist(config) -> Path | None:
    folder = cache_folder(config)
    path = None if folder is None else folder / SDIST
    return path if path is not None and path.is_file() and sha256(path) == SDIST_SHA256 else None


def in_shared(shared: Path) -> Path | None:
    if not shared.is_dir():
        return None
    for path in shared.glob("**/ggml-vocab-llama-bpe.gguf"):
        return path.parent
    return None


def extract(sdist: Path, dest: Path) -> Path:
    """The vocabularies and their vectors from `sdist` into `dest` (only those members)."""
    with tarfile.open(sdist, "r:gz") as tar:
        for member in tar.getmembers():
            name = member.name.split("/", 1)[-1]
            if member.isfile() and name.startswith(MEMBERS) and "/" not in name[len(MEMBERS):]:
                with tar.extractfile(member) as src, open(dest / Path(name).name, "wb") as out:  # type: ignore[union-attr]
                    shutil.copyfileobj(src, out)
    return dest


def download(dest: Path, timeout: float = 1800) -> Path:
    """``pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36`` into `dest` (pip prepares the
    sdist's metadata, which installs its build requirements: minutes, not a compile)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--disable-pip-version-check",
           "-q", "-d", str(dest), "llama-cpp-python==0.3.36"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=timeout)
    return dest / SDIST


def pairs(folder: Path, name: str) -> list[tuple[str, list[int]]]:
    """(text, ids) of one vocabulary's vectors, as llama.cpp's test-tokenizer-0 pairs them."""
    texts = (folder / f"ggml-vocab-{name}.gguf.inp").read_text(encoding="utf-8").split(SEPARATOR)
    outs = (folder / f"ggml-vocab-{name}.gguf.out").read_text(encoding="utf-8").split("\n")
    return [(t, [int(x) for x in o.split()]) for t, o in zip(texts, outs)]
