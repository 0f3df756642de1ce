"""The sample record every corpus loader yields, the load report, and script detection.

Unlike `builtin` (which finds and loads corpora) and `files` (which reads the user's
files), this module only defines the shapes they share: `Sample`, `LoadReport`, the
DataFrame built from samples, and `detect_script` for text whose script nobody declared.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable, NamedTuple

import regex

if TYPE_CHECKING:  # frames are built on request: a reader of text files needs no pandas
    import pandas as pd


@dataclass(frozen=True, slots=True)
class Sample:
    """One text to measure.

    Attributes:
        id: unique within its corpus, e.g. "prose/email-01", "multilingual/fr", "notes.txt#2".
        category: prose | code | multilingual | numbers | whitespace (user corpora: any label).
        language: BCP-47 tag of the natural language ("en", "zh-Hans"; "zxx" for no language,
            "und" when unknown).
        script: ISO 15924 code of the main script ("Latn", "Cyrl"; "Zyyy" for digits only).
        kind: register, programming language or generated kind ("email", "python", "date").
        text: the exact text, whitespace and line endings untouched.
        source: where it came from (a file path, or the built-in corpus and its licence).
    """

    id: str
    category: str
    language: str
    script: str
    kind: str
    text: str
    source: str


SAMPLE_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Sample))
# Extra columns of built-in frames: samples that differ in one controlled property share a
# `group` and are told apart by `variant` ("" when a sample belongs to no group).
EXTRA_COLUMNS: tuple[str, ...] = ("group", "variant")


class Labeled(NamedTuple):
    """A sample plus its controlled-variant labels (built-in corpora only)."""

    sample: Sample
    group: str = ""
    variant: str = ""


@dataclass(slots=True)
class LoadReport:
    """What a loader did besides yielding samples: files read or skipped, bytes repaired.

    Loaders fill it in as they go, so after iterating it holds the totals.

    >>> r = LoadReport(files_read=2, files_skipped_binary=1)
    >>> r.summary()
    '2 file(s) read, 1 binary file(s) skipped'
    """

    files_read: int = 0
    files_skipped_binary: int = 0
    files_with_decode_errors: int = 0
    decode_errors_replaced: int = 0  # invalid UTF-8 sequences turned into U+FFFD
    decode_errors_skipped: int = 0  # invalid UTF-8 sequences dropped
    rows_skipped_empty: int = 0  # table rows whose text column was empty or null
    files_skipped_empty: int = 0  # text files of no bytes: no sample (its ratios would be 0/0)
    samples: int = 0
    bytes_read: int = 0
    skipped_files: list[str] = field(default_factory=list)
    decode_error_files: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for humans; zero counts other than files read are left out."""
        parts = [f"{self.files_read} file(s) read"]
        for count, label in (
            (self.files_skipped_binary, "binary file(s) skipped"),
            (self.decode_errors_replaced, "invalid UTF-8 sequence(s) replaced with U+FFFD"),
            (self.decode_errors_skipped, "invalid UTF-8 sequence(s) dropped"),
            (self.rows_skipped_empty, "empty row(s) skipped"),
            (self.files_skipped_empty, "empty file(s) skipped"),
        ):
            if count:
                parts.append(f"{count} {label}")
        return ", ".join(parts)


def samples_to_frame(samples: Iterable[Sample | Labeled]) -> pd.DataFrame:
    """Samples as a DataFrame, one row per sample, columns in `Sample` field order.

    `Labeled` items add the `group` and `variant` columns; plain samples get them only when
    mixed with labeled ones (then as "").

    Args:
        samples: `Sample` or `Labeled` records.

    Returns:
        A fresh DataFrame with columns id, category, language, script, kind, text, source
        (+ group, variant).

    >>> df = samples_to_frame([Sample("a", "prose", "en", "Latn", "note", "Hi", "me")])
    >>> list(df.columns), df.loc[0, "text"]
    (['id', 'category', 'language', 'script', 'kind', 'text', 'source'], 'Hi')
    """
    import pandas as pd

    rows = []
    labeled = False
    for item in samples:
        if isinstance(item, Labeled):
            labeled = True
            rows.append((*(getattr(item.sample, c) for c in SAMPLE_COLUMNS), item.group, item.variant))
        else:
            rows.append((*(getattr(item, c) for c in SAMPLE_COLUMNS), "", ""))
    columns = SAMPLE_COLUMNS + EXTRA_COLUMNS
    frame = pd.DataFrame.from_records(rows, columns=list(columns)) if rows else pd.DataFrame(columns=list(columns))
    return frame if labeled else frame.drop(columns=list(EXTRA_COLUMNS))


