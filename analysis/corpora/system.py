"""Corpora already on the machine, read where they are and never copied into the repository.

Unlike the built-in corpora (`builtin`, written by this project) these are other people's text,
so each has an availability check and a clear error when absent:

- `stdlib`: the Python standard library's own `.py` sources (real code; PSF licence);
- `pydoc`: the English reference topics in `pydoc_data.topics` (technical prose; PSF licence);
- `gettext`: compiled `.mo` message catalogues under /usr/share/locale, one domain at a time:
  the same UI strings translated into many languages (parallel; each package's licence).
"""

from __future__ import annotations

import re
import struct
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from ..errors import BadInput, UnknownName
from ..textio import read_file_bytes
from .files import iter_text_chunks
from .parallel import join_parallel
from .sample import LoadReport, Sample, detect_script

DEFAULT_LOCALE_DIR = Path("/usr/share/locale")
_PY = f"Python {sys.version_info.major}.{sys.version_info.minor}"


class CorpusUnavailableError(BadInput):
    """A corpus that lives outside the repository is not present on this machine."""


# --- the standard library -----------------------------------------------------------------

_TEST_DIRS = {"test", "tests", "idle_test"}
_SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__"}


def stdlib_dir() -> Path:
    """Folder of the running interpreter's standard library sources."""
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_available() -> bool:
    """True when the standard library's .py sources are on disk (some slim images strip them)."""
    return (stdlib_dir() / "os.py").is_file()


def iter_stdlib(*, include_tests: bool = False, limit: int | None = None, errors: str = "replace",
                report: LoadReport | None = None) -> Iterator[Sample]:
    """The standard library's Python sources, one sample per file, in path order.

    Args:
        include_tests: also read the test suites (they hold deliberately odd text).
        limit: read at most this many files.
        errors: invalid UTF-8 handling (a few stdlib files are not UTF-8 on purpose).
        report: a LoadReport to fill in.

    Returns:
        Samples with ids "stdlib/<relative path>", category "code", kind "python".

    Raises:
        CorpusUnavailableError: the sources are not installed.

    >>> next(iter_stdlib(limit=1)).id.startswith("stdlib/") if stdlib_available() else True
    True
    """
    if not stdlib_available():
        raise CorpusUnavailableError(f"the Python standard library sources are not at {stdlib_dir()} "
                                     "(a slim Python image?); install the full Python or use another corpus")
    root = stdlib_dir()
    report = report if report is not None else LoadReport()
    skip = _SKIP_DIRS | (set() if include_tests else _TEST_DIRS)
    files = sorted(f for f in root.rglob("*.py") if not skip.intersection(f.relative_to(root).parts[:-1]))
    for path in files[:limit]:
        report.files_read += 1
        report.bytes_read += path.stat().st_size
        text = "".join(iter_text_chunks(path, errors=errors, report=report))
        report.samples += 1
        yield Sample(f"stdlib/{path.relative_to(root).as_posix()}", "code", "en", "Latn", "python", text,
                     f"{path} ({_PY} standard library, PSF licence)")


# --- pydoc topics ---------------------------------------------------------------------------


def pydoc_available() -> bool:
    """True when `pydoc_data.topics` can be imported."""
    try:
        from pydoc_data import topics  # noqa: F401
    except ImportError:
        return False
    return True


def iter_pydoc(*, topics: list[str] | None = None) -> Iterator[Sample]:
    """The English reference topics `help()` shows ("if", "with", "SPECIALMETHODS" ...).

    Args:
        topics: only these topic names (default: all, sorted).

    Returns:
        Samples with ids "pydoc/<topic>", category "prose", kind "technical-docs".

    Raises:
        CorpusUnavailableError: `pydoc_data` is missing; KeyError: an unknown topic.

    >>> next(iter_pydoc(topics=["if"])).kind if pydoc_available() else "technical-docs"
    'technical-docs'
    """
    if not pydoc_available():
        raise CorpusUnavailableError("pydoc_data is not installed with this Python; use another prose corpus")
    from pydoc_data.topics import topics as all_topics

    names = sorted(all_topics) if topics is None else topics
    for name in names:
        if name not in all_topics:
            raise UnknownName("pydoc topic", name, all_topics,
                              message=f"unknown pydoc topic {name!r}; valid topics: {sorted(all_topics)}")
        yield Sample(f"pydoc/{name}", "prose", "en", "Latn", "technical-docs", all_topics[name],
                     f"pydoc_data.topics ({_PY} documentation, PSF licence)")


