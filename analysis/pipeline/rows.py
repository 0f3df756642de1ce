"""Measuring rows: samples x tokenizers -> one tidy DataFrame, one row per sample and tokenizer.

Unlike `sums` (what the rows add up to, or a chunk's sums without the rows), this module
reads samples in (frames or records, in chunks), counts each text's tokens through each
backend's batch path (threads on every core; an `encode` loop where that is faster, for short
texts) and its sizes (`corpora.words.text_sizes`, in numpy), and writes tables out. Corpora
larger than memory never sit in memory at once; a progress bar is shown on request.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from ..atomic import atomic_path
from ..compare import as_tokenizers as as_tokenizers  # re-exported: measuring takes the same names
from ..corpora.sample import Labeled, Sample
from ..corpora.words import count_words as count_words
from ..errors import BadInput
from ..tokenizers import Tokenizer
from ..tokenizers import TokenizersArg
from .tally import CATEGORICAL, SAMPLE_META, ChunkCounts
from .metrics import DEFAULT_METRICS, check_metrics, count_columns, ratio_columns, resolve_scripts, text_stats

COUNTS = ("n_chars", "n_bytes", "n_words", "n_tokens")
RATIOS = ("chars_per_token", "bytes_per_token", "tokens_per_word")
COLUMNS = (*SAMPLE_META, "tokenizer", *COUNTS, *RATIOS)
TABLE_SUFFIXES = (".csv", ".parquet", ".json", ".jsonl")


def columns_for(metrics: Sequence[str] = DEFAULT_METRICS) -> tuple[str, ...]:
    """The columns of a measured frame with `metrics` (`COLUMNS` for the default ones), in order.

    >>> columns_for(())[-5:]
    ('n_chars', 'n_bytes', 'n_tokens', 'chars_per_token', 'bytes_per_token')
    """
    return (*SAMPLE_META, "tokenizer", *count_columns(metrics), *ratio_columns(metrics))


# --- inputs --------------------------------------------------------------------------------
def _normalise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A samples frame (corpus.load_builtin / load_corpus / samples_to_frame) with SAMPLE_META + text."""
    if "text" not in frame.columns:
        raise BadInput(f"samples frame has no 'text' column (columns: {list(frame.columns)}); "
                       "pass corpus.load_builtin(), corpus.load_corpus(...) or a list of Sample")
    if "sample_id" not in frame.columns:
        if "id" not in frame.columns:
            raise BadInput(f"samples frame has no 'id' column (columns: {list(frame.columns)})")
        frame = frame.rename(columns={"id": "sample_id"})
    defaults = {"category": "", "language": "und", "script": "Zzzz", "kind": "", "group": "", "variant": ""}
    missing = {c: v for c, v in defaults.items() if c not in frame.columns}
    frame = frame.assign(**missing) if missing else frame
    if frame["text"].dtype != object and not isinstance(frame["text"].dtype, pd.StringDtype):
        frame = frame.assign(text=frame["text"].astype(str))
    return frame[[*SAMPLE_META, "text"]]


