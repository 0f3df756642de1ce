"""Counting pre-tokens: streaming a corpus file, in parallel, without ever holding it whole.

Unlike `train` (which turns counts into merges) this module only answers "how often does each
pre-token occur?", exactly as the CS336 reference splits text: special tokens first (never
counted), then the pattern. The file is read in blocks, decoded as UTF-8 without newline
translation (invalid bytes are reported with their offset), and cut only where cutting provably
changes no pre-token (see `patterns`). Within a block, ASCII stretches go to the pattern's
faster `re` twin whole; elsewhere a cheap regex cuts the text into chunks, the chunks are counted
with `Counter`, and the real pattern runs once per distinct chunk.
Workers count separate byte ranges of the file; counts are sums, so the result is the same for
any number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import Counter, defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

import regex

from .fast.pretokenize import ascii_runs, pretokenizer
from .patterns import _CHUNK_RE, _WS, GPT2_PATTERN, is_builtin, special_alternatives, stream_cut

# Below this many bytes a single process is faster than starting workers, and each worker
# gets at least PART_MIN_BYTES.
PARALLEL_MIN_BYTES = 1 << 21
PART_MIN_BYTES = 1 << 20
# The file is read, and counted, in blocks of about this size: memory stays small.
BLOCK_BYTES = 1 << 18

_SPACE = frozenset(_WS)
# Cuts of kind A (see `patterns`), searched forwards.
_FORWARD_CUT = regex.compile(r"(?<=\S)(?=[^\S\r\n])")
_HSPACE = _SPACE - {"\r", "\n"}


def count_pretokens(text: str, special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN) -> dict[str, int]:
    """Count the pre-tokens of `text` (special tokens removed).

    >>> count_pretokens("a b a", ["b"])
    {'a': 1, ' ': 1, ' a': 1}
    """
    counts: Counter[str] = Counter()
    _count_stream([text], tuple(dict.fromkeys(special_tokens)), pattern, counts)
    return dict(counts)


def count_file(
    path: str | os.PathLike,
    special_tokens: Iterable[str] = (),
    pattern: str = GPT2_PATTERN,
    *,
    workers: int | None = None,
    progress: bool = False,
) -> dict[str, int]:
    """Count the pre-tokens of a UTF-8 file, streaming it, in parallel over byte ranges.

    Args:
        path: the corpus, read as UTF-8 without newline translation.
        special_tokens: split the text there; they are not counted.
        pattern: the pre-tokenization regex.
        workers: processes (default: all CPUs; small files use one).
        progress: show a progress bar on stderr.

    Returns:
        pre-token -> count.

    Raises:
        FileNotFoundError: no such file.
        ValueError: invalid UTF-8; the message gives the byte offset (the first one found).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     corpus = Path(folder, "corpus.txt")
    ...     _ = corpus.write_text("a b<|endoftext|>b a", encoding="utf-8")
    ...     sorted(count_file(corpus, ["<|endoftext|>"]).items())
    [(' a', 1), (' b', 1), ('a', 1), ('b', 1)]
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise FileNotFoundError(f"training corpus not found: {str(path)!r}") from None
    if path.is_dir():
        raise IsADirectoryError(f"training corpus {str(path)!r} is a directory; give a text file")
    specials = tuple(dict.fromkeys(special_tokens))
    n = (os.cpu_count() or 1) if workers is None else max(1, workers)
    # Small inputs: starting a worker costs more than it saves.
    n = 1 if size < PARALLEL_MIN_BYTES else min(n, max(1, size // PART_MIN_BYTES))
    ranges = _byte_ranges(path, size, n, specials, pattern)
    jobs = [(str(path), start, end, specials, pattern) for start, end in ranges]
    bar = _progress_bar(progress, size, "pre-tokenizing", "B")
    counts: Counter[str] = Counter()
    if len(jobs) == 1:
        _count_range(*jobs[0], counts=counts, bar=bar)
    else:
        # n - 1 worker processes plus this one: one process fewer to hold in memory.
        with multiprocessing.get_context().Pool(len(jobs) - 1) as pool:
            pending = pool.imap(_count_range_star, jobs[:-1])
            try:
                _count_range(*jobs[-1], counts=counts, bar=bar)
                late_error = None
            except ValueError as err:  # invalid UTF-8 here; the workers may find an earlier one
                late_error = err
            for (start, end), part in zip(ranges, pending):
                counts.update(part)  # Counter.update adds counts
                bar.update(end - start)
            if late_error is not None:
                raise late_error
    bar.close()
    return counts


def file_parts(
    path: str | os.PathLike, n_parts: int, special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN
) -> list[tuple[int, int]]:
    """Cut a corpus file into about `n_parts` byte ranges whose pre-token counts add up to the file's.

    For counting elsewhere (another process, another machine): `count_file_part` counts one range,
    and the sum of the ranges' counts is `count_file`'s result. The cuts fall where no pre-token
    and no special token can straddle them; with a custom pattern and no special tokens there is
    no such place, and the whole file is one range.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     corpus = Path(folder, "corpus.txt")
    ...     _ = corpus.write_text(("low lower " * 50 + "<|endoftext|>") * 1000, encoding="utf-8")
    ...     parts = file_parts(corpus, 2, ["<|endoftext|>"])
    ...     total = Counter()
    ...     for start, end in parts:
    ...         total.update(count_file_part(corpus, start, end, ["<|endoftext|>"]))
    ...     len(parts), total == count_file(corpus, ["<|endoftext|>"])
    (2, True)
    """
    if isinstance(n_parts, bool) or not isinstance(n_parts, int) or n_parts < 1:
        raise ValueError(f"n_parts must be a positive int, got {n_parts!r}")
    path = _corpus_path(path)
    return _byte_ranges(path, path.stat().st_size, n_parts, tuple(dict.fromkeys(special_tokens)), pattern)


def count_file_part(
    path: str | os.PathLike, start: int, end: int, special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN
) -> dict[str, int]:
    """The pre-token counts of bytes `start:end` of a corpus file, one range of `file_parts`.

    Raises:
        FileNotFoundError: no such file (on a cluster: the path must be readable on every worker).
        ValueError: invalid UTF-8 (with the absolute byte offset).
    """
    return _count_range(str(_corpus_path(path)), start, end, tuple(dict.fromkeys(special_tokens)), pattern)


def _corpus_path(path: str | os.PathLike) -> Path:
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"training corpus {str(path)!r} is a directory; give a text file")
    if not path.exists():
        raise FileNotFoundError(f"training corpus not found: {str(path)!r}")
    return path


# -- internals -----------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _special_regex(specials: tuple[str, ...]) -> regex.Pattern | None:
    return special_alternatives(specials) if specials else None


def _read_text(path: Path, start: int, end: int | None, on_bytes=None) -> Iterator[str]:
    """Decode bytes `start:end` of `path` as UTF-8, block by block, without newline translation.

    Raises ValueError with the absolute byte offset of invalid UTF-8.
    """
    try:
        f = open(path, "rb")
    except FileNotFoundError:
        raise FileNotFoundError(f"training corpus not found: {str(path)!r}") from None
    except IsADirectoryError:
        raise IsADirectoryError(f"training corpus {str(path)!r} is a directory; give a text file") from None
    with f:
        f.seek(start)
        left = None if end is None else end - start
        pending = b""
        offset = start  # the absolute offset of pending[0]
        while True:
            want = BLOCK_BYTES if left is None else min(BLOCK_BYTES, left)
            data = f.read(want) if want > 0 else b""
            if left is not None:
                left -= len(data)
            if on_bytes is not None:
                on_bytes(len(data))
            last = not data or left == 0
            data = pending + data
            cut = len(data) if last else _complete(data)
            try:
                text = data[:cut].decode("utf-8")
            except UnicodeDecodeError as err:
                bad = data[err.start : err.start + 4]
                raise ValueError(
                    f"{path}: invalid UTF-8 at byte offset {offset + err.start} ({bad!r}: {err.reason}); "
                    "convert the corpus to UTF-8 first (e.g. iconv -f latin1 -t utf-8)"
                ) from err
            pending = data[cut:]
            offset += cut
            if text:
                yield text
            if last:
                return


def _complete(data: bytes) -> int:
    """Length of the prefix of `data` that does not end inside a UTF-8 character."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return len(data)
        if byte >= 0xC0:  # a lead byte: is its character complete?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) if back >= need else len(data) - back
    return len(data)  # continuation bytes without a lead: let the decoder report them


def _byte_ranges(path: Path, size: int, n_parts: int, special_tokens: tuple[str, ...], pattern: str) -> list[tuple[int, int]]:
    """Cut the file into about `n_parts` byte ranges at positions that change no pre-token.

    Near each target offset, the first safe cut of the built-in patterns, or the first start of
    a special token, is used, provided no special token starts within twice a special token's
    length before it: then no special token is split and the scan for them cannot align
    differently in the two ranges. With a custom pattern and no special tokens: one range.
    """
    if n_parts <= 1:
        return [(0, size)]
    specials = _special_regex(special_tokens)
    reach = 2 * max(map(len, special_tokens), default=0) or 1
    builtin = is_builtin(pattern)
    cuts = [0]
    with open(path, "rb") as f:
        for k in range(1, n_parts):
            target = size * k // n_parts
            if target <= cuts[-1]:
                continue
            f.seek(target)
            window = f.read(1 << 16)
            skip = 0
            while skip < min(3, len(window)) and 0x80 <= window[skip] < 0xC0:
                skip += 1  # start on a character boundary
            text = window[skip:].decode("utf-8", errors="surrogateescape")  # one char per bad byte
            candidates = []
            if builtin:
                candidates += [m.start() for m in _FORWARD_CUT.finditer(text, reach, len(text) - 1)][:20]
            if specials is not None:
                candidates += [m.start() for m in specials.finditer(text, reach)][:20]
            for cut in sorted(candidates):
                before = specials.search(text, cut - reach) if specials is not None else None
                if before is not None and before.start() < cut:
                    continue
                byte = target + skip + len(text[:cut].encode("utf-8", errors="surrogateescape"))
                if cuts[-1] < byte < size:
                    cuts.append(byte)
                break
    cuts.append(size)
    return list(zip(cuts, cuts[1:]))


def _count_range_star(args: tuple) -> Counter:
    return _count_range(*args)


def _count_range(
    path: str, start: int, end: int, specials: tuple[str, ...], pattern: str, counts: Counter | None = None, bar=None
) -> Counter:
    """Pre-token counts of bytes `start:end` of the corpus (runs in a worker)."""
    counts = Counter() if counts is None else counts
    texts = _read_text(Path(path), start, end, on_bytes=None if bar is None else bar.update)
    _count_stream(texts, specials, pattern, counts)
    return counts


def _count_stream(texts: Iterable[str], special_tokens: tuple[str, ...], pattern: str, counts: Counter) -> None:
    """Add the pre-token counts of the concatenation of `texts` to `counts`, block by block."""
    specials = _special_regex(special_tokens)
    max_len = max(map(len, special_tokens), default=0)
    builtin = is_builtin(pattern)
    findall = pretokenizer(pattern)
    buf = ""
    searched = 0
    for text in texts:
        buf += text
        if len(buf) - searched < BLOCK_BYTES:
            continue
        cut = stream_cut(buf, searched, builtin, specials, max_len)
        if cut > 0:
            _count_block(buf[:cut], specials, findall, builtin, counts)
            buf = buf[cut:]
            searched = 0
        else:
            searched = max(0, len(buf) - max_len - 2)
    if buf:
        _count_block(buf, specials, findall, builtin, counts)


def _count_block(text: str, specials: regex.Pattern | None, findall, builtin: bool, counts: Counter) -> None:
    for segment in specials.split(text) if specials is not None else (text,):
        if not builtin:
            counts.update(findall(segment))
            continue
        for part, is_ascii in ascii_runs(segment):
            if is_ascii:
                # The pattern's `re` twin over all of the part, then one C-level count: for
                # ASCII this beats deduplicating chunks first.
                counts.update(findall(part))
            else:
                _count_chunks(part, findall, counts)


def _count_chunks(segment: str, findall, counts: Counter) -> None:
    """Count the pre-tokens of text that is not all ASCII, once per distinct chunk.

    Chunks that start with a horizontal space and end with a non-space can be joined and
    pre-tokenized in one call (each boundary is a safe cut); they are grouped by count (so that
    one Counter per group gives the weighted counts) and by being ASCII (so those joined go to
    the pattern's faster twin).
    """
    chunks = Counter(_CHUNK_RE.findall(segment))
    groups: defaultdict[tuple[int, bool], list[str]] = defaultdict(list)
    get = counts.get
    for chunk, c in chunks.items():
        if chunk[0] in _HSPACE and chunk[-1] not in _SPACE:
            groups[c, chunk.isascii()].append(chunk)
        else:
            for piece in findall(chunk):
                counts[piece] = get(piece, 0) + c
    for (c, _), group in groups.items():
        found = Counter(findall("".join(group)))
        if c == 1:
            counts.update(found)
        else:
            for piece, k in found.items():
                counts[piece] = get(piece, 0) + k * c


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(enabled: bool, total: int, desc: str, unit: str):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm  # imported only when asked for: training without a bar stays lean

    return tqdm(total=total, desc=desc, unit=f" {unit}", file=sys.stderr)
