"""Probe 5, same string, different tokenizers: how far their token boundaries agree.

Unlike the counting probes, this one compares *where* tokenizers cut, not how often: two
tokenizers can both need 100 tokens for a text and share few boundaries, so a token count (or
a "token" budget, or a price per token) means nothing without naming its tokenizer.

A boundary is a character offset strictly inside the text where one token ends and the next
begins (from `pieces()`). When a token ends inside a multi-byte character, its boundary is
placed after that character (the offsets are in characters). Agreement between tokenizers A and
B is the Jaccard index of their boundary sets, |A ∩ B| / |A ∪ B| (1 = identical
tokenizations, 0 = no cut in common); `f1` is the Dice/F1 score 2|A ∩ B| / (|A| + |B|), the
same information on the scale of a precision/recall average. Pooled over texts, both are
ratios of sums.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations, compress, repeat
from operator import attrgetter, ne, or_, sub

import numpy as np
import pandas as pd

from ..corpora import load_builtin
from ..errors import BadInput
from ..tokenizers import TokenizersArg
from ..pipeline import as_tokenizers
from ..render import piece_label, visible
from ..tokenizers import Piece

_END = attrgetter("end")

DEFAULT_SAMPLES = ("prose/email-01", "code/python/inventory_indent4", "numbers/in-sentence",
                   "multilingual/de", "multilingual/ru", "multilingual/hi", "multilingual/zh-Hans")


def default_texts() -> dict[str, str]:
    """A few built-in samples (prose, code, numbers, four languages), by id; absent ids are skipped."""
    frame = load_builtin(["prose", "code", "numbers", "multilingual"])
    found = frame[frame["id"].isin(DEFAULT_SAMPLES)].set_index("id")["text"]
    return {sid: found[sid] for sid in DEFAULT_SAMPLES if sid in found.index}


def boundaries(tok, text: str) -> np.ndarray:
    """Sorted character offsets, strictly inside `text`, at which `tok`'s tokens meet.

    >>> from analysis import load_tokenizer
    >>> boundaries(load_tokenizer("cl100k_base"), "1234567").tolist()  # 123|456|7
    [3, 6]
    """
    return np.array(sorted(piece_boundaries(tok.pieces(text))), dtype=np.int64)


def piece_boundaries(pieces: Sequence[Piece]) -> frozenset[int]:
    """The boundaries of a tokenization: offsets strictly inside the text at which two pieces meet.

    >>> sorted(piece_boundaries([Piece(1, b"ab", 0, 2), Piece(2, b"c", 2, 3)]))
    [2]
    """
    if not pieces:
        return frozenset()
    end = pieces[-1].end
    return frozenset(p.end for p in pieces if 0 < p.end < end)


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """|a ∩ b| / |a ∪ b|, and 1.0 when neither has a boundary (both are one token): `_scores`' rule."""
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def boundary_agreement(tokenizers: TokenizersArg = None, texts: Mapping[str, str] | Iterable[str] | None = None) -> pd.DataFrame:
    """Pairwise boundary agreement (Jaccard and F1) of the tokenizers on each text.

    Args:
        tokenizers: names, adapters, a comma-separated string, or None (all available); at
            least two.
        texts: {text_id: text}, a list of texts (ids "text-1", ...), or None for
            `default_texts()`.

    Returns:
        One row per text x unordered pair (tokenizer_a before tokenizer_b in the given order):
        text_id, n_chars, tokenizer_a, tokenizer_b, n_boundaries_a, n_boundaries_b, n_shared,
        n_union, jaccard, f1.

    Raises:
        ValueError: fewer than two tokenizers, or no texts.

    >>> b = boundary_agreement("cl100k_base,qwen2.5", {"n": "1234567"})
    >>> b[["n_boundaries_a", "n_boundaries_b", "n_shared", "jaccard"]].to_dict("records")
    [{'n_boundaries_a': 2, 'n_boundaries_b': 6, 'n_shared': 2, 'jaccard': 0.3333333333333333}]
    """
    toks = as_tokenizers(tokenizers)
    if len(toks) < 2:
        raise BadInput(f"boundary agreement compares tokenizers: give at least two, got {[t.name for t in toks]}")
    if texts is None:
        texts = default_texts()
    elif not isinstance(texts, Mapping):
        texts = {f"text-{i + 1}": t for i, t in enumerate(texts)}
    if not texts:
        raise BadInput("no texts to compare boundaries on")
    rows = []
    for text_id, text in texts.items():
        cuts = {tok.name: boundaries(tok, text) for tok in toks}
        for a, b in combinations([t.name for t in toks], 2):
            shared = len(np.intersect1d(cuts[a], cuts[b], assume_unique=True))
            rows.append((text_id, len(text), a, b, len(cuts[a]), len(cuts[b]), shared,
                         len(cuts[a]) + len(cuts[b]) - shared))
    names = [t.name for t in toks]
    return (pd.DataFrame(rows, columns=["text_id", "n_chars", "tokenizer_a", "tokenizer_b", "n_boundaries_a",
                                        "n_boundaries_b", "n_shared", "n_union"])
            .pipe(_scores)
            .assign(tokenizer_a=lambda d: pd.Categorical(d["tokenizer_a"], categories=names),
                    tokenizer_b=lambda d: pd.Categorical(d["tokenizer_b"], categories=names)))


