"""A tokenizer folder (`--tokenizer-dir DIR`): its .gguf and .model files, picked by file name only.

Unlike `specs` (a ``gguf:PATH`` or ``sp:PATH`` the person at the keyboard types, any path), this
module serves the faces where someone else picks: an API client (llama.cpp's /tokenize) or a
dashboard reader names a file inside the folder given at start, and nothing else resolves.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import BadInput, UnknownName

SUFFIXES = (".gguf", ".model")
# `tokenprism dashboard --tokenizer-dir DIR` hands the folder to the app (a separate process) here.
DASHBOARD_ENV = "TOKENPRISM_TOKENIZER_DIR"


def checked_folder(path: str | None, flag: str = "--tokenizer-dir") -> str | None:
    """`path` as an absolute folder, None for None; refused (BadInput) when it is not a folder.

    >>> checked_folder(None) is None
    True
    """
    if path is None:
        return None
    if not os.path.isdir(path):
        raise BadInput(f"{flag} {path!r} is not a folder. Fix: give the folder that holds your .gguf and .model files")
    return os.path.abspath(path)


def folder_files(folder: Path) -> list[str]:
    """The names of the tokenizer files in `folder` (not hidden ones), sorted; [] when it cannot be read."""
    try:
        return sorted(p.name for p in folder.iterdir() if p.suffix in SUFFIXES and not p.name.startswith("."))
    except OSError:
        return []


def folder_spec(folder: Path, name: str) -> str:
    """The ``gguf:``/``sp:`` spec of the file `name` inside `folder`.

    `name` must be one of `folder_files(folder)` and stay inside the folder once links are
    followed: a path, a hidden name or a link out is refused (UnknownName), naming only its base.
    """
    files = folder_files(folder)
    real = None
    if name in files:
        try:
            real = (folder / name).resolve(strict=True)
        except (OSError, RuntimeError):
            real = None
    if real is None or real.parent != folder.resolve() or not real.is_file():
        base = name.replace("\\", "/").rsplit("/", 1)[-1][:80]
        raise UnknownName("tokenizer file", base, files, message=(
            f"no tokenizer file {base!r} in the tokenizer folder; valid: {', '.join(files[:20]) or 'none'}"))
    return f"{'gguf' if real.suffix == '.gguf' else 'sp'}:{real}"
