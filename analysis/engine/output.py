"""Per-row results streamed to a partitioned Parquet dataset, all or nothing.

Unlike `pipeline.write_table` (one file from a frame held in memory), this writer receives
the rows part by part while a run goes on: each part is written atomically
(`analysis.atomic`) into a hidden folder beside the target, and the folder is renamed to the
target only when the run completes. Ctrl-C, a crash or an error leave no target and no
half-written part; the hidden folder is removed (every file in it is ours). `pandas.read_parquet`
and `dask.dataframe.read_parquet` read the result as one table.

`rows_table` builds a chunk's rows as an Arrow table straight from its labels and counts (Arrow
`take` for the labels, numpy for the numbers), the schema pandas would write, without a pandas
frame in between: on short rows the frame and its string conversions cost more than a third
of tokenizing them (docs/measuring.md).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ..atomic import atomic_path, temporary_name
from ..errors import BadInput

if TYPE_CHECKING:
    import pandas as pd

    from ..pipeline import ChunkCounts


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is 0 (as `pipeline.with_ratios`: no inf)."""
    out = np.full(len(num), np.nan)
    np.divide(num, den, out=out, where=den > 0, casting="unsafe")
    return out


def _repeated(values: pa.Array | pa.ChunkedArray, take: pa.Array, n_tok: int) -> pa.Array:
    """Each value `n_tok` times; a label the whole chunk shares (a file's category) is one value repeated."""
    import pyarrow.compute as pc

    values = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values  # take on one piece is faster
    if len(values) and not values.null_count and pc.all(pc.equal(values, values[0])).as_py():
        return pa.repeat(values[0], len(values) * n_tok)
    return values.take(take)


def rows_table(chunk: "pd.DataFrame | Mapping[str, Any]", counts: "ChunkCounts", names: Sequence[str]) -> pa.Table:
    """The per-row table of a chunk (its `pipeline.SAMPLE_META` labels: a frame, or a mapping of each
    to a list, an Arrow array or one string for every row) and its counts: the columns of `with_ratios(rows_from_counts(chunk, counts, names))`,
    sample-major, tokenizers in order.

    >>> import pandas as pd
    >>> from analysis.pipeline import ChunkCounts
    >>> chunk = pd.DataFrame({c: ["x"] for c in ("sample_id", "category", "language", "script", "kind", "group",
    ...                                          "variant")})
    >>> t = rows_table(chunk, ChunkCounts({"n_chars": np.array([6]), "n_bytes": np.array([6])}, np.array([[3, 0]])),
    ...                ["a", "b"])
    >>> t.column("tokenizer").to_pylist(), t.column("chars_per_token").to_pylist()
    (['a', 'b'], [2.0, nan])
    """
    from ..pipeline import SAMPLE_META

    n, n_tok = len(counts.tokens), len(names)
    take = pa.array(np.repeat(np.arange(n, dtype=np.int64), n_tok))
    columns: dict[str, pa.Array] = {}
    for c in SAMPLE_META:
        values = counts.script if c == "script" and counts.script is not None else chunk[c]
        if isinstance(values, str):  # a label the whole chunk shares, given once
            columns[c] = pa.repeat(pa.scalar(values, pa.large_string()), n * n_tok)
            continue
        array = values.cast(pa.large_string()) if isinstance(values, pa.Array) else \
            pa.array(values, type=pa.large_string(), from_pandas=True)
        columns[c] = _repeated(array, take, n_tok)
    columns["tokenizer"] = pa.array(list(names), type=pa.large_string()).take(pa.array(np.tile(np.arange(n_tok), n)))
    sizes = {c: np.repeat(np.asarray(v, np.int64), n_tok) for c, v in counts.sizes.items()}
    tokens = np.asarray(counts.tokens, np.int64).ravel()
    columns.update({c: pa.array(v) for c, v in sizes.items()})
    columns["n_tokens"] = pa.array(tokens)
    columns["chars_per_token"] = pa.array(_ratio(sizes["n_chars"], tokens))
    columns["bytes_per_token"] = pa.array(_ratio(sizes["n_bytes"], tokens))
    if "n_words" in sizes:
        columns["tokens_per_word"] = pa.array(_ratio(tokens, sizes["n_words"]))
    return pa.table(columns)


class PartitionedParquet:
    """`write(frame)` per part, then `commit()` (or `abort()`); also a context manager that commits on success.

    >>> import tempfile
    >>> import pandas as pd
    >>> target = Path(tempfile.mkdtemp()) / "rows"
    >>> with PartitionedParquet(target) as out:
    ...     out.write(pd.DataFrame({"n": [1, 2]})); out.write(pd.DataFrame({"n": [3]}))
    >>> sorted(p.name for p in target.iterdir()), pd.read_parquet(target)["n"].tolist()
    (['part-00000.parquet', 'part-00001.parquet'], [1, 2, 3])
    """

    def __init__(self, target: str | Path) -> None:
        self.target = Path(target)
        if self.target.exists() and (not self.target.is_dir() or any(self.target.iterdir())):
            raise BadInput(f"{self.target} already exists and is not an empty folder; the per-row dataset "
                           "needs a new folder: remove it or name another")
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = temporary_name(self.target)
        self._tmp.mkdir()
        self.parts = 0  # files written (by this writer, or adopted)
        self.rows = 0
        self._next = 0  # the number of this writer's next part

    @property
    def staging(self) -> Path:
        """The hidden folder the parts go to until `commit`: workers on this machine write theirs there
        (`write_part`), and `adopt` counts them."""
        return self._tmp

    def adopt(self, rows: int, files: int, next_part: int) -> None:
        """Count `rows` in `files` that others wrote into `staging` as parts `part-NNNNN-KKKK` (NNNNN
        below `next_part`): this writer's own parts go on from `next_part`, so they sort after them."""
        self.rows += rows
        self.parts += files
        self._next = max(self._next, next_part)

    @property
    def next_part(self) -> int:
        """The number the next part will have (`part-NNNNN`)."""
        return self._next

    def write(self, frame: "pd.DataFrame | pa.Table") -> None:
        """One part: a frame, or an Arrow table (`rows_table`), written as it is."""
        if not len(frame):
            return
        with atomic_path(self._tmp / f"part-{self._next:05d}.parquet") as tmp:
            if isinstance(frame, pa.Table):
                import pyarrow.parquet as pq

                pq.write_table(frame, tmp)
            else:
                frame.to_parquet(tmp, index=False)
        self.parts += 1
        self._next += 1
        self.rows += len(frame)

    def commit(self) -> Path:
        if self.target.is_dir():
            self.target.rmdir()  # empty (checked at the start)
        os.replace(self._tmp, self.target)
        return self.target

    def abort(self) -> None:
        shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> "PartitionedParquet":
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()


def write_part(staging: str | Path, name: str, table: pa.Table) -> None:
    """One part written atomically into a `PartitionedParquet`'s `staging` folder, by whoever measured it
    (a worker that read its own files); `name` orders it among the parts (`part-NNNNN-KKKK`)."""
    import pyarrow.parquet as pq

    with atomic_path(Path(staging) / f"{name}.parquet") as tmp:
        pq.write_table(table, tmp)