def _scores(d: pd.DataFrame) -> pd.DataFrame:
    total = d["n_boundaries_a"] + d["n_boundaries_b"]
    # no boundary on either side (a one-token text): the tokenizations agree
    return d.assign(jaccard=np.where(d["n_union"] > 0, d["n_shared"] / d["n_union"].where(d["n_union"] > 0), 1.0),
                    f1=np.where(total > 0, 2 * d["n_shared"] / total.where(total > 0), 1.0))


def agreement_matrix(agreement: pd.DataFrame, *, metric: str = "jaccard") -> pd.DataFrame:
    """Pool a `boundary_agreement` frame over texts (ratio of sums) into a tidy symmetric table.

    Args:
        agreement: a `boundary_agreement` frame.
        metric: "jaccard" or "f1".

    Returns:
        One row per ordered pair, the diagonal included (1.0): tokenizer_a, tokenizer_b,
        n_shared, n_union, jaccard, f1, value (= the chosen metric).
    """
    if metric not in ("jaccard", "f1"):
        raise BadInput(f"metric must be 'jaccard' or 'f1', got {metric!r}")
    first = agreement["tokenizer_a"]
    names = list(first.cat.categories) if isinstance(first.dtype, pd.CategoricalDtype) \
        else list(pd.unique(pd.concat([first, agreement["tokenizer_b"]]).astype(str)))
    pooled = (agreement.astype({"tokenizer_a": "str", "tokenizer_b": "str"})
              .groupby(["tokenizer_a", "tokenizer_b"], sort=False)
              [["n_boundaries_a", "n_boundaries_b", "n_shared", "n_union"]].sum().reset_index())
    mirrored = pooled.rename(columns={"tokenizer_a": "tokenizer_b", "tokenizer_b": "tokenizer_a",
                                      "n_boundaries_a": "n_boundaries_b", "n_boundaries_b": "n_boundaries_a"})
    present = [n for n in names if n in set(pooled["tokenizer_a"]) | set(pooled["tokenizer_b"])]
    diagonal = pd.DataFrame({"tokenizer_a": present, "tokenizer_b": present, "n_boundaries_a": 0, "n_boundaries_b": 0,
                             "n_shared": 0, "n_union": 0})
    out = pd.concat([pooled, mirrored, diagonal], ignore_index=True).pipe(_scores)
    return (out.assign(value=out[metric],
                       tokenizer_a=pd.Categorical(out["tokenizer_a"], categories=present),
                       tokenizer_b=pd.Categorical(out["tokenizer_b"], categories=present))
            .sort_values(["tokenizer_a", "tokenizer_b"]).reset_index(drop=True)
            [["tokenizer_a", "tokenizer_b", "n_shared", "n_union", "jaccard", "f1", "value"]])


