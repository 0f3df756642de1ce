"""The house keeps its plan: imports run one way, nothing imports a face, and there is no circle.

The layers, from docs/design.md ("The layers"; a module may import its own layer or a lower one):

    6  faces        analysis.cli, analysis.api, dashboards (nothing imports them)
    5  presenting   analysis.engine, analysis.report, analysis.lab, analysis.plots
    4  measuring    analysis.pipeline, analysis.compare, analysis.probes, analysis.cost
    3  requests     analysis.requests (a Request, its wire shapes, each family's chat format)
    2  models       analysis.models (the one model resolver)
    1  inputs       analysis.corpora, analysis.tokenizers, analysis.textio, analysis.render, analysis.atomic,
                    analysis.errors, analysis.contract, analysis.money, analysis.lazy, analysis.memo
    0  ownbpe       (imports nothing of this repository)

Every import counts, the ones inside functions too: a lazy import hides a dependency from
import time, not from the design. The graph is read with `ast`, so nothing here is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FACES = ("analysis.cli", "analysis.api", "dashboards")
LAYERS = {
    "ownbpe": 0,
    "analysis.corpora": 1, "analysis.tokenizers": 1, "analysis.textio": 1, "analysis.render": 1,
    "analysis.atomic": 1, "analysis.data": 1, "analysis.errors": 1, "analysis.contract": 1, "analysis.money": 1,
    "analysis.lazy": 1, "analysis.memo": 1,
    "analysis.models": 2,
    "analysis.requests": 3,
    "analysis.pipeline": 4, "analysis.compare": 4, "analysis.probes": 4, "analysis.cost": 4,
    "analysis.engine": 5, "analysis.report": 5, "analysis.lab": 5, "analysis.plots": 5,
    "analysis.cli": 6, "analysis.api": 6, "dashboards": 6,
    "analysis.__main__": 6,  # `python -m analysis` runs the CLI
}


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom, known: Iterable[str]) -> set[str]:
    if node.level == 0:
        base = node.module or ""
    else:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    # `from pkg import name` imports the submodule pkg.name when there is one, else a name of pkg
    subs = {f"{base}.{a.name}" for a in node.names}
    found = subs & set(known)
    return found | ({base} if len(found) < len(subs) else set())


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """{module: modules of this repository it imports}, for every .py file under `packages`."""
    files = [p for pkg in packages for p in sorted((root / pkg).rglob("*.py"))]
    modules = {module_name(p, root): p for p in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                targets.update(_resolve(name, path.name == "__init__.py", node, modules))
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def import_names(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """{module: every top-level name it imports}, third-party ones included (for the streamlit rule)."""
    out: dict[str, set[str]] = {}
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            names: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names.update(a.name.split(".")[0] for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
            out[module_name(path, root)] = names
    return out


def find_cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One import circle as [a, b, ..., a], or None. A package's own `__init__` re-exporting its
    modules is not a circle: edges from a module to its ancestors' `__init__` are ignored."""
    def edges(m: str) -> list[str]:
        return sorted(t for t in graph.get(m, ()) if not m.startswith(t + "."))

    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in edges(m):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state and (found := visit(t)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def layer(module: str) -> tuple[str, int] | None:
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len, default=None)
    return (best, LAYERS[best]) if best else None


def violations(graph: Mapping[str, Iterable[str]]) -> list[str]:
    """Upward imports and imports of a face, as readable lines."""
    out = []
    for src, targets in sorted(graph.items()):
        if src == "analysis":  # the package's public API re-exports lower layers by design
            continue
        s = layer(src)
        for dst in sorted(targets):
            if dst == "analysis":  # faces use the public API; inside, it would be a circle
                if s is not None and s[1] < 4:
                    out.append(f"{src} imports the package root `analysis` (import the module that defines the name)")
                continue
            d = layer(dst)
            if s is None or d is None:
                missing = src if s is None else dst
                out.append(f"{missing} has no layer: add it to LAYERS in {Path(__file__).name}")
                continue
            face = next((f for f in FACES if dst == f or dst.startswith(f + ".")), None)
            if face and not (src == face or src.startswith(face + ".")) and src != "analysis.__main__":
                out.append(f"{src} imports the face {dst}: nothing imports a face")
            elif d[1] > s[1]:
                out.append(f"{src} (layer {s[1]}) imports {dst} (layer {d[1]}): imports run downwards only")
    return out


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(REPO, ["analysis", "dashboards", "ownbpe"])


def test_the_graph_is_read(graph):
    assert "analysis.cost" in graph["analysis.cli.cost"]
    assert "analysis.tokenizers" in graph["analysis.pipeline.rows"]
    assert "analysis.pipeline.rows" in graph["analysis.pipeline.sums"]


def test_there_is_no_import_circle(graph):
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_imports_run_downwards_and_nothing_imports_a_face(graph):
    assert violations(graph) == []


