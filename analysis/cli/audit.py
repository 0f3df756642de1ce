"""`tokenprism vocab audit`: what each vocabulary holds (fragments, unreachable tokens, specials).

Unlike `vocab list` and `vocab fetch` (in `tokenizers`), which manage vocabulary files, this module
reads the vocabularies themselves, through `probes.vocabulary`: the headline first, then one row per
tokenizer, or with `--tokens CATEGORY` the tokens of one category.
"""

from __future__ import annotations

import argparse
import sys

from .table import WIDTH, emit

MAX_ROWS = 25  # rows a table shows without --all: with its headline and notes, about 30 lines


def add_all(p: argparse.ArgumentParser) -> None:
    p.add_argument("--all", action="store_true", help=f"the full table (without it, at most {MAX_ROWS} rows)")


def compact(df, args: argparse.Namespace, what: str = "rows"):
    """`df` cut to `MAX_ROWS` rows for a table without --all, and the note that says so (or "")."""
    if args.format != "table" or getattr(args, "all", False) or len(df) <= MAX_ROWS:
        return df, ""
    return df.head(MAX_ROWS), f"({MAX_ROWS} of {len(df):,} {what}; --all for every one, --format csv|json for the data)"


def headline_text(text: str, args: argparse.Namespace) -> str:
    """A headline as printed: wrapped at the table width (one line with --wide), then a blank line."""
    import textwrap

    if getattr(args, "wide", False):
        return text + "\n\n"
    return textwrap.fill(text, width=WIDTH, break_long_words=False, break_on_hyphens=False) + "\n\n"


def run_audits(names: str | None, *, progress: bool):
    """(tokenizers, their audits), with one progress bar over every id audited."""
    from ..compare import skipped_tokenizers
    from ..pipeline import as_tokenizers
    from ..probes.vocabulary import audit_vocabulary

    if names is None:
        for name, why in skipped_tokenizers().items():
            print(f"note: {name} skipped: {why}", file=sys.stderr)
    toks = as_tokenizers(names)
    from tqdm.auto import tqdm

    audits = []
    with tqdm(total=sum(t.n_vocab for t in toks), unit="id", unit_scale=True, file=sys.stderr,
              disable=not progress or None, dynamic_ncols=True, desc="vocab audit") as bar:
        for tok in toks:
            bar.set_postfix_str(tok.name)
            audits.append(audit_vocabulary(tok, progress=bar.update))
    return toks, audits


def cmd_vocab_audit(args: argparse.Namespace) -> int:
    from ..probes.vocabulary import audit_headline, audit_table, token_listing

    toks, audits = run_audits(args.tokenizers, progress=args.format == "table" or sys.stderr.isatty())
    if args.tokens:
        for i, (tok, audit) in enumerate(zip(toks, audits)):
            frame = token_listing(tok, audit, args.tokens)
            if args.format != "table":
                frame.insert(0, "tokenizer", tok.name)
                if len(toks) > 1 and args.format == "csv" and i:
                    sys.stdout.write(frame.to_csv(index=False, header=False))
                    continue
                emit(frame, args.format)
                continue
            shown, note = compact(frame, args, "tokens")
            sys.stdout.write(f"{'' if i == 0 else chr(10)}{tok.name}: {len(frame):,} {args.tokens} tokens\n")
            if len(frame):
                emit(shown, "table", width=None if args.wide else WIDTH)
            if note:
                sys.stdout.write(note + "\n")
        return 0
    table = audit_table(audits)
    if args.format == "table":
        sys.stdout.write(headline_text(audit_headline(table), args))
        shown, note = compact(table, args, "tokenizers")
        if not args.wide:  # the drawings of the longest tokens run to 128 characters: --wide shows them
            shown = shown.drop(columns=["longest_token", "longest_whitespace_token"])
        emit(shown, "table", width=None if args.wide else WIDTH)
        if note:
            sys.stdout.write(note + "\n")
        sys.stdout.write("(categories as in Land & Bartolo 2024, Fishing for Magikarp; docs/probes.md says where "
                         "a definition differs)\n")
    else:
        emit(table, args.format)
    return 0


def add_audit(vsub: argparse._SubParsersAction, add_format) -> None:
    """Add `audit` to `tokenprism vocab`'s actions (`add_format`: the --format and --wide flags,
    passed in by `tokenizers`, which owns `vocab`)."""
    from ..probes.vocabulary import LISTINGS

    q = vsub.add_parser("audit", help="what each vocabulary holds: UTF-8 fragments, unreachable tokens, specials",
                        description="One row per tokenizer: ids with no token, single-byte tokens, specials, UTF-8 "
                                    "fragments, unreachable tokens (split as Land & Bartolo's Magikarp reports split "
                                    "them), the share of tokens that begin with a space, the longest token and "
                                    "whitespace token, digit tokens and whole words. Kept in the data dir per "
                                    "vocabulary after the first run.")
    q.add_argument("--tokenizers", "-t", metavar="A,B", help="comma-separated tokenizer names (default: all available offline)")
    q.add_argument("--tokens", choices=tuple(LISTINGS), default=None,
                   help="list the tokens of one category: " + "; ".join(f"{k}: {v}" for k, v in LISTINGS.items()))
    add_format(q)
    add_all(q)
    q.set_defaults(func=cmd_vocab_audit)
