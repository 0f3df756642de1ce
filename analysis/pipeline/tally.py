"""Sums per group as plain integers, and their summary rows: aggregates without pandas.

Unlike `sums` (the same sums as pandas frames, for the library and the per-row paths), a
`Tally` is a dict of integer lists keyed by the group's labels. A worker that reads text files
fills it straight from `Sample` records, and the process that drives the run adds the
workers' tallies and writes the summary, so `tokenprism measure FILES` imports neither pandas
nor numpy (about 0.4 s of CPU a run, docs/measuring.md). Chunks that arrive as frames (JSON
Lines and Parquet read through Arrow, or metrics counted in numpy) are summed by `sums` and
added here row by row. The numbers are those of `sums.combine_sums` and
`sums.summary_from_sums`, to the last token and in the same order (tests compare them).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..corpora.sample import Labeled, Sample, detect_script
from ..errors import UnknownName
from ..tokenizers import Tokenizer
from .metrics import DETECT_SCRIPT, UNKNOWN_SCRIPT

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

# a sample's labels, the columns a measurement can group by besides the tokenizer
SAMPLE_META = ("sample_id", "category", "language", "script", "kind", "group", "variant")
# categoricals: low-cardinality labels (STYLE: pandas row); a summary orders them by first
# appearance (the tokenizer: in the order asked for), and the other labels by value
CATEGORICAL = ("category", "language", "script", "kind", "group", "variant", "tokenizer")
# every count a tally may hold, in table order
ALL_COUNTS = ("n_chars", "n_bytes", "n_words", "n_graphemes", "n_tokens")
# metrics a tally counts itself; words and graphemes are counted in numpy, through `sums`
PLAIN_METRICS = frozenset({"scripts"})
# Below this many texts per group on average, a chunk's tokens are counted per text and summed
# (as `sums.SMALL_GROUP_TEXTS`): one batch call per tokenizer beats a call per small group.
SMALL_GROUP_TEXTS = 64
_UTF8 = operator.methodcaller("encode", "utf-8", "surrogatepass")


def _check_plain(metrics: Sequence[str]) -> None:
    if not set(metrics) <= PLAIN_METRICS:
        raise ValueError(f"a tally counts {sorted(PLAIN_METRICS)} itself, not {sorted(set(metrics))}; "
                         "count words and graphemes with `sums.chunk_sums` and add its frame")


def group_keys(by: str | Sequence[str]) -> list[str]:
    """The grouping columns, checked: sample labels and "tokenizer".

    >>> group_keys("category"), group_keys(["language", "tokenizer"])
    (['category'], ['language', 'tokenizer'])
    """
    keys = [by] if isinstance(by, str) else list(by)
    unknown = [c for c in keys if c not in (*SAMPLE_META, "tokenizer")]
    if unknown:
        raise UnknownName("column", ", ".join(map(str, unknown)), (*SAMPLE_META, "tokenizer"),
                          message=f"cannot aggregate by {unknown}: choose from {[*SAMPLE_META, 'tokenizer']}")
    return keys


def _label(sample: Sample | Labeled, key: str) -> str:
    if isinstance(sample, Labeled):
        return getattr(sample, key) if key in ("group", "variant") else _label(sample.sample, key)
    if key == "sample_id":
        return sample.id
    return "" if key in ("group", "variant") else getattr(sample, key)


@dataclass(frozen=True)
class ChunkCounts:
    """What measuring a chunk finds, per sample: sizes (`n_chars`, `n_bytes`, the metrics'), tokens
    (samples x tokenizers) and the resolved scripts (None: the chunk's own are kept).

    Arrays only, so a worker sends it back cheaply; `rows_from_counts` adds the labels the
    driver still holds, so they never travel back from the workers.
    """

    sizes: dict[str, np.ndarray]
    tokens: np.ndarray
    script: np.ndarray | None = None


class Tally:
    """Integer sums per group: n_samples and the count columns, for the groups of `keys`.

    A group's key is the tuple of its labels in `keys` order (the tokenizer's name among them
    where "tokenizer" is a key). Groups keep the order they first appeared in; tallies of
    consecutive parts add up with `merge`, exactly, in any grouping.

    >>> t = Tally(["category", "tokenizer"], ["n_chars", "n_bytes", "n_tokens"])
    >>> t.add(("code", "o200k_base"), [2, 10, 10, 4]); t.add(("code", "o200k_base"), [1, 5, 6, 1])
    >>> t.groups
    {('code', 'o200k_base'): [3, 15, 16, 5]}
    """

    def __init__(self, keys: Sequence[str], counts: Sequence[str]) -> None:
        self.keys = group_keys(keys)
        self.counts = [c for c in ALL_COUNTS if c in counts]
        self.groups: dict[tuple[str, ...], list[int]] = {}

    @property
    def columns(self) -> list[str]:
        """The sum columns, in table order: n_samples, then the counts."""
        return ["n_samples", *self.counts]

    def add(self, key: tuple[str, ...], values: Sequence[int]) -> None:
        """Add `values` (n_samples, then `counts`) to the group `key`."""
        held = self.groups.get(key)
        if held is None:
            self.groups[key] = [int(v) for v in values]
        else:
            for i, v in enumerate(values):
                held[i] += int(v)

    def merge(self, other: "Tally") -> "Tally":
        """Add another tally of the same keys and counts (a later part of the same input)."""
        if other.keys != self.keys or other.counts != self.counts:
            raise ValueError(f"cannot merge sums by {other.keys} of {other.counts} into sums by {self.keys} "
                             f"of {self.counts}")
        for key, values in other.groups.items():
            self.add(key, values)
        return self

    def total(self, column: str) -> int:
        """The sum of one column over every group."""
        i = self.columns.index(column)
        return sum(v[i] for v in self.groups.values())

    # -- filling ----------------------------------------------------------------------------
    def add_samples(self, samples: Sequence[Sample | Labeled], toks: Sequence[Tokenizer],
                    metrics: Sequence[str] = (), counts: Sequence[Sequence[int]] | None = None,
                    n_bytes: Sequence[int] | None = None) -> None:
        """Measure `samples` under `toks` and add them: characters (`len`), UTF-8 bytes, tokens.

        Only `PLAIN_METRICS` (scripts) can be asked for here; a deferred script is detected when
        grouping by script asks for it. Tokens are one total per group and tokenizer
        (`count_total`), or counts per text summed where the groups are small; `counts` (per
        tokenizer, per text) and `n_bytes` (per text) are taken as given when the caller has
        counted the texts already (for their rows).
        """
        _check_plain(metrics)
        texts = [(s.sample if isinstance(s, Labeled) else s).text for s in samples]
        members: dict[tuple[str, ...], list[int]] = {}
        for i, sample in enumerate(samples):
            values = [self._resolved(k, _label(sample, k), texts[i], metrics) for k in self.keys if k != "tokenizer"]
            members.setdefault(tuple(values), []).append(i)
        self._add_members(texts, members, toks, counts, n_bytes)

    def add_texts(self, texts: list[str], labels: Mapping[str, str], toks: Sequence[Tokenizer],
                  metrics: Sequence[str] = (), counts: Sequence[Sequence[int]] | None = None,
                  n_bytes: Sequence[int] | None = None, ids: Sequence[str] | None = None) -> None:
        """As `add_samples`, for texts that share `labels` (a table's block, `engine.read.TextBlock`):
        one group, unless a deferred script is detected text by text; `ids` are needed only when
        grouping by sample id."""
        _check_plain(metrics)
        keys = [k for k in self.keys if k != "tokenizer"]
        if "sample_id" in keys and ids is None:
            raise ValueError("grouping by sample id needs the texts' ids")
        per_text = [k for k in keys if k == "sample_id" or (k == "script" and labels.get(k) == DETECT_SCRIPT
                                                            and "scripts" in metrics)]
        fixed = {k: self._resolved(k, labels.get(k, ""), "", ()) for k in keys if k not in per_text}
        if not per_text:
            members = {tuple(fixed[k] for k in keys): list(range(len(texts)))} if texts else {}
        else:
            members = {}
            for i, text in enumerate(texts):
                values = [fixed[k] if k in fixed else ids[i] if k == "sample_id" and ids is not None
                          else detect_script(text) for k in keys]
                members.setdefault(tuple(values), []).append(i)
        self._add_members(texts, members, toks, counts, n_bytes)

    @staticmethod
    def _resolved(key: str, value: str, text: str, metrics: Sequence[str]) -> str:
        """A label, with a deferred script detected (asked for) or unknown (not asked for)."""
        if key == "script" and value == DETECT_SCRIPT:
            return detect_script(text) if "scripts" in metrics else UNKNOWN_SCRIPT
        return value

    def _add_members(self, texts: Sequence[str], members: dict[tuple[str, ...], list[int]],
                     toks: Sequence[Tokenizer], counts: Sequence[Sequence[int]] | None,
                     sizes: Sequence[int] | None) -> None:
        """Add the groups `members` ({labels: indices of `texts`}): sizes summed, tokens counted
        (`counts` and `sizes`, the texts' UTF-8 bytes, where the caller has them)."""
        if counts is None and len(members) > 1 and len(texts) < SMALL_GROUP_TEXTS * len(members):
            counts = [tok.count_batch(list(texts)) for tok in toks]
        n_toks = len(toks)
        for key, idx in members.items():
            group = texts if len(idx) == len(texts) else [texts[i] for i in idx]
            n_chars = sum(map(len, group))
            if sizes is None:
                n_bytes = sum(map(len, map(_UTF8, group)))
            else:
                n_bytes = sum(sizes) if len(idx) == len(texts) else sum(sizes[i] for i in idx)
            if counts is not None:
                tokens = [sum(c[i] for i in idx) for c in counts]
            else:
                tokens = [tok.count_total(group) for tok in toks]
            if "tokenizer" in self.keys:
                at = self.keys.index("tokenizer")
                for tok, n in zip(toks, tokens):
                    self.add((*key[:at], tok.name, *key[at:]), [len(idx), n_chars, n_bytes, n])
            else:  # rows are sample x tokenizer, so every size counts once per tokenizer
                self.add(key, [len(idx) * n_toks, n_chars * n_toks, n_bytes * n_toks, sum(tokens)])

    def add_frame(self, sums: "pd.DataFrame") -> None:
        """Add a frame of sums (`sums.chunk_sums` or `combine_sums`: the keys, then the sum columns)."""
        missing = [c for c in (*self.keys, *self.columns) if c not in sums.columns]
        if missing:
            raise ValueError(f"a frame of sums without columns {missing}")
        keys = sums[self.keys].astype(str).itertuples(index=False, name=None)
        values = sums[self.columns].itertuples(index=False, name=None)
        for key, row in zip(keys, values):
            self.add(key, row)

    # -- reading ----------------------------------------------------------------------------
    def frame(self) -> "pd.DataFrame":
        """The sums as `sums.combine_sums` gives them: label columns as str, sums as int64."""
        import pandas as pd

        keys = list(self.groups)
        data: dict[str, Any] = {k: pd.Series([key[i] for key in keys], dtype="str") for i, k in enumerate(self.keys)}
        data.update({c: pd.Series([v[j] for v in self.groups.values()], dtype="int64")
                     for j, c in enumerate(self.columns)})
        return pd.DataFrame(data)

    def summary_rows(self, tokenizer_names: Sequence[str]) -> list[dict[str, Any]]:
        """The summary, as `sums.summary_from_sums` gives it, as rows: sums per group and ratios of sums.

        Groups are sorted by each key in turn: tokenizers in `tokenizer_names` order, the other
        low-cardinality labels in order of first appearance, sample ids by value. Ratios of a
        group with no tokens (or no words) are NaN.
        """
        order: list[dict[str, int] | None] = []
        for i, k in enumerate(self.keys):
            if k == "tokenizer":
                order.append({name: j for j, name in enumerate(tokenizer_names)})
            elif k in CATEGORICAL:
                seen: dict[str, int] = {}
                for key in self.groups:
                    seen.setdefault(key[i], len(seen))
                order.append(seen)
            else:
                order.append(None)

        def rank(key: tuple[str, ...]) -> tuple:
            return tuple(key[i] if o is None else o.get(key[i], len(o)) for i, o in enumerate(order))

        rows = []
        for key in sorted(self.groups, key=rank):
            row: dict[str, Any] = dict(zip(self.keys, key))
            row.update(zip(self.columns, self.groups[key]))
            tokens = row["n_tokens"]
            row["chars_per_token_of_sums"] = row["n_chars"] / tokens if tokens > 0 else math.nan
            row["bytes_per_token_of_sums"] = row["n_bytes"] / tokens if tokens > 0 else math.nan
            if "n_words" in row:
                words = row["n_words"]
                row["tokens_per_word_of_sums"] = tokens / words if words > 0 else math.nan
            rows.append(row)
        return rows

    def summary_columns(self) -> list[str]:
        """The columns of `summary_rows`, in order."""
        return [*self.keys, *self.columns, "chars_per_token_of_sums", "bytes_per_token_of_sums",
                *(["tokens_per_word_of_sums"] if "n_words" in self.counts else [])]
