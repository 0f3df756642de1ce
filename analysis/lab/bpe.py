"""The BPE lab's logic: byte-level BPE training replayed merge by merge, and two trainers compared.

Unlike `trace` (merge traces of an existing vocabulary), this module trains: it steps through
training with ownbpe's readable reference (`ownbpe._educational`), one merge at a time, with
each winning pair's count and a round-trip check at every step, and it trains `ownbpe` and
Hugging Face's `BpeTrainer` on the same corpus to compare their merges. It never imports streamlit, so all of it is tested without a browser.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from ..errors import BadInput
from .trace import show_token
from ..render import visible
from ..tokenizers import Piece
from ..tokenizers.base import byte_pieces

if TYPE_CHECKING:  # imported where they are used: this module loads without either trainer
    from ownbpe import Tokenizer as OwnTokenizer
    from tokenizers import Tokenizer as HFTokenizer

# Stepping re-encodes the corpus after every merge (a few ms each at this size).
LAB_MAX_CHARS = 5_000
LAB_MAX_MERGES = 300
# Training comparison: both trainers on an uploaded corpus.
TRAIN_MAX_BYTES = 2_000_000
TRAIN_MAX_VOCAB = 8_192


# -- training one merge at a time ------------------------------------------------------------------
@dataclass(frozen=True)
class BpeSteps:
    """An `ownbpe` training run replayed: the rule table and the corpus after every step.

    Attributes:
        corpus: the training text.
        rules: one row per merge, in the order learned: step, left, right, merged (whitespace
            made visible), count (the winning pair's frequency when it won), n_tokens (corpus
            tokens after the step), bytes_per_token, round_trip (decode(encode(corpus)) ==
            corpus with the merges so far).
        vocab: the trained ids -> bytes (256 bytes, then one token per merge).
        merges: the merges as pairs of bytes.
    """

    corpus: str
    rules: pd.DataFrame
    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    pattern: str | None = None

    def candidates(self, step: int) -> pd.DataFrame:
        """Every pair of adjacent tokens the trainer counted before merge `step` (1-based), the
        winner first: left, right, merged (whitespace visible), count, winner.

        The counts are the trainer's own (`ownbpe._educational.count_pairs` over the distinct
        pre-tokens after the first `step - 1` merges, each weighted by how often it occurs), in the
        order the trainer ranks them: the highest count first and, among equal counts, the greatest
        pair of bytes (its tie-break).
        """
        import ownbpe
        from ownbpe import _educational

        if not 1 <= step <= len(self.merges):
            raise BadInput(f"step must be 1..{len(self.merges)}, got {step}")
        words: Counter[tuple[bytes, ...]] = Counter()
        for piece in _educational.pretokenize(self.corpus, (), self.pattern or ownbpe.GPT2_PATTERN):
            words[tuple(bytes([b]) for b in piece.encode("utf-8"))] += 1
        for pair in self.merges[: step - 1]:
            merged: Counter[tuple[bytes, ...]] = Counter()
            for word, n in words.items():
                merged[_educational.merge_pair(word, pair)] += n
            words = merged
        pairs = sorted(_educational.count_pairs(words).items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
        won = self.merges[step - 1]
        return pd.DataFrame([{"left": visible(show_token(a)), "right": visible(show_token(b)),
                              "merged": visible(show_token(a + b)), "count": n, "winner": (a, b) == won}
                             for (a, b), n in pairs], columns=["left", "right", "merged", "count", "winner"])

    def tie_break(self, step: int) -> str:
        """How merge `step` won: '' when its count alone decided, else which pairs tied and the rule.

        >>> bpe_steps("ab ab cd cd", 1).tie_break(1)
        "3 pairs tied at 2 occurrences; the trainer takes the greatest pair of bytes: 'c' + 'd' (ownbpe's rule; Hugging Face takes the smallest)"
        """
        table = self.candidates(step)
        top = int(table["count"].iloc[0])
        tied = table[table["count"] == top]
        if len(tied) < 2:
            return ""
        w = tied.iloc[0]
        return (f"{len(tied)} pairs tied at {top:,} occurrences; the trainer takes the greatest pair of bytes: "
                f"'{w['left']}' + '{w['right']}' (ownbpe's rule; Hugging Face takes the smallest)")

    def tokenizer_at(self, step: int):
        """The `ownbpe.Tokenizer` that knows only the first `step` merges."""
        import ownbpe

        if not 0 <= step <= len(self.merges):
            raise BadInput(f"step must be 0..{len(self.merges)}, got {step}")
        return ownbpe.Tokenizer({i: self.vocab[i] for i in range(256 + step)}, self.merges[:step])

    def pieces_at(self, step: int) -> list[Piece]:
        """The corpus as tokens after `step` merges, placed on the text for drawing."""
        tok = self.tokenizer_at(step)
        ids = tok.encode_ordinary(self.corpus)
        return byte_pieces(self.corpus, ids, [tok.vocab[i] for i in ids])


def bpe_steps(corpus: str, n_merges: int, *, pattern: str | None = None) -> BpeSteps:
    """Train `ownbpe` on `corpus` and replay it merge by merge.

    The winning pair's count is recounted at each step on the corpus as tokenized so far
    (pairs inside pre-tokens, weighted by how often the pre-token occurs), exactly what the
    trainer maximises; each step's tokenizer is rebuilt from the merges so far and must give
    back the corpus.

    Args:
        corpus: at most LAB_MAX_CHARS characters.
        n_merges: 1..LAB_MAX_MERGES; fewer are learned when the corpus runs out of pairs.
        pattern: the pre-tokenization regex (default GPT-2's).

    Raises:
        ValueError: empty or too long corpus, n_merges out of range.

    >>> steps = bpe_steps("low lower lowest", 2)
    >>> steps.rules[["merged", "count"]].values.tolist()
    [['ow', 3], ['low', 3]]
    """
    import ownbpe
    from ownbpe import _educational

    if not corpus:
        raise BadInput("the corpus is empty: type a few sentences or pick a built-in sample")
    if len(corpus) > LAB_MAX_CHARS:
        raise BadInput(f"the corpus has {len(corpus):,} characters; stepping is limited to {LAB_MAX_CHARS:,}. "
                       "Shorten it (or use the tab 'ownbpe vs Hugging Face', which trains on larger corpora)")
    if not 1 <= n_merges <= LAB_MAX_MERGES:
        raise BadInput(f"number of merges must be 1..{LAB_MAX_MERGES}, got {n_merges}")
    pattern = pattern or ownbpe.GPT2_PATTERN
    # The readable reference trains here: the lab shows the algorithm a learner reads, and
    # ownbpe's fast trainer is tested to learn exactly the same merges.
    steps = _educational.train_steps(corpus, n_merges, pattern=pattern)
    vocab = {i: bytes([i]) for i in range(256)} | {s.new_id: s.token for s in steps}
    merges = [s.pair for s in steps]
    data = corpus.encode("utf-8")
    rows = []
    for k, s in enumerate(steps, start=1):
        left, right = s.pair
        step_tok = ownbpe.Tokenizer({i: vocab[i] for i in range(256 + k)}, merges[:k], pattern=pattern)
        ids = step_tok.encode_ordinary(corpus)
        rows.append({"step": k, "left": visible(show_token(left)), "right": visible(show_token(right)),
                     "merged": visible(show_token(s.token)), "count": s.count, "n_tokens": s.n_tokens,
                     "bytes_per_token": len(data) / s.n_tokens,
                     "round_trip": step_tok.decode(ids) == corpus and len(ids) == s.n_tokens})
    rules = pd.DataFrame(rows, columns=["step", "left", "right", "merged", "count", "n_tokens", "bytes_per_token", "round_trip"])
    return BpeSteps(corpus, rules, dict(vocab), list(merges), pattern)


# -- ownbpe and Hugging Face trained side by side -----------------------------------------------------
@dataclass(frozen=True)
class TrainComparison:
    """Two trainers, same corpus, same vocabulary size.

    Attributes:
        summary: one row per trainer: trainer, seconds, n_merges, vocab_size.
        merges: step, ownbpe, hf, same (merged token at each step, whitespace visible).
        vocab: token, ownbpe_id, hf_id, in_both (every learned token, longest first).
        first_difference: the first step whose merges differ (None if none do).
        ownbpe, hf: the trained tokenizers (`ownbpe.Tokenizer`, `tokenizers.Tokenizer`).
    """

    summary: pd.DataFrame
    merges: pd.DataFrame
    vocab: pd.DataFrame
    first_difference: int | None
    ownbpe: OwnTokenizer
    hf: HFTokenizer

    def split(self, text: str) -> pd.DataFrame:
        """How each trained tokenizer splits `text`."""
        own = [self.ownbpe.vocab[i] for i in self.ownbpe.encode_ordinary(text)]
        hf = [_hf_bytes(t) for t in self.hf.encode(text).tokens]
        return pd.DataFrame([{"trainer": "ownbpe", "n_tokens": len(own), "split": " ".join(visible(show_token(t)) for t in own)},
                             {"trainer": "hf", "n_tokens": len(hf), "split": " ".join(visible(show_token(t)) for t in hf)}])


def _hf_bytes(token: str) -> bytes:
    from ownbpe.io import gpt2_decode_token

    return gpt2_decode_token(token)


def train_both(corpus: str, vocab_size: int) -> TrainComparison:
    """Train `ownbpe` and HF `tokenizers`' BpeTrainer (ByteLevel, GPT-2 pattern) on `corpus`.

    Both start from the 256 byte tokens and learn `vocab_size - 256` merges (no special
    tokens), so their merges differ only where pair counts tie: ownbpe takes the
    lexicographically greatest pair, Hugging Face the smallest.

    Raises:
        ValueError: empty or oversized corpus, vocab_size out of range.

    >>> cmp = train_both("low lower lowest " * 5, 260)
    >>> cmp.summary["n_merges"].tolist()
    [4, 4]
    """
    import ownbpe
    from tokenizers import Tokenizer as HFTokenizer, decoders, models, pre_tokenizers, trainers

    if not corpus:
        raise BadInput("the corpus is empty: upload a text file or pick a built-in corpus")
    n_bytes = len(corpus.encode("utf-8"))
    if n_bytes > TRAIN_MAX_BYTES:
        raise BadInput(f"the corpus is {n_bytes:,} bytes; training here is limited to {TRAIN_MAX_BYTES:,}. "
                       "Train larger corpora with the CLI: tokenprism train")
    if not 257 <= vocab_size <= TRAIN_MAX_VOCAB:
        raise BadInput(f"vocabulary size must be 257..{TRAIN_MAX_VOCAB} (256 bytes + merges), got {vocab_size}")
    t0 = time.perf_counter()
    own = ownbpe.Tokenizer.train_from_iterator([corpus], vocab_size)
    t_own = time.perf_counter() - t0
    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=0, show_progress=False, special_tokens=[],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    t0 = time.perf_counter()
    hf.train_from_iterator([corpus], trainer)
    t_hf = time.perf_counter() - t0
    hf_merges = [tuple(_hf_bytes(s) for s in (m if isinstance(m, list) else m.split(" ")))
                 for m in json.loads(hf.to_str())["model"]["merges"]]
    own_tokens = [a + b for a, b in own.merges]
    hf_tokens = [a + b for a, b in hf_merges]
    n = max(len(own_tokens), len(hf_tokens))
    merges = pd.DataFrame({
        "step": range(1, n + 1),
        "ownbpe": [visible(show_token(t)) for t in own_tokens] + [""] * (n - len(own_tokens)),
        "hf": [visible(show_token(t)) for t in hf_tokens] + [""] * (n - len(hf_tokens)),
    }).assign(same=lambda d: d["ownbpe"] == d["hf"])
    diff = merges.loc[~merges["same"], "step"]
    hf_ids = {_hf_bytes(t): i for t, i in hf.get_vocab().items()}
    own_ids = {t: i for i, t in own.vocab.items()}
    own_set, hf_set = set(own_tokens), set(hf_tokens)
    learned = sorted(own_set | hf_set, key=lambda t: (-len(t), t))
    vocab = pd.DataFrame({
        "token": [visible(show_token(t)) for t in learned],
        "ownbpe_id": pd.array([own_ids[t] if t in own_set else None for t in learned], dtype="Int64"),
        "hf_id": pd.array([hf_ids[t] if t in hf_set else None for t in learned], dtype="Int64"),
    }).assign(in_both=lambda d: d["ownbpe_id"].notna() & d["hf_id"].notna())
    summary = pd.DataFrame([
        {"trainer": "ownbpe", "seconds": t_own, "n_merges": len(own.merges), "vocab_size": own.n_vocab},
        {"trainer": "hf", "seconds": t_hf, "n_merges": len(hf_merges), "vocab_size": hf.get_vocab_size()},
    ])
    return TrainComparison(summary, merges, vocab, int(diff.iloc[0]) if len(diff) else None, own, hf)
