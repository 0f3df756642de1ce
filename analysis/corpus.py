"""Corpora: the built-in ones shipped in `datasets/`, and the entry points for all others.

Unlike `measure` and `probes` (which tokenize), this module only produces text: `Sample`
records and DataFrames of them. The built-in corpora are prose, code, a parallel multilingual
text (stored, written by this project, listed with a sha256 in `datasets/manifest.toml`) and
numbers and whitespace variants (generated, `corpus_generated`). The user's files are read by
`corpus_files`, parallel folders by `corpus_parallel`, and corpora that are already on the
machine (stdlib sources, pydoc topics, gettext catalogues) by `corpus_system`; their public
functions are re-exported here.

The built-in folder is found through the installed package `tokenprism_datasets` (wheels map
`datasets/` to that name) and, in a source checkout, next to this package: never through the
working directory.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.resources
import importlib.util
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd

from .corpus_files import (
    CODE_EXTENSIONS as CODE_EXTENSIONS,
    iter_samples as iter_samples,
    iter_text_chunks as iter_text_chunks,
    load_corpus as load_corpus,
    load_samples as load_samples,
)
from .corpus_generated import WHITESPACE_BASES, generate_numbers, whitespace_variants
from .corpus_parallel import join_parallel, read_parallel_dir
from .corpus_sample import (
    LoadReport as LoadReport,
    Labeled as Labeled,
    Sample as Sample,
    detect_script as detect_script,
    samples_to_frame as samples_to_frame,
)
from .corpus_system import (
    CorpusUnavailableError as CorpusUnavailableError,
    gettext_available as gettext_available,
    iter_gettext as iter_gettext,
    iter_pydoc as iter_pydoc,
    iter_stdlib as iter_stdlib,
    iter_system as iter_system,
    load_gettext as load_gettext,
    pydoc_available as pydoc_available,
    stdlib_available as stdlib_available,
    system_corpora as system_corpora,
)

CATEGORIES = ("prose", "code", "multilingual", "numbers", "whitespace")
GENERATED_CATEGORIES = ("numbers", "whitespace")
BUILTIN_NAMES = ("builtin", "multilingual")  # accepted by load_parallel for the built-in parallel text
_SAMPLE_KEYS = ("id", "category", "language", "script", "kind", "file", "sha256", "source", "licence")


def builtin_dir() -> Path:
    """The folder holding `manifest.toml` and the built-in corpora.

    Raises:
        FileNotFoundError: neither the installed `tokenprism_datasets` nor the source
            checkout's `datasets/` has a manifest (a broken install).
    """
    candidates: list[Path] = []
    # `tokenprism_datasets` is a namespace package (no __init__.py), so ask its spec for its
    # folders; importlib.resources.files() fails on some namespace layouts (e.g. an editable
    # install on Python 3.11 raises NotADirectoryError).
    try:
        spec = importlib.util.find_spec("tokenprism_datasets")
        candidates.extend(Path(p) for p in ((spec and spec.submodule_search_locations) or []))
    except (ImportError, ValueError, OSError):
        pass
    candidates.append(Path(__file__).resolve().parent.parent / "datasets")
    for folder in candidates:
        if (folder / "manifest.toml").is_file():
            return folder
    raise FileNotFoundError(f"built-in corpora not found (looked in {[str(c) for c in candidates]}); "
                            "reinstall tokenprism (pip install --force-reinstall tokenprism)")


def read_manifest(root: Path | None = None) -> dict:
    """The parsed `datasets/manifest.toml` (a fresh dict on every call)."""
    root = root or builtin_dir()
    with open(root / "manifest.toml", "rb") as fh:
        return tomllib.load(fh)


def file_sha256(path: Path) -> str:
    """sha256 of a file's exact bytes, as recorded in the manifest."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _categories(categories: str | Iterable[str] | None) -> tuple[str, ...]:
    if categories is None:
        return CATEGORIES
    wanted = (categories,) if isinstance(categories, str) else tuple(categories)
    unknown = [c for c in wanted if c not in CATEGORIES]
    if unknown:
        raise ValueError(f"unknown built-in categor{'y' if len(unknown) == 1 else 'ies'} {unknown}; "
                         f"valid: {list(CATEGORIES)}")
    return wanted


