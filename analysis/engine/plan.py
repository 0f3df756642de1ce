"""Cutting the user's files into parts, each read by one worker: whole files grouped, or byte ranges of JSON Lines.

Unlike `worker` (what a worker does with a part) and `parts` (the driver that sends parts to an
engine and adds up what comes back), this module only lists the input and plans its parts, as
Dask's own readers cut them:

* JSON Lines read through Arrow (plain "\\n" lines, strict UTF-8): byte ranges of about
  `part_bytes`, found in one pass over the file's bytes here, with the line number each range
  starts at, so sample ids and error messages are those of the loader;
* every other file (text, CSV, Parquet, JSON Lines with other line breaks): whole, grouped with
  neighbours up to about `part_bytes`.

A path may be an fsspec URL (s3://, gs://, file://...): such a file is read whole by one worker.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..corpora.files import check_errors, expand_paths
from ..errors import BadInput
from .read import Span, arrow_jsonl, jsonl_spans

PART_BYTES = 64 << 20
MIN_PART_BYTES = 2 << 20
# Parts per worker when the input is small: the run ends when the last part does, and with eight
# the other workers wait at most an eighth of a worker's share (5 MB parts for 40 MB on two
# workers left 0.1 s of wall more than 2.5 MB ones, docs/measuring.md; a task costs milliseconds).
PARTS_PER_WORKER = 8


@dataclass(frozen=True)
class FilePart:
    """One file (or one span of a JSON Lines file) of a part: its path or fsspec URL, id prefix, and how it was named."""

    path: str
    sid: str
    explicit: bool
    span: Span | None = None

    @property
    def url(self) -> bool:
        return is_url(self.path)


def is_url(path: str | Path) -> bool:
    """True for an fsspec URL such as s3://bucket/key or file:///data/x.jsonl (a local path is not one)."""
    return isinstance(path, str) and "://" in path


def _expand_url(url: str) -> list[tuple[str, str, int]]:
    """(file URL, sample id prefix, size) of the files an fsspec URL names: a file, a folder or a pattern."""
    import fsspec

    try:
        fs, root = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as e:  # an unknown protocol, or its package missing
        raise BadInput(f"cannot read {url}: {e}. Remote stores need their fsspec package "
                       "(s3fs for s3://, gcsfs for gs://, adlfs for az://); install it beside tokenprism") from None
    if any(ch in root for ch in "*?["):
        files = [(f, fs.unstrip_protocol(f)) for f in sorted(fs.glob(root)) if fs.isfile(f)]
        found = [(u, u) for _, u in files]
    elif fs.isdir(root):
        base = root.rstrip("/")
        rel = [(f, f[len(base) + 1:]) for f in sorted(fs.find(root))]
        found = [(fs.unstrip_protocol(f), f"{Path(base).name}/{r}") for f, r in rel
                 if not any(part.startswith(".") for part in r.split("/"))]
    elif fs.isfile(root):
        found = [(url, url)]
    else:
        raise BadInput(f"no such file or folder: {url}")
    if not found:
        raise BadInput(f"{url} names no file; give a file, a folder with files in it, or a pattern that matches some")
    return [(u, sid, int(fs.size(u))) for u, sid in found]


def expand_inputs(path_list: list[str | Path]) -> list[tuple[str, str, bool, int]]:
    """(path or URL, id prefix, named directly, size) of every input file, in order."""
    out: list[tuple[str, str, bool, int]] = []
    for raw in path_list:
        if is_url(raw):
            out.extend((u, sid, u == raw, size) for u, sid, size in _expand_url(str(raw)))
        else:
            out.extend((str(p), sid, p == Path(raw), p.stat().st_size) for p, sid in expand_paths([raw]))
    return out


@dataclass(frozen=True)
class Part:
    """What one task reads: files (or spans), and their size in bytes (for progress and balance)."""

    files: tuple[FilePart, ...]
    nbytes: int
    index: int = 0  # its place in the input: per-row parts written by workers are named by it


def plan_parts(paths: str | Path | Iterable[str | Path], *, column: str | None = None, errors: str = "strict",
               part_bytes: int = PART_BYTES) -> list[Part]:
    """Cut the input into parts of about `part_bytes` (see the module docstring).

    Raises:
        ValueError: a path that does not exist, a pattern or folder with no file (as `expand_paths`).
    """
    check_errors(errors)
    return plan_listed(expand_inputs([paths] if isinstance(paths, (str, Path)) else list(paths)), column=column, errors=errors,
                 part_bytes=part_bytes)


def plan_listed(listed: list[tuple[str, str, bool, int]], *, column: str | None, errors: str, part_bytes: int) -> list[Part]:
    """`plan_parts` of input files already listed (`expand_inputs`)."""
    parts: list[Part] = []
    group: list[FilePart] = []
    size = 0

    def flush() -> None:
        nonlocal group, size
        if group:
            parts.append(Part(tuple(group), size, len(parts)))
        group, size = [], 0

    seen: set[str] = set()
    for path, sid, named, nbytes in listed:
        if sid in seen:  # as `pipeline.UniqueIds` says it when the driver reads
            raise BadInput(f"sample id {sid!r} occurs more than once; ids must be unique (rename the sample, or "
                           "load the corpus once)")
        seen.add(sid)
        # local JSON Lines: byte ranges (their line numbers are counted here); a URL is read whole by one worker
        if not is_url(path) and nbytes > part_bytes and arrow_jsonl(Path(path), column=column, explicit=named,
                                                                     errors=errors):
            flush()
            for span in jsonl_spans(Path(path), part_bytes):
                parts.append(Part((FilePart(path, sid, named, span),), span[1] - span[0], len(parts)))
            continue
        group.append(FilePart(path, sid, named))
        size += nbytes
        if size >= part_bytes:
            flush()
    flush()
    return parts




def part_bytes_for(listed: list[tuple[str, str, bool, int]], workers: int) -> int:
    """The default part size for `listed` on `workers`: `PART_BYTES`, smaller when the input is small,
    so that every worker gets about `PARTS_PER_WORKER` parts (never below `MIN_PART_BYTES`)."""
    total = sum(size for *_, size in listed)
    share = total // (PARTS_PER_WORKER * max(workers, 1))
    return max(MIN_PART_BYTES, min(PART_BYTES, share or 1))
