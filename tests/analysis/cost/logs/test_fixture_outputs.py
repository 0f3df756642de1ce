"""Every output format of `cost --logs` on the log fixtures, pinned byte for byte.

The expected files in tests/fixtures/log_outputs were written by the code before the
streaming summary (each row's marks and token counts kept until the end, the prompt cache
simulated over the whole log at once). The streaming path (chunks folded as they arrive, in
time order) must print the same bytes on every engine. Regenerate only on purpose:
`python -m tests.analysis.cost.logs.test_fixture_outputs` (then read the diff).
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

from analysis.cli import main

from .golden_cases import same_output

ROOT = Path(__file__).resolve().parents[4]
# relative to the repository, so the outputs name no machine's paths (the command runs from there)
LOGS = [f"tests/fixtures/logs/{name}" for name in
        ("anthropic.jsonl", "calibration.jsonl", "chat.csv", "openai_batch.jsonl", "openai_chat.jsonl")]
LOGS += [f"docs/examples/{name}.jsonl" for name in ("batch-input", "month", "o4-mini", "support")]
EXPECTED = ROOT / "tests" / "fixtures" / "log_outputs"
FORMATS = ("table", "csv", "json", "md", "html")
VARIANTS = {
    "four": ["-m", "gpt-4o,gpt-4.1-mini,claude-sonnet-4-5,deepseek-chat", "--output-tokens", "50"],
    "auto": ["-m", "claude-sonnet-4-5,gpt-4o", "--cache-breakpoints", "auto", "--requests-per-lifetime", "10",
             "--output-ratio", "0.5"],
}


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), contextlib.chdir(ROOT):
        rc = main(argv)
    return rc, out.getvalue() if rc == 0 else f"exit {rc}\n{err.getvalue()}"


def outputs(engine: str = "inprocess"):
    """(file name, text) of every log x variant x format."""
    for log in LOGS:
        for variant, flags in VARIANTS.items():
            for fmt in FORMATS:
                rc, text = _run(["cost", "--logs", log, *flags, "--on", "2026-03-15", "--format", fmt,
                                 "--engine", engine, "--wide"])
                yield f"{Path(log).stem}.{variant}.{fmt}", text


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["inprocess", "local"])
def test_every_format_on_the_fixtures_is_unchanged(engine):
    if not EXPECTED.is_dir():
        pytest.skip("no expected outputs (tests/fixtures/log_outputs)")
    differ = []
    for name, text in outputs(engine):
        want = (EXPECTED / name).read_text(encoding="utf-8")
        if not same_output(text, want):
            differ.append(name)
    assert not differ, f"{len(differ)} output(s) changed: {differ[:10]}"


if __name__ == "__main__":
    EXPECTED.mkdir(parents=True, exist_ok=True)
    for name, text in outputs(sys.argv[1] if len(sys.argv) > 1 else "inprocess"):
        (EXPECTED / name).write_text(text, encoding="utf-8")
