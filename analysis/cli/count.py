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

from ..errors import BadInput
from ..textio import read_stdin, read_text_file
from .tokenizers import add_format, add_max_input, max_input_bytes

COLUMNS = ("model", "tokenizer", "input_tokens", "content_tokens", "format_tokens", "exactness", "exactness_reason")


def _models(values: list[str]) -> list[str]:
    models = [m.strip() for v in values for m in v.split(",") if m.strip()]
    if not models:
        raise BadInput("no model given: pass -m MODEL[,MODEL...], e.g. -m gpt-4o,claude-sonnet-4-5")
    return list(dict.fromkeys(models))


def _read_json(path: str, max_bytes: int | None) -> Any:
    if path == "-":
        text, _ = read_stdin(max_bytes=max_bytes)
    else:
        text, _ = read_text_file(path, max_bytes=max_bytes)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadInput(f"{'stdin' if path == '-' else path}: not JSON ({e.msg} at line {e.lineno}, column {e.colno}); "
                         "--messages takes a request body (OpenAI, Anthropic, Gemini) or a list of messages") from None


def _request(args: argparse.Namespace) -> Any:
    from ..requests import Request, parse

    given = [name for name, value in (("TEXT", args.text), ("-f", args.file), ("--messages", args.messages))
             if value is not None]
    if len(given) > 1:
        raise BadInput(f"give one input, not {' and '.join(given)}")
    limit = max_input_bytes(args)
    if args.messages is not None:
        return parse(_read_json(args.messages, limit), shape=args.shape)
    if args.shape not in (None, "text"):
        raise BadInput(f"--shape {args.shape} reads a request body: pass the body with --messages FILE")
    if args.text is not None:
        return Request.from_text(args.text)
    text, _ = read_text_file(args.file, max_bytes=limit) if args.file is not None else read_stdin(max_bytes=limit)
    return Request.from_text(text)


def _write(rows: list[dict[str, Any]], fmt: str, with_ids: bool) -> None:
    columns = COLUMNS + (("ids",) if with_ids else ())
    if fmt == "json":
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    cells = [{**r, "ids": " ".join(map(str, r["ids"])) if r.get("ids") is not None else ""} if with_ids else r
             for r in rows]
    if fmt == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(cells)
        return
    shown = [c for c in columns if c != "exactness_reason"]
    widths = {c: max(len(c), *(len(str(r[c])) for r in cells)) for c in shown}
    right = {"input_tokens", "content_tokens", "format_tokens"}
    for row in [dict(zip(shown, shown)), *cells]:
        sys.stdout.write("  ".join(str(row[c]).rjust(widths[c]) if c in right else str(row[c]).ljust(widths[c])
                                   for c in shown).rstrip() + "\n")
    for r in rows:  # the reasons, one per model, after the table they would crowd
        sys.stdout.write(f"\n{r['model']}: {r['exactness']}: {r['exactness_reason']}")
    sys.stdout.write("\n")


def cmd_count(args: argparse.Namespace) -> int:
    from ..models import resolve
    from ..requests import input_tokens

    specs = [resolve(m) for m in _models(args.models)]  # every id checked before anything is counted
    request = _request(args)
    rows = [input_tokens(request, spec, add_generation_prompt=not args.no_generation_prompt).row(ids=args.ids)
            for spec in specs]
    _write(rows, args.format, args.ids)
    return 0


# Spelled out here so that building the parser imports nothing of analysis.requests; parse()
# refuses any other shape with the closest names, and a test keeps this list equal to SHAPES.
SHAPE_HELP = "openai-chat, openai-responses, anthropic, gemini or text"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "count", formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        help="input tokens of a text or a request under each model, chat format included",
        description="Count the input tokens of a request the way each model's provider counts it: the text plus "
                    "the model's chat format (roles, names, tools, the reply priming). Every row says how exact "
                    "it is: exact (rendered with the model's own tokenizer and format), documented (the provider's "
                    "published counting rules) or estimate (and why).")
    p.add_argument("text", nargs="?", help="a text, counted as one user message (or use -f, --messages or stdin)")
    p.add_argument("-f", "--file", metavar="FILE", help="a text file, counted as one user message")
    p.add_argument("--messages", metavar="FILE",
                   help="a JSON request body (OpenAI chat or Responses, Anthropic, Gemini) or a list of messages; - for stdin")
    p.add_argument("--shape", metavar="SHAPE", default=None, help=f"the body's shape: {SHAPE_HELP} (default: detected)")
    p.add_argument("-m", "--models", action="append", required=True, metavar="MODEL[,MODEL...]",
                   help="model ids: gpt-4o, openai:gpt-4o, claude-sonnet-4-5, groq:llama-3.3-70b-versatile, llama3")
    p.add_argument("--ids", action="store_true", help="add the rendered prompt's token ids (where the count is exact)")
    p.add_argument("--no-generation-prompt", action="store_true",
                   help="leave out the header that primes the reply (the chat APIs always add it)")
    add_format(p)
    add_max_input(p)
    p.set_defaults(func=cmd_count)
