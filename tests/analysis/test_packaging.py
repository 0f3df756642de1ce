"""No package is left out of the wheel: setuptools' own discovery, run over the tree, must find
nothing that `pyproject.toml` does not list.

pyproject lists its packages instead of discovering them, because discovery cannot install
`datasets/` (data only, no `__init__.py`) under the distinct name `tokenprism_datasets`. This test
gives the list the guarantee discovery would: a new sub-package fails here until it is listed.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from setuptools import find_packages

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
