"""The suite does not depend on what the user has fetched (the audit's finding 22).

`make test` after the README's own `tokenprism vocab fetch llama3` failed 4 tests: they were
parametrised at collection from the user's real data dir, while their bodies ran in the isolated
one, where llama3 is absent.
"""

from __future__ import annotations

import os
import subprocess
import sys

from analysis.tokenizers.fetch import FETCHABLE
from tests.conftest import REPO


def test_collection_ignores_the_users_fetched_vocabularies(tmp_path):
    user_data = tmp_path / "user-data"
    for name, spec in FETCHABLE.items():  # every fetchable vocabulary "fetched" by the user
        target = user_data / "vocab" / name / spec.filename
        target.parent.mkdir(parents=True)
        target.write_bytes(b"not checked at collection")
    env = {k: v for k, v in os.environ.items() if k != "TOKENPRISM_TEST_REAL_DATA_DIR"}
    env["TOKENPRISM_DATA_DIR"] = str(user_data)
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "tests/analysis/tokenizers/test_registry.py"],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    collected = out.stdout
    assert "test_registry.py::" in collected  # the file was collected at all
    for name in FETCHABLE:
        assert f"[{name}]" not in collected, f"{name} parametrised from the user's data dir"


def test_no_test_imports_a_dashboard_page():
    """A page is a script: importing one runs it in Streamlit's bare mode, whose open `st.form`
    context then broke every later page test of the run (2026-12-04, 49 failures). Tests open
    pages with AppTest; what they need from a page lives in a module beside it."""
    import re

    imports = re.compile(r"^\s*(from|import)\s+dashboards\.app_pages\b", re.M)
    offenders = [str(p.relative_to(REPO)) for p in (REPO / "tests").rglob("*.py")
                 if imports.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
