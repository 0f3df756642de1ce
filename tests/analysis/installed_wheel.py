"""Our wheel, built from a copy of the sources and installed in a fresh venv, run outside the checkout.

Used by `test_packaging.py` (the dependencies linked from this environment, offline) and by
`tokenizers/test_fetch.py` (the same, with the dependencies resolved and installed from the index
by pip: a network test, slow).
"""

from __future__ import annotations

import email
import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]


def build_wheel(tmp: Path) -> Path:
    """The wheel of a copy of the sources: setuptools writes build/ and *.egg-info beside the
    sources, and reuses a build/ left there, so a module moved since an earlier build would come
    back from it (and the checkout would be written into)."""
    source, dist = tmp / "source", tmp / "dist"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".mypy_cache", ".pytest_cache", ".hypothesis"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    wheels = list(dist.glob("tokenprism-*.whl"))
    assert len(wheels) == 1
    return wheels[0]


def requirement_closure(wheel: Path) -> dict[str, importlib.metadata.Distribution]:
    """The distributions the wheel requires (its Requires-Dist, no extra), followed through their
    own requirements (with the extras asked for), as installed in this environment."""
    with zipfile.ZipFile(wheel) as z:
        metadata = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        requires = email.message_from_bytes(z.read(metadata)).get_all("Requires-Dist") or []
    found: dict[str, importlib.metadata.Distribution] = {}
    followed: set[tuple[str, str]] = set()
    todo = [(Requirement(r), "") for r in requires]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(req.name)
        for wanted in ("", *sorted(req.extras)):
            if (name, wanted) in followed:
                continue
            followed.add((name, wanted))
            if name not in found:
                try:
                    found[name] = importlib.metadata.distribution(name)
                except importlib.metadata.PackageNotFoundError:
                    raise AssertionError(f"the wheel requires {name} ({req}), which this environment lacks: "
                                         "pip install -e '.[dev]'") from None
            todo += [(Requirement(r), wanted) for r in found[name].requires or []]
    return found


def site_packages(env_dir: Path) -> Path:
    return Path(sysconfig.get_path("purelib", vars={"base": str(env_dir), "platbase": str(env_dir)}))


def link_distributions(dists: dict[str, importlib.metadata.Distribution], site: Path) -> None:
    """Each distribution's installed files (its RECORD) linked one by one into `site`, as pip would
    have laid them out: only these are importable there. Files outside site-packages (scripts in
    bin/) are left out: nothing here runs a dependency's script."""
    for name, dist in dists.items():
        files = dist.files
        assert files, f"{name} lists no installed files (no RECORD): it cannot be linked"
        root = Path(dist.locate_file(""))
        for f in files:
            source = root / f
            if f.parts[0] == ".." or not source.is_file():
                continue
            target = site / f
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                target.symlink_to(source)


# Every module of every sub-package is in the wheel and imports there, outside the checkout (the
# pages are scripts, run by Streamlit, not imported); nothing of the dev environment is importable.
_IMPORT_EVERY_MODULE = """\
import importlib, importlib.util, pkgutil, analysis, ownbpe, dashboards
mods = [m.name for pkg in (analysis, ownbpe, dashboards)
        for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.') if not m.name.endswith('__main__')]
[importlib.import_module(m) for m in mods if not m.startswith('dashboards.app_pages')]
assert 'analysis.engine.local' in mods or any(m.startswith('analysis.engine.') for m in mods)
assert any(m.startswith('analysis.api.') for m in mods)
assert not analysis.__file__.startswith({repo!r}), analysis.__file__
assert importlib.util.find_spec('pytest') is None and importlib.util.find_spec('hypothesis') is None, 'dev tools leaked in'
print(len(mods))
"""


def check_runs_outside_the_checkout(env_dir: Path, tmp: Path) -> None:
    """The installed `tokenprism` command answers from a folder outside the checkout, and every
    module of the installed packages imports there."""
    py = env_dir / "bin" / "python"
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = subprocess.run([str(env_dir / "bin" / "tokenprism"), "tokenizers", "--format", "csv"], cwd=elsewhere,
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "o200k_base,tiktoken,200019,yes" in proc.stdout
    proc = subprocess.run([str(env_dir / "bin" / "tokenprism"), "compare", "--builtin-sample", "--format", "csv"],
                          cwd=elsewhere, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "cl100k_base" in proc.stdout
    proc = subprocess.run([str(py), "-c", _IMPORT_EVERY_MODULE.format(repo=str(REPO))], cwd=elsewhere,
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert int(proc.stdout.strip()) > 60
