"""`tokenprism count`: the input tokens of a request (a text or a request body) under each model.

Unlike `compare` (a text under tokenizers), this command is model first: each row is what the
model's provider counts for the request, chat format included, through `analysis.requests.input_tokens`.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Any

from . import help_line
from ..errors import BadInput
from ..textio import read_stdin, read_text_file
from .budget import GATE_COLUMNS, file_request, load_checks, mark, offenders, positive_tokens, read_json, run_checks
from .table import PIPE_WIDTH
from .tokenizers import add_detail, add_format, add_image_size, add_max_input, image_size, max_input_bytes, table_width

COLUMNS = ("model", "tokenizer", "input_tokens", "content_tokens", "format_tokens", "media_tokens", "exactness",
           "exactness_reason")


def _models(values: list[str]) -> list[str]:
    models = [m.strip() for v in values for m in v.split(",") if m.strip()]
    if not models:
        raise BadInput("no model given: pass -m MODEL[,MODEL...], e.g. -m gpt-4o,claude-sonnet-4-5 "
                       "(or check files against a budget file with --budget FILE)")
    return list(dict.fromkeys(models))


def _request(args: argparse.Namespace) -> Any:
    from ..requests import Request, parse

    given = [name for name, value in (("TEXT", args.text), ("-f", args.file), ("--messages", args.messages))
             if value is not None]
    if len(given) > 1:
        raise BadInput(f"give one input, not {' and '.join(given)}")
    limit = max_input_bytes(args)
    if args.messages is not None:
        return parse(read_json(args.messages, limit, what="--messages takes a request body (OpenAI, Anthropic, "
                               "Gemini) or a list of messages"), shape=args.shape)
    if args.shape not in (None, "text"):
        raise BadInput(f"--shape {args.shape} reads a request body: pass the body with --messages FILE")
    if args.text is not None:
        return Request.from_text(args.text)
    if args.file is not None and args.shape is None:
        request, note = file_request(args.file, limit, as_text="pass --shape text to count the JSON as a text")
        if note:
            from ..render import terminal_text

            print(f"note: {terminal_text(note)}", file=sys.stderr)
        return request
    text, _ = read_text_file(args.file, max_bytes=limit) if args.file is not None else read_stdin(max_bytes=limit)
    return Request.from_text(text)


def _write(rows: list[dict[str, Any]], fmt: str, columns: tuple[str, ...], *,
           detail: argparse.Namespace | None = None) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    cells = [{**r, "ids": " ".join(map(str, r["ids"])) if r.get("ids") is not None else ""} if "ids" in columns else r
             for r in rows]
    if fmt == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(cells)
        return
    from .answer import model_notes, notes_block, reasons_cut
    from .table import format_table, note_line, on_terminal

    width = table_width(detail) if detail is not None else PIPE_WIDTH
    if "file" in columns:  # a file name is the user's, and may hold anything a terminal would obey
        from ..render import visible

        cells = [{**c, "file": visible(c["file"])} for c in cells]
    shown = [c for c in columns if c not in ("exactness_reason", "ids")]
    quiet = detail is not None and detail.quiet
    if rows and "file" not in columns and not quiet:
        sys.stdout.write(count_headline(rows) + "\n\n")
    sys.stdout.write(format_table(cells, shown, width=width, rich=on_terminal(), hint=not quiet) + "\n")
    if "ids" in columns:  # the ids are a line of their own per model, never a table cell
        for r in cells:
            sys.stdout.write(f"{r['model']} ids: {r['ids']}\n")
    if quiet:
        return
    explain = detail is not None and detail.explain
    notes = model_notes(((r["model"], r["exactness"], r["exactness_reason"], None) for r in rows),
                        explain=explain, width=width)
    for r in rows:  # one line per media part
        for line in r.get("media", ()):
            tokens = "not counted" if line["tokens"] is None else f"{line['tokens']} tokens"
            said = f"{r['model']}: {line['part']}: {tokens} ({line['exactness']}; {line['note']})"
            notes.append(said if explain else note_line(said, width))
    text = notes_block([], notes, explain=explain, width=width, cut=reasons_cut([r["exactness_reason"] for r in rows]))
    if text:
        sys.stdout.write("\n".join(text) + "\n")


def count_headline(rows: list[dict[str, Any]]) -> str:
    """The answer of `count` in one sentence: the model with the most input tokens, and the fewest.

    >>> count_headline([{"model": "a", "input_tokens": 10}, {"model": "b", "input_tokens": 12}])
    'Most tokens: b with 12 (a: 10, the fewest).'
    """
    counted = [r for r in rows if isinstance(r.get("input_tokens"), int)]
    if not counted:
        return "No model could count this request: see each model's status."
    high = max(counted, key=lambda r: r["input_tokens"])
    low = min(counted, key=lambda r: r["input_tokens"])
    if len(counted) == 1:
        return f"{high['model']}: {high['input_tokens']:,} input tokens."
    if high["input_tokens"] == low["input_tokens"]:
        return f"Every model counts {high['input_tokens']:,} input tokens."
    return f"Most tokens: {high['model']} with {high['input_tokens']:,} ({low['model']}: {low['input_tokens']:,}, the fewest)."



def _report(rows: list[dict[str, Any]], rule: str) -> int:
    """Exit status of a gate: 1 with the offenders on stderr when any row is over its budget."""
    over = offenders(rows)
    if not over:
        return 0
    estimates = sum(r["over"] and r["exactness"] == "estimate" for r in rows)
    sys.stderr.write(f"tokenprism count: {len(over)} of {len(rows)} over budget ({rule}):\n  " + "\n  ".join(over) + "\n")
    if estimates:
        sys.stderr.write(f"({estimates} of them counted as an estimate: the provider's own count may differ; "
                         "see exactness_reason in --format json)\n")
    return 1


def cmd_budget(args: argparse.Namespace) -> int:
    from ..render import visible

    given = [name for name, value in (("TEXT", args.text), ("-f", args.file), ("--messages", args.messages),
                                      ("--shape", args.shape), ("-m", args.models), ("--max-tokens", args.max_tokens),
                                      ("--ids", args.ids or None)) if value is not None]
    if given:
        raise BadInput(f"--budget FILE names the files and models itself: leave out {' and '.join(given)}")
    checks = load_checks(args.budget, args.root)
    rows = run_checks(checks, add_generation_prompt=not args.no_generation_prompt, max_bytes=max_input_bytes(args),
                      progress=sys.stderr.isatty())
    _write(rows, args.format, ("file", "model", "tokenizer", "input_tokens", "budget", "status", "exactness",
                               "exactness_reason"), detail=args)
    return _report(rows, f"budget file {visible(args.budget)}")


def cmd_count(args: argparse.Namespace) -> int:
    from ..models import resolve
    from ..requests import input_tokens

    if args.budget is not None:
        return cmd_budget(args)
    if args.root is not None:
        raise BadInput("--root is the folder of a budget file's globs: pass it with --budget FILE")
    # every id checked before anything is counted; gguf:PATH counts with the file's tokenizer and template
    specs = [m if m.startswith("gguf:") else resolve(m) for m in _models(args.models or [])]
    size = image_size(args)
    request = _request(args)
    from .specials import model_tokenizers, request_texts, warn_special_strings

    warn_special_strings(request_texts(request), model_tokenizers(specs))
    rows = [input_tokens(request, spec, add_generation_prompt=not args.no_generation_prompt,
                         image_size=size).row(ids=args.ids)
            for spec in specs]
    # a proxy tokenizer as every face labels it: ~o200k_base (the API's /v1/count too); a file's own
    # tokenizer (a spec given as a string) is its own name
    rows = [{**r, "tokenizer": spec.tokenizer_label(r["tokenizer"])} if not isinstance(spec, str) else r
            for spec, r in zip(specs, rows)]
    columns = COLUMNS + (("ids",) if args.ids else ())
    if args.max_tokens is None:
        _write(rows, args.format, columns, detail=args)
        return 0
    rows = [mark(r, args.max_tokens) for r in rows]
    _write(rows, args.format, columns + GATE_COLUMNS, detail=args)
    return _report(rows, f"--max-tokens {args.max_tokens}")


# Spelled out here so that building the parser imports nothing of analysis.requests; parse()
# refuses any other shape with the closest names, and a test keeps this list equal to SHAPES.
SHAPE_HELP = "openai-chat, openai-responses, anthropic, gemini or text"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "count", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        help=help_line("count"),
        description="Count the input tokens of a request the way each model's provider counts it: the text plus "
                    "the model's chat format (roles, names, tools, the reply priming). Every row says how exact "
                    "it is: exact (rendered with the model's own tokenizer and format), documented (the provider's "
                    "published counting rules) or estimate (and why).")
    p.add_argument("text", nargs="?", help="a text, counted as one user message (or use -f, --messages or stdin)")
    p.add_argument("-f", "--file", metavar="FILE",
                   help="a text file, counted as one user message; a .json request body is read as --messages reads it")
    p.add_argument("--messages", metavar="FILE",
                   help="a JSON request body (OpenAI chat or Responses, Anthropic, Gemini) or a list of messages; - for stdin")
    p.add_argument("--shape", metavar="SHAPE", default=None, help=f"the body's shape: {SHAPE_HELP} (default: detected; text with -f FILE.json counts the JSON as text)")
    p.add_argument("-m", "--models", action="append", metavar="MODEL[,MODEL...]",
                   help="model ids: gpt-4o, openai:gpt-4o, claude-sonnet-4-5, groq:llama-3.3-70b-versatile, llama3")
    add_image_size(p)
    p.add_argument("--ids", action="store_true", help="add the rendered prompt's token ids (where the count is exact)")
    p.add_argument("--no-generation-prompt", action="store_true",
                   help="leave out the header that primes the reply (the chat APIs always add it)")
    gate = p.add_argument_group("budget gate (for CI: exit 1 when a request is over budget, 0 when all fit)")
    gate.add_argument("--max-tokens", type=positive_tokens, metavar="N",
                      help="the budget of the request under every model: rows get budget and status (ok or OVER)")
    gate.add_argument("--budget", metavar="FILE",
                      help="a TOML budget file: one table per file glob, mapping model ids to max tokens, e.g. "
                           '["prompts/**/*.txt"] gpt-4o = 8000. .json files are request bodies, others texts')
    gate.add_argument("--root", metavar="FOLDER", help="the folder the budget file's globs start from; "
                      "None: the budget file's folder")
    add_format(p)
    add_detail(p)
    add_max_input(p)
    p.set_defaults(func=cmd_count)
