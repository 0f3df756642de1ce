"""No package is left out of the wheel: setuptools' own discovery, run over the tree, must find
nothing that `pyproject.toml` does not list.

pyproject lists its packages instead of discovering them, because discovery cannot install
`datasets/` (data only, no `__init__.py`) under the distinct name `tokenprism_datasets`. This test
gives the list the guarantee discovery would: a new sub-package fails here until it is listed.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
from setuptools import find_packages

from tests.analysis.installed_wheel import (build_wheel, check_runs_outside_the_checkout, link_distributions,
                                            requirement_closure, site_packages)

REPO = Path(__file__).resolve().parents[2]


def _listed() -> set[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return set(config["tool"]["setuptools"]["packages"])


def test_every_package_on_disk_is_listed_for_the_wheel():
    found = set(find_packages(where=str(REPO), include=["analysis*", "ownbpe*", "dashboards*"]))
    assert "analysis.cost" in found
    assert "analysis.tokenizers" in found
    missing = sorted(found - _listed())
    assert missing == [], f"add {missing} to [tool.setuptools] packages in pyproject.toml"


def test_every_listed_package_exists():
    listed = _listed() - {"tokenprism_datasets"}
    absent = sorted(p for p in listed if not (REPO / p.replace(".", "/") / "__init__.py").is_file())
    assert absent == [], f"pyproject lists {absent}, which are not packages"
    assert (REPO / "datasets" / "manifest.toml").is_file()  # what tokenprism_datasets installs


def test_a_planted_package_would_be_found(tmp_path):
    (tmp_path / "analysis" / "newroom").mkdir(parents=True)
    (tmp_path / "analysis" / "__init__.py").write_text("")
    (tmp_path / "analysis" / "newroom" / "__init__.py").write_text("")
    assert "analysis.newroom" in find_packages(where=str(tmp_path), include=["analysis*"])


@pytest.mark.slow
def test_the_wheel_builds_without_warnings_and_holds_every_data_file(tmp_path):
    """A fresh install must not look broken: setuptools once printed a BuildBackendWarning per
    datasets/ sub-folder (about 800 lines). The wheel holds every tracked data file."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path), str(REPO)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Warning" not in done.stdout + done.stderr
    (wheel,) = tmp_path.glob("tokenprism-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    data = [p for p in (REPO / "datasets").rglob("*") if p.is_file()]
    absent = [p for p in data if "tokenprism_datasets/" + p.relative_to(REPO / "datasets").as_posix() not in names]
    assert data and absent == []
    for name in ("analysis/models/models.toml", "analysis/data/ownbpe-builtin.model", "dashboards/.streamlit/config.toml",
                 "analysis/py.typed"):
        assert name in names


def test_wheel_installs_and_runs_outside_the_checkout(tmp_path):
    """The wheel, installed (--no-deps) in a fresh venv beside exactly the distributions it
    requires, taken from this environment: its declared dependencies suffice to run the command
    and import every module, outside the checkout, and nothing else is there (pytest and hypothesis are not importable).
    Offline and a few seconds; `tokenizers/test_fetch.py` has the slow twin, whose pip resolves
    and installs the dependencies from the index (`--runslow`, network: about 90 s)."""
    wheel = build_wheel(tmp_path)
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(py), "--disable-pip-version-check"]  # this pip, for that venv
    proc = subprocess.run([*pip, "install", "-q", "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    dependencies = requirement_closure(wheel)
    assert {"tiktoken", "pandas", "streamlit", "fastapi", "distributed"} <= set(dependencies)  # dask[distributed] followed
    link_distributions(dependencies, site_packages(env_dir))
    proc = subprocess.run([*pip, "check"], capture_output=True, text=True)  # every requirement met, at its version
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    check_runs_outside_the_checkout(env_dir, tmp_path)
