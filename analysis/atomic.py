"""Writing files so that no reader, and no crash, ever sees half of one.

Unlike `textio` (which reads the user's text), this module writes: every file tokenprism
produces goes to a temporary name in the same folder, is flushed and fsynced, and only then
renamed over the target. A rename within one folder is atomic on POSIX and Windows, so the
target holds either its previous content or the complete new one, never a truncated mix, even
after Ctrl-C, SIGKILL or a full disk. The temporary file is removed on every failure that the
process lives through; one that a SIGKILL leaves behind is removed by the next write into its
folder (its name carries the dead process's id).

Two shapes, for the two kinds of writer:

* `atomic_write(path)`: a file object for code that writes itself (`f.write(...)`);
* `atomic_path(path)`: a temporary path for libraries that insist on a path of their own
  (`frame.to_parquet(tmp)`, `figure.savefig(tmp)`).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

_TMP_PREFIX = ".tokenprism-tmp-"
# A temporary name carries the id of the process that made it, so a later write can tell one
# left by a process that no longer exists (SIGKILL, which no program can catch, between creating
# and renaming it) from one still being written.
_TMP_NAME = re.compile(re.escape(_TMP_PREFIX) + r"(\d+)-[0-9a-f]{12}-")


def temporary_name(path: Path) -> Path:
    """A fresh hidden name beside `path`, on the same file system, so the final rename is atomic.

    Temporary files and folders left beside it by dead tokenprism processes are removed first.

    >>> temporary_name(Path("out/m.csv")).parent
    PosixPath('out')
    """
    if not path.parent.name.startswith(_TMP_PREFIX):  # inside our own temporary folder: nothing stale
        remove_stale(path.parent)
    return path.with_name(f"{_TMP_PREFIX}{os.getpid()}-{secrets.token_hex(6)}-{path.name}")


def remove_stale(folder: Path) -> None:
    """Remove the temporary files and folders in `folder` whose process no longer exists.

    Only names of `temporary_name`'s form are touched: files tokenprism made, never the user's.
    """
    try:
        with os.scandir(folder) as it:
            stale = [e for e in it if (m := _TMP_NAME.match(e.name)) and not _alive(int(m.group(1)))]
    except OSError:  # a folder not there yet, or not readable: nothing of ours in it
        return
    for entry in stale:
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if os.name != "posix" or pid == os.getpid():
        return True  # (on Windows, os.kill(pid, 0) would stop the process, not probe it)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, owned by another user
        return True
    return True


def _fsync_dir(folder: Path) -> None:
    # The rename is durable only once the folder's entry is on disk; not every platform allows it.
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _publish(tmp: Path, path: Path) -> None:
    with open(tmp, "rb") as f:  # fsync what a library wrote through its own handle
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside `path`; on success it replaces `path`, on failure it is removed.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "a.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("done")
    >>> target.read_text()
    'done'
    """
    path = Path(path)
    tmp = temporary_name(path)
    try:
        yield tmp
        _publish(tmp, path)
    except OSError as e:
        if e.filename is not None and str(e.filename) == str(tmp):  # name the target, not our temporary name
            raise type(e)(e.errno, f"{e.strerror} (writing {path})", str(path)) from None
        raise
    finally:
        tmp.unlink(missing_ok=True)


def writable_problem(path: str | Path) -> str | None:
    """Why a file cannot be written at `path`, or None: checked before long work, not after it.

    A file is created and removed again in the nearest folder that exists (the writers make the
    missing folders below it), so a read-only file system or a folder without write permission
    is found the way the real write would find it.

    >>> print(writable_problem("/etc/hostname/x.csv"))
    cannot write /etc/hostname/x.csv: /etc/hostname is a file, not a folder
    """
    p = Path(path)
    folder = p.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot write {p}: {folder} is a file, not a folder"
    probe = temporary_name(folder / p.name)
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as e:
        return f"cannot write {p}: {e.strerror or e} (in the folder {folder}); choose another place"
    os.close(fd)
    probe.unlink(missing_ok=True)
    return None


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "w", *, encoding: str | None = "utf-8",
                 newline: str | None = None) -> Iterator[IO[Any]]:
    """Open a temporary file beside `path` for writing; it replaces `path` only if the block succeeds.

    Args:
        path: the file to create or replace.
        mode: "w" (text) or "wb" (bytes).
        encoding, newline: as `open`, for text mode.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "b.txt"
    >>> try:
    ...     with atomic_write(target) as f:
    ...         _ = f.write("half")
    ...         raise KeyboardInterrupt
    ... except KeyboardInterrupt:
    ...     pass
    >>> target.exists(), list(target.parent.iterdir())
    (False, [])
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write writes whole files: mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path) as tmp:
        kwargs: dict[str, Any] = {} if mode == "wb" else {"encoding": encoding, "newline": newline}
        with open(tmp, mode, **kwargs) as f:
            yield f


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write `data` to `path` atomically and return the path."""
    with atomic_write(path, "wb") as f:
        f.write(data)
    return Path(path)


def write_text(path: str | Path, text: str, *, encoding: str = "utf-8") -> Path:
    """Write `text` to `path` atomically (no newline translation) and return the path."""
    with atomic_write(path, "w", encoding=encoding, newline="") as f:
        f.write(text)
    return Path(path)
