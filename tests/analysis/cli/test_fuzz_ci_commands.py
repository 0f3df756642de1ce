"""Random bytes into the CI commands' inputs (a budget file, ids on stdin, a text to cut): a result or
exit status 2 with one message, never a traceback. The budget is TOKENPRISM_FUZZ_EXAMPLES (default 15)."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis import cli

EXAMPLES = int(os.environ.get("TOKENPRISM_FUZZ_EXAMPLES", "15"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# Pieces of what a budget file or an id list holds, among random bytes.
SNIPPETS = [b'["prompts/*.txt"]\n', b'["**"]\n', b"gpt-4o = 8000\n", b'"" = 1\n', b"gpt-4.1 = 5\n", b"x = -1\n",
            b"[a]\n", b"\x00", b"\xff", b"1,2,3", b" 199998 ", b"-5", b"99999999999999999999999", b"\n", b"=", "é🙂".encode()]
BYTES = st.lists(st.one_of(st.binary(max_size=32), st.sampled_from(SNIPPETS)), max_size=10).map(b"".join)


def _exit_status(argv: list[str], monkeypatch, stdin: bytes = b"") -> int:
    """main's status (argparse's usage errors included); a refusal must say why, and nothing may be a bug."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    with contextlib.suppress(SystemExit):
        return cli.main(argv)
    return 2


def _check(code: int, capsys) -> int:
    err = capsys.readouterr().err
    assert code in (0, 1, 2), err
    assert "internal error" not in err
    assert "Traceback" not in err
    assert code != 2 or err.strip(), "exit 2 without a message"
    return code


@FUZZ
@given(data=BYTES)
def test_budget_file(data, capsys, monkeypatch, tmp_path_factory):
    root = tmp_path_factory.mktemp("budget")
    (root / "prompts").mkdir()
    (root / "prompts" / "a.txt").write_text("hello", encoding="utf-8")
    path = Path(root) / "budget.toml"
    path.write_bytes(data)
    _check(_exit_status(["count", "--budget", str(path)], monkeypatch), capsys)


@FUZZ
@given(data=BYTES, name=st.sampled_from(["o200k_base", "gpt2", "deepseek-v4"]))
def test_decode_stdin(data, name, capsys, monkeypatch):
    _check(_exit_status(["decode", "-t", name], monkeypatch, stdin=data), capsys)


@FUZZ
@given(data=BYTES, n=st.integers(min_value=1, max_value=6))
def test_truncate_and_encode_text_argument(data, n, capsys, monkeypatch):
    text = os.fsdecode(data) or "x"  # undecodable bytes arrive as lone surrogates, as from a shell
    # after "--", as a shell user passes a text that may start with "-"
    assert _check(_exit_status(["truncate", "-t", "cl100k_base", "--max-tokens", str(n), "--", text],
                               monkeypatch), capsys) == 0
    assert _check(_exit_status(["encode", "-t", "o200k_base", "--", text], monkeypatch), capsys) == 0
