"""`make readme-check`: run every command README.md shows and check the output it prints there.

    python -m tests.readme.check [--clone] [--only TEXT] [--budget SECONDS] [README]

Each fenced block's commands run in bash, in order, in a scratch copy of `docs/examples/`
(the files the README's commands name: prompt.txt, chat.json, questions.txt, logs, a gzip log
and a Parquet export, ...; the README says to `cd docs/examples` before its first one), with
`tokenprism` the code of this checkout (`--clone`: of a fresh `git clone` of HEAD, so nothing
uncommitted or untracked helps) and an empty vocabulary data dir, so that no fetched vocabulary
changes a table. A `console` block's lines after `$ COMMAND` are the output it must print:

* every line shown must appear, in order, among the lines printed (lines may be left out of the
  README, never changed);
* a line matches when it is the same after collapsing runs of spaces, or when its words appear in
  that order in one printed line that starts with the same word (a table shown with columns cut);
* `...` or `…` in a shown line stands for any text; dates (YYYY-MM-DD) match any date, as the
  "in force on" day is the day of the run.

`curl localhost:8000/...` lines run against a `tokenprism serve` the check starts on a free
loopback port (stopped by pid), and must answer 2xx. A TOML block whose first line names a file
of `files/` must equal that file. What is not run is listed with its reason (`SKIP`): the
dashboard, the suite, a remote cluster, network fetches. Exit status 0 when every check holds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FILES = REPO / "docs" / "examples"

# (pattern of a command, why it is not run)
SKIPS = [
    (r"^make (run|test)\b", "the dashboard server and the whole suite have their own targets"),
    (r"^tokenprism serve\b", "the check serves its own `tokenprism serve` for the curl lines"),
    (r"^tokenprism dashboard\b", "a long-running server (the dashboard tests drive it)"),
    (r"--scheduler tcp://", "a remote Dask cluster"),
    (r"\bvocab fetch\b", "a network fetch"),
    (r"^tokenprism report\b", "the whole report (minutes); `tests/analysis/report` builds it"),
    (r"^tokenprism measure\s*(#|$)", "the built-in corpora under every tokenizer (the measure tests run it)"),
    (r"^tokenprism cost --builtin prose .* --out support-report", "prices every built-in prose sample (the cost tests)"),
    # an example whose input is not in files/ yet: add the file there and drop the line to check it
]
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass
class Command:
    line: int  # README line of the command
    text: str  # the command, continuation lines joined
    expected: list[str] = field(default_factory=list)  # output lines shown (console blocks)


@dataclass
class Block:
    line: int
    lang: str
    lines: list[str]


def blocks(readme: str) -> list[Block]:
    """The fenced code blocks of `readme`, with their first line number and language."""
    out, current = [], None
    for n, line in enumerate(readme.splitlines(), 1):
        if line.startswith("```"):
            if current is None:
                current = Block(n + 1, line[3:].strip(), [])
            else:
                out.append(current)
                current = None
        elif current is not None:
            current.lines.append(line)
    return out


def commands(block: Block) -> list[Command]:
    """The commands of a shell block (`$ ` lines in a console block, with the output after each;
    lines starting with tokenprism, cat, make or curl in a plain or bash block)."""
    out: list[Command] = []
    console = block.lang == "console"
    lines = block.lines
    i = 0
    while i < len(lines):
        raw = lines[i]
        text = raw[2:] if console and raw.startswith("$ ") else raw if not console else None
        if text is None:
            if out:
                out[-1].expected.append(raw)
            i += 1
            continue
        start = i
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1].rstrip() + " " + lines[i].strip()
        if re.match(r"(tokenprism|cat|make|curl) ", text.strip() + " ") or console:
            out.append(Command(block.line + start, text.strip()))
        elif out and not console and text.startswith(" "):
            out[-1].text += " " + text.strip()  # a curl body continued on the next line
        i += 1
    return out


def _collapse(line: str) -> str:
    return " ".join(DATE.sub("DATE", line).split())


def line_matches(shown: str, printed: str) -> bool:
    """Whether a line the README shows is the line printed, within reason (see the module doc).

    >>> line_matches("gpt-4o  o200k_base   22", "gpt-4o o200k_base 22")
    True
    >>> line_matches("gpt-4o: documented: OpenAI Cookbook ...", "gpt-4o: documented: OpenAI Cookbook, 'How to'")
    True
    >>> line_matches("o3  estimate  124  $0.02764", "o3  estimate  124  24  3,400  $0.00044  $0.02764")
    True
    >>> line_matches("o3  estimate  125", "o3  estimate  124  24")
    False
    """
    a, b = _collapse(shown), _collapse(printed)
    if a == b:
        return True
    pieces = [p.strip() for p in re.split(r"\.\.\.|…", a)]
    if len(pieces) > 1:
        at = 0
        for piece in pieces:
            found = b.find(piece, at)
            if found < 0:
                return False
            at = found + len(piece)
        return True
    words, theirs = a.split(), b.split()
    if not words or not theirs or words[0] != theirs[0]:
        return False
    it = iter(theirs)
    return all(w in it for w in words)  # each shown word, in order (`in` advances the iterator)


def output_matches(expected: list[str], printed: list[str]) -> str | None:
    """None when every non-blank shown line matches a printed line, in order; else the first that does not."""
    at = 0
    for shown in expected:
        if not shown.strip():
            continue
        while at < len(printed) and not line_matches(shown, printed[at]):
            at += 1
        if at == len(printed):
            return shown
        at += 1
    return None


def skip_reason(text: str) -> str | None:
    return next((why for pattern, why in SKIPS if re.search(pattern, text)), None)


@dataclass
class Result:
    command: Command
    status: str  # ok, FAIL, SKIP
    detail: str = ""


def _workspace(root: Path) -> Path:
    """A scratch copy of docs/examples/ (the README's commands may write files there)."""
    work = root / "work"
    shutil.copytree(FILES, work)
    return work


def _tokenprism(root: Path, code: Path) -> Path:
    """A bin/ folder whose `tokenprism` runs `code`'s CLI with this interpreter."""
    bin_dir = root / "bin"
    bin_dir.mkdir()
    script = bin_dir / "tokenprism"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{code}" exec "{sys.executable}" -m analysis "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return bin_dir


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`tokenprism serve` on a free loopback port, for the README's curl lines; stopped by pid."""

    def __init__(self, env: dict[str, str], cwd: Path, timeout: float) -> None:
        self.port = _free_port()
        self.proc = subprocess.Popen(["tokenprism", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                                     cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
            if self.proc.poll() is not None:
                break
        self.stop()
        raise RuntimeError(f"tokenprism serve did not become ready within {timeout:g} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def run_readme(readme: Path, code: Path, *, only: str | None = None, budget: float = 60.0,
               progress=lambda line: None) -> list[Result]:
    """Run the README's commands (see the module doc); `budget`: seconds per command."""
    text = readme.read_text(encoding="utf-8")
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="readme-check-") as tmp:
        root = Path(tmp)
        work = _workspace(root)
        data = root / "data"
        data.mkdir()
        env = {**os.environ, "PATH": f"{_tokenprism(root, code)}{os.pathsep}{os.environ.get('PATH', '')}",
               "TOKENPRISM_DATA_DIR": str(data), "NO_COLOR": "1", "COLUMNS": "200"}
        env.pop("TOKENPRISM_DEBUG", None)
        server: Server | None = None
        try:
            for block in blocks(text):
                if block.lang == "toml":
                    results.append(_file_block(block, work))
                    continue
                if block.lang not in ("", "console", "bash"):
                    continue
                for cmd in commands(block):
                    if only and only not in cmd.text:
                        continue
                    why = skip_reason(cmd.text)
                    if why:
                        results.append(Result(cmd, "SKIP", why))
                        continue
                    shell = cmd.text
                    if shell.startswith("curl "):
                        if server is None:
                            server = Server(env, work, timeout=max(budget, 120.0))
                        shell = re.sub(r"\bcurl ", "curl -sS -f -o /dev/null ", shell).replace(
                            "localhost:8000", f"127.0.0.1:{server.port}")
                    results.append(_run(cmd, shell, work, env, budget))
                    progress(f"{results[-1].status:4}  {cmd.text[:100]}")
        finally:
            if server is not None:
                server.stop()
    return results


def _file_block(block: Block, work: Path) -> Result:
    first = block.lines[0] if block.lines else ""
    name = re.match(r"#\s*(\S+):", first)
    cmd = Command(block.line, f"(the {block.lang} block{' ' + name.group(1) if name else ''})")
    if not name or not (work / name.group(1)).is_file():
        return Result(cmd, "SKIP", "names no file of docs/examples")
    shown = "\n".join(block.lines) + "\n"
    same = (work / name.group(1)).read_text(encoding="utf-8") == shown
    return Result(cmd, "ok" if same else "FAIL", "" if same else f"docs/examples/{name.group(1)} differs from the block")


def _run(cmd: Command, shell: str, work: Path, env: dict[str, str], budget: float) -> Result:
    try:
        done = subprocess.run(["bash", "-c", shell], cwd=work, env=env, capture_output=True, text=True,
                              timeout=budget, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Result(cmd, "FAIL", f"took more than {budget:g} s")
    printed = (done.stdout + done.stderr).splitlines()
    if cmd.expected:
        missing = output_matches(cmd.expected, printed)
        if missing is not None:
            return Result(cmd, "FAIL", f"the README shows {missing.strip()!r}; printed:\n" +
                          "\n".join(f"    {line}" for line in printed[:40]))
        return Result(cmd, "ok")
    # no output shown: the command must succeed
    if done.returncode != 0:
        return Result(cmd, "FAIL", f"exit status {done.returncode}: {(done.stderr or done.stdout).strip()[-400:]}")
    return Result(cmd, "ok")


def _clone(dest: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(dest)], check=True)
    return dest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.readme.check", description=__doc__.split("\n\n")[0])
    p.add_argument("readme", nargs="?", default=str(REPO / "README.md"))
    p.add_argument("--clone", action="store_true", help="run the code of a fresh git clone of HEAD")
    p.add_argument("--only", metavar="TEXT", help="only the commands containing TEXT")
    p.add_argument("--budget", type=float, default=60.0, metavar="SECONDS", help="the most one command may take")
    args = p.parse_args(argv)
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="readme-clone-") as tmp:
        code = _clone(Path(tmp) / "repo") if args.clone else REPO
        results = run_readme(Path(args.readme), code, only=args.only, budget=args.budget,
                             progress=lambda line: print(line, flush=True))
    failed = [r for r in results if r.status == "FAIL"]
    for r in failed:
        print(f"\nFAIL README.md:{r.command.line}: {r.command.text}\n  {r.detail}")
    counts = {s: sum(r.status == s for r in results) for s in ("ok", "FAIL", "SKIP")}
    print(f"\nreadme-check: {counts['ok']} ok, {counts['FAIL']} failed, {counts['SKIP']} skipped "
          f"({time.monotonic() - start:.0f} s)")
    for r in results:
        if r.status == "SKIP":
            print(f"  skipped README.md:{r.command.line}: {r.command.text[:70]}: {r.detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
