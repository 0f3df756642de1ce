"""Issue 45, findings 2 and 5 to 10 outside the server: names, numbers, files, escapes, compression.

2. A name over 256 characters is refused before any closest-name search, and echoes are cut.
5. `decode` with a 4,300-digit id was an "internal error" (exit 1); now exit 2 naming the digits.
6. A 3 GB rank cache was read whole (13 s, 3.2 GB) before it was refused.
7. A model name or price note reached report.md raw (a <script> tag, a remote image).
8. `train` printed the corpus file name raw (escape sequences reached the terminal).
9. A .bz2 log was "not valid UTF-8 ... iconv"; serve flags echoed 5,000 digits.
10. `serve --workers` had no upper bound.
"""

from __future__ import annotations

import bz2
import os
import subprocess
import sys
import time

import pandas as pd
import pytest

from analysis.errors import MAX_NAME, BadInput, UnknownName, closest, shown

from .cli_run import run_cli

RAW = ("\x1b", "\x07", "\x9b")
HOSTILE = "\x1b]0;owned\x07\x1b[31m"


_run = run_cli


# -- 2. names ------------------------------------------------------------------------------------
def test_the_closest_name_search_only_runs_on_bounded_names():
    long = "gpt-" * 975_000
    t0 = time.perf_counter()
    assert closest(long, ["gpt-4o", "gpt-4"]) == []
    assert time.perf_counter() - t0 < 0.01  # no search at all
    assert closest("gpt-4oo", ["gpt-4o", "o3"]) == ["gpt-4o"]
    assert closest("g" * MAX_NAME, ["g"]) == []  # a name at the bound is searched (and finds nothing)


def test_resolve_refuses_a_long_model_id_before_its_cache_and_search():
    from analysis.models import resolve

    with pytest.raises(BadInput, match="longer than 256 characters") as e:
        resolve("gpt-" * 975_000)
    assert len(str(e.value)) < 300


def test_an_unknown_name_echo_is_cut():
    message = str(UnknownName("model", "x" * 10_000, ["gpt-4o"]))
    assert len(message) < 200 and "10,000 characters" in message
    assert shown("gpt-4o") == "'gpt-4o'"


def test_count_refuses_a_long_model_with_exit_2(capsys):
    code, _, err = _run(["count", "-m", "gpt-" * 5_000, "hello"], capsys)
    assert code == 2 and "longer than 256" in err and len(err) < 600


# -- 5. decode -----------------------------------------------------------------------------------
@pytest.mark.parametrize("digits", [21, 4_300, 5_000])
def test_decode_refuses_an_id_of_too_many_digits_with_exit_2(capsys, digits):
    code, _, err = _run(["decode", "-t", "o200k_base", "9" * digits], capsys)
    assert code == 2 and f"{digits:,} digits" in err and "internal error" not in err
    assert len(err) < 400


# -- 6. the rank cache ---------------------------------------------------------------------------
def test_a_huge_rank_cache_is_refused_by_its_size_before_it_is_read(tmp_path, monkeypatch, caplog):
    import logging
    import tracemalloc

    from analysis.tokenizers import rank_cache

    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))
    source = tmp_path / "tiny.tiktoken"
    source.write_text("YQ== 0\nYg== 1\n")
    ranks = {b"a": 0, b"b": 1}
    rank_cache.cached_table("tiny", [source], lambda: ranks)
    path = rank_cache.cache_dir() / "tiny.ranks"
    with open(path, "r+b") as f:  # 3 GB, sparse: what a real 3 GB file would cost to read
        f.truncate(3_000_000_000)
    calls = []
    tracemalloc.start()
    try:
        with caplog.at_level(logging.WARNING, logger="tokenprism.cache"):
            t0 = time.perf_counter()
            table = rank_cache.cached_table("tiny", [source], lambda: calls.append(1) or ranks)
            seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert table.get(b"a") == 0 and calls == [1]  # rebuilt from the source
    assert "outside what its header allows" in caplog.text
    assert peak < 50_000_000 and seconds < 5
    assert path.stat().st_size < 1_000_000  # the rebuilt cache replaced it


# -- 7. report.md ---------------------------------------------------------------------------------
def test_markdown_values_are_escaped():
    from analysis.report.page import markdown_table, markdown_text

    hostile = '<script>alert(1)</script> ![i](http://example.invalid/p.png) [l](http://x) a|b'
    table = markdown_table(pd.DataFrame({"model": [hostile]}), index=False)
    for text in (table, markdown_text(hostile)):
        assert "<script" not in text and "![" not in text and "](" not in text.replace("\\](", "")
        assert "&lt;script&gt;" in text


