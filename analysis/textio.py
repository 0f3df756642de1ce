"""Reading the user's text: files, stdin, with exact errors for bytes that are not UTF-8.

Unlike `corpus` (whole corpora, sample records), this reads one text for a command. Bytes are
never altered silently: invalid UTF-8 is an error naming the file and byte offset, unless the
caller asks for `errors="replace"` (U+FFFD, with the count returned).
"""

from __future__ import annotations

import sys
from pathlib import Path


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
        raise ValueError(f"errors must be 'strict', 'replace' or 'skip', got {errors!r}")
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError as e:
        if errors == "strict":
            raise ValueError(
                f"{where}: not valid UTF-8 at byte offset {offset + e.start} (byte 0x{data[e.start]:02x}: {e.reason}). "
                "Fix: convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8), or load it with errors='replace' "
                "or errors='skip' (CLI: --errors replace|skip)"
            ) from None
    replaced = data.decode("utf-8", errors="replace")
    # one U+FFFD per invalid sequence; the ones genuinely present in the input do not count
    n_bad = replaced.count("\ufffd") - data.count("\ufffd".encode("utf-8"))
    if errors == "replace":
        return replaced, n_bad
    return data.decode("utf-8", errors="ignore"), n_bad


def read_text_file(path: str | Path, *, errors: str = "strict") -> tuple[str, int]:
    """Read a file as UTF-8 without newline translation ('\\r\\n' stays two characters)."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{p} is a folder; give a file (for folders use: tokenprism measure {p})")
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"no such file: {p}") from None
    return decode_utf8(data, where=str(p), errors=errors)


def read_stdin(*, errors: str = "strict") -> tuple[str, int]:
    if sys.stdin is None or sys.stdin.isatty():
        raise ValueError("no text given: pass TEXT, -f FILE, or pipe text into stdin")
    return decode_utf8(sys.stdin.buffer.read(), where="stdin", errors=errors)
