"""Aggregates: sums per group, and ratios of those sums.

Unlike `rows` (one row per sample and tokenizer), this module adds rows up: `summarize` over a
measured frame, `partial_sums`/`combine_sums`/`summary_from_sums` for sums built chunk by
chunk (by engines), and `chunk_sums`, a chunk's sums computed without building its rows.
Ratios are ratios of sums, never means of per-sample ratios: a 40-character sample must not
weigh as much as a 40,000-character one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..errors import UnknownName
from ..tokenizers import Tokenizer
from .metrics import DEFAULT_METRICS, count_columns, resolve_scripts, text_stats
from .rows import COUNTS, with_ratios, token_counts
from .tally import CATEGORICAL, SMALL_GROUP_TEXTS, ChunkCounts, group_keys

def summarize(measured: pd.DataFrame, by: str | Sequence[str] = ("category", "tokenizer")) -> pd.DataFrame:
    """Totals per group and ratios of those totals (never means of per-sample ratios).

    `chars_per_token_of_sums` is sum(n_chars) / sum(n_tokens) over the group's samples, and
    likewise `bytes_per_token_of_sums` and `tokens_per_word_of_sums`: long samples weigh in
    proportion to their length, as they do in a bill.

    Args:
        measured: a `measure` frame.
        by: grouping columns.

    Returns:
        Columns `by`, n_samples, n_chars, n_bytes, n_words, n_tokens (sums), then the three
        ratios of sums; groups in category order.

    >>> m = pd.DataFrame({"category": ["a", "a"], "tokenizer": ["t", "t"], "sample_id": ["1", "2"],
    ...                   "n_chars": [10, 90], "n_bytes": [10, 90], "n_words": [2, 18], "n_tokens": [10, 10]})
    >>> summarize(m)["chars_per_token_of_sums"].tolist()  # (10 + 90) / (10 + 10), not mean(1, 9)
    [5.0]
    """
    by = [by] if isinstance(by, str) else list(by)
    missing = [c for c in by if c not in measured.columns]
    if missing:
        raise UnknownName("column", ", ".join(map(str, missing)), map(str, measured.columns), message=(
            f"cannot group by {missing}: not columns of the measured frame ({list(measured.columns)})"))
    return (measured
            .groupby(by, observed=True, sort=True)
            .agg(n_samples=("sample_id", "size"), **{c: (c, "sum") for c in _counts_in(measured)})
            .reset_index()
            .pipe(with_ratios, "_of_sums"))


SUMS = ("n_samples", *COUNTS)
# every count column a frame may hold, in table order: a measurement without words has no n_words
_ALL_COUNTS = ("n_chars", "n_bytes", "n_words", "n_graphemes", "n_tokens")


def _counts_in(frame: pd.DataFrame) -> list[str]:
    return [c for c in _ALL_COUNTS if c in frame.columns]


def _sums_in(frame: pd.DataFrame) -> list[str]:
    return ["n_samples", *_counts_in(frame)]


def partial_sums(counts: pd.DataFrame, by: str | Sequence[str] = ("category", "tokenizer")) -> pd.DataFrame:
    """One chunk's counts (a `measure_chunk` frame) reduced to sums per group, groups in order of first appearance.

    Sums add up: `combine_sums` of the partial sums of every chunk, then `summary_from_sums`,
    is `summarize(measure(...), by)` to the last token, without the per-row frame.

    >>> c = pd.DataFrame({"category": ["a", "a"], "tokenizer": ["t", "t"], "n_chars": [10, 90], "n_bytes": [10, 90],
    ...                   "n_words": [2, 18], "n_tokens": [10, 10]})
    >>> partial_sums(c).to_dict("records")
    [{'category': 'a', 'tokenizer': 't', 'n_samples': 2, 'n_chars': 100, 'n_bytes': 100, 'n_words': 20, 'n_tokens': 20}]
    """
    keys = group_keys(by)
    return (counts.groupby(keys, sort=False, observed=True)
            .agg(n_samples=("n_tokens", "size"), **{c: (c, "sum") for c in _counts_in(counts)})
            .reset_index().astype({c: "int64" for c in _sums_in(counts)}))


def counts_sums(labels: pd.DataFrame, sizes: dict[str, np.ndarray], tokens: np.ndarray, names: Sequence[str],
                by: str | Sequence[str]) -> pd.DataFrame:
    """`partial_sums(rows_from_counts(...), by)` from a chunk's labels and counts, without the per-row frame.

    `labels` holds one row per sample (the grouping columns, scripts already resolved),
    `sizes` one array per size column and `tokens` samples x tokenizers. Groups are factorized
    once per sample, not once per row and tokenizer, and summed with numpy, in the order the
    rows would first show them (sample-major, tokenizers inner), so the sums equal
    `partial_sums` of the rows row for row.

    >>> labels = pd.DataFrame({"category": ["a", "b", "a"]})
    >>> counts_sums(labels, {"n_chars": np.array([1, 2, 3])}, np.array([[1, 2], [3, 4], [5, 6]]), ["t", "u"],
    ...             ["category", "tokenizer"])["n_tokens"].tolist()
    [6, 8, 3, 4]
    """
    keys = group_keys(by)
    label_keys = [k for k in keys if k != "tokenizer"]
    if len(label_keys) > 1:
        codes, uniques = pd.MultiIndex.from_frame(labels[label_keys].astype(str)).factorize()
        label_rows = [tuple(u) for u in uniques]
    elif label_keys:
        codes, uniques = pd.factorize(labels[label_keys[0]].astype(str))
        label_rows = [(u,) for u in uniques]
    else:
        codes, label_rows = np.zeros(len(labels), np.intp), [()]
    n_groups = len(label_rows) if len(labels) else 0

    def per_group(values: np.ndarray) -> np.ndarray:  # integer sums (bincount would go through float64)
        out = np.zeros((n_groups, *values.shape[1:]), np.int64)
        np.add.at(out, codes, values)
        return out

    n = per_group(np.ones(len(labels), np.int64))
    size_sums = {c: per_group(np.asarray(v, np.int64)) for c, v in sizes.items()}
    token_sums = per_group(np.asarray(tokens, np.int64).reshape(len(labels), len(names)))
    sums = ["n_samples", *size_sums, "n_tokens"]
    if "tokenizer" in keys:
        reps, n_tok = len(names), 1
        columns: dict[str, object] = {k: np.repeat(np.array([r[i] for r in label_rows], dtype=object), reps)
                                      for i, k in enumerate(label_keys)}
        columns["tokenizer"] = np.tile(np.array(list(names), dtype=object), n_groups)
        columns["n_tokens"] = token_sums.ravel()
    else:  # rows are sample x tokenizer, so every size counts once per tokenizer
        reps, n_tok = 1, len(names)
        columns = {k: np.array([r[i] for r in label_rows], dtype=object) for i, k in enumerate(label_keys)}
        columns["n_tokens"] = token_sums.sum(axis=1)
    columns["n_samples"] = np.repeat(n, reps) * n_tok
    columns.update({c: np.repeat(v, reps) * n_tok for c, v in size_sums.items()})
    return pd.DataFrame({c: columns[c] for c in [*keys, *sums]}).astype({c: "int64" for c in sums})


def chunk_counts_sums(chunk: pd.DataFrame, counts: ChunkCounts, names: Sequence[str],
                      by: str | Sequence[str]) -> pd.DataFrame:
    """A chunk's sums from its counts (`rows.chunk_counts`) and its labels, with the scripts the counts resolved."""
    labels = [k for k in group_keys(by) if k != "tokenizer"]
    frame = chunk[labels]
    if "script" in labels and counts.script is not None:
        frame = frame.assign(script=counts.script)
    return counts_sums(frame, counts.sizes, counts.tokens, names, by)


