"""The export readers (OpenTelemetry, Langfuse, Helicone, LiteLLM, OpenAI and Anthropic reports) against
the regression fixtures of tests/fixtures/export_logs, each with its bill computed by hand."""

from __future__ import annotations

import gzip
import json
import tomllib
import tracemalloc
from decimal import Decimal
from pathlib import Path

import pytest

from analysis.cost.logs.export_bill import EXACT, REPRICED, bill_of_rows
from analysis.cost.logs.export_rules import rules
from analysis.cost.logs.export_files import EXPORT_SHAPES, detect_export
from analysis.cost.logs.exports import iter_export_rows, read_export_rows
from analysis.errors import BadInput

FIXTURES = Path(__file__).parents[3] / "fixtures" / "export_logs"
MANIFEST = tomllib.loads((FIXTURES / "expected.toml").read_text(encoding="utf-8"))["fixture"]


def test_at_least_25_fixtures_each_with_its_source_and_arithmetic():
    assert len(MANIFEST) >= 25
    for case in MANIFEST:
        assert (FIXTURES / case["file"]).is_file(), case["file"]
        assert case["comes_from"] and case["arithmetic"], case["file"]
    assert {case["shape"] for case in MANIFEST} == set(EXPORT_SHAPES)


@pytest.mark.parametrize("case", MANIFEST, ids=[c["file"] for c in MANIFEST])
def test_fixture_bill(case):
    files = [FIXTURES / case["file"]] + ([FIXTURES / case["with"]] if "with" in case else [])
    rows, report = read_export_rows(files)
    assert report.shapes[str(FIXTURES / case["file"])] == case["shape"]
    bill = bill_of_rows(rows)
    assert bill.total == Decimal(case["expected_usd"])
    assert bill.rows == case["rows"]
    if "requests" in case:
        assert bill.requests == case["requests"]
    if "own_cost_usd" in case:
        assert bill.own_total == Decimal(case["own_cost_usd"])
    assert len(bill.differences) == bill.n_differences == case.get("differences", 0)
    if "why" in case:
        assert case["why"] in bill.differences[0].why
    if "unknown_model" in case:
        unknown = bill.unknown[case["unknown_model"]]
        assert (unknown.rows, unknown.tokens) == (case["unknown_rows"], case["unknown_tokens"])
        assert case["unknown_model"] in bill.headline() and f"{case['unknown_tokens']:,} tokens" in bill.headline()
    else:
        assert not bill.unknown
    assert report.n_skipped == case.get("skipped", 0)
    assert sum(r.record is not None for r in rows) == case.get("with_content", 0)
    if case.get("aggregate") or case.get("with_content", 0) < case["rows"]:
        assert bill.exactness == REPRICED and "re-priced, not recounted" in bill.headline()
    else:
        assert bill.exactness == EXACT
    if "note" in case:
        assert any(case["note"] in note for note in bill.notes)


def test_otel_and_anthropic_meanings_give_one_bill():
    """The same request as an OTel span (input holds the cache) and an Anthropic report row (input excludes it)."""
    otel = bill_of_rows(read_export_rows(FIXTURES / "otel-input-includes-cache.json")[0])
    anthropic = bill_of_rows(read_export_rows(FIXTURES / "anthropic-usage-input-excludes-cache.json")[0])
    assert otel.total == anthropic.total == Decimal("0.016125")
    assert otel.models["claude-sonnet-4-20250514"].parts == anthropic.models["claude-sonnet-4-20250514"].parts


def test_a_report_day_is_not_priced_as_one_long_request():
    """1,000,000 tokens in a day's 0-200k bucket stay at the base rate (as billed per request)."""
    bill = bill_of_rows(read_export_rows(FIXTURES / "anthropic-usage-context-window.json")[0])
    assert bill.total == Decimal("6.975")


def test_a_report_is_re_priced_at_the_tier_of_its_context_window():
    bill = bill_of_rows(read_export_rows(FIXTURES / "anthropic-usage-context-window.json")[0],
                        targets=["claude-sonnet-4-5", "gemini-2.5-pro"])
    # gemini-2.5-pro: 1,000,000 x 1.25 + 50,000 x 10 = 1,750,000; 500,000 x 2.5 + 10,000 x 15 = 1,400,000 per million
    assert bill.targets == {"claude-sonnet-4-5": Decimal("6.975"), "gemini-2.5-pro": Decimal("3.15")}


def test_unknown_model_is_named_on_every_output_never_zero():
    bill = bill_of_rows(read_export_rows(FIXTURES / "litellm-35913-unknown-model.csv")[0])
    data = bill.to_dict()
    assert data["unknown_models"] == [{"model": "acme-internal-router-v7", "rows": 4, "tokens": 37_400_000,
                                       "own_cost_usd": "1.16"}]
    assert any("acme-internal-router-v7" in w and "37,400,000 tokens" in w for w in data["warnings"])
    assert "WARNING" in data["headline"] and "NOT PRICED" in bill.text()
    assert "acme-internal-router-v7" not in {m["model"] for m in data["models"]}
    # its parts are still re-priced under a target: 36,000,000 x 0.15 + 1,400,000 x 0.6 + the known row's 2,100 per million
    repriced = bill_of_rows(read_export_rows(FIXTURES / "litellm-35913-unknown-model.csv")[0], targets=["gpt-4o-mini"])
    assert repriced.targets == {"gpt-4o-mini": Decimal("6.2421")}


