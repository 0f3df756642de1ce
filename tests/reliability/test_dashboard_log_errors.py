"""The dashboard's log view answers a bad log as the CLI does (finding 3 of the fifth audit).

It caught only ValueError and KeyError, so a timestamp that overflowed moving to UTC, or a usage
beyond 64 bits, raised on the page. The library now reads those as bad rows (a refusal naming the
row, exit 2 in the CLI), and the page catches the library's refusals (`errors.REFUSALS`) as the CLI
does, and anything else as one line that says it is a bug, never a traceback.
"""

from __future__ import annotations

import json

import pytest

from tests.dashboards.conftest import open_page
from tests.reliability.test_log_rows_bounded import GOOD, _with_usage

PAGE = "app_pages/cost.py"


@pytest.mark.parametrize("row", [dict(GOOD, timestamp="0001-01-01T00:00:00+14:00"), _with_usage(2**63)],
                         ids=["timestamp-overflows-utc", "usage-2^63"])
def test_log_view_refuses_a_bad_row_by_name_without_an_exception(row):
    data = "".join(json.dumps(r) + "\n" for r in (GOOD, row)).encode()
    at = open_page(PAGE)
    at.segmented_control(key="cost_source").set_value("Chat log").run()
    at.file_uploader(key="cost_log").set_value(("bad.jsonl", data, "application/jsonl"))
    at.multiselect(key="cost_log_models").set_value(["openai:gpt-4o"]).run()
    assert not at.exception, at.exception
    errors = " ".join(e.value for e in at.error)
    assert "bad.jsonl" in errors and ("timestamp" in errors or "usage" in errors), errors
    assert "Internal error" not in errors
