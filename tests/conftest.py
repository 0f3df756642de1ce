"""Shared fixtures and options: `--runslow`, the `network` marker, and where ../shared is."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

# Tests never depend on what the user has fetched. The autouse fixture below isolates each test's
# data dir; this isolates collection too, where tests are parametrised by the tokenizers
# available: without it, a vocabulary in the user's real data dir (after `tokenprism vocab fetch
# llama3`) made a test that the isolated test body could not run.
if "TOKENPRISM_TEST_REAL_DATA_DIR" not in os.environ:
    _COLLECTION_DATA_DIR = tempfile.mkdtemp(prefix="tokenprism-collect-")
    os.environ["TOKENPRISM_DATA_DIR"] = _COLLECTION_DATA_DIR
    atexit.register(shutil.rmtree, _COLLECTION_DATA_DIR, ignore_errors=True)


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"../shared not present ({SHARED}): it holds external reference data for tests")
    return SHARED


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory, monkeypatch):
    """Never touch the user's fetched vocabularies unless a test points elsewhere on purpose."""
    if "TOKENPRISM_TEST_REAL_DATA_DIR" not in os.environ:
        monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path_factory.getbasetemp() / "tokenprism-data"))
