"""Parallel corpora: one file per language, line N of every file a translation of line N.

Unlike `files` (independent texts), this module reads a whole folder as one aligned
table and refuses folders whose files differ in line count. Three layouts are understood:

- a folder with a `manifest.toml` listing `[[language]]` entries (file, language, name,
  script), as the built-in `datasets/multilingual/`;
- FLORES-style names `<ISO 639-3>_<ISO 15924>.<split>` (e.g. `eng_Latn.dev`): language and
  script come from the name; a folder whose subfolders are such splits (`flores200/` with
  `dev/` and `devtest/`) joins each language's splits in name order;
- anything else: `<language tag>.<ext>` (e.g. `fr.txt`), script detected from the text.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pandas as pd

from ..errors import BadInput
from .files import iter_text_chunks
from .sample import Sample, detect_script

LINE_COLUMNS = ("language", "script", "line_no", "text", "split", "name")
_FLORES_NAME = re.compile(r"^(?P<lang>[a-z]{2,3})_(?P<script>[A-Z][a-z]{3})$")
_IGNORED = re.compile(r"^(readme|licen[cs]e|copying|notice|manifest)\b", re.IGNORECASE)

# ISO 639-3 (as in FLORES names) -> the shorter BCP-47 tag, for the languages people compare most.
# Codes not listed are already valid BCP-47 tags and are kept.
ISO639_3_TO_BCP47 = {
    "afr": "af", "amh": "am", "arb": "ar", "ara": "ar", "asm": "as", "azj": "az", "bel": "be",
    "ben": "bn", "bos": "bs", "bul": "bg", "cat": "ca", "ces": "cs", "ckb": "ckb", "cym": "cy",
    "dan": "da", "deu": "de", "ell": "el", "eng": "en", "est": "et", "eus": "eu", "fin": "fi",
    "fra": "fr", "gle": "ga", "glg": "gl", "guj": "gu", "hau": "ha", "heb": "he", "hin": "hi",
    "hrv": "hr", "hun": "hu", "hye": "hy", "ibo": "ig", "ind": "id", "isl": "is", "ita": "it",
    "jav": "jv", "jpn": "ja", "kan": "kn", "kat": "ka", "kaz": "kk", "khm": "km", "kir": "ky",
    "kor": "ko", "lao": "lo", "lit": "lt", "lvs": "lv", "mal": "ml", "mar": "mr", "mkd": "mk",
    "mlt": "mt", "mya": "my", "nld": "nl", "nob": "nb", "npi": "ne", "ory": "or", "pan": "pa",
    "pes": "fa", "pol": "pl", "por": "pt", "ron": "ro", "rus": "ru", "sin": "si", "slk": "sk",
    "slv": "sl", "som": "so", "spa": "es", "srp": "sr", "swe": "sv", "swh": "sw", "tam": "ta",
    "tel": "te", "tgl": "tl", "tha": "th", "tur": "tr", "ukr": "uk", "urd": "ur", "uzn": "uz",
    "vie": "vi", "xho": "xh", "yor": "yo", "zho": "zh", "zsm": "ms", "zul": "zu",
}


def flores_language(code: str, script: str) -> str:
    """BCP-47 tag for a FLORES name part: ("fra", "Latn") -> "fr"; Chinese keeps its script.

    >>> flores_language("zho", "Hans"), flores_language("arb", "Arab"), flores_language("shn", "Mymr")
    ('zh-Hans', 'ar', 'shn')
    """
    base = ISO639_3_TO_BCP47.get(code, code)
    return f"{base}-{script}" if base == "zh" else base


def _read_lines(path: Path, errors: str) -> list[str]:
    text = "".join(iter_text_chunks(path, errors=errors))
    if text.endswith("\n"):
        text = text[:-1]
    return [line.removesuffix("\r") for line in text.split("\n")] if text else []


def _language_files(folder: Path) -> list[tuple[Path, str, str | None, str]]:
    """(file, language, script or None to detect, name) for each language file of one folder."""
    manifest = folder / "manifest.toml"
    if manifest.is_file():
        with open(manifest, "rb") as fh:
            try:
                entries = tomllib.load(fh).get("language", [])
            except tomllib.TOMLDecodeError as e:
                raise BadInput(f"{manifest} is not valid TOML ({e}); fix it, or remove it to detect the languages "
                               "from the file names") from None
        if not entries:
            raise BadInput(f"{manifest} lists no [[language]] entries (keys: file, language, name, script)")
        try:
            return [(folder / e["file"], e["language"], e["script"], e.get("name", e["language"])) for e in entries]
        except KeyError as e:
            raise BadInput(f"{manifest}: a [[language]] entry lacks the key {e.args[0]!r}") from None
    files = sorted(f for f in folder.iterdir() if f.is_file() and not f.name.startswith(".")
                   and not _IGNORED.match(f.name))
    out = []
    for f in files:
        stem = f.name.split(".", 1)[0]
        m = _FLORES_NAME.match(stem)
        if m:
            out.append((f, flores_language(m["lang"], m["script"]), m["script"], stem))
        else:
            out.append((f, stem.replace("_", "-"), None, stem))
    # one language in two scripts (arb_Arab, arb_Latn): tell them apart by script
    seen = [lang for _, lang, _, _ in out]
    return [(f, f"{lang}-{script}" if seen.count(lang) > 1 and script and not lang.endswith(script) else lang,
             script, name) for f, lang, script, name in out]


def read_parallel_dir(folder: str | Path, *, errors: str = "strict") -> pd.DataFrame:
    """Read a parallel folder into one row per (language, line).

    Args:
        folder: a parallel folder in one of the layouts in the module docstring.
        errors: invalid UTF-8 handling, as in `files.iter_samples`.

    Returns:
        DataFrame with columns language, script, line_no (from 0, continuing across splits),
        text, split ("" without splits), name (language name or file stem).

    Raises:
        ValueError: missing folder, no language files, languages with different line counts,
            or a language missing from one split.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise BadInput(f"no such folder: {folder}; give a folder with one file per language")
    has_files = any(f.is_file() and not _IGNORED.match(f.name) and not f.name.startswith(".") for f in folder.iterdir())
    splits = [(folder, "")] if has_files else sorted(
        ((d, d.name) for d in folder.iterdir() if d.is_dir() and not d.name.startswith(".")), key=lambda t: t[1])
    if not splits:
        raise BadInput(f"{folder} holds no language files; expected files such as eng_Latn.dev or fr.txt")
    per_language: dict[str, dict] = {}
    for split_dir, split in splits:
        entries = _language_files(split_dir)
        if not entries:
            raise BadInput(f"{split_dir} holds no language files")
        counts = {}
        for path, language, script, name in entries:
            if not path.is_file():
                raise BadInput(f"{path} is listed in {split_dir / 'manifest.toml'} but does not exist")
            lines = _read_lines(path, errors)
            counts[path.name] = len(lines)
            slot = per_language.setdefault(language, {"script": script, "name": name, "parts": {}})
            slot["parts"][split] = lines
        if len(set(counts.values())) > 1:
            raise BadInput(f"{split_dir} is not aligned: files have different line counts "
                           f"({', '.join(f'{k}: {v}' for k, v in sorted(counts.items(), key=lambda kv: kv[1]))}); "
                           "line N of every file must translate line N of the others")
    names = [s for _, s in splits]
    missing = {lang: [s for s in names if s not in slot["parts"]] for lang, slot in per_language.items()}
    missing = {k: v for k, v in missing.items() if v}
    if missing:
        raise BadInput(f"{folder}: some languages are missing from some splits: {missing}")
    frames = []
    for language, slot in per_language.items():
        lines = [line for s in names for line in slot["parts"][s]]
        split_col = [s for s in names for _ in slot["parts"][s]]
        script = slot["script"] or detect_script("\n".join(lines))
        frames.append(pd.DataFrame({"language": language, "script": script, "line_no": range(len(lines)),
                                    "text": lines, "split": split_col, "name": slot["name"]}))
    return pd.concat(frames, ignore_index=True)[list(LINE_COLUMNS)]


def join_parallel(lines: pd.DataFrame, *, join: str = " ", id_prefix: str, source: str,
                  category: str = "multilingual", kind: str = "parallel") -> list[Sample]:
    """One sample per language: its lines joined with `join`, in line order.

    >>> df = pd.DataFrame({"language": ["en", "en", "fr", "fr"], "script": "Latn", "line_no": [0, 1, 0, 1],
    ...                    "text": ["Hi.", "Bye.", "Salut.", "Adieu."]})
    >>> [s.text for s in join_parallel(df, id_prefix="p", source="x")]
    ['Hi. Bye.', 'Salut. Adieu.']
    """
    out = []
    for language, part in lines.sort_values("line_no", kind="stable").groupby("language", sort=False):
        out.append(Sample(f"{id_prefix}/{language}", category, language, part["script"].iloc[0], kind,
                          join.join(part["text"]), source))
    return out