def test_analysis_never_imports_streamlit_and_ownbpe_stands_alone():
    names = import_names(REPO, ["analysis", "ownbpe"])
    assert sorted(m for m, ns in names.items() if "streamlit" in ns) == []
    assert sorted(m for m, ns in names.items() if m.startswith("ownbpe") and {"analysis", "dashboards"} & ns) == []


def test_analysis_has_few_modules_at_its_top_level():
    top = sorted(p.name for p in (REPO / "analysis").glob("*.py"))
    assert len(top) <= 10, top  # docs/design.md's house: memo.py is the tenth


# The one door to genai-prices (docs/design.md): every other module reaches the library through
# `analysis.models.genai`, so its private reads and its version check live in one place. It sits in
# `models/`, the lowest layer that needs prices (the resolver), so every user reaches it downward.
GENAI_DOOR = "analysis.models.genai"


def genai_importers(root: Path, packages: Iterable[str]) -> set[str]:
    """The modules under `packages` that import genai_prices (any import, inside functions too)."""
    return {m for m, ns in import_names(root, packages).items() if "genai_prices" in ns}


def test_only_the_door_imports_genai_prices():
    assert genai_importers(REPO, ["analysis", "dashboards"]) == {GENAI_DOOR}


def test_a_planted_genai_prices_import_is_found(tmp_path):
    _plant(tmp_path, {"analysis/__init__.py": "", "analysis/cost/__init__.py": "",
                      "analysis/cost/usage.py": "def f():\n    from genai_prices import Usage\n",
                      "analysis/cost/bill.py": "import genai_prices.types\n",
                      "analysis/models/__init__.py": "",
                      "analysis/models/genai.py": "import genai_prices\n"})
    assert genai_importers(tmp_path, ["analysis"]) == {"analysis.cost.usage", "analysis.cost.bill", GENAI_DOOR}



# A run owns its caches (`memo.RunCaches`); what a process loads once is on a `memo.Shelf`. A module
# keeps no empty dict or memo of its own to fill, beside these (each with why it is not a shelf):
OWN_STATE = {
    # the files checked against their pinned sha256, re-checked when a file's size or mtime changes:
    # a check's record, not a loaded resource
    ("analysis.tokenizers.fetch", "_verified_stat"),
}
_MEMOS = {"dict", "BoundedMemo", "ObjectMemo", "RunCaches"}


def module_registries(root: Path, packages: Iterable[str]) -> set[tuple[str, str]]:
    """(module, name) of each module-level name bound to an empty dict or a new memo."""
    found = set()
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target, value = node.targets[0], node.value
                elif isinstance(node, ast.AnnAssign) and node.value is not None:
                    target, value = node.target, node.value
                else:
                    continue
                empty = isinstance(value, ast.Dict) and not value.keys
                made = (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _MEMOS
                        and not (value.func.id == "dict" and (value.args or value.keywords)))
                if isinstance(target, ast.Name) and (empty or made):
                    found.add((module_name(path, root), target.id))
    return found


def test_no_module_keeps_a_registry_of_its_own():
    assert module_registries(REPO, ["analysis"]) == OWN_STATE


def test_a_planted_registry_is_found(tmp_path):
    _plant(tmp_path, {"analysis/__init__.py": "", "analysis/engine/base.py":
                      "_LOADED: dict[str, object] = {}\nCONSTANT = {'a': 1}\nshelf = Shelf('x')\n",
                      "analysis/cost/usage.py": "PRICE_MEMO = BoundedMemo(8)\n_BY_DAY = dict()\nROWS = dict(a=1)\n"})
    assert module_registries(tmp_path, ["analysis"]) == {("analysis.engine.base", "_LOADED"),
                                                         ("analysis.cost.usage", "PRICE_MEMO"),
                                                         ("analysis.cost.usage", "_BY_DAY")}


