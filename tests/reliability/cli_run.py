"""Running the CLI in-process for the reliability tests: exit status and both streams, never a traceback."""

from __future__ import annotations

from analysis import cli


def run_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    """`tokenprism ARGV` in this process: (exit status, stdout, stderr); fails on a traceback."""
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err
