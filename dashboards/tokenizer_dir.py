"""The tokenizer folder the dashboard was started with (`tokenprism dashboard --tokenizer-dir DIR`).

Unlike `shared.tokenizer_names` (the catalogue), these tokenizers are the folder's .gguf and
.model files, each loaded once and then named as the CLI's tables name it (``gguf:FILE@DIGEST``,
``sp:FILE@DIGEST``): the registry finds a loaded file by that name, so every count and drawing
of the pages takes it like a catalogue name. A reader only ever picks among these names; no
path from the browser reaches a loader. A file that does not load is named with its problem
and left out; the others work.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from analysis import load_tokenizer
from analysis.errors import BadInput, UnknownName
from analysis.tokenizers.folder import DASHBOARD_ENV, checked_folder, folder_files, folder_spec
from dashboards import shared


def folder() -> Path | None:
    """The folder given at start, or None; BadInput when it is no longer a folder."""
    checked = checked_folder(os.environ.get(DASHBOARD_ENV, "").strip() or None)
    return Path(checked) if checked else None


# One entry per file and version: a damaged file is tried again once it changes (a file that
# loaded keeps its tokenizer in the registry, as on every face, until the server restarts).
@st.cache_resource(max_entries=256, show_spinner="Loading the tokenizer folder…")
def _load(spec: str, size: int, mtime_ns: int) -> tuple[str | None, str]:
    """(the tokenizer's name, '') for a file that loads; (None, the problem) for one that does not."""
    try:
        return load_tokenizer(spec).name, ""
    except (BadInput, UnknownName, ValueError, KeyError, OSError) as e:
        return None, str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)


def folder_tokenizers() -> tuple[list[str], list[str]]:
    """(the names of the folder's tokenizers, one problem per file that does not load or for the folder)."""
    try:
        where = folder()
    except BadInput as e:
        return [], [f"The tokenizer folder given at start is gone: {e}. Restart the dashboard with it."]
    if where is None:
        return [], []
    names, problems = [], []
    for file in folder_files(where):
        try:
            spec = folder_spec(where, file)
            stat = Path(spec.split(":", 1)[1]).stat()
        except (UnknownName, OSError):  # a link out of the folder, or gone meanwhile
            problems.append(f"{file}: not a tokenizer file inside the tokenizer folder; left out.")
            continue
        name, problem = _load(spec, stat.st_size, stat.st_mtime_ns)
        if name is None:
            problems.append(f"{file} could not be loaded, so it is left out: "
                            + problem.replace(str(where) + os.sep, "").replace(str(where), ""))
        else:
            names.append(name)
    return names, problems


def tokenizer_names() -> list[str]:
    """The catalogue's tokenizers, then the folder's."""
    return [*shared.tokenizer_names(), *folder_tokenizers()[0]]
