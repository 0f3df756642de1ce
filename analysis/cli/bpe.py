"""`tokenprism train` and `tokenprism explain`: ownbpe from the main command.

`python -m ownbpe` offers the same on bare files; here `explain` also accepts any
tiktoken-family tokenizer of the registry (o200k_base, cl100k_base, qwen2.5, llama3, ...), whose
ranks ownbpe loads to show the merges behind each split.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import ownbpe  # its names load on first use (the trainer, the compiled patterns)

from . import help_line
from ..atomic import atomic_path
from ..errors import BadInput
from ..render import terminal_text
from ..textio import regular_file_problem
from ..textio.numbers import bounded
from .measure import add_engine_options, progress_wanted

# --pattern NAME -> ownbpe's constant (read when training: the compiled patterns cost a `--help`)
PATTERNS = {"gpt2": "GPT2_PATTERN", "cl100k": "CL100K_PATTERN", "o200k": "O200K_PATTERN"}


def cmd_explain(args: argparse.Namespace) -> int:
    from ..lab.explain import explain

    for name in [n.strip() for n in args.tokenizer.split(",") if n.strip()]:
        pieces = explain(args.text, name)
        n = sum(len(p.ids) for p in pieces)
        print(f"── {name}: {n} token{'s' if n != 1 else ''}")
        print(ownbpe.format_explanation(pieces, show_steps=not args.brief))
        print(rank_note(name))
    return 0


def rank_note(name: str) -> str:
    """How `explain`'s ranks relate to the ids it prints, for tokenizer `name`.

    A tiktoken-family vocabulary numbers its tokens by rank, the 256 bytes included, so a merge's
    rank is the id of the token it makes. An ownbpe model numbers its merges from 0 after the 256
    byte tokens, so the token a merge makes has the id rank + 256.

    >>> rank_note("ownbpe")
    '(ownbpe ranks count its merges from 0: the token a merge makes has id rank + 256; 0-255 are bytes)'
    """
    if name == "ownbpe" or name.startswith("ownbpe:"):
        return "(ownbpe ranks count its merges from 0: the token a merge makes has id rank + 256; 0-255 are bytes)"
    return "(ranks: the id of the token each merge makes; a lower rank merges first)"


def cmd_train(args: argparse.Namespace) -> int:

    paths = [Path(p) for p in args.corpus]
    for p in paths:
        if not p.is_file():  # a FIFO or /dev/zero would block or never end
            raise BadInput(f"no such corpus file: {p} (give UTF-8 text files)" if not p.exists()
                           else f"{p} is a folder; give the text files in it" if p.is_dir()
                           else regular_file_problem(p, stdin=False) or f"cannot read {p}")
    if not any(p.stat().st_size for p in paths):
        raise BadInput(f"the corpus is empty ({len(paths)} file(s) of 0 bytes): nothing to train on; give text files")
    out = Path(args.out)
    if out.is_dir():  # checked before training, not after it
        raise BadInput(f"--out {out} is a folder: give a file name such as {out / 'my.model'}")
    if not out.parent.is_dir():
        raise BadInput(f"--out {out}: the folder {out.parent} does not exist; create it first")
    if len(paths) == 1:
        source = paths[0]
    else:  # several files: train on them joined, each separated by the first special token or a newline
        import tempfile

        sep = (args.special[0] if args.special else "\n").encode("utf-8")
        tmp = tempfile.NamedTemporaryFile(prefix="tokenprism-train-", suffix=".txt", delete=False)
        try:
            with tmp:
                for i, p in enumerate(paths):
                    if i:
                        tmp.write(sep)
                    with open(p, "rb") as fh:  # streamed: a corpus file may be far larger than memory
                        shutil.copyfileobj(fh, tmp, 1 << 20)
        except BaseException:  # a full disk or Ctrl-C while joining: remove the half-written join
            Path(tmp.name).unlink(missing_ok=True)
            raise
        source = Path(tmp.name)
    # file names and special tokens come from the user: shown through the terminal escape
    print(terminal_text(f"training ownbpe: corpus={', '.join(map(str, paths))} vocab_size={args.vocab_size} "
                        f"pattern={args.pattern} special={args.special or []} engine={args.engine} "
                        f"workers={args.workers or ('1' if args.engine == 'inprocess' else 'all')}"),
          file=sys.stderr)
    t0 = time.perf_counter()
    pattern = getattr(ownbpe, PATTERNS[args.pattern])
    specials = list(dict.fromkeys(args.special or ()))
    progress = progress_wanted(args)
    try:
        if args.engine == "dask":
            vocab, merges = _train_on_dask(args, source, specials, pattern, progress)
            tok = ownbpe.Tokenizer(vocab, merges, specials, pattern=pattern)
        else:
            tok = ownbpe.Tokenizer.train(source, args.vocab_size, specials, pattern=pattern,
                                         workers=1 if args.engine == "inprocess" else args.workers, progress=progress)
    except ValueError as e:  # ownbpe imports nothing of analysis: its refusal of the flags becomes ours here
        raise BadInput(str(e)) from e
    finally:
        if source not in paths:
            source.unlink(missing_ok=True)
    dt = time.perf_counter() - t0
    with atomic_path(out) as tmp_model:
        tok.save(tmp_model)
    print(terminal_text(f"{len(tok.merges)} merges in {dt:.2f} s -> {args.out}"))
    if tok.n_vocab < args.vocab_size:
        print(f"tokenprism train: stopped at {tok.n_vocab} tokens of the {args.vocab_size} asked: no pair of "
              "adjacent tokens is left to merge in this corpus (a larger corpus gives more)", file=sys.stderr)
    shown = ", ".join(repr((a + b).decode("utf-8", "replace")) for a, b in tok.merges[:10])
    print(terminal_text(f"first merges: {shown}"))
    print(terminal_text(f"use it: tokenprism compare -t ownbpe:{args.out} \"some text\""))
    return 0


# Byte ranges per Dask worker: several each, so a slow worker does not hold up the rest, and
# each range is at most PART_BYTES, so a task's pre-token counts stay small beside its text.
PARTS_PER_WORKER = 4
PART_BYTES = 64 << 20


@dataclass(frozen=True)
class _Part:
    """One byte range of the corpus, counted by one Dask task (a value, so it travels as one object)."""

    start: int
    end: int


def _count_part(part: _Part, _tokenizers: object, *, path: str, specials: list[str], pattern: str) -> dict[str, int]:
    """What a Dask worker runs: the pre-token counts of one byte range (the worker reads the file itself)."""
    return ownbpe.count_file_part(path, part.start, part.end, specials, pattern)


def _train_on_dask(args: argparse.Namespace, source: Path, specials: list[str], pattern: str,
                   progress: bool) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Count pre-tokens over byte ranges on a Dask cluster, add the counts here, and learn the merges here.

    The workers open the corpus by its absolute path: on a cluster of several machines it must be
    on storage every worker reads at that path. Counts are sums, so the merges are the local run's.
    """
    from collections import Counter

    from tqdm import tqdm

    from ..engine import open_engine

    path = source.resolve()
    size = path.stat().st_size
    with open_engine("dask", scheduler=args.scheduler, workers=args.workers, timeout=args.connect_timeout,
                     dashboard=progress) as engine:
        print(f"tokenprism train: engine: {engine.describe()}", file=sys.stderr)
        n_parts = max(engine.workers * PARTS_PER_WORKER, -(-size // PART_BYTES))
        parts = [_Part(a, b) for a, b in ownbpe.file_parts(path, n_parts, specials, pattern)]
        counts: Counter[str] = Counter()
        with tqdm(total=size, disable=not progress, desc="pre-tokenizing on the cluster", unit="B", unit_scale=True,
                  unit_divisor=1024, file=sys.stderr) as bar:
            params = {"path": str(path), "specials": specials, "pattern": pattern}
            try:
                for part, found in zip(parts, engine.map(_count_part, parts, (), params=params)):
                    counts.update(found)  # Counter.update adds
                    bar.update(part.end - part.start)
            except (FileNotFoundError, IsADirectoryError, PermissionError) as e:  # raised on a worker
                raise BadInput(f"a Dask worker could not read the corpus ({e}): the workers open it at {path}; put "
                               "it on storage every worker reads at that path") from None
    return ownbpe.train_bpe_from_counts(counts, args.vocab_size, specials, progress=progress)


def register(sub: argparse._SubParsersAction) -> None:
    fmt = argparse.ArgumentDefaultsHelpFormatter
    p = sub.add_parser("explain", help=help_line("explain"), formatter_class=fmt,
                       description="For each pre-token: the merges that fired, in order, with their ranks.")
    p.add_argument("text", metavar="TEXT")
    p.add_argument("--tokenizer", "-t", default="o200k_base", help="tiktoken-family name(s), comma-separated, or ownbpe[:PATH]")
    p.add_argument("--brief", action="store_true", help="only the resulting tokens, not each merge")
    p.set_defaults(func=cmd_explain)

    p = sub.add_parser("train", help=help_line("train"), formatter_class=fmt)
    p.add_argument("corpus", nargs="+", metavar="FILE", help="UTF-8 text file(s)")
    p.add_argument("--vocab-size", type=bounded(257, 10_000_000, integer=True), default=8192, help="256 bytes + merges + special tokens")
    p.add_argument("--out", required=True, help="where to save the model (versioned text format)")
    p.add_argument("--pattern", choices=sorted(PATTERNS), default="o200k", help="pre-tokenization pattern")
    p.add_argument("--special", action="append", metavar="TOKEN", help="special token (repeatable), e.g. '<|endoftext|>'")
    add_engine_options(p)  # where the pre-tokens are counted; the merges are always learned here
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bars on stderr: the stage, its rate and the time left (default: when stderr is a terminal)")
    p.set_defaults(func=cmd_train)
