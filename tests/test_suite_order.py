"""The suite's own arrangement (tests/conftest.py): the network tests run first, so the wheel one
of them fetches serves the tests that need it in the same run, and the run says up front what it
skips."""

from __future__ import annotations

from types import SimpleNamespace

from tests import conftest


class _Config:
    def __init__(self, runslow: bool = False, markexpr: str = "") -> None:
        self.options = {"--runslow": runslow, "markexpr": markexpr}

    def getoption(self, name, default=None):
        return self.options.get(name, default)


def _item(name: str, *marks: str) -> SimpleNamespace:
    item = SimpleNamespace(name=name, keywords=set(marks), markers=[])
    item.add_marker = item.markers.append
    return item


def test_network_tests_come_first_and_the_rest_keep_their_order():
    items = [_item("uses_gemma3"), _item("a"), _item("fetch_wheel", "network"), _item("b", "slow"),
             _item("fetch_llama", "network")]
    conftest.pytest_collection_modifyitems(_Config(), items)
    assert [i.name for i in items] == ["fetch_wheel", "fetch_llama", "uses_gemma3", "a", "b"]
    assert items[-1].markers and not items[0].markers  # slow still skipped without --runslow


def test_the_header_says_what_is_skipped_and_why():
    lines = conftest.pytest_report_header(_Config())
    assert any("slow" in line and "--runslow" in line for line in lines)
    assert any(line.startswith("network tests run first") for line in lines)
    offline = conftest.pytest_report_header(_Config(runslow=True, markexpr="not network"))
    assert not any("slow" in line for line in offline)
    assert any("gemma3" in line and "cache" in line for line in offline)