def empty_sums(by: str | Sequence[str], metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
    """The sums of no rows (keys checked: an unknown one raises now, before any work)."""
    return partial_sums(pd.DataFrame(columns=[*group_keys(by), *count_columns(metrics)]), by)


def chunk_sums(chunk: pd.DataFrame, toks: Sequence[Tokenizer], by: str | Sequence[str],
               metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
    """`partial_sums(measure_chunk(chunk, toks), by)`, without the per-row frame: the fast path for aggregates.

    Characters, bytes and words are counted per text (in numpy, with no Python step per text)
    and summed per group: the very numbers of the rows, added up. Tokens are counted as one
    total per group and tokenizer (`count_total`, which may join short texts where that
    provably gives the same total), or per text and summed where groups are small.
    """
    keys = group_keys(by)
    labels = [k for k in keys if k != "tokenizer"]
    if "script" in labels:
        chunk = resolve_scripts(chunk, "scripts" in metrics)
    texts = chunk["text"].tolist()
    stats = text_stats(chunk["text"], metrics)  # per text: they add up within each group
    size_columns = {c: stats[c].to_numpy() for c in stats.columns}
    if labels:
        codes, uniques = pd.MultiIndex.from_frame(chunk[labels].astype(str)).factorize() if len(labels) > 1 \
            else pd.factorize(chunk[labels[0]].astype(str))
        groups = [np.flatnonzero(codes == g) for g in range(len(uniques))]
        label_rows = [dict(zip(labels, u if len(labels) > 1 else (u,))) for u in uniques]
    else:
        groups, label_rows = [np.arange(len(texts))], [{}]
    rows = []
    n_toks = len(toks)
    # groups of a few texts (say, by sample): one batch call per tokenizer beats a call per group
    per_text = len(groups) > 1 and len(texts) < SMALL_GROUP_TEXTS * len(groups)
    counts = np.column_stack([token_counts(tok, texts) for tok in toks]) if per_text else None
    for members, label in zip(groups, label_rows):
        if not len(members):
            continue
        sizes = {c: int(v[members].sum()) for c, v in size_columns.items()}
        # only totals are kept, so each tokenizer counts the group's texts in its fastest way for a total
        if counts is not None:
            tokens = counts[members].sum(axis=0).tolist()
        else:
            group = texts if len(members) == len(texts) else [texts[i] for i in members.tolist()]
            tokens = [tok.count_total(group) for tok in toks]
        if "tokenizer" in keys:
            for j, tok in enumerate(toks):
                rows.append({**label, "tokenizer": tok.name, "n_samples": len(members), **sizes,
                             "n_tokens": int(tokens[j])})
        else:  # rows are sample x tokenizer, so every size counts once per tokenizer
            rows.append({**label, "n_samples": len(members) * n_toks, **{k: v * n_toks for k, v in sizes.items()},
                         "n_tokens": int(sum(tokens))})
    sums = ["n_samples", *size_columns, "n_tokens"]
    out = pd.DataFrame(rows, columns=[*labels, *(["tokenizer"] if "tokenizer" in keys else []), *sums])
    return out[[*keys, *sums]].astype({c: "int64" for c in sums})



def combine_sums(parts: Iterable[pd.DataFrame], by: str | Sequence[str] = ("category", "tokenizer")) -> pd.DataFrame:
    """Add partial sums (from `partial_sums`, in corpus order) group by group; integers, so exact in any order."""
    keys = group_keys(by)
    frames = [p.astype({k: "str" for k in keys}) for p in parts]
    if not frames:
        return pd.DataFrame({**{k: pd.Series(dtype="str") for k in keys}, **{c: pd.Series(dtype="int64") for c in SUMS}})
    return pd.concat(frames, ignore_index=True).groupby(keys, sort=False).sum().reset_index()


def summary_from_sums(sums: pd.DataFrame, by: str | Sequence[str], tokenizer_names: Sequence[str]) -> pd.DataFrame:
    """Combined sums -> the `summarize` frame (same columns, dtypes, order and ratios of sums)."""
    keys = group_keys(by)
    cats = {k: pd.CategoricalDtype(list(tokenizer_names) if k == "tokenizer" else pd.unique(sums[k].astype(str)))
            for k in keys if k in CATEGORICAL}
    return (sums.astype({k: "str" for k in cats}).astype(cats)
            .groupby(keys, observed=True, sort=True)[_sums_in(sums)].sum()
            .reset_index()
            .pipe(with_ratios, "_of_sums"))


# Preferred reference variant of a controlled group; otherwise the first variant in corpus order.
def filter_frame(frame: pd.DataFrame, *, tokenizers: Sequence[str] | None = None,
                 categories: Sequence[str] | None = None, languages: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows of a measure/probe frame that match the filters (None: no filter on that field).

    The tokenizer filter applies to `tokenizer`, and to both `tokenizer_a` and `tokenizer_b`
    of pairwise tables; category and language apply where the frame has those columns.
    Categorical columns lose the categories no longer used, so charts draw only what is left.

    >>> f = pd.DataFrame({"tokenizer": ["a", "b"], "language": ["en", "fr"], "n": [1, 2]})
    >>> filter_frame(f, tokenizers=["a", "b"], languages=["fr"])["n"].tolist()
    [2]
    """
    keep = pd.Series(True, index=frame.index)
    for column, wanted in (("tokenizer", tokenizers), ("tokenizer_a", tokenizers), ("tokenizer_b", tokenizers),
                           ("category", categories), ("language", languages)):
        if wanted is not None and column in frame.columns:
            keep &= frame[column].astype(str).isin([str(w) for w in wanted])
    out = frame[keep]
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out = out.assign(**{column: out[column].cat.remove_unused_categories()})
    return out.reset_index(drop=True)


BASELINE_VARIANTS = ("none", "0", "lf", "single", "spaces-4", "minified", "snake_case", "comma", "usd", "iso", "d01")


def variant_deltas(measured: pd.DataFrame, groups: Iterable[str] | None = None,
                   baselines: Sequence[str] = BASELINE_VARIANTS) -> pd.DataFrame:
    """Token cost of each variant of a controlled group relative to the group's baseline variant.

    Built-in samples sharing a `group` differ in one property only (indentation, JSON layout,
    identifier style, trailing spaces ...), so the token difference is the cost of that property.

    Args:
        measured: a `measure` frame with group/variant columns.
        groups: only these groups (default every non-empty group).
        baselines: variant names tried in order as the reference of each group.

    Returns:
        Columns group, variant, tokenizer, n_chars, n_tokens, baseline, baseline_tokens,
        extra_tokens, token_change_pct (100 * (n_tokens / baseline_tokens - 1)), per variant
        (totals over the variant's samples).

    >>> m = pd.DataFrame({"group": ["g", "g"], "variant": ["tabs", "spaces-4"], "tokenizer": "t",
    ...                   "sample_id": ["a", "b"], "n_chars": [5, 11], "n_tokens": [4, 5]})
    >>> variant_deltas(m)[["variant", "extra_tokens", "token_change_pct"]].values.tolist()
    [['tabs', -1, -20.0], ['spaces-4', 0, 0.0]]
    """
    sub = measured[measured["group"].astype(str) != ""]
    if groups is not None:
        groups = list(groups)
        unknown = sorted(set(groups) - set(sub["group"].astype(str)))
        if unknown:
            present = sorted(set(sub["group"].astype(str)))
            raise UnknownName("group", ", ".join(unknown), present,
                              message=f"no samples in group(s) {unknown}; groups present: {present}")
        sub = sub[sub["group"].astype(str).isin(groups)]
    totals = (sub.groupby(["group", "variant", "tokenizer"], observed=True, sort=False)
              .agg(n_chars=("n_chars", "sum"), n_tokens=("n_tokens", "sum")).reset_index())
    order = {b: i for i, b in enumerate(baselines)}
    base_variant = (totals.drop_duplicates("group")[["group"]]
                    .merge(totals[["group", "variant"]].drop_duplicates()
                           .assign(rank=lambda d: d["variant"].astype(str).map(order).fillna(len(order))
                                   + np.arange(len(d)) / (len(d) + 1)),  # ties: corpus order
                           on="group")
                    .sort_values("rank").drop_duplicates("group")[["group", "variant"]]
                    .rename(columns={"variant": "baseline"}))
    base_tokens = (totals.merge(base_variant, left_on=["group", "variant"], right_on=["group", "baseline"])
                   [["group", "tokenizer", "baseline", "n_tokens"]].rename(columns={"n_tokens": "baseline_tokens"}))
    return (totals.merge(base_tokens, on=["group", "tokenizer"], how="left")
            .assign(extra_tokens=lambda d: d["n_tokens"] - d["baseline_tokens"],
                    token_change_pct=lambda d: 100 * d["extra_tokens"] / d["baseline_tokens"])
            .astype({"group": "str", "variant": "str", "baseline": "str"}))
