"""Random bytes at every CLI input path: success, or exit status 2 with a one-line message.

Never a traceback (an exception escaping `main`), never a hang. Each path gets a small example
budget here (TOKENPRISM_FUZZ_EXAMPLES, default 15); `make bench` style runs can raise it.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis import cli

EXAMPLES = int(os.environ.get("TOKENPRISM_FUZZ_EXAMPLES", "15"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Bytes with a bias towards what breaks parsers: UTF-8 fragments, BOMs, NULs, quotes, separators.
_SNIPPETS = [b"\xef\xbb\xbf", b"\x00", b"\xff\xfe", b"\xed\xa0\x80", b'"', b",", b"\n", b"\r\n", b"{", b"}", b"[",
             b"=", b"<|endoftext|>", b"1e999999999", b"\t", b"model,usd_per_mtok_input,usd_per_mtok_output,source,as_of\n",
             b'{"text": "a"}\n', b"PAR1", b"\x1f\x8b", "é漢🙂".encode()]
RANDOM_BYTES = st.lists(st.one_of(st.binary(max_size=64), st.sampled_from(_SNIPPETS)), max_size=12).map(b"".join)


def _call(argv: list[str], capsys, stdin: bytes | None = None) -> None:
    old = sys.stdin
    if stdin is not None:
        fake = io.TextIOWrapper(io.BytesIO(stdin))
        fake.isatty = lambda: False  # type: ignore[method-assign]
        sys.stdin = fake
    try:
        code = cli.main(argv)  # any other exception here is a traceback for the user: the test fails
    except SystemExit as e:  # argparse: usage errors are exit 2
        code = e.code
    finally:
        sys.stdin = old
    err = capsys.readouterr().err
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        assert err.strip(), "exit 2 without a message"
        assert "Traceback" not in err


def _file(data: bytes, suffix: str) -> Path:
    fd, name = tempfile.mkstemp(suffix=suffix, prefix="fuzz-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return Path(name)


@FUZZ
@given(data=RANDOM_BYTES)
def test_compare_text_argument(data, capsys):
    _call(["compare", "-t", "gpt2", "--show", os.fsdecode(data) or "x"], capsys)


@FUZZ
@given(data=RANDOM_BYTES, errors=st.sampled_from(["strict", "replace", "skip"]))
def test_compare_file_and_stdin(data, errors, capsys):
    path = _file(data, ".txt")
    try:
        _call(["compare", "-t", "gpt2", "-f", str(path), "--errors", errors], capsys)
    finally:
        path.unlink()
    _call(["compare", "-t", "gpt2", "--errors", errors], capsys, stdin=data)


@FUZZ
@given(data=RANDOM_BYTES, suffix=st.sampled_from([".txt", ".csv", ".jsonl", ".json", ".parquet", ".py"]))
def test_measure_corpus_file(data, suffix, capsys):
    path = _file(data, suffix)
    try:
        _call(["measure", str(path), "-t", "gpt2", "--no-progress"], capsys)
    finally:
        path.unlink()


@FUZZ
@given(data=RANDOM_BYTES, suffix=st.sampled_from([".csv", ".toml"]))
def test_cost_prices_file_and_input(data, suffix, capsys):
    path = _file(data, suffix)
    try:
        _call(["cost", "--requests-per-month", "10", "--output-tokens", "5", "--prices", str(path), "hi"], capsys)
    finally:
        path.unlink()
    _call(["cost", "--requests-per-month", "10", "--output-tokens", "5", "--models", "gpt-4o"], capsys, stdin=data)


@FUZZ
@given(data=RANDOM_BYTES, suffix=st.sampled_from([".jsonl", ".jsonl.gz", ".csv", ".csv.gz", ".parquet", ".txt"]),
       skip=st.booleans())
def test_cost_log_files(data, suffix, skip, capsys):
    """Random rows (gzip-wrapped for .gz: a bomb is one kind) under a small line bound."""
    import gzip

    path = _file(gzip.compress(data) if suffix.endswith(".gz") else data, suffix)
    before = os.environ.get("TOKENPRISM_MAX_LINE_MB")
    try:
        _call(["cost", "--logs", str(path), "-m", "gpt-4o", "--output-tokens", "5", "--max-line-mb", "0.01",
               "--errors", "skip" if skip else "strict"], capsys)
    finally:
        path.unlink()
        if before is None:  # --max-line-mb sets it for the run's workers
            os.environ.pop("TOKENPRISM_MAX_LINE_MB", None)
        else:
            os.environ["TOKENPRISM_MAX_LINE_MB"] = before


@FUZZ
@given(data=RANDOM_BYTES, family=st.sampled_from(["hf", "ownbpe"]))
def test_tokenizer_spec_files(data, family, capsys):
    path = _file(data, ".json" if family == "hf" else ".model")
    try:
        _call(["compare", "-t", f"{family}:{path}", "hello"], capsys)
    finally:
        path.unlink()


@FUZZ
@given(text=st.text(max_size=30))
def test_workload_numbers(text, capsys):
    _call(["cost", "--requests-per-month", text or "0", "--output-ratio", text or "0", "--models", "gpt-4o", "hi"], capsys)