def test_retarget_reprices_parts_without_recounting():
    bill = bill_of_rows(read_export_rows(FIXTURES / "openai-usage-buckets.json")[0], targets=["gpt-4o-mini"])
    # day 1: 200,000 x 0.15 + 800,000 x 0.075 + 50,000 x 0.6 = 30,000 + 60,000 + 30,000; day 2: 400,000 x 0.15 + 20,000 x 0.6
    assert bill.targets == {"gpt-4o-mini": Decimal("0.192")}
    assert "re-priced, not recounted" in bill.text()


def test_differences_are_all_counted_and_the_largest_listed(tmp_path):
    from analysis.cost.logs.export_bill import LISTED

    path = tmp_path / "obs.jsonl"
    rows = [{"type": "GENERATION", "provided_model_name": "gpt-4o", "start_time": "2026-11-20 10:30:00",
             "usage_details": {"input": 1000, "output": 100}, "cost_details": {"total": 0.01 + i / 1000}}
            for i in range(LISTED + 20)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    bill = bill_of_rows(read_export_rows(path)[0])  # each row: 1,000 x 2.5 + 100 x 10 = 3,500 per million
    assert bill.total == Decimal("0.0035") * len(rows)
    assert bill.n_differences == len(rows) and len(bill.differences) == LISTED
    assert bill.differences[0].theirs == Decimal("0.01") + Decimal(len(rows) - 1) / 1000
    assert f"{len(rows):,} differ" in bill.headline() and f"the {LISTED} largest" in bill.text()


def test_detection_and_forcing(tmp_path):
    for case in MANIFEST:
        assert detect_export(FIXTURES / case["file"]) == case["shape"], case["file"]
    request_log = tmp_path / "chat.jsonl"
    request_log.write_text('{"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}\n')
    assert detect_export(request_log) is None
    with pytest.raises(BadInput, match="not an export this reads"):
        list(iter_export_rows(request_log))
    with pytest.raises(BadInput, match="unknown export shape"):
        list(iter_export_rows(request_log, shape="splunk"))
    # forced: the OTel fixture read as OTel whatever its name says
    renamed = tmp_path / "spans.data.json"
    renamed.write_bytes((FIXTURES / "otel-no-content.json").read_bytes())
    assert len(list(iter_export_rows(renamed, shape="otel"))) == 1


def test_otel_content_in_either_convention(tmp_path):
    """Content as gen_ai.input/output.messages (current) or gen_ai.prompt.N.* attributes (earlier)."""
    def span(attrs):
        return {"name": "chat", "startTimeUnixNano": "1795257000000000000", "attributes": [
            {"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
            for k, v in attrs.items()]}
    usage = {"gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 20, "gen_ai.usage.output_tokens": 5}
    current = {**usage, "gen_ai.system_instructions": "Be brief.",
               "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Where is my order?"}]}]),
               "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Tomorrow."}]}])}
    earlier = {**usage, "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "Be brief.",
               "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": "Where is my order?",
               "gen_ai.completion.0.content": "Tomorrow."}
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span(a)]}]}]}) + "\n"
                            for a in (current, earlier)))
    rows, _ = read_export_rows(path)
    for row in rows:
        request = row.record.request
        texts = [m.text for m in request.messages]
        assert "Where is my order?" in texts[-1] and row.record.response == "Tomorrow."
        assert (request.system or "") + "".join(texts) != "" and "Be brief." in (request.system or texts[0])


def test_a_bad_count_names_the_row_and_skip_counts_it(tmp_path):
    path = tmp_path / "obs.jsonl"
    good = {"type": "GENERATION", "provided_model_name": "gpt-4o", "usage_details": {"input": 10, "output": 1}}
    bad = {"type": "GENERATION", "provided_model_name": "gpt-4o", "usage_details": {"input": "ten", "output": 1}}
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(BadInput, match=r"obs.jsonl:2: .*input .*non-negative whole number"):
        list(iter_export_rows(path, shape="langfuse"))
    rows, report = read_export_rows(path, errors="skip")
    assert len(rows) == 1 and report.n_skipped == 1


def test_contradicting_reasoning_is_refused(tmp_path):
    path = tmp_path / "spend.json"
    path.write_text(json.dumps([{"spend": 0.1, "startTime": "2026-11-20T10:00:00Z", "model": "o3", "prompt_tokens": 10,
                                 "completion_tokens": 5, "metadata": {"usage_object": {
                                     "prompt_tokens": 10, "completion_tokens": 5,
                                     "completion_tokens_details": {"reasoning_tokens": 9}}}}]))
    with pytest.raises(BadInput, match="9 reasoning tokens cannot be inside an output of 5"):
        list(iter_export_rows(path))


