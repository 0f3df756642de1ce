"""`python -m ownbpe train|encode|explain`: ownbpe on bare files, without the rest of tokenprism.

Unlike `tokenprism train`/`tokenprism explain` (which know the registry of named tokenizers),
this command takes files only: an ownbpe model (`--model`), a tiktoken rank file (`--tiktoken`,
`.gz` allowed) or GPT-2's `vocab.json` + `merges.txt` (`--gpt2`). Results go to stdout, the
resolved configuration and errors to stderr; errors exit with status 2. Special-token strings
in the text are plain text unless `--allow-special` turns them into their ids (as
`Tokenizer.encode` and tokenprism's adapters do).

    python -m ownbpe train corpus.txt --vocab-size 8192 --special '<|endoftext|>' --out my.model
    python -m ownbpe encode --model my.model "Hello world"
    python -m ownbpe explain --tiktoken o200k_base.tiktoken.gz 2024
    python -m ownbpe encode --tiktoken o200k_base.tiktoken.gz --special '<|endoftext|>=199999' \
        --allow-special "hi<|endoftext|>"
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import io
from .explain import format_explanation
from .patterns import BUILTIN_PATTERNS
from .tokenizer import Tokenizer
from .train import train_bpe


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    >>> import tempfile
    >>> tok = Tokenizer.train_from_iterator(["low lower lowest"] * 3, 258)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     tok.save(Path(folder, "my.model"))
    ...     main(["encode", "--model", str(Path(folder, "my.model")), "lowest"])
    257 101 115 116
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, KeyError, OSError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"ownbpe: error: {message}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    fmt = argparse.ArgumentDefaultsHelpFormatter
    parser = argparse.ArgumentParser(prog="python -m ownbpe", description=__doc__.split("\n\n")[0], formatter_class=fmt,
                                     allow_abbrev=False)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("train", help="learn merges from a UTF-8 text file", formatter_class=fmt)
    p.add_argument("corpus", help="UTF-8 text file")
    p.add_argument("--vocab-size", type=int, required=True, help="256 bytes + merges + special tokens")
    p.add_argument("--out", required=True, help="where to write the model (versioned text)")
    p.add_argument("--special", action="append", default=[], metavar="TOKEN", help="special token (repeatable)")
    p.add_argument("--pattern", choices=sorted(BUILTIN_PATTERNS), default="o200k",
                   help="pre-tokenization pattern (o200k, as `tokenprism train`; gpt2 for the CS336 reference)")
    p.add_argument("--workers", type=int, default=None, help="processes for pre-tokenization (default: all CPUs)")
    p.add_argument("--progress", action="store_true", help="show progress bars on stderr")
    p.set_defaults(func=_train)

    for name, helptext in (("encode", "text -> token ids"), ("explain", "the merges behind each split")):
        p = sub.add_parser(name, help=helptext, formatter_class=fmt)
        source = p.add_mutually_exclusive_group(required=True)
        source.add_argument("--model", help="an ownbpe model file")
        source.add_argument("--tiktoken", metavar="FILE", help="a tiktoken rank file (.tiktoken or .tiktoken.gz)")
        source.add_argument("--gpt2", nargs=2, metavar=("VOCAB_JSON", "MERGES_TXT"), help="GPT-2 style files")
        p.add_argument("--pattern", choices=["auto", *sorted(BUILTIN_PATTERNS)], default="auto",
                       help="pattern for --tiktoken/--gpt2 (auto: from the file name, else gpt2)")
        p.add_argument("--special", action="append", default=[], metavar="TOKEN=ID",
                       help="special token for --tiktoken (repeatable), e.g. '<|endoftext|>=199999'")
        p.add_argument("text", nargs="?", help="the text (default: --file, else stdin)")
        p.add_argument("--file", help="read the text from this UTF-8 file")
        p.add_argument("--allow-special", action="store_true",
                       help="turn special-token strings into their ids (default: plain text)")
        if name == "encode":
            p.add_argument("--format", choices=["ids", "json", "tokens"], default="ids", help="output format")
            p.set_defaults(func=_encode)
        else:
            p.add_argument("--brief", action="store_true", help="only the resulting tokens, not each merge")
            p.set_defaults(func=_explain)
    return parser


def _train(args: argparse.Namespace) -> int:
    print(f"training: corpus={args.corpus} vocab_size={args.vocab_size} pattern={args.pattern} "
          f"special={args.special} workers={args.workers or 'all CPUs'}", file=sys.stderr)
    t0 = time.perf_counter()
    vocab, merges = train_bpe(args.corpus, args.vocab_size, args.special, pattern=BUILTIN_PATTERNS[args.pattern],
                              workers=args.workers, progress=args.progress)
    tok = Tokenizer(vocab, merges, args.special, pattern=BUILTIN_PATTERNS[args.pattern])
    tok.save(args.out)
    print(f"{len(merges)} merges in {time.perf_counter() - t0:.2f} s -> {args.out}")
    return 0


def _load(args: argparse.Namespace) -> Tokenizer:
    if args.model:
        return Tokenizer.load(args.model)
    source = args.tiktoken or args.gpt2[0]
    pattern = args.pattern
    if pattern == "auto":
        pattern = next((k for k in ("o200k", "cl100k") if k in Path(source).name), "gpt2")
    specials = {}
    for item in args.special:
        text, sep, number = item.rpartition("=")
        if not sep or not text or not number.isdigit():
            raise ValueError(f"--special {item!r}: expected TOKEN=ID, e.g. '<|endoftext|>=199999'")
        specials[text] = int(number)
    print(f"tokenizer: {source} pattern={pattern} special={specials or 'none'}", file=sys.stderr)
    if args.tiktoken:
        return Tokenizer.from_tiktoken(io.read_tiktoken_ranks(args.tiktoken), BUILTIN_PATTERNS[pattern], specials)
    tok = Tokenizer.from_gpt2_files(*args.gpt2, pattern=BUILTIN_PATTERNS[pattern])
    if specials:
        tok = Tokenizer(tok.vocab, tok.merges, {**tok.special_tokens, **specials}, pattern=tok.pattern)
    return tok


def _text(args: argparse.Namespace) -> str:
    if args.text is not None:
        return args.text
    if args.file:
        return Path(args.file).read_bytes().decode("utf-8")
    return sys.stdin.read()


def _encode(args: argparse.Namespace) -> int:
    tok = _load(args)
    text = _text(args)
    ids = tok.encode(text, allowed_special="all" if args.allow_special else frozenset())
    if args.format == "json":
        print(json.dumps(ids))
    elif args.format == "tokens":
        for i in ids:
            print(f"{i}\t{io.token_literal(tok.vocab[i])}")
    else:
        print(" ".join(map(str, ids)))
    return 0


def _explain(args: argparse.Namespace) -> int:
    tok = _load(args)
    pieces = tok.explain(_text(args), allowed_special="all" if args.allow_special else frozenset())
    n = sum(len(p.ids) for p in pieces)
    print(f"{n} token{'s' if n != 1 else ''} from {len(pieces)} pre-token{'s' if len(pieces) != 1 else ''}")
    print(format_explanation(pieces, show_steps=not args.brief))
    return 0
