"""The budget gate of `tokenprism count`: each request held to a number of tokens, for CI.

Unlike `count` (the command: its flags, one request, the rows it prints), this module holds the
gate's own work: reading a budget file (TOML: file glob -> model -> max tokens), finding the files
its globs name, counting each file under each model through `analysis.requests.input_tokens`, and
marking each row ok or OVER. A budget file is checked whole before anything is counted: an
unknown model, a budget that is not a positive integer, or a glob that finds no file is refused
(exit 2) naming the file and the key, so a typo can never make the gate pass by checking nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import BadInput, UnknownName
from ..textio.numbers import bounded
from ..textio import json_text, read_stdin, read_text_file

EXAMPLE = '["prompts/**/*.txt"]\ngpt-4o = 8000\n"claude-sonnet-4-5" = 4000'
# The example in an error message, where a line break would be escaped: its lines joined by " / ".
EXAMPLE_LINE = " / ".join(EXAMPLE.splitlines())
# What the gate adds to a count row; "over" is the typed flag, "status" the word a table shows.
GATE_COLUMNS = ("budget", "status")


def read_json(path: str, max_bytes: int | None, *, what: str) -> Any:
    """The JSON in `path` ("-" for stdin); a BadInput naming the file, line and column if it is not JSON."""
    if path == "-":
        text, _ = read_stdin(max_bytes=max_bytes)
    else:
        text, _ = read_text_file(path, max_bytes=max_bytes)
    return json_text.read_json(text, source="stdin" if path == "-" else path, what=what)


_TOKENS = bounded(1, 10**15, integer=True, unit="tokens")


def positive_tokens(raw: str) -> int:
    """argparse type of a number of tokens: a whole number of at least 1 (argparse exits 2 otherwise)."""
    return int(_TOKENS(raw))  # the bounded reader: both ends checked, a huge value cut in the message


def mark(row: dict[str, Any], budget: int) -> dict[str, Any]:
    """`row` (a count row) with its budget, `over` and a status word."""
    over = row["input_tokens"] > budget
    return {**row, "budget": budget, "status": "OVER" if over else "ok", "over": over}


@dataclass(frozen=True, slots=True)
class Check:
    """One (file, model) pair to count, with the budget it is held to and the glob that chose it."""

    file: str  # as shown: relative to the root where possible
    path: Path
    model: str
    budget: int
    glob: str


def _where(budget_file: Path, glob: str, model: str | None = None) -> str:
    key = f"[{json.dumps(glob)}]"
    return f"{budget_file}: {key}" + (f" {model}" if model is not None else "")


def _budgets(budget_file: Path, data: dict[str, Any]) -> list[tuple[str, dict[str, int]]]:
    """The (glob, {model: max tokens}) sections, every model resolved and every budget checked."""
    from ..models import resolve

    if not data:
        raise BadInput(f"{budget_file}: no budgets in it; write one table per file glob, e.g. {EXAMPLE_LINE}")
    sections = []
    for glob, models in data.items():
        if not isinstance(models, dict):
            raise BadInput(f"{budget_file}: {glob!r} is not a table of models; write a glob as a table header, "
                           f"e.g. {EXAMPLE_LINE}")
        if not models:
            raise BadInput(f"{_where(budget_file, glob)}: names no model; add lines such as gpt-4o = 8000")
        budgets: dict[str, int] = {}
        for model, value in models.items():
            if isinstance(value, dict):  # `gpt-4.1 = 8000` is read by TOML as nested tables "gpt-4" -> "1"
                raise BadInput(f"{_where(budget_file, glob, model)}: is a table, not a number of tokens; a model id "
                               f"with a dot must be quoted, e.g. \"gpt-4.1\" = 8000")
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise BadInput(f"{_where(budget_file, glob, model)} = {value!r}: a budget is a positive whole "
                               "number of tokens, e.g. 8000")
            try:
                spec = resolve(model)
            except UnknownName as e:
                raise UnknownName("model", model, e.valid, message=f"{_where(budget_file, glob, model)}: {e}") from None
            except BadInput as e:  # an empty id
                raise BadInput(f"{_where(budget_file, glob, json.dumps(model))}: {e}") from None
            if spec.tokenizer is None:
                raise BadInput(f"{_where(budget_file, glob, model)}: this model has no text tokenizer, so its "
                               f"requests cannot be counted ({spec.reason}); remove it from the budget file")
            budgets[model] = value
        sections.append((glob, budgets))
    return sections


def _files(root: Path, glob: str, budget_file: Path) -> list[Path]:
    if Path(glob).is_absolute():
        raise BadInput(f"{_where(budget_file, glob)}: globs are relative to the budget file's folder "
                       f"(or --root), not absolute paths")
    try:
        found = sorted(p for p in root.glob(glob) if p.is_file())
    except (ValueError, NotImplementedError) as e:
        raise BadInput(f"{_where(budget_file, glob)}: not a usable glob ({e}); write one such as prompts/**/*.txt") from None
    if not found:
        # A glob that finds nothing would let the gate pass without checking anything.
        raise BadInput(f"{_where(budget_file, glob)}: finds no file under {root.resolve()}; fix the glob, or pass "
                       "--root FOLDER when the prompts are not beside the budget file")
    return found


def load_checks(budget_file: str | Path, root: str | Path | None = None) -> list[Check]:
    """Every (file, model) a budget file asks for, with its budget.

    A file that several globs name is held, per model, to the smallest of their budgets.

    Raises:
        BadInput: the file is not TOML, a budget is not a positive integer, a glob finds no file.
        UnknownName: a model id is not known (the message names the file, the glob and the closest ids).
    """
    path = Path(budget_file)
    text, _ = read_text_file(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"{path}: not a TOML budget file ({e}); write one table per file glob, e.g. {EXAMPLE_LINE}") from None
    base = Path(root) if root is not None else path.parent
    if not base.is_dir():
        raise BadInput(f"--root {base}: no such folder")
    chosen: dict[tuple[Path, str], Check] = {}
    for glob, budgets in _budgets(path, data):
        for file in _files(base, glob, path):
            try:
                shown = str(file.relative_to(base))
            except ValueError:  # a glob with .. reaches outside the root
                shown = str(file)
            for model, limit in budgets.items():
                old = chosen.get((file, model))
                if old is None or limit < old.budget:
                    chosen[(file, model)] = Check(shown, file, model, limit, glob)
    return sorted(chosen.values(), key=lambda c: (c.file, c.model))


def request_of(path: Path, max_bytes: int | None) -> Any:
    """A file as a request: a .json file is a request body (any shape `parse` reads), anything else a text."""
    from ..requests import Request, parse

    if path.suffix.lower() == ".json":
        return parse(read_json(str(path), max_bytes, what=".json files are read as request bodies (OpenAI, "
                               "Anthropic, Gemini) or lists of messages"))
    text, _ = read_text_file(path, max_bytes=max_bytes)
    return Request.from_text(text)


def file_request(path: str, max_bytes: int | None, *, as_text: str) -> tuple[Any, str | None]:
    """`-f FILE` as a request, and a note when FILE was read as a request body.

    A .json file that is a request body (any shape `parse` reads) is read as one, as the budget
    gate reads it; a .json file that is not (a data file) and any other file is a text. The note
    says which, and `as_text` how to have a body counted as text instead.
    """
    request, note, _ = file_body(path, max_bytes, as_text=as_text)
    return request, note


def file_body(path: str, max_bytes: int | None, *, as_text: str) -> tuple[Any, str | None, str | None]:
    """As `file_request`, plus the model the body names (its "model" field), or None."""
    from ..requests import Request, parse

    if Path(path).suffix.lower() == ".json":
        data = read_json(path, max_bytes, what="a .json FILE is read as a request body")
        try:
            return (parse(data), f"{path} read as a request body, as --budget reads .json files; {as_text}",
                    body_model(data))
        except BadInput as e:
            text, _ = read_text_file(path, max_bytes=max_bytes)
            return Request.from_text(text), f"{path} is JSON but not a request body ({e}): counted as text", None
    text, _ = read_text_file(path, max_bytes=max_bytes)
    return Request.from_text(text), None, None


def body_model(data: Any) -> str | None:
    """The model a request body names (OpenAI's and Anthropic's "model" field), or None.

    >>> body_model({"model": "gpt-4o-mini", "messages": []}), body_model([{"role": "user", "content": "hi"}])
    ('gpt-4o-mini', None)
    """
    model = data.get("model") if isinstance(data, dict) else None
    return model.strip() if isinstance(model, str) and model.strip() else None


def run_checks(checks: list[Check], *, add_generation_prompt: bool, max_bytes: int | None,
               progress: bool = False) -> list[dict[str, Any]]:
    """One marked row per check: file, model, the count row of `input_tokens`, budget, status, over.

    With `progress`, a bar on stderr (a folder of long prompts under several models takes a while).
    """
    from tqdm.auto import tqdm

    from ..models import resolve
    from ..requests import input_tokens

    requests: dict[Path, Any] = {}
    rows = []
    for check in tqdm(checks, disable=not progress, unit="count", desc="budget", leave=False, file=sys.stderr):
        if check.path not in requests:
            requests[check.path] = request_of(check.path, max_bytes)
        spec = resolve(check.model)
        count = input_tokens(requests[check.path], spec, add_generation_prompt=add_generation_prompt)
        row = {**count.row(), "tokenizer": spec.tokenizer_label(count.tokenizer)}  # ~o200k_base: a proxy
        rows.append({"file": check.file, **mark(row, check.budget), "glob": check.glob})
    return rows


def offenders(rows: list[dict[str, Any]]) -> list[str]:
    """One line per row over its budget, saying by how much and whether the count is an estimate."""
    from ..render import visible  # a file name may hold what a terminal would obey

    out = []
    for r in rows:
        if r["over"]:
            where = f"{visible(r['file'])}: " if "file" in r else ""
            note = " (an estimate)" if r["exactness"] == "estimate" else ""
            out.append(f"{where}{r['model']}: {r['input_tokens']} tokens > budget {r['budget']} "
                       f"(+{r['input_tokens'] - r['budget']}){note}")
    return out
