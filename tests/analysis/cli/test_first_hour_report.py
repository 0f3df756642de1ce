"""The first hour, second pass (issue 46): what `cost` says of requests given on the command line,
the exactness of a --system prompt, compare's breakdown by part, and every table's width."""

from __future__ import annotations

import json

import pytest

from tests.analysis.cli.test_first_hour import run

BODY = {"model": "gpt-4o-mini", "messages": [{"role": "system", "content": "You are a support bot. Be brief."},
                                             {"role": "user", "content": "How do I reset my password?"}]}


@pytest.fixture
def body(tmp_path):
    path = tmp_path / "req.json"
    path.write_text(json.dumps(BODY), encoding="utf-8")
    return path


def _json(*argv: str) -> dict:
    code, out, err = run(*argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


# -- a --system prompt is the target API's own system prompt ------------------------------------
def test_system_prompt_is_counted_and_labelled_as_a_system_message_is(tmp_path):
    as_flag = {m["model"]: m for m in _json("cost", "How do I reset my password?", "--system",
                                             "You are a support bot. Be brief.", "-m", "gpt-4o,claude-sonnet-4-5")["models"]}
    as_message = {r["model"]: r for r in _json("count", "--messages", str(_write(tmp_path, BODY["messages"])),
                                               "-m", "gpt-4o,claude-sonnet-4-5")}
    # gpt-4o: Chat Completions takes a system prompt as a leading system message, by the documented rule
    assert as_flag["gpt-4o"]["input_tokens"] == as_message["gpt-4o"]["input_tokens"]
    assert as_flag["gpt-4o"]["exactness"] == as_message["gpt-4o"]["exactness"] == "documented"
    # Claude: the Messages API's own `system` field (no role markers), never called more than an estimate
    as_field = {r["model"]: r for r in _json("count", "--messages", str(_write(tmp_path, {
        "system": BODY["messages"][0]["content"], "messages": BODY["messages"][1:]})), "-m", "claude-sonnet-4-5")}
    assert as_flag["claude-sonnet-4-5"]["input_tokens"] == as_field["claude-sonnet-4-5"]["input_tokens"]
    assert as_flag["claude-sonnet-4-5"]["exactness"] == "estimate"


def test_responses_instructions_stay_an_estimate_that_says_so(tmp_path):
    path = _write(tmp_path, {"model": "gpt-4o", "instructions": "Be brief.", "input": "hello there"})
    row = _json("count", "--messages", str(path), "-m", "gpt-4o")[0]
    assert row["exactness"] == "estimate" and "instructions" in row["exactness_reason"]


def _write(tmp_path, data) -> str:
    path = tmp_path / f"b{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


# -- requests from the command line are not a log ------------------------------------------------
def test_a_request_body_is_reported_as_requests_not_log_rows(body):
    code, out, err = run("cost", "--messages", str(body), "-m", "gpt-4o,gpt-4o-mini", "--output-tokens", "100")
    assert code == 0, err
    assert f"requests: 1 request body ({body})" in out
    for logged in ("row(s) read", "log:", "logged period", "each logged request", "rows without a logged response",
                   "no timestamp", "whatever its timestamp"):
        assert logged not in out, logged
    assert "each request is assumed to produce 100 tokens of output" in out
    data = _json("cost", "--messages", str(body), "-m", "gpt-4o,gpt-4o-mini", "--output-tokens", "100")
    assert data["source"] == "requests" and data["log"] == f"1 request body ({body})"


def test_vs_served_is_against_the_model_the_body_names(body):
    data = _json("cost", "--messages", str(body), "-m", "gpt-4o,gpt-4o-mini", "--output-tokens", "100")
    models = {m["model"]: m for m in data["models"]}
    from decimal import Decimal
    served = Decimal(models["gpt-4o-mini"]["usd_total"])
    assert data["usd_as_served"] is not None and Decimal(data["usd_as_served"]) == served
    assert models["gpt-4o-mini"]["change_vs_served"] == 0
    assert models["gpt-4o"]["change_vs_served"] == pytest.approx(float(Decimal(models["gpt-4o"]["usd_total"]) / served - 1))
    assert any("gpt-4o" in h and "on the model each request names" in h for h in data["headlines"])
    # the same body through -f FILE.json
    again = _json("cost", "-f", str(body), "-m", "gpt-4o,gpt-4o-mini", "--output-tokens", "100")
    assert again["usd_as_served"] == data["usd_as_served"]


def test_texts_have_no_served_model_and_say_why_in_the_requests_words():
    data = _json("cost", "hello there", "--system", "Be brief.", "-m", "gpt-4o")
    assert data["log"] == "1 text(s), each one user message after the --system prompt"
    assert data["usd_as_served"] is None and data["served"] == []
    assert any(n.startswith("no vs served figure: no request names its model") for n in data["notes"])
    assert not any("in the log" in n for n in data["notes"])


def test_a_log_keeps_the_log_words(tmp_path):
    log = tmp_path / "q.txt"
    log.write_text("one\ntwo\n", encoding="utf-8")
    code, out, _ = run("cost", "--logs", str(log), "-m", "gpt-4o", "--output-tokens", "5")
    assert code == 0 and "log: 2 row(s) read" in out and "Total for the logged period" in out
    assert _json("cost", "--logs", str(log), "-m", "gpt-4o", "--output-tokens", "5")["source"] == "log"


# -- compare breaks two counts down by part -----------------------------------------------------
TEXT = 'def greet(name):\n    # Привет, мир\n    return "안녕하세요 " + name  # 2024\n'


def _parts(line: str) -> dict[str, tuple[int, int]]:
    """ "by script: Hang +10 (2 -> 12), Cyrl +8 (3 -> 11)" -> {"Hang": (2, 12), "Cyrl": (3, 11)}."""
    import re

    return {m[0]: (int(m[1]), int(m[2])) for m in re.findall(r"(\S+) [+-]\d+ \((\d+) -> (\d+)\)", line)}


def test_compare_of_two_tokenizers_breaks_the_change_down_by_part():
    from analysis import load_tokenizer

    code, out, err = run("compare", TEXT, "-t", "o200k_base,gpt2")
    assert code == 0, err
    a, b = (len(load_tokenizer(n).encode(TEXT)) for n in ("o200k_base", "gpt2"))
    assert f"o200k_base -> gpt2: {b - a:+d} tokens ({a} -> {b})" in out
    lines = {l.split(":", 1)[0].strip(): l for l in out.splitlines() if l.startswith("  by ")}
    scripts = _parts(lines["by script"])
    assert scripts["Hang"][1] > scripts["Hang"][0] and scripts["Cyrl"][1] > scripts["Cyrl"][0]
    # every part that changes is listed, so the changes add up to the whole change
    for kind in ("by class", "by script"):
        assert sum(after - before for before, after in _parts(lines[kind]).values()) == b - a
    assert max(_parts(lines["by line"]).items(), key=lambda kv: kv[1][1] - kv[1][0])[0] in ("2", "3")


def test_compare_by_part_with_more_tokenizers_and_not_in_json():
    code, out, _ = run("compare", "hello 2024 мир", "-t", "o200k_base,gpt2,cl100k_base")
    assert code == 0 and "by class" not in out  # three tokenizers: only when asked
    code, out, _ = run("compare", "hello 2024 мир", "-t", "o200k_base,gpt2,cl100k_base", "--by-part")
    assert "o200k_base -> gpt2:" in out and "o200k_base -> cl100k_base:" in out
    code, out, _ = run("compare", "hello 2024 мир", "-t", "o200k_base,gpt2", "--format", "json")
    assert [r["tokenizer"] for r in json.loads(out)] == ["o200k_base", "gpt2"]  # the JSON rows are unchanged


# -- every table fits 120 columns; --wide shows it whole ----------------------------------------
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("tables")
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "en.txt").write_text("Hello world, this is a text of a few words.\n", encoding="utf-8")
    deep = root / ("a_long_folder_name_" * 4) / ("another_long_folder_" * 3)
    deep.mkdir(parents=True)
    (deep / "a.py").write_text(TEXT, encoding="utf-8")
    return {"corpus": str(corpus), "src": str(root)}


