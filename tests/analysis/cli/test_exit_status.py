"""The CLI's exit status by meaning: a refusal of the input is 2 and one line; a bug is 1 and
one line that says so (the traceback only with TOKENPRISM_DEBUG=1)."""

from __future__ import annotations

import pytest

from analysis.cli import DEBUG_ENV, main
import analysis.compare as compare_mod  # the handler imports compare_rows from here when it runs
from analysis.errors import BadInput, UnknownName
from analysis.tokenizers.vocab import VocabularyError

SECRET = "planted-bug-7f3a"


def _raiser(exc: BaseException):
    def fn(*args, **kwargs):
        raise exc
    return fn


def _run(argv, capsys) -> tuple[int, str]:
    rc = main(argv)
    return rc, capsys.readouterr().err


def test_unknown_tokenizer_is_a_refusal(capsys):
    rc, err = _run(["compare", "hello", "-t", "o200k"], capsys)
    assert rc == 2
    assert err.startswith("tokenprism compare: error: unknown tokenizer 'o200k'")
    assert "o200k_base" in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize("exc", [BadInput("the input is wrong; fix it"), UnknownName("model", "gpt-4oo", ["gpt-4o"]),
                                 VocabularyError("vocab.json, line 3: not valid JSON"),
                                 FileNotFoundError("no such file: x.txt")], ids=type)
def test_typed_refusals_exit_2_with_one_line(capsys, monkeypatch, exc):
    monkeypatch.setattr(compare_mod, "compare_rows", _raiser(exc))
    rc, err = _run(["compare", "hello", "-t", "o200k_base"], capsys)
    assert rc == 2
    assert err == f"tokenprism compare: error: {exc}\n"


@pytest.mark.parametrize("exc", [KeyError(SECRET), ValueError(SECRET), TypeError(SECRET)], ids=type)
def test_a_planted_bug_exits_1_and_says_it_is_a_bug(capsys, monkeypatch, exc):
    monkeypatch.delenv(DEBUG_ENV, raising=False)
    monkeypatch.setattr(compare_mod, "compare_rows", _raiser(exc))
    rc, err = _run(["compare", "hello", "-t", "o200k_base"], capsys)
    assert rc == 1
    assert err.startswith(f"tokenprism compare: internal error ({type(exc).__name__}: {SECRET})")
    assert "bug in tokenprism" in err
    assert f"{DEBUG_ENV}=1" in err
    assert err.count("\n") == 1  # one line, not a traceback wall
    assert "Traceback" not in err


def test_debug_env_prints_the_traceback(capsys, monkeypatch):
    monkeypatch.setenv(DEBUG_ENV, "1")
    monkeypatch.setattr(compare_mod, "compare_rows", _raiser(KeyError(SECRET)))
    rc, err = _run(["compare", "hello", "-t", "o200k_base"], capsys)
    assert rc == 1
    assert "Traceback (most recent call last)" in err
    assert f"KeyError: '{SECRET}'" in err


def test_a_bug_in_a_library_function_is_not_a_refusal(capsys, monkeypatch):
    # Deeper than the command: a bare KeyError from inside the registry used to read as an
    # "unknown name" and exit 2.
    from analysis.tokenizers import registry

    monkeypatch.setattr(registry, "load_tokenizers", _raiser(KeyError(SECRET)))
    monkeypatch.setattr(compare_mod, "resolve_tokenizers", lambda names: registry.load_tokenizers(names))
    rc, err = _run(["compare", "hello", "-t", "o200k_base"], capsys)
    assert rc == 1
    assert "internal error" in err


def test_cost_commands_refuse_with_typed_errors_and_a_plain_valueerror_is_a_bug(capsys, monkeypatch, tmp_path):
    import analysis.cost as cost_lib  # `tokenprism cost` imports quick_frame from here when it runs

    a_file = tmp_path / "taken"
    a_file.write_text("x")
    rc, err = _run(["cost", "hello", "-m", "gpt-4o", "--out", str(a_file)], capsys)
    assert (rc, err) == (2, f"tokenprism cost: error: --out {a_file} is a file: give a folder for the report files\n")
    rc, err = _run(["cost", "hello", "-m", "gpt-4oo"], capsys)  # UnknownName from the price data
    assert rc == 2
    assert "unknown model 'gpt-4oo'" in err
    for planted in (TypeError(SECRET), ValueError(SECRET), KeyError(SECRET)):
        monkeypatch.setattr(cost_lib, "quick_frame", _raiser(planted))
        rc, err = _run(["cost", "hello", "-m", "gpt-4o"], capsys)
        assert rc == 1, planted
        assert "internal error" in err


def test_a_damaged_parquet_file_is_a_refusal(capsys, tmp_path):
    # pyarrow's ArrowInvalid is a ValueError a bug could raise too; the reader names the file instead.
    bad = tmp_path / "rows.parquet"
    bad.write_bytes(b"PAR1garbagePAR1")
    for argv in (["corpus", "stats", str(bad)], ["measure", str(bad), "-t", "gpt2", "--no-progress"]):
        rc, err = _run(argv, capsys)
        assert rc == 2, err
        assert f"{bad} is not a readable Parquet file" in err


def test_show_draws_a_lone_surrogate(capsys):
    # An argument the shell could not decode holds a lone surrogate; pytest's capture, like a
    # UTF-8 terminal, refuses to write one, so drawing it raw fails.
    assert main(["compare", "-t", "gpt2", "--show", "a\udc80b"]) == 0
    assert "a│\ufffd│b" in capsys.readouterr().out


def test_a_broken_parallel_manifest_is_a_refusal(capsys, tmp_path):
    # tomllib's TOMLDecodeError is a ValueError; the reader names the manifest and the way out.
    (tmp_path / "en.txt").write_text("a\n")
    (tmp_path / "manifest.toml").write_text("[[language\n")
    rc, err = _run(["probe", "language-premium", "--parallel", str(tmp_path), "-t", "gpt2"], capsys)
    assert rc == 2, err
    assert f"{tmp_path / 'manifest.toml'} is not valid TOML" in err


@pytest.mark.parametrize("argv,usage,wrong", [
    (["models", "llama", "--quiet"], "usage: tokenprism models ", "--quiet"),
    (["count", "-f", "questions.txt", "-t", "o200k_base"], "usage: tokenprism count ", "-t"),
    (["vocab", "list", "--bogus"], "usage: tokenprism vocab list ", "--bogus"),
    (["cost", "hi", "--frmat", "json"], "usage: tokenprism cost ", "did you mean --format?"),
])
def test_an_argument_a_command_does_not_take_shows_that_commands_usage(argv, usage, wrong, capsys):
    # issue 56: these printed `usage: tokenprism [-h] COMMAND ...`, the top level's
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.startswith(usage), err
    (line,) = [x for x in err.splitlines() if "error:" in x]  # one line says what is wrong
    assert wrong in line and line.startswith(f"tokenprism {argv[0]}")
