"""Byte-level BPE in the fewest readable lines: training and encoding as a learner reads them.

Unlike the rest of `ownbpe`, which is built for speed (incremental pair counts, heaps, caches,
safe cuts), this module does everything the plain way, recounting every pair before every
merge. It is the reference: the fast modules are tested against it and must give the same
merges and the same ids. It is slow (fine for a few thousand pre-tokens and a few hundred
merges), so use `ownbpe.train_bpe` and `ownbpe.Tokenizer` for real work.

The algorithm, as the CS336 assignment and GPT-2 define it:

1. **Pre-tokenize.** Cut special tokens out of the text first (they are never merged), then
   split the rest with a regex into pre-tokens: words, numbers, punctuation runs, spaces.
   Merges never cross a pre-token's edge. (`regex` 2025.10+ knows Unicode 17.0, tiktoken 0.14
   only 16.0: on the characters 17.0 added, this module follows `regex`, the fast path tiktoken.)
2. **Start from bytes.** Every pre-token is a sequence of single bytes: 256 base tokens, so
   any text can be encoded.
3. **Merge.** Count every adjacent pair of tokens inside the pre-tokens, each pre-token
   weighted by how often it occurs. The most frequent pair becomes a new token (ties go to the
   lexicographically greatest pair of bytes). Replace it everywhere and repeat.
4. **Encode.** Split a new text the same way; inside each pre-token, keep applying the
   available merge with the lowest rank (the earliest learned), leftmost first.

>>> vocab, merges = train("low lower lowest", 258)
>>> merges
[(b'o', b'w'), (b'l', b'ow')]
>>> encode("slow", merges)
[115, 257]
>>> vocab[257]
b'low'
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import regex

from .patterns import GPT2_PATTERN

Pair = tuple[bytes, bytes]


@dataclass(frozen=True)
class TrainStep:
    """One merge learned by `train_steps`.

    Attributes:
        new_id: the id of the new token (256 for the first merge, then 257, ...).
        pair: the `(left, right)` tokens merged.
        count: how often the pair occurred when it won, pre-tokens weighted by their counts.
        n_tokens: how many tokens the training text has after this merge (special tokens not
            counted).
    """

    new_id: int
    pair: Pair
    count: int
    n_tokens: int

    @property
    def token(self) -> bytes:
        return self.pair[0] + self.pair[1]


@dataclass(frozen=True)
class EncodeStep:
    """One merge applied while encoding a pre-token (see `encode_steps`).

    Attributes:
        rank: the merge's rank: its place in the merges list, or the rank of the merged token
            in tiktoken-style ranks.
        pair: the `(left, right)` tokens merged.
        parts: the pre-token's tokens after this merge.
    """

    rank: int
    pair: Pair
    parts: tuple[bytes, ...]


# -- pre-tokenization ------------------------------------------------------------------------


def pretokenize(text: str, special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN) -> list[str]:
    """Split `text` into pre-tokens; special tokens are cut out first and dropped.

    >>> pretokenize("Hi there!<|endoftext|>It's", ["<|endoftext|>"])
    ['Hi', ' there', '!', 'It', "'s"]
    """
    segments = [text]
    if special_tokens:
        # Longest first, so that a special token containing another one wins.
        alternatives = sorted(special_tokens, key=len, reverse=True)
        segments = regex.split("|".join(regex.escape(s) for s in alternatives), text)
    return [piece for segment in segments for piece in regex.findall(pattern, segment)]


# -- training --------------------------------------------------------------------------------


def train(
    text_or_texts: str | Iterable[str],
    vocab_size: int,
    special_tokens: Sequence[str] = (),
    pattern: str = GPT2_PATTERN,
) -> tuple[dict[int, bytes], list[Pair]]:
    """Learn a byte-level BPE: returns `(vocab, merges)`, laid out like `ownbpe.train_bpe`.

    `vocab` maps ids to bytes: 0..255 are the bytes, then one token per merge, then the special
    tokens. Fewer merges are learned if the text runs out of pairs. Several texts are
    pre-tokenized separately (no pre-token spans two of them).

    >>> vocab, merges = train(["aaabdaaabac"], 259)
    >>> merges  # (aa, a) and (a, b) tie at 2: the greater pair wins
    [(b'a', b'a'), (b'aa', b'a'), (b'aaa', b'b')]
    >>> len(train("hi<|endoftext|>", 258, ["<|endoftext|>"])[0])
    258
    """
    n_merges = vocab_size - 256 - len(special_tokens)
    if n_merges < 0:
        raise ValueError(f"vocab_size={vocab_size} is too small: 256 bytes + {len(special_tokens)} special tokens")
    steps = train_steps(text_or_texts, n_merges, special_tokens, pattern)
    vocab = {i: bytes([i]) for i in range(256)}
    for step in steps:
        vocab[step.new_id] = step.token
    for special in special_tokens:
        vocab[len(vocab)] = special.encode("utf-8")
    return vocab, [step.pair for step in steps]


def train_steps(
    text_or_texts: str | Iterable[str],
    n_merges: int,
    special_tokens: Sequence[str] = (),
    pattern: str = GPT2_PATTERN,
) -> list[TrainStep]:
    """Learn up to `n_merges` merges and say, for each, what won and by how much.

    >>> for step in train_steps("low lower lowest", 2):
    ...     print(step.new_id, step.pair, step.count, step.n_tokens)
    256 (b'o', b'w') 3 13
    257 (b'l', b'ow') 3 10
    """
    texts = [text_or_texts] if isinstance(text_or_texts, str) else text_or_texts
    # Each distinct pre-token once, as a tuple of tokens (at first its bytes), with its count.
    words: Counter[tuple[bytes, ...]] = Counter()
    for text in texts:
        for piece in pretokenize(text, special_tokens, pattern):
            words[tuple(bytes([b]) for b in piece.encode("utf-8"))] += 1
    steps = []
    for new_id in range(256, 256 + n_merges):
        pairs = count_pairs(words)
        if not pairs:
            break  # every pre-token is a single token: nothing left to merge
        # The most frequent pair; on a tie, the greatest (left, right) compared as bytes.
        best = max(pairs, key=lambda pair: (pairs[pair], pair))
        merged: Counter[tuple[bytes, ...]] = Counter()
        for word, count in words.items():
            merged[merge_pair(word, best)] += count
        words = merged
        n_tokens = sum(len(word) * count for word, count in words.items())
        steps.append(TrainStep(new_id, best, pairs[best], n_tokens))
    return steps


def count_pairs(words: Mapping[tuple[bytes, ...], int]) -> Counter[Pair]:
    """How often each adjacent pair occurs, each word weighted by its count.

    >>> count_pairs({(b"a", b"b", b"a", b"b"): 2})
    Counter({(b'a', b'b'): 4, (b'b', b'a'): 2})
    """
    pairs: Counter[Pair] = Counter()
    for word, count in words.items():
        for pair in zip(word, word[1:]):
            pairs[pair] += count
    return pairs


def merge_pair(word: tuple[bytes, ...], pair: Pair) -> tuple[bytes, ...]:
    """Replace every occurrence of `pair` in `word` by one token, left to right.

    >>> merge_pair((b"a", b"a", b"a"), (b"a", b"a"))
    (b'aa', b'a')
    """
    out = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


# -- encoding --------------------------------------------------------------------------------


def encode(
    text: str,
    merges_or_ranks: Sequence[Pair] | Mapping[bytes, int],
    special_tokens: Sequence[str] | Mapping[str, int] = (),
    pattern: str = GPT2_PATTERN,
) -> list[int]:
    """Encode `text` to ids, with merges learned by `train` or with tiktoken-style ranks.

    Args:
        text: the text; special-token strings become their ids.
        merges_or_ranks: either the merges list of `train` (a pair may merge only if it is in
            the list, the earliest first; the ids are those of `train`'s vocab), or a mapping
            token bytes -> rank as tiktoken stores it (any two adjacent parts whose
            concatenation is a token may merge, the lowest rank first; the rank is the id).
        special_tokens: a list (ids follow the last token, as in `train`) or a mapping to ids.
        pattern: the pre-tokenization regex.

    >>> ranks = {bytes([i]): i for i in range(256)} | {b"ab": 256, b"abc": 257}
    >>> encode("abc abd<|endoftext|>", ranks, {"<|endoftext|>": 258})
    [257, 32, 256, 100, 258]
    """
    ids_of = _token_ids(merges_or_ranks)
    if isinstance(special_tokens, Mapping):
        specials = dict(special_tokens)
    else:  # after the last token, as `train` numbers them
        specials = {s: max(ids_of.values()) + 1 + k for k, s in enumerate(special_tokens)}
    ids: list[int] = []
    for chunk in _split_specials(text, specials):
        if chunk in specials:
            ids.append(specials[chunk])
            continue
        for piece in regex.findall(pattern, chunk):
            parts = _whole_or_merged(piece.encode("utf-8"), merges_or_ranks)
            ids.extend(ids_of[part] for part in parts)
    return ids


def encode_steps(piece: str | bytes, merges_or_ranks: Sequence[Pair] | Mapping[bytes, int]) -> list[EncodeStep]:
    """Encode one pre-token step by step: every merge that fires, in order.

    >>> merges = [(b"o", b"w"), (b"l", b"ow"), (b"e", b"r")]
    >>> [b"|".join(step.parts) for step in encode_steps("lower", merges)]
    [b'l|ow|e|r', b'low|e|r', b'low|er']
    """
    data = piece.encode("utf-8") if isinstance(piece, str) else piece
    rank_of = _rank_function(merges_or_ranks)
    parts = [bytes([b]) for b in data]
    steps = []
    while len(parts) > 1:
        # The rank of every adjacent pair that may merge; the lowest merges, leftmost on ties.
        ranked = [(rank_of(parts[i], parts[i + 1]), i) for i in range(len(parts) - 1)]
        ranked = [(rank, i) for rank, i in ranked if rank is not None]
        if not ranked:
            break
        rank, i = min(ranked)
        pair = (parts[i], parts[i + 1])
        parts[i : i + 2] = [pair[0] + pair[1]]
        steps.append(EncodeStep(rank, pair, tuple(parts)))
    return steps


def visualise(piece: str | bytes, merges_or_ranks: Sequence[Pair] | Mapping[bytes, int]) -> str:
    """The pre-token after each merge, one line per step, tokens separated by `|`.

    Returns the text; printing it is up to the caller.

    >>> print(visualise("lower", [(b"o", b"w"), (b"l", b"ow"), (b"e", b"r")]))
    l|o|w|e|r
    l|ow|e|r
    low|e|r
    low|er
    """
    data = piece.encode("utf-8") if isinstance(piece, str) else piece
    lines = [[bytes([b]) for b in data]] + [list(step.parts) for step in encode_steps(data, merges_or_ranks)]
    return "\n".join("|".join(part.decode("utf-8", errors="replace") for part in parts) for parts in lines)


def _whole_or_merged(data: bytes, merges_or_ranks: Sequence[Pair] | Mapping[bytes, int]) -> list[bytes]:
    # tiktoken takes a pre-token that is itself a token as that one token, even if merging
    # would have stopped elsewhere; with a merges list there is no such shortcut.
    if isinstance(merges_or_ranks, Mapping) and data in merges_or_ranks:
        return [data]
    steps = encode_steps(data, merges_or_ranks)
    return list(steps[-1].parts) if steps else [bytes([b]) for b in data]


def _rank_function(merges_or_ranks: Sequence[Pair] | Mapping[bytes, int]):
    if isinstance(merges_or_ranks, Mapping):
        ranks = merges_or_ranks
        return lambda left, right: ranks.get(left + right)
    pair_rank: dict[Pair, int] = {}
    for rank, pair in enumerate(merges_or_ranks):
        pair_rank.setdefault((pair[0], pair[1]), rank)  # a repeated merge keeps its first rank
    return lambda left, right: pair_rank.get((left, right))


def _token_ids(merges_or_ranks: Sequence[Pair] | Mapping[bytes, int]) -> dict[bytes, int]:
    if isinstance(merges_or_ranks, Mapping):
        return dict(merges_or_ranks)
    ids = {bytes([i]): i for i in range(256)}
    for k, (left, right) in enumerate(merges_or_ranks):
        ids.setdefault(left + right, 256 + k)
    return ids


def _split_specials(text: str, specials: Mapping[str, int]) -> list[str]:
    if not specials:
        return [text]
    alternatives = sorted(specials, key=len, reverse=True)
    # The capturing group keeps the special tokens in the result, between the plain chunks.
    return [c for c in regex.split("(" + "|".join(map(regex.escape, alternatives)) + ")", text) if c]
