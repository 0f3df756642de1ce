"""Learning merges: from pre-token counts to a vocab and a merges list, incrementally.

Unlike `count` (which streams the corpus into pre-token counts) and `tokenizer` (which applies
merges), this module learns them, exactly as the CS336 reference does: pairs are counted inside
pre-tokens weighted by pre-token frequency, the most frequent pair wins, ties going to the
lexicographically greatest `(left, right)` as raw bytes, and special tokens are never merged.

Merging never recounts: an index maps each pair to the words containing it, and a merge only
visits those words and adjusts the counts of the pairs around each occurrence. A max-heap with
lazy deletion finds the best pair: counts of existing pairs only ever go down, so a popped
entry whose count is out of date is pushed back with its current count.
"""

from __future__ import annotations

import os
from collections import Counter
from heapq import heapify, heappop, heappush
from operator import add
from typing import Iterable


from .count import _count_stream, _progress_bar, count_file
from .patterns import GPT2_PATTERN, is_builtin
from .userpattern import BoundedPattern


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

    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     corpus = Path(folder, "corpus.txt")
    ...     _ = corpus.write_text("low lower lowest<|endoftext|>" * 3, encoding="utf-8")
    ...     vocab, merges = train_bpe(corpus, 259, ["<|endoftext|>"])
    >>> merges, vocab[257], vocab[258]
    ([(b'o', b'w'), (b'l', b'ow')], b'low', b'<|endoftext|>')
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
    [(b'o', b'w')]
    """
    specials = _check_args(vocab_size, special_tokens, pattern, 1)
    counts: Counter[str] = Counter()
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be strings, got {type(text).__name__}")
        _count_stream([text], tuple(specials), pattern, counts)
    return _train_from_counts(counts, vocab_size, specials, progress)


def train_bpe_from_counts(
    counts: dict[str, int],
    vocab_size: int,
    special_tokens: Iterable[str] = (),
    *,
    progress: bool = False,
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """Like `train_bpe`, from pre-token counts made elsewhere (`count_file`, or the sum of
    `count_file_part` over the ranges of `file_parts`, counted on other machines).

    `counts` is handed over: it is emptied as the words are built, which frees the strings as
    the merge loop's words take their place (pass a copy to keep it).

    >>> train_bpe_from_counts({"low": 3, " lower": 3, " lowest": 3}, 258)[1]
    [(b'o', b'w'), (b'l', b'ow')]
    """
    specials = _check_args(vocab_size, special_tokens, GPT2_PATTERN, 1)
    for piece, c in counts.items():
        if not isinstance(piece, str) or isinstance(c, bool) or not isinstance(c, int) or c < 1:
            raise ValueError(f"counts must map pre-token strings to positive ints; got {piece!r}: {c!r}")
    return _train_from_counts(counts, vocab_size, specials, progress)


# -- merging --------------------------------------------------------------------------------


def _train_from_counts(
    counts: dict[str, int], vocab_size: int, specials: list[str], progress: bool
) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    n_merges = vocab_size - 256 - len(specials)
    words: list[str] = []
    freqs: list[int] = []
    # The caller hands `counts` over: emptying it frees each string as its word is made.
    while counts:
        piece, c = counts.popitem()
        # A word is a str with one character per token, character k being token id k; latin-1
        # turns each byte into the character of its own id. Strings make the merge loop's
        # searches and replacements C calls (find, replace) and take half the memory of lists.
        word = piece.encode("utf-8").decode("latin-1")
        if len(word) > 1:  # a single byte holds no pair
            words.append(word)
            freqs.append(c)
    tokens, pairs = _learn_merges(words, freqs, n_merges, progress)
    vocab = dict(enumerate(tokens))
    for text in specials:
        vocab[len(vocab)] = text.encode("utf-8")
    return vocab, [(tokens[a], tokens[b]) for a, b in pairs]


_COMPLEMENT = bytes(range(255, -1, -1))
_INDEX_STEP = 1 << 16  # words indexed between two updates of the progress bar
_MAX_VOCAB = 0x110000  # one past the largest code point: chr(id) must exist


def _order_key(token: bytes) -> str:
    """A string whose ascending order is the descending byte order of `token`.

    Complementing each byte reverses the order of differing bytes; the final U+0100 sorts a
    longer token (greater as bytes) before its own prefix. Because U+0100 occurs only at the
    end, the key of a pair `(a, b)` can be the concatenation `key(a) + key(b)`: it sorts
    exactly like the tuple of the two keys.
    """
    return token.translate(_COMPLEMENT).decode("latin-1") + "\u0100"


def _learn_merges(
    words: list[str], freqs: list[int], n_merges: int, progress: bool
) -> tuple[list[bytes], list[tuple[int, int]]]:
    """The merge loop. `words` are pre-tokens as strings of token ids (changed in place).

    A pair of tokens is the two-character string of their ids: a slice of a word, so finding
    and replacing it in a word are C string operations.
    """
    tokens = [bytes([b]) for b in range(256)]
    keys = [_order_key(t) for t in tokens]
    pair_counts: dict[str, int] = {}
    # pair -> the words that contain it: a bare int for one word (most pairs), else a list.
    # Not sets (a fifth of the memory): a word is only ever added right after itself, so
    # checking the last entry keeps them free of duplicates.
    where: dict[str, int | list[int]] = {}
    get = pair_counts.get
    where_get = where.get
    bar = _progress_bar(progress, len(words), "indexing pairs", "words")
    for start in range(0, len(words), _INDEX_STEP):
        for w in range(start, min(start + _INDEX_STEP, len(words))):
            word = words[w]
            f = freqs[w]
            for pair in map(add, word, word[1:]):
                pair_counts[pair] = get(pair, 0) + f
                found = where_get(pair)
                if found is None:
                    where[pair] = w
                elif isinstance(found, int):
                    if found != w:
                        where[pair] = [found, w]
                elif found[-1] != w:
                    found.append(w)
        bar.update(min(_INDEX_STEP, len(words) - start))
    bar.close()
    # Max-heap by (count, (left, right) as bytes): negated count, then the pair's order key.
    heap = [(-c, keys[ord(pair[0])] + keys[ord(pair[1])], pair) for pair, c in pair_counts.items()]
    heapify(heap)
    merges: list[tuple[int, int]] = []
    bar = _progress_bar(progress, n_merges, "merging", "merges")
    while len(merges) < n_merges and heap:
        negative, key, pair = heappop(heap)
        count = get(pair, 0)
        if count != -negative:  # out of date: counts only decrease, so re-queue the truth
            if count > 0:
                heappush(heap, (-count, key, pair))
            continue
        a, b = ord(pair[0]), ord(pair[1])
        z = len(tokens)
        tokens.append(tokens[a] + tokens[b])
        keys.append(_order_key(tokens[z]))
        merges.append((a, b))
        bar.update()
        for new in _apply_merge(pair, chr(z), words, freqs, pair_counts, where):
            heappush(heap, (-pair_counts[new], keys[ord(new[0])] + keys[ord(new[1])], new))
    bar.close()
    return tokens, merges


def _apply_merge(
    pair: str, z: str, words: list[str], freqs: list[int], pair_counts: dict[str, int], where: dict[str, int | list[int]]
) -> set[str]:
    """Replace `pair` by the token `z` in every word that has it; fix the counts of the pairs around it.

    Returns the new pairs (all contain `z`), whose counts are final once every word is done.
    """
    new_pairs: set[str] = set()
    counts_get = pair_counts.get
    where_get = where.get
    a, b = pair[0], pair[1]
    ba = b + a
    zz = z + z
    targets = where.pop(pair, ())
    for w in (targets,) if isinstance(targets, int) else targets:
        word = words[w]
        j = word.find(pair)
        if j < 0:  # the lazy index is stale: an earlier merge took the pair from this word
            continue
        f = freqs[w]
        n = len(word)
        end = -1  # where the previous occurrence of the pair ended
        while j >= 0:
            if j:
                # The pair on the left changes: (left, a) -> (left, z). If the previous
                # occurrence ends here, its z is the left token and the old pair was (b, a).
                if j == end:
                    old, new = ba, zz
                else:
                    left = word[j - 1]
                    old, new = left + a, left + z
                c = pair_counts[old] - f
                if c:
                    pair_counts[old] = c
                else:
                    del pair_counts[old]
                    where.pop(old, None)
                pair_counts[new] = counts_get(new, 0) + f
                new_pairs.add(new)
                found_in = where_get(new)
                if found_in is None:
                    where[new] = w
                elif isinstance(found_in, int):
                    if found_in != w:
                        where[new] = [found_in, w]
                elif found_in[-1] != w:
                    found_in.append(w)
            end = j + 2
            j = word.find(pair, end)
            # The pair on the right changes too, unless another occurrence starts right
            # there: then it is that one's left pair.
            if end < n and j != end:
                right = word[end]
                old, new = b + right, z + right
                c = pair_counts[old] - f
                if c:
                    pair_counts[old] = c
                else:
                    del pair_counts[old]
                    where.pop(old, None)
                pair_counts[new] = counts_get(new, 0) + f
                new_pairs.add(new)
                found_in = where_get(new)
                if found_in is None:
                    where[new] = w
                elif isinstance(found_in, int):
                    if found_in != w:
                        where[new] = [found_in, w]
                elif found_in[-1] != w:
                    found_in.append(w)
        words[w] = word.replace(pair, z)
    pair_counts.pop(pair, None)
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
    if vocab_size > _MAX_VOCAB:
        # Words hold one character per token id (see `_train_from_counts`).
        raise ValueError(f"vocab_size={vocab_size} is too large: ownbpe trains at most {_MAX_VOCAB:,} tokens")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive int or None (all CPUs), got {workers!r}")
    if not isinstance(pattern, str) or not is_builtin(pattern):
        BoundedPattern(pattern)  # invalid, or able to drop characters: ValueError naming the pattern
    return specials
