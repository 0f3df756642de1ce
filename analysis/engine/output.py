"""Per-row results streamed to a partitioned Parquet dataset, all or nothing.

Unlike `pipeline.write_table` (one file from a frame held in memory), this writer receives
the rows part by part while a run goes on: each part is written atomically
(`analysis.atomic`) into a hidden folder beside the target, and the folder is renamed to the
target only when the run completes. Ctrl-C, a crash or an error leave no target and no
half-written part; the hidden folder is removed (every file in it is ours). `pandas.read_parquet`
and `dask.dataframe.read_parquet` read the result as one table.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd

from ..atomic import atomic_path, temporary_name
from ..errors import BadInput


class PartitionedParquet:
    """`write(frame)` per part, then `commit()` (or `abort()`); also a context manager that commits on success.

    >>> import tempfile
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
        self.parts = 0
        self.rows = 0

    def write(self, frame: pd.DataFrame) -> None:
        if not len(frame):
            return
        with atomic_path(self._tmp / f"part-{self.parts:05d}.parquet") as tmp:
            frame.to_parquet(tmp, index=False)
        self.parts += 1
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
