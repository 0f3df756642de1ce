"""Each command imports what it needs and nothing more: the start-up cannot regress silently.

A fresh interpreter runs the CLI's `main` with the command's arguments and reports which modules
ended up in `sys.modules`. Speed itself is measured by the `startup` benchmark
(tests/benchmarks/bench_startup.py); this test pins what makes it fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pandas", "matplotlib", "tokenizers", "streamlit", "pyarrow", "altair", "fastapi", "pydantic",
         "tiktoken", "sentencepiece", "dask")

_PROBE = """
import contextlib, io, json, sys
from analysis.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def imported(*argv: str, top_level: bool = True) -> set[str]:
    """Modules (by default top-level ones) imported by `tokenprism ARGV...` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, timeout=120, check=True)
    names = set(json.loads(out.stdout.strip().splitlines()[-1]))
    return {m for m in names if "." not in m} if top_level else names


@pytest.mark.parametrize("argv, allowed", [
    pytest.param(["--help"], set(), id="help"),
    pytest.param(["no-such-command"], set(), id="argument-error"),
    pytest.param(["compare", "x", "--no-such-flag"], set(), id="flag-error"),
    pytest.param(["tokenizers"], set(), id="tokenizers"),
    pytest.param(["tokenizers", "--format", "json"], set(), id="tokenizers-json"),
    pytest.param(["vocab", "list"], set(), id="vocab-list"),
    # to say whether an unknown tokenizer name is a model id, the price data is read (genai-prices: pydantic)
    pytest.param(["compare", "hello", "-t", "no-such-tokenizer"], {"pydantic"}, id="unknown-tokenizer"),
    # a short text is encoded cold, from the rank table: tiktoken's engine is neither built nor imported
    pytest.param(["compare", "hello", "-t", "o200k_base"], set(), id="compare-one"),
    pytest.param(["compare", "hello", "-t", "o200k_base", "--format", "json"], set(), id="compare-json"),
    pytest.param(["compare", "hello"], {"tokenizers"}, id="compare-all-bundled"),
    pytest.param(["compare", "hello", "-t", "deepseek-v4"], {"tokenizers"}, id="compare-hf"),
])
def test_command_imports_only_what_it_needs(argv, allowed):
    heavy = imported(*argv) & set(HEAVY)
    assert heavy <= allowed, f"`tokenprism {' '.join(argv)}` imported {sorted(heavy - allowed)}"


@pytest.mark.parametrize("argv, modules", [
    pytest.param(["--help"], set(), id="help"),
    pytest.param(["compare", "hello", "-t", "gpt2"], {"tokenizers"}, id="compare"),
    pytest.param(["no-such-command"], set(), id="argument-error"),
])
def test_the_parser_imports_only_the_command_it_runs(argv, modules):
    # `build_parser(argv)` registers the named command's module alone; the others are one help line
    cli = {m.rsplit(".", 1)[1] for m in imported(*argv, top_level=False) if m.startswith("analysis.cli.")}
    # shared by several commands' modules (audit: `vocab audit`'s flags and the compact tables of why
    # and probe; specials: the special-string warning of compare, count and encode)
    helpers = {"numbers", "table", "budget", "traffic", "audit", "specials"}
    assert cli - helpers == modules


def test_the_parser_registers_only_the_command_it_runs():
    import argparse

    from analysis.cli import COMMANDS, build_parser

    def registered(argv):
        sub = next(a for a in build_parser(argv)._actions if isinstance(a, argparse._SubParsersAction))
        # built in full: a handler, or arguments beyond -h (a stub has neither)
        return {name for name, p in sub.choices.items() if p.get_default("func") or len(p._actions) > 1}

    assert registered(["--help"]) == registered(["compar", "x"]) == set()  # one help line each
    assert list(build_parser(["--help"])._actions[-1].choices) == list(COMMANDS)  # listed in order
    assert registered(["cost", "--help"]) == {"cost", "models"}  # the commands of cost's module
    assert registered(None) == set(COMMANDS)  # everything, for the tests that walk the parser


def test_measuring_text_files_imports_neither_pandas_nor_numpy(tmp_path):
    # text files are summed as plain integers (`pipeline.Tally`), and a long text is counted
    # through tiktoken's buffer, not numpy: only the tokenizer's engine is imported
    (tmp_path / "a.py").write_text("def f(x):\n    return x + 1\n" * 5000)  # past the cold budget: the engine
    (tmp_path / "b.txt").write_text("Привет, мир. Hello, world.")
    for extra in ([], ["--by", "script", "--format", "json"], ["--engine", "inprocess", "--format", "csv"]):
        heavy = imported("measure", str(tmp_path), "-t", "o200k_base,cl100k_base", "--no-progress", *extra) & set(HEAVY)
        assert heavy == {"tiktoken"}, extra
    # and the test can fail: words are counted in numpy, over frames
    assert "pandas" in imported("measure", str(tmp_path), "-t", "gpt2", "--metrics", "words")


def test_a_command_runs_blas_on_one_thread_unless_told():
    probe = ("import os; from analysis.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             "print(os.environ.get('OPENBLAS_NUM_THREADS'))")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    run = [sys.executable, "-c", probe]
    assert subprocess.run(run, capture_output=True, text=True, env=env, check=True).stdout.split()[-1] == "1"
    told = subprocess.run(run, capture_output=True, text=True, env={**env, "OPENBLAS_NUM_THREADS": "3"}, check=True)
    assert told.stdout.split()[-1] == "3"


def test_the_probe_sees_a_heavy_import():
    # the test above can fail: a command that does build a frame shows pandas
    assert "pandas" in imported("corpus", "list")


def test_cli_name_lists_match_the_library():
    # the parser lists these names itself so that building it imports neither pandas nor the probes
    from analysis.cli.measure import ENGINES, PROBE_NAMES
    from analysis.engine.base import ENGINES as LIBRARY_ENGINES
    from analysis.probes import PROBE_TABLES

    assert PROBE_NAMES == tuple(PROBE_TABLES)
    assert ENGINES == LIBRARY_ENGINES


def test_catalogue_sizes_match_the_loaded_tokenizers():
    # `tokenprism tokenizers` shows these sizes without loading anything: they must be right
    from analysis.tokenizers import CATALOGUE, load_tokenizer
    from analysis.tokenizers.catalogue import is_available

    checked = 0
    for name, entry in CATALOGUE.items():
        if entry.n_vocab is not None and is_available(name):
            assert load_tokenizer(name).n_vocab == entry.n_vocab, name
            checked += 1
    assert checked >= 9


def test_fetched_sizes_match_the_reference_packages_installed():
    # the fetched vocabularies' sizes, from the copies the pinned reference packages ship (where
    # this environment has that version), else only once fetched (the test above)
    from analysis.tokenizers import CATALOGUE
    from tests.analysis.tokenizers.references import reference_builds

    checked = []
    for tok in reference_builds():
        assert tok.n_vocab == CATALOGUE[tok.name].n_vocab, tok.name
        checked.append(tok.name)
    if not checked:
        pytest.skip("none of the pinned reference packages (llama-models, mistral-common) is installed")


def test_a_lazy_name_survives_the_import_of_its_same_named_submodule():
    # `analysis.models.resolve` is a function and a module; importing the module (as a test or a
    # caller may) must not turn `from analysis.models import resolve` into the module
    code = ("import analysis.models.resolve, analysis.cost.workloads.estimate, types\n"
            "from analysis.models import resolve\nfrom analysis.cost.workloads import estimate\n"
            "print(isinstance(resolve, types.ModuleType), isinstance(estimate, types.ModuleType))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["False", "False"]
