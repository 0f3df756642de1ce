"""Learning merges from a corpus: count pre-tokens (in parallel), then merge pairs incrementally.

Unlike `tokenizer` (which applies merges), this module learns them, exactly as the CS336
reference does: special tokens are split out first and never merged, pre-tokens come from the
pattern, pairs are counted inside pre-tokens weighted by pre-token frequency, and the most
frequent pair wins, ties going to the lexicographically greatest `(left, right)` as raw bytes.

Two things make it fast in pure Python, and lean:

* **Counting** streams the file in blocks cut where cutting provably changes no pre-token (see
  `patterns`), so the corpus is never held in memory whole. Within a block, a cheap regex cuts
  the text into chunks, the chunks are counted with `Counter`, and the real pattern runs once
  per distinct chunk. Workers count separate byte ranges of the file, cut at such safe
  positions; counts are sums, so the result is the same for any number of workers.
* **Merging** never recounts: an index maps each pair to the words containing it, and a merge
  only visits those words and adjusts the counts of the pairs around each occurrence. A max-heap
  with lazy deletion finds the best pair: counts of existing pairs only ever go down, so a popped
  entry whose count is out of date is pushed back with its current count.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import Counter, defaultdict
from functools import lru_cache
from heapq import heapify, heappop, heappush
from itertools import repeat
from operator import lshift, or_
from pathlib import Path
from typing import Iterable, Iterator

import regex

from .patterns import _CHUNK_RE, _WS, GPT2_PATTERN, is_builtin, stream_cut

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


def train_bpe(
    input_path: str | os.PathLike,
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    *,
    pattern: str = GPT2_PATTERN,
    workers: int | None = None,
    progress: bool = False,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Train a byte-level BPE on a UTF-8 text file.

    Args:
        input_path: the corpus, read as UTF-8 without newline translation.
        vocab_size: the final vocab size: 256 bytes + merges + special tokens.
        special_tokens: strings that split the text and are never merged; they get the last ids.
        pattern: the pre-tokenization regex (`GPT2_PATTERN`, `CL100K_PATTERN`, `O200K_PATTERN` or
            your own; with your own, a file without special tokens is read into memory whole).
        workers: processes used to count pre-tokens (default: all CPUs; small inputs use one).
        progress: show progress bars on stderr.

    Returns:
        `(vocab, merges)`: `vocab` maps ids 0..vocab_size-1 to bytes (bytes 0..255 are the byte
        values, then the merges in order, then the special tokens); `merges` lists
        `(left, right)` in the order learned. Fewer merges are returned if the corpus runs out
        of pairs.

    Raises:
        ValueError: vocab_size too small, invalid UTF-8 (with the byte offset), bad arguments.
        FileNotFoundError: no such file.

    >>> # vocab, merges = train_bpe("corpus.en", 500, ["<|endoftext|>"])
    """
    specials = _check_args(vocab_size, special_tokens, pattern, workers)
    counts = count_file(input_path, specials, pattern, workers=workers, progress=progress)
    return _train_from_counts(counts, vocab_size, specials, progress)


