"""Every `cost --logs` output, in every format, byte for byte as the goldens generated from main.

The goldens (tests/analysis/cost/logs/golden) are written by `golden_cases` (see its docstring for
the command that regenerates them); this test runs the same cases in this process and compares.
Slow (about 5 s in all): `--runslow`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .golden_cases import FORMATS, GOLDEN, cases, run_case, same_output

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("golden")


def _names() -> list[str]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return list(cases(Path(tmp)))


@pytest.mark.parametrize("name", _names())
def test_outputs_equal_the_goldens(work, name):
    argv = cases(work)[name]
    for fmt in FORMATS:
        golden = GOLDEN / f"{name}.{fmt}"
        assert golden.exists(), f"no golden {golden.name}: run python -m tests.analysis.cost.logs.golden_cases {GOLDEN}"
        rc, out, err = run_case(argv, fmt, work)
        assert rc == 0, err
        assert same_output(out, golden.read_text(encoding="utf-8")), f"{name} as {fmt}"
