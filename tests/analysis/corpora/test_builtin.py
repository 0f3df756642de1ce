"""Built-in corpora: manifest against files, exact bytes, the Sample record, loaders of built-ins."""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from analysis import corpora as corpus
from analysis.corpora import Sample, builtin_dir, load_builtin, load_parallel, read_manifest

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"
FLORES = SHARED / "corpora" / "flores200"
MANIFEST = read_manifest()
STORED = MANIFEST["sample"]


def _stored(category: str) -> list[dict]:
    return [e for e in STORED if e["category"] == category]


def _bytes(entry: dict) -> bytes:
    return (builtin_dir() / entry["file"]).read_bytes()


# --- the record ---------------------------------------------------------------------------


def test_sample_fields_are_fixed_in_order_and_frozen():
    assert [f.name for f in dataclasses.fields(Sample)] == ["id", "category", "language", "script", "kind", "text", "source"]
    s = Sample("a", "prose", "en", "Latn", "note", "x", "me")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.text = "y"  # type: ignore[misc]
    assert not hasattr(s, "__dict__")  # slots


# --- the manifest against the files ---------------------------------------------------------


def test_builtin_dir_is_the_repo_datasets_folder_in_a_checkout():
    assert builtin_dir() == REPO / "datasets"


def test_manifest_matches_files_and_sha256():
    problems = corpus.verify_builtin()
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("entry", STORED, ids=[e["id"] for e in STORED])
def test_every_stored_sample_has_full_provenance(entry):
    for key in ("id", "category", "language", "script", "kind", "file", "sha256", "source", "licence"):
        assert entry.get(key), f"{entry['id']} lacks {key}"
    assert entry["id"].startswith(entry["category"] + "/")
    assert hashlib.sha256(_bytes(entry)).hexdigest() == entry["sha256"]
    _bytes(entry).decode("utf-8")  # every stored file is valid UTF-8


def test_verify_builtin_reports_changed_bytes_and_unlisted_files(tmp_path):
    root = tmp_path / "datasets"
    shutil.copytree(builtin_dir(), root)
    (root / "prose" / "email-01.txt").write_bytes(_bytes({"file": "prose/email-01.txt"}).replace(b"\n", b"\r\n"))
    (root / "prose" / "stray.txt").write_text("not listed")
    (root / "code" / "rust" / "temperature_log.rs").unlink()
    problems = corpus.verify_builtin(root)
    assert any("prose/email-01.txt: sha256" in p for p in problems)
    assert any("prose/stray.txt is in datasets/ but not in the manifest" in p for p in problems)
    assert any("temperature_log.rs is listed in the manifest but missing" in p for p in problems)


def test_datasets_has_no_python_package_marker():
    # a package named `datasets` would shadow Hugging Face's `datasets`
    assert not list((REPO / "datasets").rglob("__init__.py"))
    assert not list((REPO / "datasets").rglob("*.py[co]"))


def test_manifest_includes_the_multilingual_manifest():
    assert "multilingual/manifest.toml" in MANIFEST["include"]
    assert {g["category"] for g in MANIFEST["generated"]} == {"numbers", "whitespace"}


# --- sizes and coverage the issue asks for -----------------------------------------------------


def test_prose_has_40_passages_over_40kb_across_registers():
    prose = _stored("prose")
    assert len(prose) >= 40
    assert sum(len(_bytes(e)) for e in prose) >= 40_000
    registers = {e["kind"] for e in prose}
    assert registers >= {"narrative", "news", "technical-docs", "email", "legal", "chat", "recipe", "academic"}
    assert {e["language"] for e in prose} == {"en"}


def test_code_has_40kb_across_15_languages():
    code = _stored("code")
    assert sum(len(_bytes(e)) for e in code) >= 40_000
    languages = {e["kind"] for e in code}
    assert languages >= {"python", "javascript", "typescript", "java", "c", "cpp", "rust", "go", "sql",
                         "html", "css", "json", "yaml", "bash", "markdown"}