def _stored(root: Path, entry: dict) -> Labeled:
    # bytes -> str without newline translation: CRLF and trailing spaces stay exactly as stored
    text = (root / entry["file"]).read_bytes().decode("utf-8")
    source = f"datasets/{entry['file']}: {entry['source']}, licence {entry['licence']}"
    sample = Sample(entry["id"], entry["category"], entry["language"], entry["script"], entry["kind"], text, source)
    return Labeled(sample, entry.get("group", ""), entry.get("variant", ""))


def _multilingual(root: Path, manifest: dict) -> list[Labeled]:
    out = []
    for include in manifest.get("include", []):
        path = root / include
        if not path.is_file():
            raise FileNotFoundError(f"{root / 'manifest.toml'} includes {include}, which does not exist")
        with open(path, "rb") as fh:
            corpus = tomllib.load(fh).get("corpus", {})
        source = f"datasets/{include}: {corpus.get('source', '?')}, licence {corpus.get('licence', '?')}"
        lines = read_parallel_dir(path.parent)
        for sample in join_parallel(lines, join="\n", id_prefix=path.parent.name, source=source):
            out.append(Labeled(sample, "multilingual-parallel", sample.language))
    return out


def iter_builtin(categories: str | Iterable[str] | None = None) -> Iterator[Labeled]:
    """Built-in samples with their group/variant labels, category by category.

    Args:
        categories: a category or list of them (default all: prose, code, multilingual,
            numbers, whitespace).

    Returns:
        An iterator of `Labeled(sample, group, variant)`.

    Raises:
        ValueError: an unknown category.
    """
    wanted = _categories(categories)
    root = builtin_dir()
    manifest = read_manifest(root)
    stored = manifest.get("sample", [])
    for category in wanted:
        if category == "multilingual":
            yield from _multilingual(root, manifest)
        elif category == "numbers":
            yield from generate_numbers()
        else:
            yield from (_stored(root, e) for e in stored if e["category"] == category)
        if category == "whitespace":
            bases = {e["id"]: e for e in stored if e["id"] in WHITESPACE_BASES.values()}
            yield from whitespace_variants(_stored(root, bases[WHITESPACE_BASES["prose"]]).sample,
                                           _stored(root, bases[WHITESPACE_BASES["code"]]).sample)


def load_builtin(categories: str | Iterable[str] | None = None) -> pd.DataFrame:
    """The built-in corpora, generated categories included, as a fresh DataFrame.

    Args:
        categories: a category or list of them (default all).

    Returns:
        One row per sample; columns id, category, language, script, kind, text, source, and
        group / variant ("" when a sample is not one of a set of controlled variants).

    Raises:
        ValueError: an unknown category.

    >>> df = load_builtin(["prose", "numbers"])
    >>> sorted(df.category.unique()), df.id.is_unique
    (['numbers', 'prose'], True)
    """
    return samples_to_frame(iter_builtin(categories))


def get_sample(sample_id: str) -> Sample:
    """One built-in sample by id (e.g. "prose/email-01", "numbers/year", "multilingual/fr").

    Raises:
        KeyError: no such id; the message lists the closest ids.

    >>> get_sample("numbers/year").text[:9]
    '1000\\n1001'
    """
    category = sample_id.split("/", 1)[0]
    pool = list(iter_builtin(category if category in CATEGORIES else None))
    for item in pool:
        if item.sample.id == sample_id:
            return item.sample
    ids = [item.sample.id for item in pool]
    close = difflib.get_close_matches(sample_id, ids, n=5, cutoff=0.5)
    raise KeyError(f"no built-in sample {sample_id!r}; " + (f"did you mean {close}? " if close else "")
                   + "list them with: tokenprism corpus list --samples")


def sample_text(name: str = "default") -> str:
    """A short built-in text for demos (`tokenprism compare --builtin-sample`).

    "default" mixes English prose, Python code, numbers, Russian and Japanese sentences, a tab
    and trailing spaces.

    Raises:
        KeyError: an unknown name (the message lists the valid ones).

    >>> "def " in sample_text() and sample_text().endswith("two.  \\n")
    True
    """
    root = builtin_dir()
    texts = {t["name"]: t for t in read_manifest(root).get("text", [])}
    if name not in texts:
        raise KeyError(f"no built-in sample text {name!r}; valid: {sorted(texts)}")
    return (root / texts[name]["file"]).read_bytes().decode("utf-8")