# -- the checks fail when they should -----------------------------------------------------------
def _plant(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_planted_cycle_is_found(tmp_path):
    _plant(tmp_path, {
        "analysis/__init__.py": "",
        "analysis/cost/__init__.py": "from .estimate import estimate as estimate\n",
        "analysis/cost/estimate.py": "from ..pipeline import measure\n",
        "analysis/pipeline.py": "def measure():\n    from .cost.estimate import estimate\n",
    })
    cycle = find_cycle(import_graph(tmp_path, ["analysis"]))
    assert cycle is not None
    assert cycle[0] == cycle[-1]
    assert {"analysis.pipeline", "analysis.cost.estimate"} <= set(cycle)


def test_a_package_reexporting_its_modules_is_not_a_cycle(tmp_path):
    _plant(tmp_path, {
        "analysis/__init__.py": "",
        "analysis/cost/__init__.py": "from .estimate import estimate as estimate\n",
        "analysis/cost/estimate.py": "from .prices import Price\n",
        "analysis/cost/prices.py": "Price = 1\n",
    })
    assert find_cycle(import_graph(tmp_path, ["analysis"])) is None


def test_planted_upward_and_face_imports_are_found(tmp_path):
    _plant(tmp_path, {
        "analysis/__init__.py": "",
        "analysis/tokenizers/__init__.py": "from analysis.pipeline import measure\n",
        "analysis/pipeline.py": "from analysis.cli import main\n",
        "analysis/cli/__init__.py": "def main(): pass\n",
    })
    found = violations(import_graph(tmp_path, ["analysis"]))
    assert any("analysis.tokenizers (layer 1) imports analysis.pipeline (layer 4)" in v for v in found)
    assert any("analysis.pipeline imports the face analysis.cli" in v for v in found)


def test_a_planted_streamlit_import_is_found(tmp_path):
    _plant(tmp_path, {"analysis/__init__.py": "", "analysis/plots/figures.py": "import streamlit as st\n"})
    names = import_names(tmp_path, ["analysis"])
    assert "streamlit" in names["analysis.plots.figures"]


def test_the_design_document_states_these_layers():
    """docs/design.md's layer table names every module of LAYERS at its layer, and no other."""
    import re

    text = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    stated: dict[str, int] = {}
    for number, modules in re.findall(r"^\| (\d) \| [a-z]+ \| (.+) \|$", text, flags=re.M):
        for name in re.findall(r"`([a-z_.]+)`", modules):
            stated[name] = int(number)
    assert stated == LAYERS


# -- private names stay in their package -------------------------------------------------------
# `ownbpe._educational` keeps tiktoken's name for the readable reference: a module meant to be
# read and imported by learners (the BPE lab shows it), so the underscore does not mean private.
PUBLIC_BY_CONVENTION = {"ownbpe._educational"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(root: Path, packages: Iterable[str]) -> list[str]:
    """Imports of a private name (a leading `_`) from outside the package that defines it, as lines.

    The package of a name is the folder of the module that defines it: its modules may share
    private helpers, everything outside must go through public names. A private module
    (`pkg._mod`) counts as a private name of `pkg`.
    """
    files = [p for pkg in packages for p in sorted((root / pkg).rglob("*.py"))]
    modules = {module_name(p, root): p for p in files}
    ours = {m.split(".")[0] for m in modules}
    out = []
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name if is_package else name.rpartition(".")[0]  # the package this module sits in
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level == 0:
                    base = node.module or ""
                else:
                    parts = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                wanted = [(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base, a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                wanted = [(a.name.rpartition(".")[0], a.name.rpartition(".")[2]) for a in node.names]
            else:
                continue
            for source, imported in wanted:
                # the private part: the imported name itself, or a private module on the way to it
                dotted = f"{source}.{imported}" if not source.endswith(f".{imported}") else source
                segments = dotted.split(".")
                if segments[0] not in ours:  # another project's privates are its own business
                    continue
                hit = next((i for i, s in enumerate(segments) if _private(s)), None)
                if hit is None or ".".join(segments[: hit + 1]) in PUBLIC_BY_CONVENTION:
                    continue
                owner = ".".join(segments[:hit])  # the module or package holding the private name
                owner_package = owner if owner not in modules or modules[owner].name == "__init__.py" \
                    else owner.rpartition(".")[0]
                if here != owner_package and not here.startswith(owner_package + "."):
                    out.append(f"{name} imports {'.'.join(segments[: hit + 1])}, private to {owner_package}: "
                               "make it public there (no underscore) or export it from the package")
    return out


def test_no_module_imports_a_private_name_of_another_package():
    assert private_imports(REPO, ["analysis", "dashboards", "ownbpe"]) == []


def test_a_planted_private_import_is_found(tmp_path):
    _plant(tmp_path, {
        "analysis/__init__.py": "",
        "analysis/corpora/__init__.py": "",
        "analysis/corpora/files.py": "def _check(): pass\ndef _other(): pass\n",
        "analysis/corpora/words.py": "from .files import _check\n",  # its own package: allowed
        "analysis/engine/__init__.py": "",
        "analysis/engine/read.py": "from ..corpora.files import _check\nimport analysis.corpora._hidden\n",
        "analysis/engine/parts.py": "def run():\n    from analysis.corpora.files import _other\n",
        "analysis/lab/__init__.py": "",
        "analysis/lab/bpe.py": "from ownbpe import _educational\n",  # public by convention
    })
    found = private_imports(tmp_path, ["analysis"])
    assert any(v.startswith("analysis.engine.read imports analysis.corpora.files._check, private to analysis.corpora")
               for v in found), found
    assert any(v.startswith("analysis.engine.read imports analysis.corpora._hidden") for v in found), found
    assert any(v.startswith("analysis.engine.parts imports analysis.corpora.files._other") for v in found), found
    assert len(found) == 3, found