@dataclass(frozen=True)
class BoundaryDiff:
    """Where two tokenizers cut one text: their `piece_boundaries`."""

    cuts_a: frozenset[int]
    cuts_b: frozenset[int]

    @property
    def shared(self) -> int:
        return len(self.cuts_a & self.cuts_b)

    @property
    def agreement(self) -> float:
        """The Jaccard index of the two boundary sets, as in `boundary_agreement`."""
        return jaccard(self.cuts_a, self.cuts_b)


def boundary_diff(pieces_a: Sequence[Piece], pieces_b: Sequence[Piece]) -> BoundaryDiff:
    """Compare the cut positions of two tokenizations of the same text.

    >>> a = [Piece(1, b"ab", 0, 2), Piece(2, b"c", 2, 3)]
    >>> b = [Piece(7, b"a", 0, 1), Piece(8, b"bc", 1, 3)]
    >>> boundary_diff(a, b).agreement  # a cuts at 2, b at 1: no boundary in common
    0.0
    """
    return BoundaryDiff(piece_boundaries(pieces_a), piece_boundaries(pieces_b))


def diff_regions(text: str, pieces_a: Sequence[Piece], pieces_b: Sequence[Piece], *, limit: int = 200) -> pd.DataFrame:
    """The stretches of `text` that two tokenizers cut differently, with each one's split.

    A region runs from one shared cut to the next; it is listed when either side has a cut
    inside it (so their tokens there differ).

    Returns:
        Up to `limit` rows: start, end (character offsets), text, a, b (the pieces, whitespace
        visible, one space between them: a separator the pieces cannot hold, since a space in
        the text is drawn ·), n_a, n_b (tokens in the region).

    >>> a = [Piece(1, b"ab", 0, 2), Piece(2, b" c", 2, 4)]
    >>> b = [Piece(7, b"a", 0, 1), Piece(8, b"b", 1, 2), Piece(9, b" c", 2, 4)]
    >>> diff_regions("ab c", a, b)[["text", "a", "b"]].values.tolist()
    [['ab', 'ab', 'a b']]
    """
    ends_a, ends_b = list(map(_END, pieces_a)), list(map(_END, pieces_b))
    shared = sorted(set(ends_a).intersection(ends_b) | {0})
    # Pieces end in order, so the pieces of each region (from one shared cut to the next) are a
    # slice of each side, found by bisecting the ends at every cut: C-level passes, and a
    # Python step only for the regions listed (the dashboard runs this with the GIL held).
    cut_a = list(map(partial(bisect_right, ends_a), shared))
    cut_b = list(map(partial(bisect_right, ends_b), shared))
    n_a, n_b = list(map(sub, cut_a[1:], cut_a[:-1])), list(map(sub, cut_b[1:], cut_b[:-1]))
    rows = []
    for k in compress(range(len(n_a)), map(or_, map(ne, n_a, repeat(1)), map(ne, n_b, repeat(1)))):
        start, end = shared[k], shared[k + 1]
        a, b = pieces_a[cut_a[k] : cut_a[k + 1]], pieces_b[cut_b[k] : cut_b[k + 1]]
        rows.append({"start": start, "end": end, "text": visible(text[start:end]),
                     "a": " ".join(piece_label(text, p) for p in a), "b": " ".join(piece_label(text, p) for p in b),
                     "n_a": len(a), "n_b": len(b)})
        if len(rows) >= limit:
            break
    return pd.DataFrame(rows, columns=["start", "end", "text", "a", "b", "n_a", "n_b"])
