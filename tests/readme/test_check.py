"""`make readme-check` (tests/readme/check.py): its reading of the README, its matching of shown
output, that it catches a README that no longer holds, and (slow) the whole README."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.readme import check

README = """# demo

```console
$ tokenprism encode "hello world" -t o200k_base
24912 2375
$ tokenprism compare "hello" -t gpt2 --format csv
tokenizer,family,n_vocab,n_tokens,...
gpt2,tiktoken,50257,1,...
```

```
tokenprism decode 24912 2375 -t o200k_base        # a comment
make run
```

```toml
# prompt-budget.toml: a glob -> model -> tokens
["prompts/**/*.txt"]
```
"""


def test_blocks_and_commands_are_read_with_their_shown_output():
    found = check.blocks(README)
    assert [b.lang for b in found] == ["console", "", "toml"]
    cmds = check.commands(found[0])
    assert [c.text for c in cmds] == ['tokenprism encode "hello world" -t o200k_base',
                                     'tokenprism compare "hello" -t gpt2 --format csv']
    assert cmds[0].expected == ["24912 2375"] and len(cmds[1].expected) == 2
    plain = check.commands(found[1])
    assert [c.text for c in plain] == ["tokenprism decode 24912 2375 -t o200k_base        # a comment", "make run"]
    assert check.skip_reason("make run") and check.skip_reason(plain[0].text) is None


def test_continued_lines_are_one_command():
    block = check.Block(1, "", ["tokenprism cost --builtin prose \\", "    --on 2026-12-01 -m gpt-4o"])
    assert [c.text for c in check.commands(block)] == ["tokenprism cost --builtin prose --on 2026-12-01 -m gpt-4o"]


@pytest.mark.parametrize("shown,printed,ok", [
    ("in force on 2026-12-02 (UTC)", "in force on 2027-01-31 (UTC)", True),  # the day of the run
    ("gpt-4o   22   documented", "gpt-4o 22 documented", True),
    ("gpt-4o   23   documented", "gpt-4o 22 documented", False),  # a count must be the same
    ("o3  124  $0.02764", "o3  124  24  3,400  $0.02764", True),  # columns cut
    ("o3  $0.02764  124", "o3  124  24  3,400  $0.02764", False),  # not in that order
    ("gpt-4o: documented: OpenAI ...", "gpt-4o: documented: OpenAI Cookbook", True),
    ("notes: ...", "notes:", True),
])
def test_a_shown_line_matches_within_reason(shown, printed, ok):
    assert check.line_matches(shown, printed) is ok


def test_shown_lines_must_come_in_order():
    printed = ["a 1", "b 2", "c 3"]
    assert check.output_matches(["a 1", "", "c 3"], printed) is None
    assert check.output_matches(["c 3", "a 1"], printed) == "a 1"


@pytest.mark.slow
def test_a_stale_readme_fails_and_a_true_one_passes(tmp_path):
    # about 10 s: a scratch workspace and four commands in subprocesses
    from analysis import load_tokenizer

    ids = " ".join(map(str, load_tokenizer("o200k_base").encode("hello world")))
    good = tmp_path / "good.md"
    good.write_text(f'```console\n$ tokenprism encode "hello world" -t o200k_base\n{ids}\n$ cat chat.json\n'
                    f'{(check.FILES / "chat.json").read_text().strip()}\n```\n', encoding="utf-8")
    results = check.run_readme(good, check.REPO, budget=60)
    assert [r.status for r in results] == ["ok", "ok"], [r.detail for r in results]
    stale = tmp_path / "stale.md"
    stale.write_text('```console\n$ tokenprism encode "hello world" -t o200k_base\n24912 2376\n```\n\n'
                     '```\ntokenprism compare -f missing.txt\n```\n', encoding="utf-8")
    results = check.run_readme(stale, check.REPO, budget=60)
    assert [r.status for r in results] == ["FAIL", "FAIL"]
    assert "24912 2376" in results[0].detail and "exit status 2" in results[1].detail


def test_a_toml_block_must_equal_its_file():
    text = (check.REPO / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in check.blocks(text) if b.lang == "toml"]
    assert check._file_block(block, check.FILES).status == "ok"
    changed = check.Block(block.line, "toml", block.lines[:-1] + ["gpt-4o = 9000"])
    assert check._file_block(changed, check.FILES).status == "FAIL"


@pytest.mark.slow
def test_every_command_of_the_readme_prints_what_it_shows():
    # about 100 s on 2 busy cores: `make readme-check` runs the same on a fresh clone
    results = check.run_readme(check.REPO / "README.md", check.REPO, budget=120)
    failed = [f"README.md:{r.command.line}: {r.command.text}\n{r.detail}" for r in results if r.status == "FAIL"]
    assert not failed, "\n\n".join(failed)
    assert sum(r.status == "ok" for r in results) >= 40
    assert Path(check.FILES / "prompt.txt").is_file()


def test_the_examples_folder_holds_the_gzip_log_and_the_parquet_export_of_its_own_files():
    # the README runs `cost --logs month.jsonl.gz` and `export.parquet` from docs/examples: they are
    # committed there, and hold the same rows as the plain files beside them
    import gzip

    import pandas as pd

    assert gzip.decompress((check.FILES / "month.jsonl.gz").read_bytes()) == (check.FILES / "month.jsonl").read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(check.FILES / "export.parquet"),
                                  pd.read_json(check.FILES / "export.jsonl", lines=True))