def test_rules_name_their_sources():
    for shape, rule in rules().items():
        assert rule.source.startswith("https://"), shape
        assert rule.why and rule.checked, shape
    assert set(rules()) == set(EXPORT_SHAPES)


def _langfuse_array(path: Path, n: int) -> None:
    item = {"id": "o", "type": "GENERATION", "startTime": "2026-11-20T10:30:00Z", "model": "gpt-4o-mini",
            "usageDetails": {"input": 1000, "output": 50}, "costDetails": {"total": 0.00018},
            "input": [{"role": "user", "content": "x" * 200}]}
    with gzip.open(path, "wt") as fh:
        fh.write("[\n" + ",\n".join(json.dumps(item) for _ in range(n)) + "\n]\n")


def test_a_json_array_is_read_in_flat_memory(tmp_path):
    """Ten times the rows of a JSON array do not take ten times the memory (read item by item)."""
    peaks = []
    for n in (300, 3_000):
        path = tmp_path / f"obs{n}.json.gz"
        _langfuse_array(path, n)
        tracemalloc.start()
        count = sum(1 for _ in iter_export_rows(path))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert count == n
    assert peaks[1] < 2 * peaks[0]


# -- the command line and the page of formats -------------------------------------------------------
def _doc_examples() -> list[tuple[str, str, str | None]]:
    """(shape, example row, its bill) of each export shape in docs/formats.md."""
    import re

    page = (Path(__file__).parents[4] / "docs" / "formats.md").read_text(encoding="utf-8")
    found = re.findall(r"#### `([a-z-]+)`[^\n]*\n((?:(?!####).)*?)```export\n(.*?)\n```", page, flags=re.S)
    out = []
    for shape, prose, row in found:
        usd = re.search(r"The example is \$([0-9.,]+)", prose.replace("\n", " "))
        out.append((shape, row, usd.group(1).replace(",", "") if usd else None))
    return out


def test_every_export_shape_has_an_example_in_formats_md_priced_as_it_says(tmp_path):
    examples = _doc_examples()
    assert {shape for shape, _, _ in examples} == set(EXPORT_SHAPES)
    for shape, row, usd in examples:
        path = tmp_path / f"{shape}.jsonl"
        path.write_text(row + "\n", encoding="utf-8")
        assert detect_export(path) == shape
        rows, _ = read_export_rows(path)
        assert rows, shape
        if usd is not None:
            assert bill_of_rows(rows).total == Decimal(usd), shape


@pytest.fixture
def cli(capsys):
    from analysis.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err
    return run


def test_cost_logs_reads_an_export_and_names_an_unknown_model_on_every_output(tmp_path, cli):
    log = str(FIXTURES / "litellm-35913-unknown-model.csv")
    code, out, err = cli("cost", "--logs", log)
    headline = " ".join(out.split("\nexactness:")[0].splitlines())  # the headline wraps to the width
    assert code == 0 and "acme-internal-router-v7" in out and "37,400,000 tokens" in headline
    assert max(map(len, out.splitlines())) <= 100
    assert "NOT PRICED" in out and "warning:" in err
    code, out, _ = cli("cost", "--logs", log, "--format", "json")
    data = json.loads(out)
    assert data["unknown_models"][0]["tokens"] == 37_400_000 and "WARNING" in data["headline"]
    code, _, err = cli("cost", "--logs", log, "--out", str(tmp_path / "report"))
    assert code == 0
    for name in ("report.md", "report.html", "report.json"):
        text = (tmp_path / "report" / name).read_text(encoding="utf-8")
        assert "acme-internal-router-v7" in text and "37,400,000 tokens" in text, name


def test_cost_logs_export_refusals(cli):
    code, _, err = cli("cost", "--logs", str(FIXTURES / "otel-no-content.json"),
                        str(FIXTURES.parent / "logs" / "openai_chat.jsonl"))
    assert code == 2 and "separate runs" in err
    code, _, err = cli("cost", "--logs", str(FIXTURES / "otel-no-content.json"), "--requests-per-lifetime", "5")
    assert code == 2 and "not recounted" in err
    code, _, err = cli("cost", "--logs", str(FIXTURES / "openai-costs.json"))
    assert code == 2 and "give it with the usage report" in err
    code, _, err = cli("cost", "--logs", str(FIXTURES.parent / "logs" / "chat.csv"), "--shape", "otel")
    assert code == 2 and "no row holds token counts" in err and "--log-format SHAPE" in err
    code, out, _ = cli("cost", "--logs", str(FIXTURES / "otel-no-content.json"), "--shape", "otel", "--format", "csv")
    assert code == 0 and out.splitlines()[1].startswith("gpt-4o-mini,1,1,2100,0.00036")
