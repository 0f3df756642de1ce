"""AppTest fixtures: the app started from its entrypoint, caches emptied between tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[2] / "dashboards" / "streamlit_app.py"
# The first run of a test process loads every bundled vocabulary (several seconds).
TIMEOUT = 120


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
