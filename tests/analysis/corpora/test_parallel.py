"""The built-in parallel corpus `datasets/multilingual/`, checked as files on disk.

Unlike test_corpus.py, which goes through the `analysis` loaders, these tests read the files
directly with pathlib: the manifest against the folder, the line alignment, the encoding
(UTF-8, LF, NFC, a final newline), the coverage the datasets issue asks for (>= 35 languages,
>= 18 scripts, the required tags) and that each language is written in the script its
manifest entry declares (>= 80 % of its letters, by the Unicode Script property).
"""

from __future__ import annotations

import tomllib
import unicodedata
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
import regex

REPO = Path(__file__).resolve().parents[3]
FOLDER = REPO / "datasets" / "multilingual"
MANIFEST = FOLDER / "manifest.toml"

# The tags the datasets issue (issue 4) requires; "en" is the pivot.
REQUIRED = {
    "ar", "am", "bn", "de", "el", "en", "es", "fa", "fr", "gu", "he", "hi", "hy", "id", "it",
    "ja", "ka", "km", "ko", "mr", "my", "pl", "pt", "ru", "si", "sw", "ta", "te", "th", "tr",
    "uk", "ur", "vi", "yo", "zh-Hans",
}
MIN_LANGUAGES = 35
MIN_SCRIPTS = 18
MIN_ENGLISH_CHARS = 2_000
MIN_SCRIPT_SHARE = 0.80

# ISO 15924 code -> the Unicode Script values (as `regex` spells them) its letters may have.
# Jpan and Kore are writing systems mixing scripts; Hans/Hant are Han with a variant preference.
SCRIPT_NAMES: dict[str, tuple[str, ...]] = {
    "Arab": ("Arabic",), "Armn": ("Armenian",), "Beng": ("Bengali",), "Cyrl": ("Cyrillic",),
    "Deva": ("Devanagari",), "Ethi": ("Ethiopic",), "Geor": ("Georgian",), "Grek": ("Greek",),
    "Gujr": ("Gujarati",), "Guru": ("Gurmukhi",), "Hang": ("Hangul",), "Hans": ("Han",),
    "Hant": ("Han",), "Hebr": ("Hebrew",), "Jpan": ("Han", "Hiragana", "Katakana"),
    "Khmr": ("Khmer",), "Knda": ("Kannada",), "Kore": ("Hangul", "Han"), "Laoo": ("Lao",),
    "Latn": ("Latin",), "Mlym": ("Malayalam",), "Mymr": ("Myanmar",), "Orya": ("Oriya",),
    "Sinh": ("Sinhala",), "Taml": ("Tamil",), "Telu": ("Telugu",), "Thaa": ("Thaana",),
    "Thai": ("Thai",), "Tibt": ("Tibetan",),
}
# Letters whose Script is Common or Inherited belong to no single script: Yoruba tone marks and
# Arabic tanwin are combining marks (Inherited), the Japanese long-vowel mark ー is Common.
# They are left out of the share rather than counted against the declared script.
SHARED_SCRIPT = regex.compile(r"[\p{Script=Common}\p{Script=Inherited}]")


@cache
def manifest() -> dict:
    with open(MANIFEST, "rb") as fh:
        return tomllib.load(fh)


def entries() -> list[dict]:
    return manifest()["language"]


@cache
def raw(name: str) -> bytes:
    return (FOLDER / name).read_bytes()


def text(name: str) -> str:
    return raw(name).decode("utf-8")


def lines(name: str) -> list[str]:
    # split on "\n" only: str.splitlines would also split on U+2028, U+0085 and friends
    return text(name).split("\n")[:-1]


def files() -> list[str]:
    return [e["file"] for e in entries()]


def letters(s: str) -> list[str]:
    return [ch for ch in s if unicodedata.category(ch)[0] in "LM"]


def script_share(s: str, iso: str) -> tuple[float, int]:
    """Share of the letters (categories L*, M*) of `s` in script `iso`, and how many counted."""
    pattern = regex.compile("[" + "".join(rf"\p{{Script={n}}}" for n in SCRIPT_NAMES[iso]) + "]")
    counted = [ch for ch in letters(s) if not SHARED_SCRIPT.match(ch)]
    if not counted:
        return 0.0, 0
    return sum(1 for ch in counted if pattern.match(ch)) / len(counted), len(counted)


def test_corpus_table_says_where_the_text_comes_from():
    corpus = manifest()["corpus"]
    for key in ("name", "description", "source", "licence", "pivot", "digits"):
        assert isinstance(corpus.get(key), str), f"[corpus] lacks {key}"
        assert corpus[key].strip(), f"[corpus] lacks {key}"
    assert "tokenprism" in corpus["source"]
    assert corpus["pivot"] == "en"


