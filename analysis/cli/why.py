"""`tokenprism why [QUESTION]`: the questions people ask about tokenizers, each answered in one sentence.

Unlike `probe` (in `measure`), which prints any probe table by its name, this command starts from
the question (`probes.questions`): without a question it lists them all, each with the command
that answers it and its headline for the chosen tokenizers; with one, it prints that headline,
then a compact table (`--all` for the full frame; `--format csv|json` for the data).
"""

from __future__ import annotations

import argparse
import json
import sys

from . import help_line
from .audit import add_all, compact, headline_text
from .table import WIDTH, emit


def cmd_why(args: argparse.Namespace) -> int:
    from ..probes.questions import DEFAULT_TOKENIZERS, QUESTIONS, answer, question

    names = args.tokenizers or DEFAULT_TOKENIZERS
    if args.question is None:
        rows = []
        for k, (key, q) in enumerate(QUESTIONS.items(), 1):
            got = answer(key, names)
            rows.append({"question": q.ask, "key": key, "command": q.command(names), "headline": got.headline})
            if args.format == "table":
                import textwrap

                body = got.headline if args.wide else textwrap.fill(got.headline, width=WIDTH - 3, break_long_words=False,
                                                                    break_on_hyphens=False).replace("\n", "\n   ")
                sys.stdout.write(f"{k}. {q.ask}\n   {q.command(names)}\n   {body}\n\n")
        if args.format == "json":
            sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        elif args.format == "csv":
            import pandas as pd

            emit(pd.DataFrame(rows), "csv")
        return 0
    question(args.question)  # an unknown question is refused before any tokenizer loads
    got = answer(args.question, names)
    if args.format == "json":
        doc = {"question": got.question, "headline": got.headline, "note": got.note,
               "rows": json.loads(got.table.to_json(orient="records", force_ascii=False))}
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
        return 0
    if args.format == "csv":
        emit(got.table, "csv")
        return 0
    sys.stdout.write(headline_text(got.headline, args))
    shown, note = compact(got.table, args)
    emit(shown, "table", width=None if args.wide else WIDTH)
    for line in (got.note, note):
        if line:
            sys.stdout.write(f"({line})\n" if not line.startswith("(") else line + "\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from ..probes.questions import DEFAULT_TOKENIZERS, QUESTIONS

    p = sub.add_parser("why", help=help_line("why"),
                       description="The questions people ask about tokenizers, each with the command that answers "
                                   "it and its answer in one sentence. Answers are kept in the data dir after the "
                                   "first ask.")
    p.add_argument("question", nargs="?", choices=list(QUESTIONS), metavar="QUESTION",
                   help="one of: " + ", ".join(QUESTIONS) + " (without it: every question with its headline)")
    p.add_argument("--tokenizers", "-t", metavar="A,B", default=None,
                   help=f"comma-separated tokenizer names (default: {DEFAULT_TOKENIZERS}; magikarp uses the first)")
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output format")
    p.add_argument("--wide", action="store_true", help=f"tables as wide as their columns (without it, they wrap at {WIDTH})")
    add_all(p)
    p.set_defaults(func=cmd_why)
