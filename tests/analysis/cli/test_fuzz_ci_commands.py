"""Random bytes into the CI commands' inputs (a budget file, ids on stdin, a text to cut): a result or
exit status 2 with one message, never a traceback. The budget is TOKENPRISM_FUZZ_EXAMPLES (default 15)."""

from __future__ import annotations

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


def _call(argv: list[str], capsys, stdin: bytes | None = None) -> int:
    old = sys.stdin
    if stdin is not None:
        fake = io.TextIOWrapper(io.BytesIO(stdin))
        fake.isatty = lambda: False  # type: ignore[method-assign]
        sys.stdin = fake
    try:
        code = cli.main(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    finally:
        sys.stdin = old
    err = capsys.readouterr().err
    assert code in (0, 1, 2), (argv, code, err)
    if code == 2:
        assert err.strip()
        assert "Traceback" not in err
        assert "internal error" not in err
    return code


@FUZZ
@given(data=BYTES)
def test_budget_file(data, capsys, tmp_path_factory):
    root = tmp_path_factory.mktemp("budget")
    (root / "prompts").mkdir()
    (root / "prompts" / "a.txt").write_text("hello", encoding="utf-8")
    path = Path(root) / "budget.toml"
    path.write_bytes(data)
    _call(["count", "--budget", str(path)], capsys)


@FUZZ
@given(data=BYTES, name=st.sampled_from(["o200k_base", "gpt2", "deepseek-v4"]))
def test_decode_stdin(data, name, capsys):
    _call(["decode", "-t", name], capsys, stdin=data)


@FUZZ
@given(data=BYTES, n=st.integers(min_value=1, max_value=6))
def test_truncate_and_encode_text_argument(data, n, capsys):
    text = os.fsdecode(data) or "x"  # undecodable bytes arrive as lone surrogates, as from a shell
    # after "--", as a shell user passes a text that may start with "-"
    assert _call(["truncate", "-t", "cl100k_base", "--max-tokens", str(n), "--", text], capsys) == 0
    assert _call(["encode", "-t", "o200k_base", "--", text], capsys) == 0