def test_every_markdown_writer_escapes_its_values():
    """Walks the report modules: each f-string line a Markdown renderer writes passes its values
    through markdown_text or markdown_table (the escape at the sink), apart from our own paths."""
    import ast
    from pathlib import Path

    import analysis.report as report

    # the escapes at the sink (Markdown, and HTML beside it), and names of our own (section titles,
    # figure names, the figures' base64 data, the head written for HTML only)
    allowed = {"markdown_text", "markdown_table", "html.escape", "TITLE", "title", "path", "fig", "data", "head",
               "escape", "code", "s"}  # _head's escape and code are the sink's own (markdown_text, html.escape)
    writers = {"bundle.py": {"_render", "_head"}}  # bundle's renderer writes report.md and report.html together
    bad = []
    for file in Path(report.__file__).parent.glob("*.py"):
        tree = ast.parse(file.read_text())
        for fn in ast.walk(tree):
            if not (isinstance(fn, ast.FunctionDef) and fn.name != "markdown_text"
                    and ("markdown" in fn.name or fn.name in writers.get(file.name, ()))):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.JoinedStr):
                    for v in node.values:
                        if isinstance(v, ast.FormattedValue) and v.format_spec is None:  # a number format is no markup
                            inner = v.value
                            name = (ast.unparse(inner.func) if isinstance(inner, ast.Call)
                                    else inner.id if isinstance(inner, ast.Name) else None)
                            if name not in allowed:
                                bad.append(f"{file.name}:{node.lineno} {ast.unparse(inner)}")
    assert not bad, bad


# -- 8. train --------------------------------------------------------------------------------------
def test_train_escapes_the_corpus_file_name(tmp_path):
    corpus = tmp_path / f"c{HOSTILE}.txt"
    corpus.write_text("low lower lowest newer newest " * 50)
    out = tmp_path / "m.model"
    proc = subprocess.run([sys.executable, "-m", "analysis", "train", str(corpus), "--vocab-size", "270",
                           "--out", str(out), "--workers", "1"], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, TERM="xterm"))
    assert proc.returncode == 0, proc.stderr[-500:]
    for raw in RAW:
        assert raw not in proc.stdout and raw not in proc.stderr
    assert "␛]0;owned␇" in proc.stderr


# -- 9. compressed inputs and huge flag values -----------------------------------------------------
def test_a_bzip2_log_is_named_not_called_latin1(tmp_path, capsys):
    log = tmp_path / "log.jsonl.bz2"
    log.write_bytes(bz2.compress(b'{"model": "gpt-4o", "input_tokens": 5, "output_tokens": 1}\n'))
    code, _, err = _run(["cost", "--logs", str(log)], capsys)
    assert code == 2 and "compressed with bzip2" in err and "iconv" not in err


@pytest.mark.parametrize("flag", ["--port", "--workers", "--max-body-bytes", "--head-timeout"])
def test_serve_flags_refuse_huge_values_without_echoing_them(capsys, flag):
    code, _, err = _run(["serve", flag, "9" * 5_000], capsys)
    assert code == 2 and len(err) < 1_500 and "9" * 100 not in err


def test_max_tokens_refuses_a_huge_value_without_echoing_it(capsys):
    code, _, err = _run(["truncate", "-t", "o200k_base", "--max-tokens", "9" * 5_000, "hello"], capsys)
    assert code == 2 and "9" * 100 not in err


def test_serve_workers_has_an_upper_bound(capsys):
    code, _, err = _run(["serve", "--workers", "100000"], capsys)
    assert code == 2 and "--workers" in err


# -- untried: key comparison in constant time ----------------------------------------------------
def test_every_key_is_compared_with_compare_digest_every_time(monkeypatch):
    import hmac

    from analysis.api import security

    seen = []
    real = hmac.compare_digest
    monkeypatch.setattr(security.hmac, "compare_digest", lambda a, b: seen.append(b) or real(a, b))
    keys = ("a" * 32, "b" * 32, "c" * 32)
    assert security._matches("a" * 32, keys)  # the first key matches: the others are still compared
    assert seen == [k.encode() for k in keys]
    seen.clear()
    assert not security._matches("z" * 5, keys)
    assert len(seen) == 3


def test_the_report_heads_escape_user_paths_for_each_sink():
    import html as html_module

    from analysis.report.bundle import _head
    from analysis.report.page import markdown_text

    hostile = "notes/![i](http://127.0.0.1:9/t.png)<script>x</script>"
    md = _head(["gpt2"], hostile, "builtin", "en", escape=markdown_text, code=lambda s: f"`{s}`")
    page = _head(["gpt2"], hostile, "builtin", "en", escape=html_module.escape, code=lambda s: f"<code>{s}</code>")
    assert "![" not in md and "<script" not in md and "`tables/`" in md
    assert "<script" not in page and "<code>tables/</code>" in page


@pytest.mark.slow  # a whole report (about 20 s)
def test_a_report_over_a_hostile_corpus_path_writes_no_markup(tmp_path, capsys):
    from tests.reliability.cli_run import run_cli

    corpus = tmp_path / "![i](http:" / "127.0.0.1:9" / "x.png)<img src=y>"
    corpus.mkdir(parents=True)
    (corpus / "a.txt").write_text("hello world, a small corpus\n" * 20)
    code, _, err = run_cli(["report", "--out", str(tmp_path / "r"), "-t", "gpt2", "--corpus", str(corpus),
                            "--no-progress"], capsys)
    assert code == 0, err
    md = (tmp_path / "r" / "report.md").read_text()
    assert "Corpus: " in md and "![i]" not in md and "<img" not in md
