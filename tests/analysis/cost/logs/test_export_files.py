"""`cost.logs.export_files`: which export a file is, and its items out of every container, alike.

The meaning of an item (its model, parts and cost) is `exports`' and tested in test_exports.py;
here only the finding: the same items whatever the container, in order, each with where it was.
"""

from __future__ import annotations

import gzip
import json

import pytest

from analysis.cost.logs.export_files import EXPORT_SHAPES, buckets, detect_export, export_items
from analysis.errors import BadInput
from analysis.textio.lines import LineBounds

OBSERVATIONS = [
    {"id": f"obs-{i}", "type": "GENERATION", "provided_model_name": "gpt-4o-mini",
     "usage_details": {"input": 100 * i, "output": i}, "input": [{"role": "user", "content": f"q{i}"}]}
    for i in range(1, 4)
]


def _items(path, shape="langfuse"):
    return list(export_items(path, shape, LineBounds.from_env()))


def test_the_same_items_whatever_the_container(tmp_path):
    files = {
        "array.json": json.dumps(OBSERVATIONS),
        "page.json": json.dumps({"data": OBSERVATIONS, "meta": {"page": 1}}),
        "rows.jsonl": "\n".join(json.dumps(o) for o in OBSERVATIONS) + "\n\n",  # a blank line is passed over
        "pages.jsonl": json.dumps({"data": OBSERVATIONS[:2]}) + "\n" + json.dumps({"data": OBSERVATIONS[2:]}) + "\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    with gzip.open(tmp_path / "array.json.gz", "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(OBSERVATIONS))
    for name in [*files, "array.json.gz"]:
        found = _items(tmp_path / name)
        assert [item for _, item in found] == OBSERVATIONS, name
        assert all(where.startswith(str(tmp_path / name)) for where, _ in found), name
    assert [w.rsplit(":", 1)[1] for w, _ in _items(tmp_path / "array.json")] == ["item 1", "item 2", "item 3"]
    assert [w.rsplit(":", 1)[1] for w, _ in _items(tmp_path / "pages.jsonl")] == ["1 item 1", "1 item 2", "2 item 1"]


def test_csv_cells_that_hold_json_are_read_as_json_and_the_rest_stays_text(tmp_path):
    path = tmp_path / "obs.csv"
    path.write_text('id,usage_details,input,name\n'
                    'a,"{""input"": 5, ""output"": 1}","[not json",\n', encoding="utf-8")
    [(where, row)] = _items(path)
    assert where == f"{path}:line 2"
    assert row == {"id": "a", "usage_details": {"input": 5, "output": 1}, "input": "[not json", "name": None}
    path.write_text("id,usage_details\na,{},extra\n", encoding="utf-8")
    with pytest.raises(BadInput, match="more cells than the header"):
        _items(path)


def test_otel_spans_from_one_document_or_one_per_line(tmp_path):
    def doc(names):
        return {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": n} for n in names[:1]]},
                                                  {"spans": [{"name": n} for n in names[1:]]}]}]}

    (tmp_path / "trace.json").write_text(json.dumps(doc(["a", "b", "c"])), encoding="utf-8")
    (tmp_path / "trace.jsonl").write_text(json.dumps(doc(["a", "b"])) + "\n" + json.dumps(doc(["c"])) + "\n",
                                          encoding="utf-8")
    for name in ("trace.json", "trace.jsonl"):
        assert [span["name"] for _, span in _items(tmp_path / name, "otel")] == ["a", "b", "c"], name
        assert detect_export(tmp_path / name) == "otel"


def test_a_report_bucket_gives_each_result_with_the_bucket_start():
    bucket = {"start_time": 1_700_000_000, "end_time": 1_700_086_400,
              "results": [{"model": "gpt-4o", "input_tokens": 5}, {"model": "gpt-4o-mini", "input_tokens": 7}]}
    assert list(buckets("f:item 1", bucket)) == [
        ("f:item 1 result 1", {"start_time": 1_700_000_000, "model": "gpt-4o", "input_tokens": 5}),
        ("f:item 1 result 2", {"start_time": 1_700_000_000, "model": "gpt-4o-mini", "input_tokens": 7}),
    ]
    assert list(buckets("f:3", {"model": "x"})) == [("f:3", {"model": "x"})]  # not a bucket: the item itself


def test_detection_reads_the_first_64_kB_only_and_names_the_fix_of_a_bad_file(tmp_path):
    late = tmp_path / "late.jsonl"
    late.write_text(json.dumps({"pad": "x" * 70_000}) + "\n" + json.dumps(OBSERVATIONS[0]) + "\n", encoding="utf-8")
    early = tmp_path / "early.jsonl"
    early.write_text(json.dumps(OBSERVATIONS[0]) + "\n" + json.dumps({"pad": "x" * 70_000}) + "\n", encoding="utf-8")
    assert detect_export(early) == "langfuse"
    assert detect_export(late) is None  # its only marker lies past the head: read as a request log
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(gzip.compress(json.dumps(OBSERVATIONS).encode())[:40])
    with pytest.raises(BadInput, match="damaged gzip file.*export it again"):
        detect_export(broken)
    text = tmp_path / "notes.txt"
    text.write_text("model,usage\n", encoding="utf-8")
    with pytest.raises(BadInput, match="neither JSON nor CSV.*name a CSV file .csv"):
        _items(text)
    assert set(EXPORT_SHAPES) >= {"otel", "langfuse", "openai-usage", "anthropic-cost"}
