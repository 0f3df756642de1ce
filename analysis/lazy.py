"""A package's re-exported names, imported on first use (PEP 562 `__getattr__`).

Unlike `atomic` or `errors`, which do work, this module only defers it: a package lists which
of its modules defines each public name, and `import analysis.cost` then costs a dictionary
instead of pandas, prices and log readers. A command imports what it touches and nothing more,
which is what keeps `tokenprism --help` and `tokenprism compare` quick (the import test in
tests/analysis/test_imports.py pins it). Each package also names the same imports under
`TYPE_CHECKING`, so type checkers and the architecture test still see them.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from typing import Any


class _Package(types.ModuleType):
    """A package whose lazy names keep their meaning when a submodule of the same name loads.

    Importing `pkg.resolve` sets the attribute `pkg.resolve` to that module, which would hide a
    lazily exported function `resolve` (its `__getattr__` is asked only for missing names). The
    eager `from .resolve import resolve` used to win; here the export wins the same way.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        names = self.__dict__.get("_LAZY_EXPORTS", {})
        if isinstance(value, types.ModuleType) and name in names and value.__name__ == f"{self.__name__}.{name}":
            value = getattr(importlib.import_module(names[name], self.__name__), name)
        super().__setattr__(name, value)


def lazy_exports(package: str, names: dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`(__getattr__, __dir__)` for `package`, resolving `names` ({name: relative module}) on use.

    A resolved name is stored in the package's namespace, so the second look-up is a plain
    attribute read.
    """
    module = sys.modules[package]
    module._LAZY_EXPORTS = names  # type: ignore[attr-defined]
    module.__class__ = _Package

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *names})

    return __getattr__, __dir__