# --- gettext catalogues ---------------------------------------------------------------------

_SCRIPT_MODIFIERS = {"latin": "Latn", "cyrillic": "Cyrl", "devanagari": "Deva", "arabic": "Arab"}
_SKIP_LOCALES = {"en@quot", "en@boldquot", "C", "POSIX"}


MAX_MO_BYTES = 64_000_000


def read_mo(path: str | Path) -> dict[str, str]:
    """Parse a compiled gettext catalogue (.mo) into {msgid: msgstr}.

    The header entry (empty msgid) is left out; for plural entries the singular msgid and the
    first plural form are kept; a message context ("ctx\\x04msgid") stays in the key.

    Raises:
        ValueError: the file is not a .mo catalogue.
    """
    data = read_file_bytes(path, MAX_MO_BYTES, what="gettext catalogue")  # system files are a few MB at most
    if len(data) < 28:
        raise BadInput(f"{path} is too short to be a .mo catalogue")
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">" if magic == 0xDE120495 else None
    if order is None:
        raise BadInput(f"{path} is not a .mo catalogue (magic 0x{magic:08x})")
    _, n, orig_at, trans_at = struct.unpack(order + "4I", data[4:20])

    def entry(table: int, i: int) -> bytes:
        length, offset = struct.unpack(order + "2I", data[table + 8 * i : table + 8 * i + 8])
        return data[offset : offset + length]

    raw = [(entry(orig_at, i), entry(trans_at, i)) for i in range(n)]
    header = next((t for o, t in raw if o == b""), b"").decode("ascii", "replace")
    m = re.search(r"charset=([\w.-]+)", header)
    charset = m.group(1) if m and m.group(1).upper() != "CHARSET" else "utf-8"
    out = {}
    for orig, trans in raw:
        if not orig:
            continue
        key = orig.split(b"\x00")[0].decode(charset, "replace")
        out[key] = trans.split(b"\x00")[0].decode(charset, "replace")
    return out


def locale_to_bcp47(name: str) -> str:
    """gettext locale folder name -> BCP-47 tag.

    >>> locale_to_bcp47("pt_BR"), locale_to_bcp47("sr@latin"), locale_to_bcp47("ca@valencia")
    ('pt-BR', 'sr-Latn', 'ca-x-valencia')
    """
    base, _, modifier = name.partition("@")
    tag = base.split(".")[0].replace("_", "-")
    if modifier:
        script = _SCRIPT_MODIFIERS.get(modifier.lower())
        lang, _, region = tag.partition("-")
        tag = f"{lang}-{script}" + (f"-{region}" if region else "") if script else f"{tag}-x-{modifier[:8].lower()}"
    return tag


def _catalogues(locale_dir: Path) -> dict[str, dict[str, Path]]:
    """{domain: {locale folder name: .mo path}}"""
    out: dict[str, dict[str, Path]] = {}
    for mo in sorted(locale_dir.glob("*/LC_MESSAGES/*.mo")):
        locale = mo.parent.parent.name
        if locale not in _SKIP_LOCALES:
            out.setdefault(mo.stem, {})[locale] = mo
    return out


def gettext_available(locale_dir: str | Path = DEFAULT_LOCALE_DIR) -> bool:
    """True when `locale_dir` holds at least one .mo catalogue."""
    return Path(locale_dir).is_dir() and next(Path(locale_dir).glob("*/LC_MESSAGES/*.mo"), None) is not None


def gettext_domains(locale_dir: str | Path = DEFAULT_LOCALE_DIR) -> pd.DataFrame:
    """Catalogue domains under `locale_dir`, most translated first (columns domain, n_languages)."""
    cats = _catalogues(Path(locale_dir))
    frame = pd.DataFrame({"domain": list(cats), "n_languages": [len(v) for v in cats.values()]},
                         columns=["domain", "n_languages"])
    return frame.sort_values(["n_languages", "domain"], ascending=[False, True], ignore_index=True)