# (argv, whether the table is wider than 120 columns when not wrapped)
TABLES = [
    (("tokenizers",), True),
    (("vocab", "list"), False),
    (("compare", "hello there"), False),
    (("compare", "hello there", "-m", "gpt-4o,claude-sonnet-4-5,gemini-2.5-flash"), False),
    (("compare", TEXT, "-t", "o200k_base,gpt2"), False),
    (("count", "hello there", "-m", "gpt-4o,claude-sonnet-4-5,gemini-2.5-flash"), False),
    (("corpus", "list", "--samples"), False),
    (("corpus", "list", "--system"), False),
    (("corpus", "stats"), False),
    (("probe",), False),
    (("probe", "digit-grouping"), True),
    (("measure", "{corpus}"), False),  # wider only with the fetched vocabularies
    (("diff", "-f", "{src}", "--glob", "**/*.py", "--from", "o200k_base", "--to", "gpt2"), True),
]


@pytest.mark.parametrize("argv,wider", TABLES, ids=[" ".join(a[:2]) for a, _ in TABLES])
def test_every_table_fits_120_columns_unless_wide(argv, wider, files):
    argv = tuple(a.format(**files) for a in argv)
    code, out, err = run(*argv)
    assert code == 0, err
    # (diff's heading of each file's first cut is a sentence, with the whole path)
    lines = [l for l in out.splitlines() if ": first different cut at" not in l]
    assert max(map(len, lines)) <= 120, [l for l in lines if len(l) > 120]
    if wider:
        code, wide, _ = run(*argv, "--wide")
        assert max(map(len, wide.splitlines())) > 120
        if "\\" in out:  # wrapped, not cut: every cell of the wide table is still there
            words = lambda t: sorted(w for w in t.split() if w != "\\")  # noqa: E731
            assert words(out) == words(wide)
