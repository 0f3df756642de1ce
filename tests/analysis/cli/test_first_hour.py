"""What a new user trips on in the first hour (issue 46): parsing, help text, request bodies in
`cost`, and the output a program reads."""

from __future__ import annotations

import argparse
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import pytest

from analysis.cli import build_parser, main


def _parsers(parser: argparse.ArgumentParser, path: str = "tokenprism"):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, f"{path} {name}")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:  # argparse
            code = int(e.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_no_parser_matches_prefixes():
    found = list(_parsers(build_parser()))
    assert len(found) > 20
    assert [path for path, p in found if p.allow_abbrev] == []


def test_a_prefix_of_a_flag_is_refused_not_expanded():
    # --messages-per-request once swallowed `cost --messages-per`, and `--messages x.json` before cost read bodies
    code, _, err = run("cost", "hi", "-m", "gpt-4o", "--messages-per", "2")
    assert code == 2 and "unrecognized arguments: --messages-per" in err


def test_help_never_shows_default_none_or_false():
    for path, parser in _parsers(build_parser()):
        text = parser.format_help()
        assert "(default: None)" not in text, path
        assert "(default: False)" not in text, path
    assert "(default: table)" in build_parser(["count"])._subparsers._group_actions[0].choices["count"].format_help()


BODY = {"model": "gpt-4o", "messages": [{"role": "system", "content": "You are a support bot for Acme. Be brief."},
                                        {"role": "user", "content": "How do I reset my password?"}],
        "tools": [{"type": "function", "function": {"name": "lookup", "description": "find an order",
                                                     "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}}]}


def _count_row(*argv: str) -> dict:
    code, out, err = run("count", *argv, "-m", "gpt-4o,claude-sonnet-4-5", "--format", "json")
    assert code == 0, err
    return {r["model"]: r for r in json.loads(out)}


def _cost_models(*argv: str) -> list[dict]:
    code, out, err = run("cost", *argv, "-m", "gpt-4o,claude-sonnet-4-5", "--format", "json")
    assert code == 0, err
    return json.loads(out)["models"]


@pytest.fixture
def body(tmp_path):
    path = tmp_path / "req.json"
    path.write_text(json.dumps(BODY), encoding="utf-8")
    return path


def test_cost_messages_counts_the_body_as_count_does(body):
    counted = _count_row("--messages", str(body))
    priced = _cost_models("--messages", str(body))
    assert [m["model"] for m in priced] == ["gpt-4o", "claude-sonnet-4-5"]
    for m in priced:
        assert m["input_tokens"] == counted[m["model"]]["input_tokens"]
        assert m["exactness"] == counted[m["model"]]["exactness"]
    # the tool definition is counted: more than the two messages alone
    bare = dict(BODY, tools=[])
    assert counted["gpt-4o"]["input_tokens"] > _count_with(bare)["gpt-4o"]["input_tokens"]


def _count_with(data: dict) -> dict:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "b.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return _count_row("--messages", str(path))


def test_f_json_body_is_read_as_a_body_and_says_so(body):
    code, out, err = run("count", "-f", str(body), "-m", "gpt-4o", "--format", "json")
    assert code == 0 and "read as a request body" in err and "--shape text" in err
    as_body = json.loads(out)[0]["input_tokens"]
    assert as_body == _count_row("--messages", str(body))["gpt-4o"]["input_tokens"]
    code, out, _ = run("count", "-f", str(body), "--shape", "text", "-m", "gpt-4o", "--format", "json")
    assert code == 0 and json.loads(out)[0]["input_tokens"] > as_body  # the raw JSON is longer
    priced = _cost_models("-f", str(body))
    assert priced[0]["input_tokens"] == as_body


def test_f_json_that_is_not_a_body_is_a_text_and_says_so(tmp_path):
    path = tmp_path / "data.json"
    path.write_text('{"rows": [1, 2, 3]}', encoding="utf-8")
    code, out, err = run("count", "-f", str(path), "-m", "gpt-4o", "--format", "json")
    assert code == 0 and "not a request body" in err
    code, text_out, _ = run("count", '{"rows": [1, 2, 3]}', "-m", "gpt-4o", "--format", "json")
    assert json.loads(out)[0]["input_tokens"] == json.loads(text_out)[0]["input_tokens"]


def test_cost_system_prompt_text_and_file(tmp_path):
    prompt = tmp_path / "system.txt"
    prompt.write_text("You are a support bot for Acme. Be brief.", encoding="utf-8")
    with_file = _cost_models("How do I reset my password?", "--system", f"@{prompt}")
    with_text = _cost_models("How do I reset my password?", "--system", "You are a support bot for Acme. Be brief.")
    assert [m["input_tokens"] for m in with_file] == [m["input_tokens"] for m in with_text]
    code, out, _ = run("cost", "How do I reset my password?", "-m", "gpt-4o,claude-sonnet-4-5", "--format", "json")
    bare = {r["model"]: r["input_tokens"] for r in json.loads(out)["per_request"]}
    for m in with_text:  # the prompt's tokens are added: at least the 9 words' worth, under every model
        assert m["input_tokens"] >= bare[m["model"]] + 9
    code, _, err = run("cost", "hi", "--system", "@/nonexistent/system.txt", "-m", "gpt-4o")
    assert code == 2 and "system.txt" in err
    code, _, err = run("cost", "hi", "--system", "stdlib", "-m", "gpt-4o")
    assert code == 0 and "--machine-corpus stdlib" in err


def test_logs_project_onto_a_month_and_sort(tmp_path):
    log = tmp_path / "questions.txt"
    log.write_text("How do I reset my password?\nWhere is my order?\nCan I get a refund?\n", encoding="utf-8")
    code, out, err = run("cost", "--logs", str(log), "-m", "claude-sonnet-4-5,gpt-4o-mini,gpt-4o", "--output-tokens", "100",
                         "--requests-per-month", "30000", "--sort", "cost", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    models = data["models"]
    assert [m["model"] for m in models] == sorted((m["model"] for m in models),
                                                  key=lambda n: next(float(m["usd_per_month"]) for m in models if m["model"] == n))
    from decimal import Decimal
    for m in models:
        assert Decimal(m["usd_per_month"]) == Decimal(m["usd_total"]) / 3 * 30000
    assert any(n.startswith("projection:") for n in data["notes"])
    code, out, _ = run("cost", "--logs", str(log), "-m", "gpt-4o,gpt-4o-mini", "--output-tokens", "100",
                       "--requests-per-month", "30000")
    assert "$/month (projected)" in out and "projection:" in out


def test_quick_cost_sorts_cheapest_first():
    code, out, err = run("cost", "hello there", "-m", "gpt-4o,gpt-4o-mini,claude-sonnet-4-5", "--sort", "cost",
                         "--format", "json")
    assert code == 0, err
    rows = json.loads(out)["per_request"]
    usd = [float(r["usd_input"]) for r in rows]
    assert usd == sorted(usd) and len(usd) == 3


# -- --show: every character drawn once ----------------------------------------------------------
SHOW_TEXTS = ["héllo 日本", "日本語のテキスト", "👩‍👩‍👧‍👦家族", "🏳️‍🌈flag", "é", "ñ", "ếệ", "한국어"]


def _drawn_bytes(label: str) -> bytes:
    """The bytes a label stands for: <0xNN> is one byte, <U+XXXX> one invisible character,
    · a space, anything else its UTF-8."""
    import re

    out = b""
    for hexbyte, code, char in re.findall(r"<0x([0-9A-F]{2})>|<U\+([0-9A-F]{4,6})>|(.)", label, flags=re.S):
        out += bytes([int(hexbyte, 16)]) if hexbyte else chr(int(code, 16)).encode() if code else \
            (" " if char == "·" else char).encode()
    return out


@pytest.mark.parametrize("name", ["gpt2", "o200k_base"])
@pytest.mark.parametrize("text", SHOW_TEXTS)
def test_show_draws_every_byte_once_and_split_characters_as_bytes(name, text):
    from analysis.render import piece_label
    from analysis.tokenizers import load_tokenizer

    pieces = load_tokenizer(name).pieces(text)
    labels = [piece_label(text, p) for p in pieces]
    assert b"".join(_drawn_bytes(l) for l in labels) == text.encode()  # nothing twice, nothing left out
    for p, label in zip(pieces, labels):
        if p.partial:  # no character of a partial token is drawn as text unless the token holds all of it
            whole = {c for c in text if c.encode() in p.bytes}
            drawn = {c for c in label if ord(c) > 0x7F and c != "·"}
            assert drawn <= whole


def test_show_draws_the_issue_example_as_bytes():
    from analysis.render import piece_label
    from analysis.tokenizers import load_tokenizer

    text = "héllo 日本"
    labels = [piece_label(text, p) for p in load_tokenizer("gpt2").pieces(text)]
    assert labels == ["h", "é", "llo", "·<0xE6>", "<0x97>", "<0xA5>", "<0xE6><0x9C>", "<0xAC>"]
    assert not any("日" in l or "本" in l for l in labels)


def test_both_train_commands_default_to_the_same_split_pattern():
    from ownbpe.cli import _parser

    ours = build_parser(["train"])._subparsers._group_actions[0].choices["train"]
    theirs = _parser()._subparsers._group_actions[0].choices["train"]
    assert ours.get_default("pattern") == theirs.get_default("pattern") == "o200k"
    assert not _parser().allow_abbrev


def test_claude_alone_names_the_family_with_sonnet():
    code, _, err = run("count", "hi", "-m", "claude")
    assert code == 2 and "names a family" in err
    assert "claude-sonnet-" in err and "claude-opus-" in err and "claude-haiku-" in err


def test_count_and_cost_label_a_proxy_tokenizer_alike():
    _, count_out, _ = run("count", "hi", "-m", "claude-sonnet-4-5,gpt-4o")
    _, cost_out, _ = run("cost", "hi", "-m", "claude-sonnet-4-5,gpt-4o")
    for out in (count_out, cost_out):
        assert "~o200k_base" in out  # Claude: a proxy
        assert any(line.startswith("gpt-4o") and " o200k_base" in line for line in out.splitlines()) or \
            any("gpt-4o" in line and " o200k_base " in line for line in out.splitlines())


def test_price_files_take_the_exactness_words_of_every_face(tmp_path):
    from analysis.cost import load_overrides

    path = tmp_path / "prices.csv"
    head = "model,usd_per_mtok_input,usd_per_mtok_output,source,as_of,tokenizer,exactness\n"
    path.write_text(head + "mine,1,2,quote,2025-01-01,o200k_base,estimate\n", encoding="utf-8")
    assert load_overrides(path)[0].exactness == "estimate"  # the one word for a proxy, everywhere
    path.write_text(head + "mine,1,2,quote,2025-01-01,o200k_base,approximate\n", encoding="utf-8")
    assert load_overrides(path)[0].exactness == "estimate"  # the former word is still read
    path.write_text(head + "mine,1,2,quote,2025-01-01,o200k_base,documented\n", encoding="utf-8")
    with pytest.raises(Exception, match="use exact .* or\\s+estimate"):
        load_overrides(path)


class _Out(io.TextIOWrapper):
    def __init__(self, tty: bool) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8")
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("tty", [True, False])
def test_decode_ends_its_line_and_dash_n_gives_the_bytes_alone(tty, monkeypatch):
    # issue 56: decode printed no trailing newline in a pipe; it ends its line as echo does, and
    # `decode -n` writes the exact text (as echo -n), on a terminal or not
    for argv, ends in ((["decode", "15339", "1917", "-t", "o200k_base"], True),
                       (["decode", "-n", "15339", "1917", "-t", "o200k_base"], False)):
        out = _Out(tty)
        monkeypatch.setattr("sys.stdout", out)
        assert main(argv) == 0
        written = out.buffer.getvalue()
        assert written.rstrip(b"\n") == b" awesome down"
        assert written.endswith(b"\n") == ends


def test_compare_show_leaves_one_blank_line_before_the_table(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("hello\nworld\n", encoding="utf-8")
    code, out, _ = run("compare", "-f", str(path), "--show", "-t", "gpt2")
    assert code == 0
    assert "\n\n\n" not in out and "\n\ntokenizer" in out


# -- quiet by default where a program reads the output -------------------------------------------
def test_count_reasons_are_terse_full_with_explain_and_gone_with_quiet():
    _, terse_out, _ = run("count", "hello", "-m", "gpt-4o,claude-sonnet-4-5")
    _, full, _ = run("count", "hello", "-m", "gpt-4o,claude-sonnet-4-5", "--explain")
    _, quiet, _ = run("count", "hello", "-m", "gpt-4o,claude-sonnet-4-5", "--quiet")
    assert len(quiet.splitlines()) == 3  # the header and one line per model
    assert "--explain" in terse_out and len(terse_out) < len(full)
    assert max(map(len, terse_out.splitlines())) <= 120
    _, as_json, _ = run("count", "hello", "-m", "claude-sonnet-4-5", "--format", "json")
    reason = json.loads(as_json)[0]["exactness_reason"]
    assert reason in full and reason not in terse_out  # json and --explain keep every word


@pytest.mark.parametrize("argv", [
    ("cost", "hello there", "-m", "gpt-4o,claude-sonnet-4-5,gemini-2.5-flash"),
    ("cost", "hello there", "-m", "gpt-4o,claude-sonnet-4-5", "--output-tokens", "100", "--requests-per-month", "1000"),
    ("models", "claude-sonnet-4"),
])
def test_tables_fit_120_columns_unless_wide(argv):
    _, out, _ = run(*argv)
    table = [l for l in out.splitlines() if not l.startswith(("prices:", "  - ", "one request", "input:", "workload"))]
    assert max(map(len, table)) <= 120
    _, wide, _ = run(*argv, "--wide")
    assert max(map(len, wide.splitlines())) > 120


def test_cost_quiet_is_the_table_alone(tmp_path):
    log = tmp_path / "q.txt"
    log.write_text("one\ntwo\n", encoding="utf-8")
    for argv in (("hello there",), ("--logs", str(log), "--output-tokens", "5")):
        _, out, _ = run("cost", *argv, "-m", "gpt-4o,gpt-4o-mini", "--quiet")
        assert len(out.splitlines()) == 3 and "notes" not in out
        assert "$" in out.splitlines()[0] and all("$" in line for line in out.splitlines()[1:])  # the price stays


def test_cost_out_writes_a_manifest_and_removes_only_its_own_stale_files(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "mine.txt").write_text("the user's", encoding="utf-8")
    code, _, err = run("cost", "hello", "-m", "gpt-4o", "--requests-per-month", "10", "--output-tokens", "5",
                       "--out", str(out))
    assert code == 0, err
    listed = [l for l in (out / ".tokenprism-report").read_text(encoding="utf-8").splitlines() if not l.startswith("#")]
    assert "report.md" in listed and "cost_by_model.csv" in listed and "mine.txt" not in listed
    assert all((out / name).is_file() for name in listed)
    (out / ".tokenprism-report").write_text((out / ".tokenprism-report").read_text(encoding="utf-8") + "old.csv\n",
                                            encoding="utf-8")
    (out / "old.csv").write_text("from an earlier run", encoding="utf-8")
    log = tmp_path / "q.txt"
    log.write_text("one\ntwo\n", encoding="utf-8")
    code, _, err = run("cost", "--logs", str(log), "-m", "gpt-4o", "--output-tokens", "5", "--out", str(out))
    assert code == 0, err
    assert not (out / "old.csv").exists() and not (out / "cost_by_model.csv").exists()  # the earlier run's files
    assert (out / "mine.txt").read_text(encoding="utf-8") == "the user's" and (out / "traffic_by_model.csv").is_file()


def test_markdown_files_are_prose_and_category_means_one_thing(tmp_path):
    from pathlib import Path

    from analysis.corpora.files import file_labels

    assert file_labels(Path("docs/guide.md")) == ("prose", "markdown")
    assert file_labels(Path("src/app.py")) == ("code", "python")
    code, _, err = run("cost", "--corpus", str(tmp_path), "--category", "docs", "-m", "gpt-4o")
    assert code == 2 and "--category-name docs" in err
    (tmp_path / "a.md").write_text("# Title\n\nSome words.\n", encoding="utf-8")
    code, out, err = run("cost", "--corpus", str(tmp_path), "--category-name", "docs", "-m", "gpt-4o",
                         "--requests-per-month", "10", "--output-tokens", "5", "--format", "json")
    assert code == 0, err


# -- formats on the page -------------------------------------------------------------------------
def _doc_rows() -> list[tuple[str, str]]:
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "docs" / "formats.md").read_text(encoding="utf-8")
    return re.findall(r"### `([a-z-]+)`[^\n]*\n(?:(?!###).)*?```jsonl\n(.*?)\n```", page, flags=re.S)


def test_every_log_shape_has_an_example_row_that_reads_as_that_shape(tmp_path):
    from analysis.cost import SHAPES, LogReport, iter_log_records

    rows = dict(_doc_rows())
    assert set(rows) == set(SHAPES) - {"text"}
    for shape, row in rows.items():
        path = tmp_path / f"{shape}.jsonl"
        path.write_text(row + "\n", encoding="utf-8")
        report = LogReport()
        records = list(iter_log_records([str(path)], shape="auto", report=report))
        assert len(records) == 1 and report.shapes[str(path)] == shape, (shape, report.shapes)
        assert "Where is my order?" in "".join(m.text for m in records[0].request.messages)


# -- why, by part --------------------------------------------------------------------------------
def test_diff_breaks_the_change_down_by_class_script_and_line(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text('def greet(name):\n    # Привет, мир\n    return "안녕하세요 " + name\n\nprint(greet("world"))  # 2024\n',
                              encoding="utf-8")
    (src / "b.py").write_text("x = 1\n", encoding="utf-8")
    code, out, err = run("diff", "-f", str(src), "--from", "o200k_base", "--to", "gpt2", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    for f in data["files"]:
        if f["breakdown"] is None:
            continue
        for kind in ("class", "script"):  # every token filed once: the parts add up to the counts
            assert sum(r["from_tokens"] for r in f["breakdown"][kind]) == f["from_tokens"]
            assert sum(r["to_tokens"] for r in f["breakdown"][kind]) == f["to_tokens"]
        if not f["file"].endswith("a.py"):
            continue
        scripts = {r["part"]: r["change"] for r in f["breakdown"]["script"]}
        assert scripts["Hang"] > 0 and scripts["Cyrl"] > 0  # gpt2 spends more on Hangul and Cyrillic
        classes = {r["part"]: r["change"] for r in f["breakdown"]["class"]}
        assert classes["non-ASCII"] == max(classes.values())
        assert max(f["breakdown"]["lines"], key=lambda r: abs(r["change"]))["part"] in (2, 3)  # the non-English lines
    code, out, _ = run("diff", "-f", str(src), "--from", "o200k_base", "--to", "gpt2")
    assert "by script: Hang +" in out and "by class:  non-ASCII +" in out


def test_the_dashboards_upload_limit_is_said_once():
    import tomllib
    from pathlib import Path

    from analysis.textio import MAX_UPLOAD_BYTES

    config = tomllib.loads((Path(__file__).resolve().parents[3] / "dashboards" / ".streamlit" / "config.toml")
                           .read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] == MAX_UPLOAD_BYTES // 1_000_000  # Streamlit's "Limit N MB" = our help


def test_a_bad_log_row_names_the_fix_in_each_faces_words(tmp_path):
    from analysis.cost import read_log_records

    log = tmp_path / "a.jsonl"
    log.write_text('{"system": "s", "messages": [{"role": "user", "content": "hi"}]}\n', encoding="utf-8")
    with pytest.raises(ValueError) as info:
        read_log_records(log, shape="openai-chat")
    message = str(info.value)
    assert "errors='skip'" in message and "shape=SHAPE" in message and "--" not in message  # no CLI flag in the library
    code, _, err = run("cost", "--logs", str(log), "--log-format", "openai-chat", "-m", "gpt-4o", "--output-tokens", "5")
    assert code == 2 and "--errors skip" in err and "--log-format SHAPE" in err
    from dashboards.shared import page_words  # the Cost page's words, without running the page

    shown = page_words(message)
    assert 'tick "Skip malformed rows"' in shown and '"Log format"' in shown and "errors=" not in shown