def _reindent(code: bytes, width: int, unit: bytes) -> bytes:
    return re.sub(rb"(?m)^((?: {%d})+)" % width, lambda m: unit * (len(m.group(1)) // width), code)


def test_code_style_variants_are_the_same_program():
    groups: dict[str, dict[str, bytes]] = {}
    for e in _stored("code"):
        if e.get("group"):
            groups.setdefault(e["group"], {})[e["variant"]] = _bytes(e)
    indent = groups["python-inventory-indentation"]
    assert set(indent) == {"spaces-4", "spaces-2", "tabs"}
    assert _reindent(indent["spaces-4"], 4, b"\t") == indent["tabs"] != indent["spaces-4"]
    assert _reindent(indent["spaces-4"], 4, b"  ") == indent["spaces-2"]
    js = groups["javascript-task-queue-indentation"]
    assert _reindent(js["spaces-2"], 2, b"\t") == js["tabs"]
    assert _reindent(js["spaces-2"], 2, b"    ") == js["spaces-4"]
    naming = groups["python-word-stats-naming"]
    assert b"read_words(file_path" in naming["snake_case"]
    assert b"readWords(filePath" in naming["camelCase"]
    assert naming["snake_case"].count(b"\n") == naming["camelCase"].count(b"\n")
    import json

    layouts = {k: json.loads(v) for k, v in groups["json-catalogue-layout"].items()}
    assert layouts["minified"] == layouts["pretty-2"] == layouts["pretty-4"]
    assert groups["json-catalogue-layout"]["minified"].count(b"\n") == 1


# --- exact bytes (whitespace survives) ------------------------------------------------------------


def test_trailing_whitespace_bytes_survive():
    raw = (builtin_dir() / "whitespace" / "trailing_spaces.txt").read_bytes()
    lines = raw.split(b"\n")
    for k in range(9):
        assert lines[k].endswith(b"." + b" " * k), lines[k]
    assert lines[9].endswith(b".\t")
    assert lines[10].endswith(b". \t")
    assert lines[13] == b"    "
    assert raw.endswith(b"two newlines.\n\n")


def test_crlf_bytes_survive_and_reach_the_sample_text():
    raw = (builtin_dir() / "whitespace" / "crlf.txt").read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n") == 8
    text = corpus.get_sample("whitespace/crlf-file").text
    assert text.encode("utf-8") == raw  # no newline translation on the way in


def test_gitattributes_keeps_datasets_byte_exact():
    lines = (REPO / ".gitattributes").read_text().splitlines()
    rule = next(line for line in lines if line.startswith("datasets/**"))
    assert "-text" in rule.split()
    assert "-whitespace" in rule.split()
    if shutil.which("git") and (REPO / ".git").exists():
        out = subprocess.run(["git", "check-attr", "text", "--", "datasets/whitespace/crlf.txt"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout
        assert out.strip().endswith("text: unset")


# --- load_builtin ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def builtin() -> pd.DataFrame:
    return load_builtin()


def test_load_builtin_columns_and_categories(builtin):
    assert list(builtin.columns) == ["id", "category", "language", "script", "kind", "text", "source", "group", "variant"]
    assert set(builtin["category"]) == set(corpus.CATEGORIES)
    assert builtin["id"].is_unique
    assert (builtin["text"].str.len() > 0).all()
    assert builtin["source"].str.len().gt(0).all()


def test_load_builtin_returns_a_fresh_frame(builtin):
    a = load_builtin("prose")
    a.loc[0, "text"] = "changed"
    assert load_builtin("prose").loc[0, "text"] != "changed"


def test_load_builtin_filters_and_rejects_unknown_categories():
    assert set(load_builtin(["numbers"])["category"]) == {"numbers"}
    with pytest.raises(ValueError, match=r"unknown built-in category \['poetry'\]; valid: \['prose'"):
        load_builtin(["poetry"])


def test_multilingual_rows_are_whole_parallel_texts(builtin):
    multi = builtin[builtin["category"] == "multilingual"]
    root = builtin_dir() / "multilingual"
    with open(root / "manifest.toml", "rb") as fh:
        languages = tomllib.load(fh)["language"]
    assert len(multi) == len(languages)
    assert multi["language"].is_unique
    for entry in languages:
        row = multi[multi["id"] == f"multilingual/{entry['language']}"].iloc[0]
        assert row["script"] == entry["script"]
        lines = (root / entry["file"]).read_text(encoding="utf-8").rstrip("\n").split("\n")
        assert row["text"] == "\n".join(lines)
        assert row["group"] == "multilingual-parallel"
        assert row["variant"] == entry["language"]


def test_builtin_is_found_from_any_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert builtin_dir() == REPO / "datasets"
    assert len(load_builtin("prose")) >= 40


def test_get_sample_and_its_errors():
    assert corpus.get_sample("prose/email-01").text.startswith("Subject: Re: Venue")
    with pytest.raises(KeyError, match=r"did you mean \['prose/email-01'"):
        corpus.get_sample("prose/email-1")


def test_sample_text_mixes_what_compare_needs():
    text = corpus.sample_text()
    assert "def total_price" in text
    assert "1,299.99" in text
    assert corpus.detect_script("Большинство") == "Cyrl"
    assert "Большинство" in text
    assert "トークナイザー" in text
    assert "spaces.   \n" in text
    assert "\t" in text
    with pytest.raises(KeyError, match="valid: \\['default'\\]"):
        corpus.sample_text("nope")


# --- parallel corpora -------------------------------------------------------------------------------


def test_load_parallel_builtin_is_aligned():
    lines = load_parallel("builtin")
    assert list(lines.columns[:4]) == ["language", "script", "line_no", "text"]
    counts = lines.groupby("language").size()
    assert counts.nunique() == 1
    assert counts.iloc[0] >= 25
    joined = load_parallel("builtin", joined=True, join=" ")
    en = joined[joined["language"] == "en"].iloc[0]
    assert en["text"] == " ".join(lines[lines["language"] == "en"].sort_values("line_no")["text"])


def _write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_load_parallel_flores_style_names_and_splits(tmp_path):
    root = tmp_path / "mini"
    _write(root / "dev", {"eng_Latn.dev": "One.\nTwo.\n", "rus_Cyrl.dev": "Один.\nДва.\n", "zho_Hans.dev": "一。\n二。\n"})
    _write(root / "devtest", {"eng_Latn.devtest": "Three.\n", "rus_Cyrl.devtest": "Три.\n", "zho_Hans.devtest": "三。\n"})
    (root / "README.md").write_text("not a language")
    lines = load_parallel(root)
    assert set(lines["language"]) == {"en", "ru", "zh-Hans"}
    ru = lines[lines["language"] == "ru"]
    assert ru["script"].unique().tolist() == ["Cyrl"]
    assert ru["text"].tolist() == ["Один.", "Два.", "Три."]
    assert ru["line_no"].tolist() == [0, 1, 2]
    assert ru["split"].tolist() == ["dev", "dev", "devtest"]
    joined = load_parallel(root, joined=True)
    assert joined.set_index("language").loc["en", "text"] == "One. Two. Three."
    assert joined.set_index("language").loc["en", "id"] == "mini/en"


def test_load_parallel_plain_names_detect_the_script(tmp_path):
    folder = _write(tmp_path / "p", {"en.txt": "Hello.\r\nBye.\r\n", "el.txt": "Γεια.\r\nΑντίο.\r\n"})
    lines = load_parallel(folder)
    assert lines.set_index("language")["script"].to_dict() == {"el": "Grek", "en": "Latn"}
    assert "\r" not in "".join(lines["text"])


def test_load_parallel_rejects_misaligned_and_missing(tmp_path):
    folder = _write(tmp_path / "bad", {"en.txt": "a\nb\nc\n", "fr.txt": "a\nb\n"})
    with pytest.raises(ValueError, match=r"not aligned: files have different line counts \(fr.txt: 2, en.txt: 3\)"):
        load_parallel(folder)
    with pytest.raises(ValueError, match="no such folder"):
        load_parallel(tmp_path / "absent")
    _write(tmp_path / "splits" / "dev", {"eng_Latn.dev": "a\n", "fra_Latn.dev": "b\n"})
    _write(tmp_path / "splits" / "devtest", {"eng_Latn.devtest": "c\n"})
    with pytest.raises(ValueError, match=r"missing from some splits: \{'fr': \['devtest'\]\}"):
        load_parallel(tmp_path / "splits")


def test_load_parallel_on_flores200():
    if not FLORES.is_dir():
        pytest.skip(f"../shared not present: {FLORES}")
    lines = load_parallel(FLORES)
    counts = lines.groupby("language").size()
    assert counts.nunique() == 1
    assert counts.iloc[0] == 997 + 1012
    assert {"en", "ar", "zh-Hans", "shn", "fa"} <= set(counts.index)
    scripts = lines.drop_duplicates("language").set_index("language")["script"]
    assert scripts["ar"] == "Arab"
    assert scripts["zh-Hans"] == "Hans"
    assert scripts["my"] == "Mymr"
    joined = load_parallel(FLORES / "dev", joined=True)
    assert len(joined) == counts.size
    assert joined["category"].eq("multilingual").all()


@pytest.mark.parametrize("module", ["builtin", "sample", "generated", "files",
                                    "parallel", "system"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"analysis.corpora.{module}"), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
