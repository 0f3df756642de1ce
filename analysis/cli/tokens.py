"""`tokenprism encode`, `decode` and `truncate`: ttok's basics, one tokenizer at a time, for pipelines.

Unlike `compare` (a text under many tokenizers, as a table) and `count` (a request under models,
chat format included), these commands work on one tokenizer's ids and text: ids out of a text,
text back from ids, and a text cut to its first N tokens. With `-m MODEL` they use the tokenizer
that counts the model's text, and say when that is a proxy (an estimate); a chat format's tokens
are never part of it. Special-token strings in a text stay text, as everywhere in tokenprism.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import TYPE_CHECKING, Any

from . import help_line
from ..errors import BadInput
from ..textio import read_stdin, read_text_file
from .budget import positive_tokens

if TYPE_CHECKING:
    from ..tokenizers import Tokenizer


def text_tokenizer(name: str | None = None, model: str | None = None) -> tuple[Tokenizer, str, str]:
    """(tokenizer, exactness, note) for `-t NAME` or `-m MODEL`: exactness is "exact" or "estimate" (a
    model counted with a proxy vocabulary); the note says, for a model, which tokenizer counts its
    text and how exactly ("" for a tokenizer)."""
    from ..models import resolve
    from ..tokenizers import load_tokenizer

    if (name is None) == (model is None):
        raise BadInput("name one tokenizer (-t o200k_base) or one model (-m gpt-4o)")
    if name is not None:
        return load_tokenizer(name), "exact", ""
    spec = resolve(model or "")
    choice = spec.usable_choice()
    tok = load_tokenizer(choice.tokenizer or "")
    exact = choice.exactness == "exact"
    how = "exact" if exact else f"an estimate: {choice.note or spec.reason}"
    return tok, "exact" if exact else "estimate", (
        f"{spec.id}: the text's tokens under {tok.name} ({how}); the chat format's tokens are not counted "
        f"(tokenprism count -m {spec.id} counts the request)")


def _text(args: argparse.Namespace) -> str:
    if args.text is not None and args.file is not None:
        raise BadInput("give one input, not TEXT and -f")
    if args.text is not None:
        return str(args.text)
    text, _ = read_text_file(args.file) if args.file is not None else read_stdin()
    return text


def _write_text(text: str, *, newline: bool | None = None) -> None:
    # The exact text as UTF-8 whatever the locale. `truncate` feeds files, which get no newline
    # added (a terminal gets one, so the prompt starts on its own line: `newline` None); `decode`
    # ends its line as `echo` does (True), unless the text already ends one, and `decode -n` adds
    # none (False), as `echo -n`.
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    if text and not text.endswith("\n") and (sys.stdout.isatty() if newline is None else newline):
        sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()


def _note(note: str) -> None:
    if note:
        sys.stderr.write(f"note: {note}\n")


# -- encode --------------------------------------------------------------------------------------
def cmd_encode(args: argparse.Namespace) -> int:
    tok, exactness, note = text_tokenizer(args.tokenizer, args.model)
    text = _text(args)
    from .specials import warn_special_strings

    warn_special_strings([text], [tok])
    ids = tok.encode(text)
    if args.format == "json":  # a model's proxy ids are an estimate of its own, and say so
        sys.stdout.write(json.dumps({"tokenizer": tok.name, "n_tokens": len(ids), "ids": ids, "exactness": exactness,
                                     "exactness_reason": note}) + "\n")
    else:
        sys.stdout.write(" ".join(map(str, ids)) + "\n")
    _note(note)
    return 0


# -- decode --------------------------------------------------------------------------------------
_SEPARATORS = re.compile(r"[\s,]+")


MAX_ID_DIGITS = 20  # 2**64 has 20 digits: any longer id is refused before it is read


def parse_ids(raw: str) -> list[int]:
    """Token ids separated by spaces, commas or newlines (a JSON list's brackets are allowed).

    >>> parse_ids("15339, 1917\\n0")
    [15339, 1917, 0]
    """
    items = [s for s in _SEPARATORS.split(raw.strip().removeprefix("[").removesuffix("]")) if s]
    if not items:
        raise BadInput("no token ids given: pass them as arguments or on stdin, separated by spaces, commas or newlines")
    ids = []
    for i, item in enumerate(items, 1):
        if not re.fullmatch(r"[+-]?\d+", item):
            shown = item if len(item) <= 20 else item[:20] + "..."
            raise BadInput(f"{shown!r} (item {i}) is not a token id: give whole numbers separated by spaces, "
                           "commas or newlines")
        digits = len(item.lstrip("+-"))
        if digits > MAX_ID_DIGITS:  # before int(): Python refuses to read 4,300 digits and more
            raise BadInput(f"{item[:20]}... (item {i}) has {digits:,} digits; no vocabulary has an id that large "
                           f"(ids have at most {MAX_ID_DIGITS} digits). Fix: pass the ids the tokenizer gave")
        ids.append(int(item))
    return ids


def _spans(ids: list[int]) -> str:
    """Sorted ids written as runs: [1, 2, 3, 7] -> '1..3, 7'."""
    runs: list[list[int]] = []
    for i in ids:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(f"{a}" if a == b else f"{a}..{b}" for a, b in runs)


def _unused_ids(tok: Tokenizer) -> list[int]:
    """The ids below n_vocab that no token has (o200k_base: between its ranks and its special tokens)."""
    out = []
    for i in range(tok.n_vocab):
        try:
            tok.token_bytes(i)
        except (KeyError, ValueError):
            out.append(i)
    return out


def check_ids(ids: list[int], tok: Tokenizer) -> None:
    """Refuse any id the tokenizer has no token for, naming the valid range and the unused ids in it."""
    top = tok.n_vocab - 1
    for pos, i in enumerate(ids, 1):
        if not 0 <= i <= top:
            raise BadInput(f"token id {i} (item {pos}) is out of range: {tok.name}'s ids are 0..{top}")
    unknown = []
    for i in dict.fromkeys(ids):
        try:
            tok.token_bytes(i)
        except (KeyError, ValueError):
            unknown.append(i)
    if unknown:
        unused = _unused_ids(tok)
        raise BadInput(f"token id{'s' if len(unknown) > 1 else ''} {_spans(sorted(unknown)[:10])} "
                       f"{'are' if len(unknown) > 1 else 'is'} not a token of {tok.name}: its ids run 0..{top}, but "
                       f"{len(unused)} of them are unused, no token has them: {_spans(unused)}")


def cmd_decode(args: argparse.Namespace) -> int:
    tok, _, note = text_tokenizer(args.tokenizer, args.model)
    ids = parse_ids(" ".join(args.ids) if args.ids else read_stdin()[0])
    check_ids(ids, tok)
    data = tok.decode_bytes(ids)
    try:
        text, complete = data.decode("utf-8"), True
    except UnicodeDecodeError:
        text, complete = data.decode("utf-8", errors="replace"), False
    if args.format == "json":
        out: dict[str, Any] = {"tokenizer": tok.name, "n_tokens": len(ids), "text": text, "complete": complete}
        if not complete:
            out["hex"] = data.hex()
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    else:
        _write_text(text, newline=not args.no_newline)
    if not complete:
        sys.stderr.write("note: the ids start or end inside a character: its incomplete bytes are shown as U+FFFD "
                         "(--format json adds the exact bytes as hex)\n")
    _note(note)
    return 0


# -- truncate ------------------------------------------------------------------------------------
def cmd_truncate(args: argparse.Namespace) -> int:
    from ..atomic import write_text
    from ..tokenizers.prefix import keep_tokens

    tok, _, note = text_tokenizer(args.tokenizer, args.model)
    text = _text(args)
    kept = keep_tokens(text, tok, args.max_tokens)
    if args.out is not None:
        write_text(args.out, kept.text)
    else:
        _write_text(kept.text)
    if kept.cut:
        drop = (f"; token {args.max_tokens} ends inside a character, so the cut dropped back to the last whole "
                "character" if kept.mid_character else "")
        sys.stderr.write(f"kept {kept.n_tokens:,} of {kept.total_tokens:,} {tok.name} tokens "
                         f"({len(kept.text):,} of {len(text):,} characters){drop}\n")
    _note(note)
    return 0


def _add_tokenizer(p: argparse.ArgumentParser) -> None:
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("-t", "--tokenizer", metavar="TOK", help="a tokenizer: o200k_base, cl100k_base, llama3, ...")
    which.add_argument("-m", "--model", metavar="MODEL",
                       help="a model id: its text tokenizer (a chat format's tokens are not included)")


def _add_text(p: argparse.ArgumentParser) -> None:
    p.add_argument("text", nargs="?", metavar="TEXT", help="the text (or -f FILE, or stdin)")
    p.add_argument("-f", "--file", metavar="FILE", help="read the text from FILE")


def register(sub: argparse._SubParsersAction) -> None:
    fmt = argparse.ArgumentDefaultsHelpFormatter
    special = "Special-token strings such as <|endoftext|> are text, as everywhere in tokenprism."
    p = sub.add_parser("encode", formatter_class=fmt, help=help_line("encode"),
                       description=f"Print the token ids of a text (TEXT, -f FILE or stdin, read exactly: a final "
                                   f"newline is a token too). {special}")
    _add_text(p)
    _add_tokenizer(p)
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table: ids separated by spaces; json: tokenizer, n_tokens, ids, exactness")
    p.set_defaults(func=cmd_encode)

    p = sub.add_parser("decode", formatter_class=fmt, help=help_line("decode"),
                       description="Write the text of token ids, given as arguments or on stdin, separated by "
                                   "spaces, commas or newlines. An id the tokenizer has no token for is refused "
                                   "with the valid range (o200k_base has unused ids inside it, named too).")
    p.add_argument("ids", nargs="*", metavar="ID", help="token ids (or stdin)")
    _add_tokenizer(p)
    p.add_argument("--format", choices=("table", "json"), default="table",
                   help="table: the text, ending its line as echo does; json: tokenizer, n_tokens, text, complete "
                        "(and hex)")
    p.add_argument("-n", "--no-newline", action="store_true",
                   help="the text's bytes alone: no newline added at the end (as echo -n)")
    p.set_defaults(func=cmd_decode)

    p = sub.add_parser("truncate", formatter_class=fmt, help=help_line("truncate"),
                       description="Keep the start of a text that fits in N tokens: cut at a token boundary, "
                                   "never inside a character (a token that ends mid-character drops back to the "
                                   "last whole one), and re-encoding the kept text gives N tokens or fewer. With "
                                   "-m MODEL the budget is on the text's tokens under the model's tokenizer, "
                                   f"without the chat format's. {special}")
    _add_text(p)
    _add_tokenizer(p)
    p.add_argument("--max-tokens", type=positive_tokens, required=True, metavar="N", help="tokens to keep")
    p.add_argument("--out", metavar="FILE", help="write the kept text to FILE (atomically) instead of stdout")
    p.set_defaults(func=cmd_truncate)
