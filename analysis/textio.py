"""Reading the user's text: files, stdin, with exact errors for bytes that are not UTF-8.

Unlike `corpus` (whole corpora, sample records), this reads one text for a command. Bytes are
never altered silently: invalid UTF-8 is an error naming the file and byte offset, unless the
caller asks for `errors="replace"` (U+FFFD, with the count returned).
"""

from __future__ import annotations

import sys
from pathlib import Path


def decode_utf8(data: bytes, *, where: str, errors: str = "strict") -> tuple[str, int]:
    """Decode UTF-8 (a BOM is kept as U+FEFF: it is part of what the user gave us).

    Returns:
        (text, number of replaced bad sequences)

    Raises:
        ValueError: with `errors="strict"`, naming `where` and the byte offset.

    >>> decode_utf8(b"ok", where="x")
    ('ok', 0)
    """
    if errors not in ("strict", "replace"):
        raise ValueError(f"errors must be 'strict' or 'replace', got {errors!r}")
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError as e:
        if errors == "strict":
            raise ValueError(
                f"{where} is not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start} ({e.reason}). "
                "Fix: convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8), or pass --errors replace"
            ) from None
    text = data.decode("utf-8", errors="replace")
    # one U+FFFD per invalid sequence; subtract the ones that were genuinely in the input
    return text, text.count("\ufffd") - data.count("\ufffd".encode("utf-8"))


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
