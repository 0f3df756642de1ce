"""Each package's two lists of its public names agree: the `_LAZY` map that `analysis.lazy`
resolves at run time, and the `TYPE_CHECKING` imports that type checkers and the architecture
test read. A name in one list only is a name that mypy sees but `import` fails on, or the reverse."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "analysis"
PACKAGES = sorted(p for p in ROOT.rglob("__init__.py") if "lazy_exports(" in p.read_text(encoding="utf-8"))


def _typed(tree: ast.Module) -> set[tuple[str, str]]:
    """(name, ".module") of the imports under `if TYPE_CHECKING:`."""
    out: set[tuple[str, str]] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom), ast.dump(imp)
                module = "." * imp.level + (imp.module or "")
                out |= {(alias.asname or alias.name, module) for alias in imp.names}
    return out


def _lazy(tree: ast.Module) -> set[tuple[str, str]]:
    """(name, ".module") of the `_LAZY` map, written as `**dict.fromkeys((names...), '.module')` entries."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in targets):
            assert isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict)
            out: set[tuple[str, str]] = set()
            for key, value in zip(node.value.keys, node.value.values):
                if key is None:  # **dict.fromkeys(names, module)
                    assert isinstance(value, ast.Call) and len(value.args) == 2, ast.dump(value)
                    names, module = ast.literal_eval(value.args[0]), ast.literal_eval(value.args[1])
                    out |= {(name, module) for name in names}
                else:
                    out.add((ast.literal_eval(key), ast.literal_eval(value)))
            return out
    raise AssertionError("no _LAZY map")


def test_there_are_lazy_packages():
    assert len(PACKAGES) >= 10, PACKAGES


@pytest.mark.parametrize("init", PACKAGES, ids=lambda p: str(p.parent.relative_to(ROOT.parent)))
def test_the_lazy_map_and_the_typed_imports_list_the_same_names(init):
    tree = ast.parse(init.read_text(encoding="utf-8"))
    typed, lazy = _typed(tree), _lazy(tree)
    assert not typed - lazy, f"typed but not lazily exported: {sorted(typed - lazy)}"
    assert not lazy - typed, f"lazily exported but not typed: {sorted(lazy - typed)}"


@pytest.mark.parametrize("init", PACKAGES, ids=lambda p: str(p.parent.relative_to(ROOT.parent)))
def test_every_lazy_name_is_defined_where_it_says(init):
    package = ".".join(init.parent.relative_to(ROOT.parent).parts)
    for name, module in sorted(_lazy(ast.parse(init.read_text(encoding="utf-8")))):
        source = importlib.import_module(module, package)
        assert hasattr(source, name), f"{package}: {name} is not in {module}"
