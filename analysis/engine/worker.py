"""What a worker does with one part of the input: read it, measure it chunk by chunk, return its sums.

Unlike `plan` (which cuts the input into parts) and `parts` (the driver that maps `part_sums`
over an engine), this module runs inside the workers. A worker reads its part with the same
readers as the driving process would (`read.file_items`) and returns a `PartResult`: its sums
(a `pipeline.Tally`) and its `LoadReport`. Text files are summed without pandas or numpy. With
per-row output asked for, the worker also writes its part's rows into the dataset's staging
folder (`_PartRows`), named by the part's place in the input.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..corpora.sample import LoadReport, Sample, detect_script
from ..errors import BadInput
from ..pipeline.metrics import DETECT_SCRIPT, UNKNOWN_SCRIPT, count_columns
from ..pipeline.tally import PLAIN_METRICS, ChunkCounts, Tally
from ..tokenizers import Tokenizer
from .plan import FilePart, Part
from .read import TextBlock, block_frame, file_items, row_ids_of

if TYPE_CHECKING:  # frames only for tables and numpy metrics: text files are summed without pandas
    import pandas as pd

@dataclass(frozen=True)
class PartResult:
    """What a worker returns for a part: its sums, what it read, and the per-row parts it wrote (if asked)."""

    tally: Tally
    report: LoadReport
    rows: int = 0
    files: int = 0


def part_sums(part: Part, toks: Sequence[Tokenizer], *, by: list[str], category: str | None, language: str,
               script: str | None, column: str | None, errors: str, chunk_chars: int,
               chunk_samples: int, metrics: tuple[str, ...], out: str | None = None,
               out_base: int = 0) -> PartResult:
    """What a worker runs: read the part, chunk by chunk, and reduce it to a `Tally`.

    Text samples are summed as they are (`Tally.add_samples`); table frames, and text samples
    when words or graphemes are asked for, go through `pipeline.chunk_sums` (pandas, numpy).
    With `out` (a `PartitionedParquet`'s staging folder), each chunk's rows are also written
    there as a part of their own (`_PartRows`), named by the part's place in the input.
    """
    report = LoadReport()
    tally = Tally(by, count_columns(metrics))
    plain = set(metrics) <= PLAIN_METRICS
    rows = _PartRows(out, f"part-{out_base + part.index:05d}", toks, by, metrics, tally) if out else None
    samples: list[Sample] = []  # text files come as samples: measured in chunks of about 4M characters
    chars = 0

    def flush() -> None:
        nonlocal samples, chars
        if samples:
            if rows is not None and plain:
                rows.add_samples(samples)
            elif plain:
                tally.add_samples(samples, toks, metrics)
            else:
                from ..pipeline import iter_sample_chunks

                add(next(iter_sample_chunks(samples, chunk_chars=chars + 1, chunk_samples=len(samples))))
        samples, chars = [], 0

    def add(frame: pd.DataFrame) -> None:
        from ..pipeline import chunk_sums

        if rows is not None:
            rows.add_frame(frame)
        else:
            tally.add_frame(chunk_sums(frame, toks, by, metrics))

    def add_block(block: TextBlock) -> None:  # a table's texts, read through Arrow
        if rows is not None:
            rows.add_block(block)
        elif plain:
            ids = row_ids_of(block).to_pylist() if "sample_id" in by else None
            tally.add_texts(block.texts, block.labels, toks, metrics, ids=ids)
        else:
            add(block_frame(block, row_ids="sample_id" in by))

    for fp in part.files:
        with _local(fp, report) as local:
            for item in file_items(local, fp.sid, explicit=fp.explicit, category=category, language=language,
                                   script=script, column=column, errors=errors, report=report,
                                   chunk_samples=chunk_samples, chunk_chars=chunk_chars, span=fp.span,
                                   blocks=True):
                if not isinstance(item, Sample):  # a block of a table
                    flush()  # in input order, so groups come out in order of first appearance
                    add_block(item)
                    continue
                samples.append(item)
                chars += len(item.text)
                if chars >= chunk_chars or len(samples) >= chunk_samples:
                    flush()
    flush()
    return PartResult(tally, report, rows.rows if rows else 0, rows.files if rows else 0)


class _PartRows:
    """A part's per-row output, written where it is measured: a Parquet file per chunk, into `out`.

    The rows are those `run.measure(..., out=DIR)` writes for the same input (`output.rows_table`),
    and the chunk's sums go to `tally` from the same counts. Text files need pyarrow and numpy
    here, not pandas; table frames come with pandas already.
    """

    def __init__(self, out: str, name: str, toks: Sequence[Tokenizer], by: list[str], metrics: tuple[str, ...],
                 tally: Tally) -> None:
        self.out, self.name, self.toks, self.by, self.metrics, self.tally = out, name, toks, by, metrics, tally
        self.names = [t.name for t in toks]
        self.rows = self.files = 0

    def _write(self, chunk: Any, counts: ChunkCounts) -> None:
        from .output import rows_table, write_part

        table = rows_table(chunk, counts, self.names)
        if table.num_rows:
            write_part(self.out, f"{self.name}-{self.files:04d}", table)
            self.rows += table.num_rows
            self.files += 1

    def add_samples(self, samples: list[Sample]) -> None:
        detect = "scripts" in self.metrics
        samples = [s if s.script != DETECT_SCRIPT else
                   replace(s, script=detect_script(s.text) if detect else UNKNOWN_SCRIPT) for s in samples]
        texts = [s.text for s in samples]
        counts = [tok.count_batch(texts) for tok in self.toks]
        n_bytes = _utf8_sizes(texts)
        self.tally.add_samples(samples, self.toks, self.metrics, counts=counts, n_bytes=n_bytes)
        labels = {"sample_id": [s.id for s in samples], **{c: [getattr(s, c) for s in samples]
                                                           for c in ("category", "language", "script", "kind")},
                  "group": "", "variant": ""}
        self._write(labels, self._counts(texts, n_bytes, counts))

    def _counts(self, texts: list[str], n_bytes: list[int], counts: list[list[int]]) -> ChunkCounts:
        import numpy as np

        sizes = {"n_chars": np.fromiter(map(len, texts), np.int64, count=len(texts)),
                 "n_bytes": np.array(n_bytes, np.int64)}
        return ChunkCounts(sizes, np.array(counts, np.int64).T.reshape(len(texts), len(self.toks)))

    def add_block(self, block: TextBlock) -> None:
        if not set(self.metrics) <= PLAIN_METRICS:  # words, graphemes: counted in numpy, over a frame
            self.add_frame(block_frame(block))
            return
        texts = block.texts
        counts = [tok.count_batch(texts) for tok in self.toks]
        n_bytes = _utf8_sizes(texts)
        ids = row_ids_of(block)
        self.tally.add_texts(texts, block.labels, self.toks, self.metrics, counts=counts, n_bytes=n_bytes,
                             ids=ids.to_pylist() if "sample_id" in self.by else None)
        script: str | list[str] = block.labels["script"]
        if script == DETECT_SCRIPT:
            script = [detect_script(t) for t in texts] if "scripts" in self.metrics else UNKNOWN_SCRIPT
        labels = {"sample_id": ids, **{c: block.labels[c] for c in ("category", "language", "kind")},
                  "script": script, "group": "", "variant": ""}
        self._write(labels, self._counts(texts, n_bytes, counts))

    def add_frame(self, frame: pd.DataFrame) -> None:
        from ..pipeline import chunk_counts, chunk_counts_sums

        counts = chunk_counts(frame, self.toks, metrics=self.metrics)
        self.tally.add_frame(chunk_counts_sums(frame, counts, self.names, self.by))
        self._write(frame, counts)


def _utf8_sizes(texts: list[str]) -> list[int]:
    """Each text's UTF-8 bytes (a lone surrogate counts 3, as `pipeline.metrics.text_stats` counts it)."""
    return [len(t.encode("utf-8", "surrogatepass")) for t in texts]


@contextmanager
def _local(fp: FilePart, report: LoadReport) -> Iterator[Path]:
    """A local path for a part's file: the file itself, or a copy of a URL's file in a folder of our own.

    The readers then work as on any local file; messages and the report name the URL, not the copy.
    """
    if not fp.url:
        yield Path(fp.path)
        return
    import fsspec

    with tempfile.TemporaryDirectory(prefix="tokenprism-part-") as folder:
        local = Path(folder) / PurePosixPath(fp.path.split("://", 1)[1]).name  # its suffix labels it
        with fsspec.open(fp.path, "rb") as src, open(local, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        try:
            yield local
        except ValueError as e:  # the message names the remote file, not its local copy
            raise (BadInput if isinstance(e, BadInput) else ValueError)(str(e).replace(str(local), fp.path)) from None
        except OSError as e:
            raise OSError(str(e).replace(str(local), fp.path)) from None
        finally:
            for names in (report.skipped_files, report.decode_error_files):
                names[:] = [fp.path if n == str(local) else n for n in names]
