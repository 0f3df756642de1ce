"""Find a model's ``tokenizer.json`` in the local Hugging Face cache, offline.

Unlike `fetch` (which downloads pinned wheels on request) and `vocab` (which reads files),
this module only looks: ``hf:org/name`` names a repository that ``huggingface-cli download`` or
``transformers`` already put in the cache, and `find_tokenizer_json` returns its file through
huggingface_hub's own cache lookup (`try_to_load_from_cache`). Nothing here touches the network;
a missing model is an error that says where we looked and the command that gets it.

The cache folder is read from the environment on each call, with huggingface_hub's precedence
(HF_HUB_CACHE, then HUGGINGFACE_HUB_CACHE, then HF_HOME/hub, then
$XDG_CACHE_HOME/huggingface/hub): huggingface_hub itself fixes it when first imported, which
would make a long-running service blind to a changed variable.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .vocab import VocabularyError

FILENAME = "tokenizer.json"

# org/name with an optional @revision (a branch, tag or commit), as the Hub spells repository ids.
_REPO_ID = re.compile(r"^(?P<repo>[A-Za-z0-9][\w.-]*/[\w.-]+)(?:@(?P<rev>[\w./-]+))?$")


def is_repo_id(arg: str) -> bool:
    """True when `arg` reads as ``org/name`` or ``org/name@revision`` (not a path such as ./x or /x).

    >>> is_repo_id("microsoft/phi-4"), is_repo_id("./models/x"), is_repo_id("/tmp/x/tokenizer.json")
    (True, False, False)
    """
    return bool(_REPO_ID.match(arg)) and not arg.startswith(".") and ".." not in arg


def cache_dir() -> Path:
    """The Hugging Face hub cache, by huggingface_hub's rules, read from the environment now."""
    for var in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(var):
            return Path(os.path.expandvars(os.environ[var])).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.path.expandvars(os.environ["HF_HOME"])).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg).expanduser() / "huggingface" / "hub"


def _cached_revisions(repo_folder: Path) -> list[str]:
    """Snapshot commits in the cache that hold a tokenizer.json."""
    snapshots = repo_folder / "snapshots"
    if not snapshots.is_dir():
        return []
    return sorted(p.name for p in snapshots.iterdir() if (p / FILENAME).is_file())


def find_tokenizer_json(arg: str) -> tuple[Path, str, str]:
    """Locate ``tokenizer.json`` of ``org/name[@revision]`` in the local cache.

    Returns:
        (path of the file, repository id, the snapshot's commit).

    Raises:
        VocabularyError: not in the cache (the message names the folder looked in and gives the
            ``huggingface-cli download`` command), or cached without a tokenizer.json.
    """
    m = _REPO_ID.match(arg)
    if m is None:
        raise VocabularyError(f"hf:{arg}: not a Hugging Face repository id; write hf:org/name (or hf:PATH to a file)")
    repo, revision = m["repo"], m["rev"]
    from huggingface_hub import try_to_load_from_cache  # lazily: only `hf:org/name` needs it

    root = cache_dir()
    found = try_to_load_from_cache(repo, FILENAME, cache_dir=str(root), revision=revision)
    if isinstance(found, str):
        path = Path(found)
        return path, repo, path.parent.name
    folder = root / f"models--{repo.replace('/', '--')}"
    get = f"huggingface-cli download {repo} {FILENAME}" + (f" --revision {revision}" if revision else "")
    where = f"{folder} (the Hugging Face cache: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub)"
    if not folder.is_dir():
        raise VocabularyError(f"hf:{arg}: {repo} is not in the local Hugging Face cache; looked in {where}. "
                              f"Fix: {get}   (or point HF_HUB_CACHE / HF_HOME at the cache that has it)")
    others = _cached_revisions(folder)
    wanted = revision or "main"
    if others:
        # Another snapshot has the file: say so rather than use it (never substitute silently).
        hint = f" Cached revisions with a {FILENAME}: {', '.join(others)}; use hf:{repo}@REVISION for one of them."
    else:
        hint = ""
    raise VocabularyError(f"hf:{arg}: the cache has {repo} but no {FILENAME} at revision {wanted!r}; looked in {where}."
                          f"{hint} Fix: {get}")