# ISO 15924 codes of the scripts of living languages (and a few more). Anything else falls
# into "Zzzz" (unknown) rather than failing.
_SCRIPTS = (
    "Latn", "Cyrl", "Grek", "Armn", "Geor", "Hebr", "Arab", "Syrc", "Thaa", "Nkoo", "Tfng",
    "Ethi", "Deva", "Beng", "Guru", "Gujr", "Orya", "Taml", "Telu", "Knda", "Mlym", "Sinh",
    "Thai", "Laoo", "Tibt", "Mymr", "Khmr", "Mong", "Hang", "Hira", "Kana", "Hani", "Bopo",
    "Yiii", "Cher", "Cans", "Olck", "Vaii", "Adlm", "Bali", "Java", "Sund", "Tale", "Talu",
    "Lana", "Cham", "Copt", "Goth", "Runr", "Ogam", "Glag", "Brai",
)
_SCRIPT_OF_LETTER = regex.compile(
    "|".join(f"(?P<{s}>\\p{{sc={s}}})" for s in _SCRIPTS) + "|(?P<Zzzz>\\p{L})"
)
_ASCII_LETTER = regex.compile("[A-Za-z]")
_DETECT_PREFIX = 100_000  # characters; enough to decide, and bounded for multi-MB samples


@lru_cache(maxsize=1 << 16)
def _char_script(ch: str) -> str:
    return _SCRIPT_OF_LETTER.match(ch).lastgroup  # only called on letters, so always a match


def script_counts(text: str) -> Counter[str]:
    """Count letters (Unicode category L) by ISO 15924 script.

    >>> dict(script_counts("abc где"))
    {'Latn': 3, 'Cyrl': 3}
    """
    counts: Counter[str] = Counter()
    # count distinct characters first: a text has few, so the script lookup runs rarely
    for ch, n in Counter(text).items():
        if ch.isalpha():  # str.isalpha is exactly the categories Lu Ll Lt Lm Lo, i.e. \p{L}
            counts[_char_script(ch)] += n
    return counts


_FIRST_LETTER = regex.compile(r"\p{L}")


@lru_cache(maxsize=None)
def _other_letter(script: str) -> regex.Pattern:
    return regex.compile(rf"[\p{{L}}--\p{{sc={script}}}]", flags=regex.V1)


def _single_script(text: str) -> str | None:
    """The answer of `detect_script` when every letter shares one script (two C-level scans), else None."""
    first = _FIRST_LETTER.search(text)
    if first is None:
        return "Zyyy"
    script = _char_script(first.group())
    if script == "Zzzz" or _other_letter(script).search(text):
        return None  # several scripts, or letters of no listed script: count them
    return "Jpan" if script in ("Hira", "Kana") else script


def detect_script(text: str) -> str:
    """The ISO 15924 script of most letters in `text` (first 100,000 characters).

    Japanese (kana with or without kanji) is "Jpan", Hangul mixed with Hanja "Kore", Hangul
    alone "Hang". Han alone is "Hani": Simplified and Traditional Chinese are not told apart.
    Text without letters (digits, punctuation) is "Zyyy" (Common).

    Args:
        text: any text.

    Returns:
        A four-letter ISO 15924 code.

    >>> detect_script("Привет, мир"), detect_script("今日はいい天気です"), detect_script("2024-05-17")
    ('Cyrl', 'Jpan', 'Zyyy')
    """
    prefix = text[:_DETECT_PREFIX]
    if prefix.isascii():  # the common case, in one C-level pass: A-Z and a-z are the only letters
        return "Latn" if _ASCII_LETTER.search(prefix) else "Zyyy"
    single = _single_script(prefix)
    if single is not None:
        return single
    counts = script_counts(prefix)
    if not counts:
        return "Zyyy"
    kana = counts.pop("Hira", 0) + counts.pop("Kana", 0)
    if kana:
        counts["Jpan"] = kana + counts.pop("Hani", 0)
    elif counts.get("Hang"):
        hanja = counts.pop("Hani", 0)
        counts["Kore" if hanja else "Hang"] += counts.pop("Hang") + hanja
    return counts.most_common(1)[0][0]