def load_parallel(path_or_builtin: str | Path = "builtin", *, join: str = " ", joined: bool = False,
                  errors: str = "strict") -> pd.DataFrame:
    """A parallel corpus, line by line or joined per language.

    Args:
        path_or_builtin: "builtin" (or "multilingual") for the built-in parallel text, or a
            folder: one file per language (FLORES names such as eng_Latn.dev, or fr.txt), or
            a FLORES root whose split folders (dev, devtest) are joined per language.
        join: separator between a language's lines when `joined` (FLORES convention: " ").
        joined: one row per language (the `Sample` columns) instead of one row per line.
        errors: invalid UTF-8 handling, as `iter_samples`.

    Returns:
        Lines: columns language, script, line_no, text, split, name. Joined: id ("<folder>/<language>"),
        category "multilingual", language, script, kind "parallel", text, source.

    Raises:
        ValueError: a missing folder, or files with different line counts.

    >>> lines = load_parallel("builtin")
    >>> lines.groupby("language").size().nunique()  # every language has the same number of lines
    1
    """
    if isinstance(path_or_builtin, str) and path_or_builtin in BUILTIN_NAMES:
        manifest = read_manifest()
        if not manifest.get("include"):
            raise ValueError("the built-in manifest includes no parallel corpus")
        folder = (builtin_dir() / manifest["include"][0]).parent
    else:
        folder = Path(path_or_builtin)
    lines = read_parallel_dir(folder, errors=errors)
    if not joined:
        return lines
    return samples_to_frame(join_parallel(lines, join=join, id_prefix=folder.name, source=str(folder)))


def verify_builtin(root: Path | None = None) -> list[str]:
    """Check the manifest against the files: every problem as one line (empty list: all good).

    Checks required keys, unique ids, valid categories, files present with the recorded
    sha256, included manifests present, every file under datasets/ listed, and that the
    samples the whitespace variants are made from exist.
    """
    root = root or builtin_dir()
    manifest = read_manifest(root)
    problems: list[str] = []
    listed = {"manifest.toml"}
    ids: set[str] = set()
    for entry in manifest.get("sample", []):
        missing = [k for k in _SAMPLE_KEYS if k not in entry]
        if missing:
            problems.append(f"sample {entry.get('id', entry)!r} lacks keys {missing}")
            continue
        if entry["id"] in ids:
            problems.append(f"duplicate sample id {entry['id']!r}")
        ids.add(entry["id"])
        if entry["category"] not in CATEGORIES:
            problems.append(f"{entry['id']}: unknown category {entry['category']!r}")
        problems.extend(_check_file(root, entry["file"], entry["sha256"], listed))
    for text in manifest.get("text", []):
        problems.extend(_check_file(root, text["file"], text["sha256"], listed))
    for include in manifest.get("include", []):
        folder = (root / include).parent
        if not (root / include).is_file():
            problems.append(f"included manifest {include} is missing")
            # its folder's files are its business; report the one root cause only
            listed.update(p.relative_to(root).as_posix() for p in folder.rglob("*") if p.is_file())
            continue
        listed.add(include)
        with open(root / include, "rb") as fh:
            languages = tomllib.load(fh).get("language", [])
        for entry in languages:
            rel = (folder / entry.get("file", "?")).relative_to(root).as_posix()
            listed.add(rel)
            if not (root / rel).is_file():
                problems.append(f"{rel} is listed in {include} but missing")
    for base in WHITESPACE_BASES.values():
        if base not in ids:
            problems.append(f"whitespace variants are made from {base!r}, which the manifest does not list")
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    problems.extend(f"{f} is in datasets/ but not in the manifest" for f in sorted(on_disk - listed))
    return problems


def _check_file(root: Path, rel: str, sha: str, listed: set[str]) -> list[str]:
    listed.add(rel)
    path = root / rel
    if not path.is_file():
        return [f"{rel} is listed in the manifest but missing"]
    actual = file_sha256(path)
    if actual != sha:
        return [f"{rel}: sha256 {actual} differs from the manifest's {sha} (bytes changed: restore the "
                "file, or if the change is intended, update its sha256 in datasets/manifest.toml)"]
    return []
