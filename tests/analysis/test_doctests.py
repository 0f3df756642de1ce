"""The `>>>` examples in analysis' docstrings run and hold (every module that has one)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import analysis

MODULES = sorted(
    {"analysis"}
    | {m.name for m in pkgutil.walk_packages(analysis.__path__, "analysis.") if not m.name.endswith("__main__")}
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"


def test_examples_exist():
    # the examples `testmod` would attempt, found as it finds them (the tests above run them)
    finder = doctest.DocTestFinder()
    found = sum(len(t.examples) for n in MODULES for t in finder.find(importlib.import_module(n)))
    assert found > 50