def test_every_entry_has_the_keys_and_a_unique_tag():
    for entry in entries():
        missing = {"file", "language", "name", "script", "translator"} - entry.keys()
        assert not missing, f"{entry.get('file')}: missing {sorted(missing)}"
        assert entry["file"] == f"{entry['language']}.txt", entry
        assert entry["script"] in SCRIPT_NAMES, f"{entry['file']}: unknown script {entry['script']!r}"
    tags = [e["language"] for e in entries()]
    assert len(tags) == len(set(tags)), [t for t, n in Counter(tags).items() if n > 1]


def test_manifest_and_folder_list_the_same_files():
    on_disk = {p.name for p in FOLDER.glob("*.txt")}
    listed = set(files())
    assert listed - on_disk == set(), f"listed but missing: {sorted(listed - on_disk)}"
    assert on_disk - listed == set(), f"present but not in manifest.toml: {sorted(on_disk - listed)}"
    assert {p.name for p in FOLDER.iterdir()} == on_disk | {"manifest.toml"}


def test_coverage_languages_scripts_and_required_tags():
    tags = {e["language"] for e in entries()}
    scripts = {e["script"] for e in entries()}
    assert len(tags) >= MIN_LANGUAGES, len(tags)
    assert len(scripts) >= MIN_SCRIPTS, sorted(scripts)
    assert REQUIRED <= tags, f"missing required languages: {sorted(REQUIRED - tags)}"
    assert manifest()["corpus"]["pivot"] in tags


@pytest.mark.parametrize("name", files())
def test_file_is_utf8_nfc_with_lf_and_final_newline(name):
    data = raw(name)
    assert not data.startswith(b"\xef\xbb\xbf"), f"{name}: byte order mark"
    try:
        s = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        pytest.fail(f"{name}: not UTF-8 at byte {exc.start}")
    assert b"\r" not in data, f"{name}: CR found (LF line endings only)"
    assert s.endswith("\n"), f"{name}: needs exactly one final newline"
    assert not s.endswith("\n\n"), f"{name}: needs exactly one final newline"
    assert unicodedata.normalize("NFC", s) == s, f"{name}: not NFC"


@pytest.mark.parametrize("name", files())
def test_lines_are_non_empty_trimmed_sentences(name):
    for n, line in enumerate(lines(name), 1):
        assert line.strip(), f"{name}:{n} is empty"
        assert line == line.strip(), f"{name}:{n} has leading or trailing whitespace"
        assert "\t" not in line, f"{name}:{n} has a tab or a doubled space"
        assert "  " not in line, f"{name}:{n} has a tab or a doubled space"


def test_every_language_has_as_many_lines_as_english():
    pivot = f"{manifest()['corpus']['pivot']}.txt"
    expected = len(lines(pivot))
    counts = {name: len(lines(name)) for name in files()}
    assert {n: c for n, c in counts.items() if c != expected} == {}, f"English has {expected} lines"
    assert expected >= 25
    assert manifest()["corpus"].get("sentences", expected) == expected


def test_english_pivot_is_long_enough():
    assert len(text("en.txt")) >= MIN_ENGLISH_CHARS


@pytest.mark.parametrize("name", files())
def test_digits_are_ascii(name):
    # the manifest promises ASCII digits everywhere: no Arabic-Indic, Devanagari, Thai... digits
    foreign = sorted({ch for ch in text(name) if unicodedata.category(ch) == "Nd" and not ch.isascii()})
    assert foreign == [], f"{name}: non-ASCII digits {foreign}"


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["language"])
def test_letters_are_mostly_in_the_declared_script(entry):
    share, counted = script_share(text(entry["file"]), entry["script"])
    assert counted >= 300, f"{entry['file']}: only {counted} letters to judge"
    assert share >= MIN_SCRIPT_SHARE, f"{entry['file']}: {share:.0%} of letters in {entry['script']}"


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["language"])
def test_every_line_is_in_the_declared_script(entry):
    # per line too, so a sentence left in English (or pasted in another script) is caught
    for n, line in enumerate(lines(entry["file"]), 1):
        share, counted = script_share(line, entry["script"])
        assert counted == 0 or share >= MIN_SCRIPT_SHARE, f"{entry['file']}:{n}: {share:.0%} {entry['script']}"


def test_script_share_can_fail():
    # the check itself: English text declared as Cyrillic, Japanese declared as Korean
    assert script_share(text("en.txt"), "Cyrl")[0] == 0.0
    assert script_share("Пример text", "Latn")[0] == pytest.approx(4 / 10)
    assert script_share(text("ja.txt"), "Kore")[0] < MIN_SCRIPT_SHARE
    assert script_share("\u1ecd\u0300r\u1ecd\u0300", "Latn") == (1.0, 3)  # Inherited tone marks: not counted


def test_lines_are_distinct_within_each_language():
    for name in files():
        repeated = [line for line, n in Counter(lines(name)).items() if n > 1]
        assert repeated == [], f"{name}: repeated lines {repeated}"


def test_no_line_is_left_identical_to_english():
    english = lines("en.txt")
    for name in files():
        if name == "en.txt":
            continue
        same = [n for n, (a, b) in enumerate(zip(english, lines(name)), 1) if a == b]
        assert same == [], f"{name}: lines {same} are the English text"
