"""Reading the user's text: files, stdin, with exact errors for bytes that are not UTF-8.

Unlike `corpora` (whole corpora, sample records), this reads one text for a command. Bytes are
never altered silently: invalid UTF-8 is an error naming the file and byte offset, unless the
caller asks for `errors="replace"` (U+FFFD, with the count returned).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from ..errors import BadInput

# What to do with bytes that are not UTF-8: fail, replace them with U+FFFD, or drop them.
ERRORS = ("strict", "replace", "skip")

# Stated limits of the dashboard's inputs. Compare counts up to a million characters (its speed
# target); a million characters of UTF-8 is at most 4 MB.
MAX_INPUT_CHARS = 1_000_000
MAX_UPLOAD_BYTES = 4_000_000
# A key file holds a few keys (a thousand of 64 characters is 65 kB); its size is checked before it is read.
MAX_KEY_FILE_BYTES = 1_000_000

# The bound of one text read for a command (-f FILE, stdin): far above any prompt or document,
# far below what would exhaust memory. Raise it with --max-input-mb or TOKENPRISM_MAX_INPUT_MB.
DEFAULT_MAX_FILE_MB = 512


def max_file_bytes() -> int:
    """The read bound in bytes: $TOKENPRISM_MAX_INPUT_MB (megabytes) or `DEFAULT_MAX_FILE_MB`."""
    raw = os.environ.get("TOKENPRISM_MAX_INPUT_MB", "")
    try:
        mb = float(raw) if raw.strip() else DEFAULT_MAX_FILE_MB
    except ValueError:
        raise BadInput(f"TOKENPRISM_MAX_INPUT_MB must be a number of megabytes, got {raw!r}") from None
    if not mb > 0:
        raise BadInput(f"TOKENPRISM_MAX_INPUT_MB must be positive, got {raw!r}")
    return int(mb * 1_000_000)


def regular_file_problem(path: str | Path, *, what: str = "file", stdin: bool = True) -> str | None:
    """Why `path` cannot be read as a file (a FIFO, a device, a socket, a folder), or None.

    Reading a FIFO or /dev/zero would block or never end, so only regular files are read; a
    pipe's content is given on stdin instead.

    >>> print(regular_file_problem("/dev/null"))
    /dev/null is a device, not a regular file: give a text file (or pipe text into stdin: ... < /dev/null)
    """
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        return f"no such {what}: {p}"
    except OSError as e:
        return f"cannot read {p}: {e.strerror or e}"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return f"{p} is a folder; give a file (for folders use: tokenprism measure {p})"
    kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
    fix = f"give a text file (or pipe text into stdin: ... < {p})" if stdin else "give a regular file (copy the data into one)"
    return f"{p} is {kind}, not a regular file: {fix}"


def read_bounded(fh, limit: int, *, where: str, raise_hint: str) -> bytes:
    """Read at most `limit` bytes from a binary stream; a ValueError past the bound (never a hang on growth)."""
    data = fh.read(limit + 1)
    if len(data) > limit:
        raise BadInput(f"{where} is larger than the limit of {limit:,} bytes. Fix: {raise_hint}")
    return data


_RAISE_HINT = "raise the limit with --max-input-mb MB (or TOKENPRISM_MAX_INPUT_MB), or split the text"


# Leading bytes of common binary formats, to name what was uploaded instead of a UTF-8 error.
_MAGIC = {
    b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image", b"GIF8": "a GIF image",
    b"%PDF": "a PDF document", b"PK\x03\x04": "a ZIP archive (or .docx/.xlsx)", b"\x1f\x8b": "a gzip archive",
    b"BZh": "a bzip2 archive", b"\xfd7zXZ": "an xz archive", b"\x28\xb5\x2f\xfd": "a zstd archive",
    b"\x7fELF": "an executable", b"MZ": "a Windows executable",
}



def decode_utf8(data: bytes, *, where: str, errors: str = "strict", offset: int = 0) -> tuple[str, int]:
    """Decode UTF-8 (a BOM is kept as U+FEFF: it is part of what the user gave us).

    Args:
        data: the bytes.
        where: what to name in an error (a file path, "stdin").
        errors: "strict" (raise), "replace" (U+FFFD per bad sequence) or "skip" (drop them).
        offset: where `data` starts in its file, so a chunk's error names the absolute offset.

    Returns:
        (text, number of invalid sequences replaced or skipped)

    Raises:
        ValueError: with `errors="strict"`, naming `where` and the byte offset.

    >>> decode_utf8(b"ok", where="x")
    ('ok', 0)
    >>> decode_utf8(b"a\\xffb", where="x", errors="replace")
    ('a\\ufffdb', 1)
    """
    if errors not in ("strict", "replace", "skip"):
        raise BadInput(f"errors must be 'strict', 'replace' or 'skip', got {errors!r}")
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError as e:
        if errors == "strict":
            raise BadInput(
                f"{where}: not valid UTF-8 at byte offset {offset + e.start} (byte 0x{data[e.start]:02x}: {e.reason}). "
                "Fix: convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8), or read it with errors='replace' "
                "or errors='skip'"
            ) from None
    replaced = data.decode("utf-8", errors="replace")
    # one U+FFFD per invalid sequence; the ones genuinely present in the input do not count
    n_bad = replaced.count("\ufffd") - data.count("\ufffd".encode("utf-8"))
    if errors == "replace":
        return replaced, n_bad
    return data.decode("utf-8", errors="ignore"), n_bad


def read_file_bytes(path: str | Path, max_bytes: int, *, what: str = "file",
                    raise_hint: str = "give a smaller file") -> bytes:
    """The bytes of a regular file of at most `max_bytes`: its type and size are checked before a
    byte is read, and the read itself stops past the bound (a file that grows meanwhile).

    Every file a command reads whole (a key file, a price file, a budget, a text) comes through
    here, so none costs more memory than its bound.

    >>> read_file_bytes("/dev/zero", 10)
    Traceback (most recent call last):
    ...
    analysis.errors.BadInput: /dev/zero is a device, not a regular file: give a text file (or pipe text into stdin: ... < /dev/zero)
    """
    p = Path(path)
    problem = regular_file_problem(p, what=what)
    if problem:
        raise BadInput(problem)
    size = p.stat().st_size
    if size > max_bytes:
        raise BadInput(f"{p} is {size:,} bytes, larger than the limit of {max_bytes:,} bytes for a {what}. "
                       f"Fix: {raise_hint}")
    with open(p, "rb") as fh:
        return read_bounded(fh, max_bytes, where=str(p), raise_hint=raise_hint)


def read_text_file(path: str | Path, *, errors: str = "strict", max_bytes: int | None = None) -> tuple[str, int]:
    """Read a regular file as UTF-8 without newline translation ('\\r\\n' stays two characters).

    Args:
        path: the file.
        errors: as `decode_utf8`.
        max_bytes: the size bound (default `max_file_bytes()`).

    Raises:
        ValueError: no such file, not a regular file (FIFO, device, folder), larger than the
            bound, or not UTF-8; each message says what to do.
    """
    p = Path(path)
    limit = max_file_bytes() if max_bytes is None else max_bytes
    data = read_file_bytes(p, limit, raise_hint=_RAISE_HINT)
    return decode_utf8(data, where=str(p), errors=errors)


def read_stdin(*, errors: str = "strict", max_bytes: int | None = None) -> tuple[str, int]:
    """Read stdin as UTF-8, up to `max_bytes` (default `max_file_bytes()`)."""
    if sys.stdin is None or sys.stdin.isatty():
        raise BadInput("no text given: pass TEXT, -f FILE, or pipe text into stdin")
    limit = max_file_bytes() if max_bytes is None else max_bytes
    data = read_bounded(sys.stdin.buffer, limit, where="stdin", raise_hint=_RAISE_HINT)
    return decode_utf8(data, where="stdin", errors=errors)


def input_problem(text: str, *, limit: int = MAX_INPUT_CHARS) -> str | None:
    """Why `text` cannot be compared, or None when it can.

    >>> input_problem("") is not None, input_problem("hi")
    (True, None)
    """
    if text == "":
        return "The text is empty: paste some text, upload a file or load the built-in sample."
    if len(text) > limit:
        return (f"The text has {len(text):,} characters; the limit here is {limit:,}. Trim it, or count "
                "it without a limit with the CLI: tokenprism compare -f FILE")
    return None


# The Why page's inputs are explained piece by piece (every digit grouping, every merge): short by
# nature, and their cost grows faster than their length, so each has its own small limit.
WHY_LIMITS = {"number": 200, "text": 2_000}


def short_input_problem(text: str, kind: str) -> str | None:
    """Why a Why-page input is too long (its limit is `WHY_LIMITS[kind]`), or None.

    >>> short_input_problem("1" * 201, "number")
    'The number has 201 characters; the limit here is 200. Shorten it: this page explains one piece at a time.'
    """
    limit = WHY_LIMITS[kind]
    if len(text) > limit:
        return (f"The {kind} has {len(text):,} characters; the limit here is {limit:,}. Shorten it: this page "
                "explains one piece at a time.")
    return None


def decode_upload(data: bytes, name: str, *, replace_invalid: bool = False,
                  max_bytes: int = MAX_UPLOAD_BYTES) -> tuple[str, int]:
    """The text of an uploaded file, or a ValueError that says what is wrong and what to do.

    Args:
        data: the file's bytes.
        name: its name, for messages.
        replace_invalid: replace invalid UTF-8 with U+FFFD instead of refusing the file.
        max_bytes: the size limit.

    Returns:
        (text, number of replaced invalid sequences).

    Raises:
        ValueError: empty, too large, binary (named when recognised) or not UTF-8.

    >>> decode_upload("héllo".encode(), "a.txt")
    ('héllo', 0)
    """
    if not data:
        raise BadInput(f"{name} is empty (0 bytes): upload a file with some text in it")
    if len(data) > max_bytes:
        raise BadInput(f"{name} is {len(data):,} bytes; the limit is {max_bytes:,}. Upload a smaller file, "
                       f"or use the CLI, which has no limit: tokenprism compare -f {name}")
    kind = next((k for magic, k in _MAGIC.items() if data.startswith(magic)), None)
    if kind or b"\x00" in data[:8192]:
        raise BadInput(f"{name} looks like {kind or 'a binary file (it contains NUL bytes)'}, not text: "
                       "upload a UTF-8 text file (.txt, .md, .py, .json, ...)")
    try:
        return decode_utf8(data, where=name, errors="replace" if replace_invalid else "strict")
    except ValueError as e:  # the same diagnosis, with the fix this page offers
        raise BadInput(str(e).split(" Fix: ")[0] + " Fix: convert it to UTF-8, or tick 'replace invalid bytes'") from None
