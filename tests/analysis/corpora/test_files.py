"""Users' corpora: files, folders, globs, tables, streaming, and every error case."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.corpora import files as corpus_files
from analysis.corpora import (
    LoadReport,
    detect_script,
    iter_samples,
    iter_text_chunks,
    load_corpus,
    load_samples,
    samples_to_frame,
)


def _tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    return root


# --- files, folders, globs --------------------------------------------------------------------


def test_folder_is_walked_recursively_with_categories_from_extensions(tmp_path):
    _tree(tmp_path / "proj", {"README.txt": "Read me.\n", "src/app.py": "print(1)\n", "src/web/x.ts": "let a = 1;\n",
                              ".git/config": "[core]\n", "src/.hidden.py": "x\n"})
    samples = list(iter_samples(tmp_path / "proj"))
    got = {s.id: (s.category, s.kind) for s in samples}
    assert got == {"proj/README.txt": ("prose", "text"), "proj/src/app.py": ("code", "python"),
                   "proj/src/web/x.ts": ("code", "typescript")}
    assert all(s.language == "und" and s.script == "Latn" for s in samples)
    assert {s.source for s in samples} == {str(tmp_path / "proj" / p) for p in ("README.txt", "src/app.py", "src/web/x.ts")}


def test_flags_override_category_kind_language_script(tmp_path):
    _tree(tmp_path, {"a.py": "x = 1\n"})
    (s,) = iter_samples(tmp_path / "a.py", category="mine", kind="snippet", language="en", script="Latn")
    assert (s.category, s.kind, s.language, s.script) == ("mine", "snippet", "en", "Latn")
    (s,) = iter_samples(tmp_path / "a.py", extension_map={})
    assert (s.category, s.kind) == ("prose", "text")


def test_non_recursive_and_glob(tmp_path):
    _tree(tmp_path, {"top.md": "# t\n", "sub/deep.md": "# d\n", "sub/other.txt": "o\n"})
    assert [s.id for s in iter_samples(tmp_path, recursive=False)] == [f"{tmp_path.name}/top.md"]
    ids = [Path(s.id).name for s in iter_samples(str(tmp_path / "**" / "*.md"))]
    assert ids == ["deep.md", "top.md"]


def test_text_is_exact_bytes(tmp_path):
    raw = "line one  \r\n\ttabbed\r\nno newline at end   ".encode()
    _tree(tmp_path, {"w.txt": raw})
    (s,) = iter_samples(tmp_path / "w.txt")
    assert s.text.encode() == raw


def test_utf8_bom_is_dropped(tmp_path):
    _tree(tmp_path, {"bom.txt": b"\xef\xbb\xbfhello"})
    (s,) = iter_samples(tmp_path / "bom.txt")
    assert s.text == "hello"


# --- tables with a named column ----------------------------------------------------------------


def test_jsonl_csv_parquet_rows(tmp_path):
    _tree(tmp_path, {
        "d.jsonl": "\n".join(json.dumps({"text": t, "n": i}) for i, t in enumerate(["Hello", "", "Привет"])) + "\n",
        "d.csv": 'id,text\n1,"multi\nline, with comma"\n2,\n3,plain\n',
    })
    pd.DataFrame({"text": ["a", None, "こんにちは"], "x": [1, 2, 3]}).to_parquet(tmp_path / "d.parquet")
    report = LoadReport()
    by_file = {}
    for name in ("d.jsonl", "d.csv", "d.parquet"):
        by_file[name] = list(iter_samples(tmp_path / name, column="text", report=report))
    assert [(s.id.rsplit(":", 1)[1], s.text, s.script) for s in by_file["d.jsonl"]] == [("1", "Hello", "Latn"), ("3", "Привет", "Cyrl")]
    assert [s.text for s in by_file["d.csv"]] == ["multi\nline, with comma", "plain"]
    assert [(s.text, s.script) for s in by_file["d.parquet"]] == [("a", "Latn"), ("こんにちは", "Jpan")]
    assert report.rows_skipped_empty == 3
    assert report.files_read == 3
    assert report.samples == 6


# Characters `str.splitlines` breaks on, though they are no line break in JSON Lines or CSV:
# JSON allows them raw inside strings, and `json.dumps(..., ensure_ascii=False)` writes them so.
INNER_BREAKS = ["\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("brk", INNER_BREAKS)
def test_unicode_line_separators_inside_values_are_text(tmp_path, brk):
    texts = [f"one{brk}two", "plain", f"{brk}edge{brk}"]
    _tree(tmp_path, {
        "d.jsonl": "".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts),
        "d.csv": "id,text\n" + "".join(f'{i},"{t}"\n' if i % 2 else f"{i},{t}\n" for i, t in enumerate(texts)),
    })
    for name in ("d.jsonl", "d.csv"):
        got = list(iter_samples(tmp_path / name, column="text"))
        assert [s.text for s in got] == texts, name
        assert [s.id.rsplit(":", 1)[1] for s in got] == ["1", "2", "3"], name


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_table_lines_end_at_universal_newlines(tmp_path, newline):
    # a small chunk size puts "\r\n" across chunk edges; row numbers stay line numbers
    rows = [json.dumps({"text": f"row {i} {'é' * (i % 5)}"}, ensure_ascii=False) for i in range(200)]
    _tree(tmp_path, {"d.jsonl": newline.join(rows) + newline,
                     "d.csv": newline.join(["text", *(f"row {i}" for i in range(200))]) + newline})
    got = list(iter_samples(tmp_path / "d.jsonl", column="text", chunk_bytes=97))
    assert [s.text for s in got] == [json.loads(r)["text"] for r in rows]
    assert [s.id.rsplit(":", 1)[1] for s in got] == [str(i) for i in range(1, 201)]
    got = list(iter_samples(tmp_path / "d.csv", column="text", chunk_bytes=97))
    assert [s.text for s in got] == [f"row {i}" for i in range(200)]


@pytest.mark.parametrize("name", ["d.jsonl", "d.csv", "d.parquet"])
def test_missing_column_names_the_columns_found(tmp_path, name):
    _tree(tmp_path, {"d.jsonl": '{"body": "x"}\n', "d.csv": "body,other\nx,y\n"})
    pd.DataFrame({"body": ["x"]}).to_parquet(tmp_path / "d.parquet")
    with pytest.raises(ValueError, match=r"(no column 'text'|no key 'text').*body.*column"):
        list(iter_samples(tmp_path / name, column="text"))


def test_table_given_by_name_needs_a_column(tmp_path):
    _tree(tmp_path, {"d.jsonl": '{"body": "x", "lang": "en"}\n'})
    with pytest.raises(ValueError, match=r"d.jsonl is a table; columns found: \['body', 'lang'\]. Fix: pass column=NAME"):
        list(iter_samples(tmp_path / "d.jsonl"))


def test_tables_inside_folders_are_text_without_a_column(tmp_path):
    _tree(tmp_path, {"notes/d.csv": "a,b\n1,2\n"})
    (s,) = iter_samples(tmp_path / "notes")
    assert s.text == "a,b\n1,2\n"


def test_invalid_jsonl_line_is_named(tmp_path):
    _tree(tmp_path, {"d.jsonl": '{"text": "ok"}\n{"text": nope}\n'})
    with pytest.raises(ValueError, match=r"d.jsonl: line 2 is not valid JSON"):
        list(iter_samples(tmp_path / "d.jsonl", column="text"))


# --- errors: paths ------------------------------------------------------------------------------


def test_empty_files_are_skipped_and_counted(tmp_path):
    # an empty __init__.py holds no text: no sample of 0 characters (whose ratios are 0/0)
    _tree(tmp_path, {"pkg/__init__.py": "", "pkg/mod.py": "x = 1\n", "notes/empty.txt": ""})
    report = LoadReport()
    samples = list(iter_samples(tmp_path, report=report))
    assert [Path(s.source).name for s in samples] == ["mod.py"]
    assert (report.files_read, report.files_skipped_empty, report.samples) == (3, 2, 1)
    assert "2 empty file(s) skipped" in report.summary()
    with pytest.raises(ValueError, match=r"no text loaded .*1 empty file\(s\) skipped"):
        load_corpus(tmp_path / "notes")


def test_missing_file_empty_folder_unmatched_glob(tmp_path):
    with pytest.raises(ValueError, match=r"no such file or folder: .*nothere.txt"):
        list(iter_samples(tmp_path / "nothere.txt"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"folder .*empty contains no files"):
        list(iter_samples(tmp_path / "empty"))
    with pytest.raises(ValueError, match=r"pattern .*\*\.xyz' matches no files"):
        list(iter_samples(str(tmp_path / "*.xyz")))
    with pytest.raises(ValueError, match=r"errors must be one of \('strict', 'replace', 'skip'\), got 'ignore'"):
        list(iter_samples(tmp_path, errors="ignore"))


def test_binary_files_are_skipped_and_counted(tmp_path):
    _tree(tmp_path, {"a.txt": "text\n", "img.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "late.bin": b"x" * 9000 + b"\x00"})
    samples, report = load_samples(tmp_path)
    assert [Path(s.id).name for s in samples] == ["a.txt", "late.bin"]  # NUL after 8 KB: not sniffed
    assert report.files_skipped_binary == 1
    assert report.skipped_files == [str(tmp_path / "img.png")]
    assert report.files_read == 2
    assert "1 binary file(s) skipped" in report.summary()


def test_load_corpus_with_only_binary_files_fails_clearly(tmp_path):
    _tree(tmp_path, {"a.bin": b"\x00\x01"})
    with pytest.raises(ValueError, match=r"no text loaded .*1 binary file\(s\) skipped"):
        load_corpus(tmp_path)


# --- errors: invalid UTF-8 ----------------------------------------------------------------------


def test_invalid_utf8_strict_names_file_and_byte_offset(tmp_path):
    _tree(tmp_path, {"latin1.txt": "café au lait".encode("latin-1")})
    with pytest.raises(ValueError, match=r"latin1.txt: not valid UTF-8 at byte offset 3 \(byte 0xe9.*errors='replace'"):
        list(iter_samples(tmp_path / "latin1.txt"))


def test_invalid_utf8_offset_is_absolute_in_later_chunks(tmp_path):
    raw = b"abc\n" * 100 + b"bad \xff here\n"
    _tree(tmp_path, {"big.txt": raw})
    at = raw.index(b"\xff")
    assert at == 404
    with pytest.raises(ValueError, match=f"byte offset {at} "):
        list(iter_samples(tmp_path / "big.txt", chunk_bytes=64))


def test_invalid_utf8_replace_and_skip_are_counted(tmp_path):
    raw = "ok \ufffd genuine ".encode() + b"\xff\xfe bad " + b"\xc3"  # 1 real U+FFFD, 3 bad sequences
    _tree(tmp_path, {"m.txt": raw})
    samples, report = load_samples(tmp_path / "m.txt", errors="replace")
    assert samples[0].text == "ok \ufffd genuine \ufffd\ufffd bad \ufffd"
    assert report.decode_errors_replaced == 3
    assert report.files_with_decode_errors == 1
    assert report.decode_error_files == [str(tmp_path / "m.txt")]
    samples, report = load_samples(tmp_path / "m.txt", errors="skip")
    assert samples[0].text == "ok \ufffd genuine  bad "
    assert report.decode_errors_skipped == 3
    assert report.decode_errors_replaced == 0
    assert "3 invalid UTF-8 sequence(s) dropped" in report.summary()


# --- streaming ------------------------------------------------------------------------------------


def test_large_files_stream_in_line_aligned_chunks(tmp_path):
    lines = [f"line {i} {'é' * (i % 7)}\n" for i in range(2000)]
    _tree(tmp_path, {"big.txt": "".join(lines)})
    samples = list(iter_samples(tmp_path / "big.txt", chunk_bytes=1024))
    assert len(samples) > 10
    assert [s.id for s in samples[:2]] == [str(tmp_path / "big.txt") + "#0", str(tmp_path / "big.txt") + "#1"]
    assert "".join(s.text for s in samples) == "".join(lines)
    assert all(s.text.endswith("\n") for s in samples)
    assert all(len(s.text.encode()) <= 1024 for s in samples)


def test_a_line_longer_than_a_chunk_is_cut_between_characters(tmp_path):
    text = "ж" * 1000 + "\n"  # 2 bytes per character, no newline for 2000 bytes
    _tree(tmp_path, {"long.txt": text})
    chunks = list(iter_text_chunks(tmp_path / "long.txt", chunk_bytes=101))
    assert "".join(chunks) == text
    assert len(chunks) > 10
    assert all(len(c.encode()) <= 101 for c in chunks)


def test_iter_samples_never_reads_a_large_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "huge.txt"
    path.write_text("x" * 99 + "\n" * 1, encoding="utf-8")
    with open(path, "ab") as fh:
        fh.write((b"y" * 99 + b"\n") * 10_000)  # ~1 MB
    reads: list[int] = []
    real_open = builtins.open

    class Counting:
        def __init__(self, fh):
            self.fh = fh

        def read(self, n=-1):
            assert n > 0, "read() without a size would load the whole file"
            data = self.fh.read(n)
            reads.append(len(data))
            return data

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    def fake_open(file, mode="r", *a, **k):
        fh = real_open(file, mode, *a, **k)
        return Counting(fh) if Path(file) == path and "b" in mode else fh

    monkeypatch.setattr(builtins, "open", fake_open)
    it = iter_samples(path, chunk_bytes=4096)
    first = next(it)
    assert len(first.text) <= 4096
    assert sum(reads) <= 8192 + corpus_files.BINARY_SNIFF_BYTES  # only what the first chunk needed
    rest = list(it)
    assert sum(len(s.text) for s in [first, *rest]) == path.stat().st_size


# --- frames, reports, scripts ---------------------------------------------------------------------


def test_load_corpus_frame_and_attached_report(tmp_path):
    _tree(tmp_path, {"a.txt": "Hello", "b.bin": b"\x00"})
    frame = load_corpus(tmp_path)
    assert list(frame.columns) == ["id", "category", "language", "script", "kind", "text", "source"]
    assert frame.attrs["load_report"].files_skipped_binary == 1
    assert samples_to_frame([]).columns.tolist() == list(frame.columns)


@pytest.mark.parametrize(("text", "script"), [
    ("The quick brown fox", "Latn"), ("Съешь же ещё этих мягких булок", "Cyrl"), ("Καλημέρα κόσμε", "Grek"),
    ("مرحبا بالعالم", "Arab"), ("שלום עולם", "Hebr"), ("नमस्ते दुनिया", "Deva"), ("ਸਤ ਸ੍ਰੀ ਅਕਾਲ", "Guru"),
    ("வணக்கம்", "Taml"), ("สวัสดีชาวโลก", "Thai"), ("გამარჯობა", "Geor"), ("Բարեւ", "Armn"), ("ሰላም ለዓለም", "Ethi"),
    ("你好，世界", "Hani"), ("こんにちは、世界", "Jpan"), ("東京は大きい都市です", "Jpan"), ("안녕하세요 세계", "Hang"),
    ("大韓民國 안녕하세요", "Kore"), ("12,345.67 + 8%", "Zyyy"), ("", "Zyyy"),
    ("print('Привет') # a comment in English, mostly Latin letters", "Latn"),
])
def test_detect_script_by_majority_of_letters(text, script):
    assert detect_script(text) == script


@pytest.mark.parametrize("recursive", [True, False])
def test_a_folder_lists_the_files_pathlib_would_in_its_order(tmp_path, recursive):
    # the walk is one scandir per folder; its answer is what `Path.rglob` with `is_file` gives:
    # hidden files and folders left out, links to files kept, links to folders not walked,
    # files sorted part by part ("a/b" before "a-c", which a string sort would reverse)
    root = tmp_path / "docs"
    for rel in ["a/b.txt", "a-c.txt", "a/z/deep.md", "B.txt", "é.txt", ".hidden.txt", ".git/config", "a/.cache/x",
                "n10.txt", "n9.txt", "x/y/z/w.txt"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel)
    (root / "link.txt").symlink_to(root / "B.txt")
    (root / "linked").symlink_to(root / "x", target_is_directory=True)
    (root / "dangling").symlink_to(root / "nothing")
    walker = root.rglob("*") if recursive else root.glob("*")
    expected = sorted(f for f in walker if f.is_file()
                      and not any(part.startswith(".") for part in f.relative_to(root).parts))
    got = corpus_files.expand_paths([root], recursive=recursive)
    assert [f for f, _ in got] == expected
    assert [sid for _, sid in got] == [f"docs/{f.relative_to(root).as_posix()}" for f in expected]
