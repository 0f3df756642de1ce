"""Run a command as the README runs it: from docs/examples/, the folder of its example files."""

from __future__ import annotations

import contextlib
from pathlib import Path

from analysis.cli import main

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def run_in_examples(capsys, argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `tokenprism ARGV` run in docs/examples/."""
    with contextlib.chdir(EXAMPLES):
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err