def iter_sample_chunks(samples: pd.DataFrame | Iterable[Sample | Labeled], *, chunk_chars: int = 4_000_000,
                       chunk_samples: int = 4096) -> Iterator[pd.DataFrame]:
    """Cut samples into frames of at most `chunk_samples` rows and about `chunk_chars` characters.

    An iterable is consumed lazily, so a corpus streamed by `corpus.iter_samples` is never
    held in memory whole.

    >>> s = [Sample(str(i), "prose", "en", "Latn", "note", "abc", "me") for i in range(5)]
    >>> [len(c) for c in iter_sample_chunks(s, chunk_chars=7)]
    [3, 2]
    """
    if isinstance(samples, pd.DataFrame):
        frame = _normalise_frame(samples)
        sizes = frame["text"].str.len().to_numpy()
        # a new chunk whenever the running size passes a multiple of chunk_chars or chunk_samples
        chunk_no = np.maximum((np.cumsum(sizes) - 1) // max(chunk_chars, 1), np.arange(len(frame)) // chunk_samples)
        starts = np.flatnonzero(np.diff(chunk_no, prepend=-1)) if len(frame) else np.array([], dtype=int)
        for start, stop in zip(starts, [*starts[1:], len(frame)]):
            yield frame.iloc[start:stop].reset_index(drop=True)
        return
    it = iter(samples)
    while True:
        batch, size = [], 0
        for item in it:
            if not isinstance(item, (Sample, Labeled)):
                raise TypeError(f"samples must be Sample or Labeled records or a DataFrame, got {type(item).__name__}")
            batch.append(item)
            size += len((item.sample if isinstance(item, Labeled) else item).text)
            if size >= chunk_chars or len(batch) >= chunk_samples:
                break
        if not batch:
            return
        yield _chunk_frame(batch)


def _chunk_frame(batch: list[Sample | Labeled]) -> pd.DataFrame:
    # texts stay Python objects: an Arrow string column would reject lone surrogates, which
    # every adapter accepts (as U+FFFD)
    items = [(b.sample, b.group, b.variant) if isinstance(b, Labeled) else (b, "", "") for b in batch]
    return pd.DataFrame({
        "sample_id": [s.id for s, _, _ in items], "category": [s.category for s, _, _ in items],
        "language": [s.language for s, _, _ in items], "script": [s.script for s, _, _ in items],
        "kind": [s.kind for s, _, _ in items], "group": [g for _, g, _ in items], "variant": [v for _, _, v in items],
        "text": pd.Series([s.text for s, _, _ in items], dtype=object),
    })


# --- measuring -----------------------------------------------------------------------------
def token_counts(tok: Tokenizer, texts: Sequence[str]) -> np.ndarray:
    """Number of tokens of each text (the adapter's fastest path, `count_batch`), as an int64 array.

    >>> from analysis import load_tokenizer
    >>> token_counts(load_tokenizer("cl100k_base"), ["hello world", "", "1234567"]).tolist()
    [2, 0, 3]
    """
    return np.asarray(tok.count_batch(list(texts)), dtype=np.int64)


def _categorical(frame: pd.DataFrame, tokenizer_order: Sequence[str]) -> pd.DataFrame:
    # categories in order of first appearance, so sorted groupbys follow the corpus order
    cats = {c: pd.CategoricalDtype(pd.unique(frame[c].astype(str))) for c in CATEGORICAL if c != "tokenizer"}
    cats["tokenizer"] = pd.CategoricalDtype(list(tokenizer_order))
    return frame.astype({c: "str" for c in cats}).astype(cats)


def with_ratios(frame: pd.DataFrame, suffix: str = "") -> pd.DataFrame:
    """Ratios of the counts: chars and bytes per token, and tokens per word where words were counted."""
    tokens = frame["n_tokens"].where(frame["n_tokens"] > 0)  # 0 tokens -> NaN, not inf
    ratios = {f"chars_per_token{suffix}": frame["n_chars"] / tokens, f"bytes_per_token{suffix}": frame["n_bytes"] / tokens}
    if "n_words" in frame.columns:
        ratios[f"tokens_per_word{suffix}"] = frame["n_tokens"] / frame["n_words"].where(frame["n_words"] > 0)
    return frame.assign(**ratios)


def chunk_counts(chunk: pd.DataFrame, toks: Sequence[Tokenizer], *, scripts: bool = True,
                 metrics: Sequence[str] = DEFAULT_METRICS) -> ChunkCounts:
    """The counts of a chunk's texts (it needs `text`, and `script` if scripts are deferred), without labels."""
    script = None
    if scripts and "script" in chunk.columns:
        resolved = resolve_scripts(chunk, "scripts" in metrics)
        script = None if resolved is chunk else resolved["script"].to_numpy()
    texts = chunk["text"].tolist()
    # one native batch call per tokenizer (tiktoken: threads; HF: rayon)
    tokens = np.column_stack([token_counts(tok, texts) for tok in toks]) if texts else np.zeros((0, len(toks)), np.int64)
    sizes = text_stats(chunk["text"], metrics)
    return ChunkCounts({c: sizes[c].to_numpy() for c in sizes.columns}, tokens, script)


def rows_from_counts(chunk: pd.DataFrame, counts: ChunkCounts, names: Sequence[str]) -> pd.DataFrame:
    """The per-row frame of a chunk (SAMPLE_META) and its `chunk_counts`: sample-major, tokenizers in order."""
    n = len(names)
    # each sample's values repeated once per tokenizer, column by column in numpy
    columns = {c: np.repeat(chunk[c].to_numpy() if c != "script" or counts.script is None else counts.script, n)
               for c in SAMPLE_META}
    columns["tokenizer"] = np.tile(np.array(list(names), dtype=object), len(chunk))
    columns.update({c: np.repeat(v, n) for c, v in counts.sizes.items()})
    columns["n_tokens"] = counts.tokens.ravel().astype(np.int64)
    return pd.DataFrame(columns)


def measure_chunk(chunk: pd.DataFrame, toks: Sequence[Tokenizer], *, scripts: bool = True,
                  metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
    """Counts of one chunk of samples (a frame from `iter_sample_chunks`) under `toks`, without ratios.

    The per-sample work (sizes, the metrics asked for) happens here, in whatever process
    measures the chunk, so a reader feeding many workers stays light.

    Args:
        scripts: resolve deferred scripts (detected if `metrics` has "scripts", else `Zzzz`);
            False leaves `DETECT_SCRIPT` in place, for callers that keep neither rows nor a
            grouping by script.
        metrics: the optional metrics to compute (`metrics.METRICS`); the others' columns are left out.

    Returns:
        SAMPLE_META, tokenizer, then `metrics.count_columns(metrics)`; sample-major rows.
    """
    counts = chunk_counts(chunk, toks, scripts=scripts, metrics=metrics)
    return rows_from_counts(chunk, counts, [t.name for t in toks])


class UniqueIds:
    """Raises on a sample id seen before, in time and memory linear in the number of ids.

    Ids are kept as 64-bit hashes (8 bytes each, in sorted numpy runs merged like a binary
    counter), not as Python strings: 10 million ids take 80 MB. Two different ids share a
    hash with probability about n^2 / 2^65 (3e-6 for 10 million): then the run stops with a
    duplicate-id error, never with a wrong number.

    >>> u = UniqueIds(); u.add(pd.Series(["a", "b"])); u.add(pd.Series(["c"]))
    >>> u.add(pd.Series(["b"]))
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: sample id 'b' occurs more than once; ids must be unique (rename the sample, or load the corpus once)
    """

    def __init__(self) -> None:
        self._runs: list[np.ndarray] = []  # sorted, sizes strictly decreasing

    def add(self, ids: pd.Series) -> None:
        if not len(ids):
            return
        ids = (ids if ids.dtype == object else ids.astype(str)).reset_index(drop=True)
        # Python's own str hash (64 bits, C-level): a tenth of the cost of pandas' hash, and the
        # ids never leave this process, so its per-process seed does not matter
        hashes = np.fromiter(map(hash, ids.tolist()), dtype=np.int64, count=len(ids))
        run = np.sort(hashes)
        # repeats within the chunk: equal neighbours among the sorted hashes; only then the exact
        # (and dearer) string comparison, which also names the id
        inside = bool((run[1:] == run[:-1]).any())
        # ids seen in earlier chunks: the sorted hashes looked up in each sorted run (in order, so
        # the lookups walk the run instead of jumping about it: a third of the time)
        seen = [run[run_before[np.searchsorted(run_before, run).clip(max=len(run_before) - 1)] == run]
                for run_before in self._runs]
        seen = [hit for hit in seen if len(hit)]
        if not inside and not seen:
            clash = None
        else:  # a repeat: which ids (rare, so the per-id work waits until here)
            clash = ids.duplicated().to_numpy().copy() if inside else np.zeros(len(ids), bool)
            if seen:
                clash |= np.isin(hashes, np.concatenate(seen))
        if clash is not None and clash.any():
            raise BadInput(f"sample id {ids[clash].iloc[0]!r} occurs more than once; ids must be unique "
                           "(rename the sample, or load the corpus once)")
        while self._runs and len(self._runs[-1]) <= len(run):
            run = np.sort(np.concatenate([self._runs.pop(), run]), kind="stable")  # two sorted runs: a merge
        self._runs.append(run)


def finish_measured(parts: Sequence[pd.DataFrame], tokenizer_names: Sequence[str],
                    metrics: Sequence[str] = DEFAULT_METRICS) -> pd.DataFrame:
    """Per-chunk count frames (from `measure_chunk`, in order) -> the `measure` frame: ratios, categoricals."""
    counts = count_columns(metrics)
    if not parts:
        frame = pd.DataFrame({c: pd.Series(dtype="int64" if c in counts else "str")
                              for c in (*SAMPLE_META, "tokenizer", *counts)})
    else:
        frame = pd.concat(parts, ignore_index=True)
    return frame.pipe(with_ratios).pipe(_categorical, list(tokenizer_names))[list(columns_for(metrics))]


def measure(samples: pd.DataFrame | Iterable[Sample | Labeled], tokenizers: TokenizersArg = None,
            *, progress: bool = False, chunk_chars: int = 4_000_000, chunk_samples: int = 4096,
            metrics: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Token counts of every sample under every tokenizer: one tidy row per (sample, tokenizer).

    This runs in this process; `analysis.engine.measure` runs the same chunks on all cores or
    a Dask cluster, streams aggregates and writes Parquet datasets, with identical numbers.

    Args:
        samples: a samples frame (`corpus.load_builtin()`, `corpus.load_corpus(...)`,
            `corpus.load_parallel(..., joined=True)`) or an iterable of `Sample`/`Labeled`
            (e.g. `corpus.iter_samples(paths)`, streamed chunk by chunk).
        tokenizers: names, a comma-separated string, adapters, or None for every tokenizer
            available offline.
        progress: show a tqdm progress bar on stderr.
        chunk_chars: characters tokenized per batch (bounds memory for huge corpora).
        chunk_samples: samples per batch at most.
        metrics: optional metrics (`words`, `graphemes`, `scripts`); None: words and scripts, as always.

    Returns:
        Columns sample_id, category, language, script, kind, group, variant, tokenizer,
        n_chars, n_bytes, n_words, n_tokens, chars_per_token, bytes_per_token,
        tokens_per_word (NaN when a denominator is 0). Labels are categoricals; rows are in
        sample order, tokenizers in the given order within a sample.

    Raises:
        ValueError: a sample id that occurs twice, or a frame without id/text columns.
        KeyError: an unknown tokenizer name.

    >>> s = [Sample("a", "prose", "en", "Latn", "note", "Hello world", "me")]
    >>> measure(s, "cl100k_base")[["sample_id", "tokenizer", "n_tokens", "n_words", "chars_per_token"]].to_dict("records")
    [{'sample_id': 'a', 'tokenizer': 'cl100k_base', 'n_tokens': 2, 'n_words': 2, 'chars_per_token': 5.5}]
    """
    toks = as_tokenizers(tokenizers)
    wanted = check_metrics(metrics)
    total = len(samples) if isinstance(samples, (pd.DataFrame, Sequence)) else None
    ids = UniqueIds()
    parts = []
    with tqdm(total=total, disable=not progress, unit="sample", desc=f"measure x{len(toks)} tokenizers",
              file=sys.stderr, dynamic_ncols=True) as bar:
        for chunk in iter_sample_chunks(samples, chunk_chars=chunk_chars, chunk_samples=chunk_samples):
            ids.add(chunk["sample_id"])
            parts.append(measure_chunk(chunk, toks, metrics=wanted))
            bar.update(len(chunk))
    return finish_measured(parts, [t.name for t in toks], wanted)


# --- output --------------------------------------------------------------------------------
def check_table_path(path: str | Path) -> Path:
    """Check an output table path before any work: a known suffix, and not a folder.

    Raises:
        ValueError: an unsupported suffix or a folder (the message says what to give instead).

    >>> check_table_path("m.txt")
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: cannot write a table to 'm.txt': use one of the suffixes .csv, .parquet, .json, .jsonl
    """
    path = Path(path)
    if path.suffix.lower() not in TABLE_SUFFIXES:
        raise BadInput(f"cannot write a table to {str(path)!r}: use one of the suffixes {', '.join(TABLE_SUFFIXES)}")
    if path.is_dir():
        raise BadInput(f"{path} is a folder: give a file name such as {path / 'measurements.csv'}")
    return path


def write_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a tidy frame; the format follows the suffix: .csv, .parquet, .json, .jsonl.

    CSV is written with "\\n" line ends and full float precision, so the same frame always
    gives the same bytes. Parent folders are created.

    Raises:
        ValueError: an unsupported suffix (the message lists the valid ones).

    >>> import tempfile, pathlib
    >>> p = write_table(pd.DataFrame({"a": [1]}), pathlib.Path(tempfile.mkdtemp()) / "t.csv"); p.read_text()
    'a\\n1\\n'
    """
    path = check_table_path(path)
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    # atomic: an interrupted write leaves the previous file (or none), never half a table
    with atomic_path(path) as tmp:
        if suffix == ".csv":
            frame.to_csv(tmp, index=False, lineterminator="\n")
        elif suffix == ".parquet":
            frame.to_parquet(tmp, index=False)
        elif suffix == ".json":
            tmp.write_text(frame.to_json(orient="records", force_ascii=False, indent=1) + "\n", encoding="utf-8")
        else:
            tmp.write_text(frame.to_json(orient="records", force_ascii=False, lines=True), encoding="utf-8")
    return path

