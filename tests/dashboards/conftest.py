"""AppTest fixtures: the app started from its entrypoint, caches emptied between tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "dashboards" / "streamlit_app.py"
# The first run of a test process loads every bundled vocabulary (several seconds).
TIMEOUT = 120


def _scan_installed_components_once() -> None:
    """Every new AppTest scans the metadata of every installed distribution for Streamlit
    components (`scan_component_manifests`, about 0.3-0.8 s with this project's ~150 packages) before
    its first run. What is installed does not change during a test run: the scan runs once and each
    AppTest still registers what it found on its own component manager. Skipped (each AppTest
    scans, as before) if a Streamlit version moves the function."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:
        return
    scan = getattr(manifest_scanner, "scan_component_manifests", None)
    if scan is None or getattr(scan, "_tokenprism_once", False):
        return
    found: list = []

    def scan_once(*args, **kwargs):
        if not found:
            found.append(list(scan(*args, **kwargs)))
        return list(found[0])

    scan_once._tokenprism_once = True
    manifest_scanner.scan_component_manifests = scan_once


# once this module is imported: by every test under tests/dashboards, and the reliability tests using its helpers
_scan_installed_components_once()


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    """Caches outlive an AppTest within one process (streamlit/streamlit#9139): start clean."""
    st.cache_data.clear()
    st.cache_resource.clear()
    yield


def open_page(page: str | None = None) -> AppTest:
    """Run the app from its entrypoint, then switch to `page` (e.g. "app_pages/why.py")."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    if page:
        at.switch_page(page).run()
        assert not at.exception, at.exception
    return at


def open_link(page: str, params: dict[str, str | list[str]]) -> AppTest:
    """Open `page` the way a link does: its first run already has the URL's query parameters."""
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def as_read(markdown: str) -> str:
    """A message as the reader sees it: Markdown's backslash escapes (`analysis.render.markdown_text`) taken out."""
    return re.sub(r"\\(.)", r"\1", markdown)


def vega_charts(at: AppTest) -> list[tuple[dict, list[pd.DataFrame]]]:
    """(spec, datasets) of every Vega-Lite chart on the page, datasets decoded from Arrow."""
    found = []
    for element in at.get("vega_lite_chart"):
        datasets = [pa.ipc.open_stream(d.data.data).read_pandas() for d in element.proto.datasets]
        found.append((json.loads(element.proto.spec), datasets))
    return found