def train_bpe_from_iterator(
    texts: Iterable[str],
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    *,
    pattern: str = GPT2_PATTERN,
    progress: bool = False,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Like `train_bpe`, on texts in memory; each text is pre-tokenized on its own.

    >>> vocab, merges = train_bpe_from_iterator(["low lower lowest"], 257)
    >>> merges
    [(b'l', b'o')]
    """
    specials = _check_args(vocab_size, special_tokens, pattern, 1)
    counts: Counter[str] = Counter()
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be strings, got {type(text).__name__}")
        _count_stream([text], tuple(specials), pattern, counts)
    return _train_from_counts(counts, vocab_size, specials, progress)


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

    Raises:
        FileNotFoundError: no such file.
        ValueError: invalid UTF-8; the message gives the byte offset.
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
    bar = _bar(progress, size, "pre-tokenizing", "B")
    counts: Counter[str] = Counter()
    if len(jobs) == 1:
        _count_range(*jobs[0], counts=counts, bar=bar)
    else:
        # n - 1 worker processes plus this one: one process fewer to hold in memory.
        with multiprocessing.get_context().Pool(len(jobs) - 1) as pool:
            pending = pool.imap(_count_range_star, jobs[:-1])
            _count_range(*jobs[-1], counts=counts, bar=bar)
            for (start, end), part in zip(ranges, pending):
                counts.update(part)  # Counter.update adds counts
                bar.update(end - start)
    bar.close()
    return counts


def read_corpus(path: str | os.PathLike) -> str:
    """Read a corpus as UTF-8, keeping `\\r\\n` as two characters.

    Raises:
        FileNotFoundError: no such file.
        ValueError: invalid UTF-8; the message gives the byte offset.
    """
    return "".join(_read_text(Path(path), 0, None))


# -- counting -------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def _special_regex(specials: tuple[str, ...]) -> regex.Pattern | None:
    # Longest first, so that a special token containing another one wins.
    if not specials:
        return None
    return regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))


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
    findall = regex.compile(pattern).findall
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
        # Chunks that start with a horizontal space and end with a non-space can be joined and
        # pre-tokenized in one call (each boundary is a safe cut); group them by count so that
        # one Counter per group gives the weighted pre-token counts.
        chunks = Counter(_CHUNK_RE.findall(segment))
        groups: defaultdict[int, list[str]] = defaultdict(list)
        get = counts.get
        for chunk, c in chunks.items():
            if chunk[0] in _HSPACE and chunk[-1] not in _SPACE:
                groups[c].append(chunk)
            else:
                for piece in findall(chunk):
                    counts[piece] = get(piece, 0) + c
        for c, group in groups.items():
            found = Counter(findall("".join(group)))
            if c == 1:
                counts.update(found)
            else:
                for piece, k in found.items():
                    counts[piece] = get(piece, 0) + k * c


# -- merging --------------------------------------------------------------------------------


def _train_from_counts(
    counts: dict[str, int], vocab_size: int, specials: list[str], progress: bool
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    n_merges = vocab_size - 256 - len(specials)
    words: list[list[int]] = []
    freqs: list[int] = []
    # The caller hands `counts` over: emptying it frees each string as its word is made.
    while counts:
        piece, c = counts.popitem()
        data = piece.encode("utf-8")
        if len(data) > 1:  # a single byte holds no pair
            words.append(list(data))
            freqs.append(c)
    tokens, pairs = _learn_merges(words, freqs, n_merges, progress)
    vocab = dict(enumerate(tokens))
    for text in specials:
        vocab[len(vocab)] = text.encode("utf-8")
    return vocab, [(tokens[a], tokens[b]) for a, b in pairs]


_COMPLEMENT = bytes(range(255, -1, -1))


def _order_key(token: bytes) -> str:
    """A string whose ascending order is the descending byte order of `token`.

    Complementing each byte reverses the order of differing bytes; the final U+0100 sorts a
    longer token (greater as bytes) before its own prefix.
    """
    return token.translate(_COMPLEMENT).decode("latin-1") + "\u0100"


def _learn_merges(
    words: list[list[int]], freqs: list[int], n_merges: int, progress: bool
) -> tuple[list[bytes], list[tuple[int, int]]]:
    """The merge loop. `words` are pre-tokens as lists of token ids (changed in place).

    A pair `(a, b)` is the int `a << shift | b`: half the memory of a tuple, and as fast.
    """
    tokens = [bytes([b]) for b in range(256)]
    keys = [_order_key(t) for t in tokens]
    shift = max(256 + n_merges, 2).bit_length()
    mask = (1 << shift) - 1
    pair_counts: dict[int, int] = {}
    # pair -> the words that contain it: a bare int for one word (most pairs), else a list.
    # Not sets (a fifth of the memory): a word is only ever added right after itself, so
    # checking the last entry keeps them free of duplicates.
    where: dict[int, int | list[int]] = {}
    get = pair_counts.get
    for w, word in enumerate(words):
        f = freqs[w]
        for pair in map(or_, map(lshift, word, repeat(shift)), word[1:]):
            pair_counts[pair] = get(pair, 0) + f
            found = where.get(pair)
            if found is None:
                where[pair] = w
            elif found.__class__ is int:
                if found != w:
                    where[pair] = [found, w]
            elif found[-1] != w:
                found.append(w)
    # Max-heap by (count, (left, right) as bytes): negated count, complemented byte keys.
    heap = [(-c, keys[pair >> shift], keys[pair & mask], pair) for pair, c in pair_counts.items()]
    heapify(heap)
    merges: list[tuple[int, int]] = []
    bar = _bar(progress, n_merges, "merging", "merges")
    while len(merges) < n_merges and heap:
        negative, key_a, key_b, pair = heappop(heap)
        count = get(pair, 0)
        if count != -negative:  # out of date: counts only decrease, so re-queue the truth
            if count > 0:
                heappush(heap, (-count, key_a, key_b, pair))
            continue
        a, b = pair >> shift, pair & mask
        z = len(tokens)
        tokens.append(tokens[a] + tokens[b])
        keys.append(_order_key(tokens[z]))
        merges.append((a, b))
        bar.update()
        for new in _apply_merge(a, b, z, shift, words, freqs, pair_counts, where):
            heappush(heap, (-pair_counts[new], keys[new >> shift], keys[new & mask], new))
    bar.close()
    return tokens, merges


def _apply_merge(
    a: int,
    b: int,
    z: int,
    shift: int,
    words: list[list[int]],
    freqs: list[int],
    pair_counts: dict[int, int],
    where: dict[int, int | list[int]],
) -> set[int]:
    """Replace `(a, b)` by `z` in every word that has it; fix the counts of neighbouring pairs.

    Returns the new pairs (all contain `z`), whose counts are final once every word is done.
    """
    new_pairs: set[int] = set()
    counts_get = pair_counts.get
    where_get = where.get
    ab = a << shift | b
    ba = b << shift | a
    targets = where.pop(ab, ())
    for w in (targets,) if targets.__class__ is int else targets:
        word = words[w]
        k = word.count(a)  # occurrences of `a` left to look at; 0: the lazy index is stale
        if not k:
            continue
        n = len(word)
        f = freqs[w]
        out: list[int] = []
        i = 0
        found = False
        while k > 0:
            j = word.index(a, i)
            if j + 1 < n and word[j + 1] == b:
                found = True
                if j > i:
                    out += word[i:j]
                if out:
                    # The pair on the left changes: (left, a) -> (left, z). If left is the z
                    # made just before, the old pair was (b, a).
                    left = out[-1]
                    old = ba if left == z else left << shift | a
                    c = counts_get(old, 0) - f
                    if c > 0:
                        pair_counts[old] = c
                    else:
                        pair_counts.pop(old, None)
                        where.pop(old, None)
                    new = left << shift | z
                    pair_counts[new] = counts_get(new, 0) + f
                    new_pairs.add(new)
                    found_in = where_get(new)
                    if found_in is None:
                        where[new] = w
                    elif found_in.__class__ is int:
                        if found_in != w:
                            where[new] = [found_in, w]
                    elif found_in[-1] != w:
                        found_in.append(w)
                out.append(z)
                i = j + 2
                k -= 2 if a == b else 1
                if i < n:
                    right = word[i]
                    # The pair on the right changes too, unless another (a, b) starts there:
                    # then it is that one's left pair.
                    if not (right == a and i + 1 < n and word[i + 1] == b):
                        old = b << shift | right
                        c = counts_get(old, 0) - f
                        if c > 0:
                            pair_counts[old] = c
                        else:
                            pair_counts.pop(old, None)
                            where.pop(old, None)
                        new = z << shift | right
                        pair_counts[new] = counts_get(new, 0) + f
                        new_pairs.add(new)
                        found_in = where_get(new)
                        if found_in is None:
                            where[new] = w
                        elif found_in.__class__ is int:
                            if found_in != w:
                                where[new] = [found_in, w]
                        elif found_in[-1] != w:
                            found_in.append(w)
            else:
                out += word[i : j + 1]
                i = j + 1
                k -= 1
        if found:
            if i < n:
                out += word[i:]
            words[w] = out
    pair_counts.pop(ab, None)
    return new_pairs


# -- helpers --------------------------------------------------------------------------------


def _check_args(vocab_size: int, special_tokens: Iterable[str], pattern: str, workers: int | None) -> list[str]:
    if isinstance(special_tokens, str):
        raise TypeError(f"special_tokens must be a list of strings, not the string {special_tokens!r}")
    specials = list(dict.fromkeys(special_tokens))
    for s in specials:
        if not isinstance(s, str) or not s:
            raise ValueError(f"special tokens must be non-empty strings, got {s!r}")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TypeError(f"vocab_size must be an int, got {vocab_size!r}")
    minimum = 256 + len(specials)
    if vocab_size < minimum:
        raise ValueError(
            f"vocab_size={vocab_size} is too small: it must be at least 256 (one token per byte) + "
            f"{len(specials)} special token{'s' if len(specials) != 1 else ''} = {minimum}"
        )
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int or None (all CPUs), got {workers!r}")
    try:
        regex.compile(pattern)
    except (regex.error, TypeError) as err:
        raise ValueError(f"invalid pre-tokenization pattern {pattern!r}: {err}") from err
    return specials


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _bar(enabled: bool, total: int, desc: str, unit: str):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm  # imported only when asked for: training without a bar stays lean

    return tqdm(total=total, desc=desc, unit=f" {unit}", file=sys.stderr)