def load_gettext(domain: str | None = None, *, locale_dir: str | Path = DEFAULT_LOCALE_DIR,
                 languages: list[str] | None = None, min_coverage: float = 0.9) -> pd.DataFrame:
    """One gettext domain as a parallel corpus: one row per (language, message).

    Languages translating fewer than `min_coverage` of the domain's messages are left out; the
    messages kept are those every remaining language translates, in msgid order. The English
    source strings (the msgids) are the pivot, language "en".

    Args:
        domain: catalogue name such as "iso_3166"; None picks the most translated domain.
        locale_dir: where the catalogues are.
        languages: locale folder names to keep (e.g. ["fr", "pt_BR"]); default all.
        min_coverage: share of messages a language must translate to be kept.

    Returns:
        DataFrame with columns language, script, line_no, text, split ("" ), name (locale
        folder, "msgid" for the pivot), msgid.

    Raises:
        CorpusUnavailableError: no catalogues; ValueError: unknown domain or languages, or
            nothing left after the coverage filter.
    """
    locale_dir = Path(locale_dir)
    if not gettext_available(locale_dir):
        raise CorpusUnavailableError(f"no gettext catalogues (.mo) under {locale_dir}; "
                                     "install some translated packages or give locale_dir=")
    cats = _catalogues(locale_dir)
    if domain is None:
        domain = max(cats, key=lambda d: (len(cats[d]), d))
    if domain not in cats:
        best = ", ".join(gettext_domains(locale_dir)["domain"].head(15))
        raise BadInput(f"no gettext domain {domain!r} under {locale_dir}; most translated: {best}")
    chosen = cats[domain] if languages is None else {k: v for k, v in cats[domain].items() if k in languages}
    if languages is not None and len(chosen) < len(set(languages)):
        raise BadInput(f"domain {domain!r} has no catalogue for {sorted(set(languages) - set(chosen))}; "
                       f"available: {sorted(cats[domain])}")
    catalogues = {loc: {k: v for k, v in read_mo(p).items() if v} for loc, p in chosen.items()}
    universe = set().union(*catalogues.values()) if catalogues else set()
    kept = {loc: c for loc, c in catalogues.items() if universe and len(c) / len(universe) >= min_coverage}
    common = sorted(set.intersection(*(set(c) for c in kept.values()))) if kept else []
    if not common:
        raise BadInput(f"domain {domain!r}: no messages are translated by every language with coverage "
                       f">= {min_coverage}; lower min_coverage or choose languages")
    frames = [_lines("en", "msgid", [m.split("\x04")[-1] for m in common], common)]
    seen = {"en"}
    for loc, cat in sorted(kept.items()):
        tag = locale_to_bcp47(loc)
        if tag in seen:  # e.g. two folders for one tag; keep the first
            continue
        seen.add(tag)
        frames.append(_lines(tag, loc, [cat[m] for m in common], common))
    return pd.concat(frames, ignore_index=True)


def _lines(language: str, name: str, texts: list[str], msgids: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"language": language, "script": detect_script("\n".join(texts)),
                         "line_no": range(len(texts)), "text": texts, "split": "", "name": name,
                         "msgid": msgids})


def iter_gettext(domain: str | None = None, **options) -> Iterator[Sample]:
    """`load_gettext` as one sample per language (messages joined with newlines).

    Returns:
        Samples with ids "gettext/<domain>/<language>", category "multilingual", kind "ui-strings".
    """
    lines = load_gettext(domain, **options)
    locale_dir = options.get("locale_dir", DEFAULT_LOCALE_DIR)
    name = domain or "default"
    yield from join_parallel(lines, join="\n", id_prefix=f"gettext/{name}", kind="ui-strings",
                             source=f"{locale_dir} gettext catalogues '{name}' (licence of each package)")


def system_corpora() -> pd.DataFrame:
    """Which machine corpora are present (columns name, available, location, description)."""
    rows = [
        ("stdlib", stdlib_available(), str(stdlib_dir()), "Python standard library sources (code)"),
        ("pydoc", pydoc_available(), "pydoc_data.topics", "Python reference topics (English technical prose)"),
        ("gettext", gettext_available(), str(DEFAULT_LOCALE_DIR), "gettext UI strings (parallel, many languages)"),
    ]
    return pd.DataFrame(rows, columns=["name", "available", "location", "description"])


def iter_system(name: str, **options) -> Iterator[Sample]:
    """Samples of a machine corpus by name: "stdlib", "pydoc", "gettext" or "gettext:DOMAIN".

    >>> next(iter_system("pydoc")).category if pydoc_available() else "prose"
    'prose'
    """
    base, _, arg = name.partition(":")
    if base == "stdlib":
        return iter_stdlib(**options)
    if base == "pydoc":
        return iter_pydoc(**options)
    if base == "gettext":
        return iter_gettext(arg or None, **options)
    raise BadInput(f"unknown machine corpus {name!r}; valid: stdlib, pydoc, gettext, gettext:DOMAIN")
