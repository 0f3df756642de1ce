"""Hostile inputs for every parser over untrusted bytes, each made at a chosen size, and the growth
of a parser's time when its input doubles (shared by `test_parsers_linear` and `make bench`).

Each case is (name, make(n_bytes) -> input, parse(input)). The inputs are the worst shapes the
fifth audit found or that each parser's structure suggests: a PDF full of `/Type/Pages` with no
dictionary end, JPEG fill bytes, WAV and MP4 boxes of the smallest size, escaped quotes with no
closing one in a JSON body, a gzip-free log of blank lines.
"""

from __future__ import annotations

import io
import struct
import time
from collections.abc import Callable
from typing import Any

from analysis.requests import mediaread
from analysis.textio import json_text
from analysis.textio.lines import LineBounds, iter_lines


def _reps(unit: bytes, n: int, head: bytes = b"") -> bytes:
    return head + unit * max(1, (n - len(head)) // len(unit))


def _pdf_pages_no_end(n: int) -> bytes:  # the audit's finding 1: quadratic under the old regex
    return _reps(b"/Type/Pages ", n, b"%PDF-1.4\n")


def _pdf_count_no_end(n: int) -> bytes:
    return _reps(b"/Count 1 ", n, b"%PDF-1.4\n")


def _pdf_open_dicts(n: int) -> bytes:
    return _reps(b"<< /Type /Pages /Count 7 ", n, b"%PDF-1.4\n")


def _pdf_one_dict(n: int) -> bytes:
    return _reps(b"/Type /Pages /Count 12 /Kids [1 0 R] ", n, b"%PDF-1.4\n<< ") + b">>"


def _pdf_streams(n: int) -> bytes:
    return _reps(b"<< /Length 3 >>\nstream\n<<>\nendstream\n", n, b"%PDF-1.4\n")


def _jpeg_fill(n: int) -> bytes:
    return b"\xff\xd8" + b"\xff" * max(1, n - 2)


def _jpeg_segments(n: int) -> bytes:
    return _reps(b"\xff\xe0\x00\x02", n, b"\xff\xd8")


def _wav_chunks(n: int) -> bytes:
    return _reps(b"junk\x00\x00\x00\x00", n, b"RIFF\x00\x00\x00\x00WAVE")


def _mp4_boxes(n: int) -> bytes:
    return _reps(struct.pack(">I4s", 8, b"free"), n)


def _mp4_moov_boxes(n: int) -> bytes:
    inner = _reps(struct.pack(">I4s", 8, b"free"), n)
    return struct.pack(">I4s", 8 + len(inner), b"moov") + inner


def _data_url_params(n: int) -> str:
    return "data:image/png" + ";a=b" * max(1, (n - 14) // 4)


def _json_escaped_quotes(n: int) -> bytes:
    return b'"' + b'\\"' * (n // 2) + b"[" * 200


def _json_open_strings(n: int) -> bytes:
    return b'["' * (n // 2)


def _log_blank_lines(n: int) -> bytes:
    return b"\n" * n


def _log_rows_between_blank_runs(n: int) -> bytes:
    return _reps(b"x\n" + b"\n" * 997, n)


def _lines(data: bytes) -> int:  # as the log reader reads: blank lines skipped
    return sum(1 for _ in iter_lines(io.BytesIO(data), where="log", bounds=LineBounds(), skip_blank=True))


CASES: list[tuple[str, Callable[[int], Any], Callable[[Any], Any]]] = [
    ("pdf: /Type/Pages with no dictionary", _pdf_pages_no_end, mediaread.pdf_pages),
    ("pdf: /Count with no dictionary", _pdf_count_no_end, mediaread.pdf_pages),
    ("pdf: dictionaries never closed", _pdf_open_dicts, mediaread.pdf_pages),
    ("pdf: one long dictionary", _pdf_one_dict, mediaread.pdf_pages),
    ("pdf: many streams", _pdf_streams, mediaread.pdf_pages),
    ("jpeg: fill bytes", _jpeg_fill, mediaread.image_size),
    ("jpeg: empty segments", _jpeg_segments, mediaread.image_size),
    ("wav: empty chunks", _wav_chunks, mediaread.wav_seconds),
    ("mp4: empty boxes", _mp4_boxes, mediaread.mp4_seconds),
    ("mp4: empty boxes in moov", _mp4_moov_boxes, mediaread.mp4_seconds),
    ("data URL: many parameters", _data_url_params, mediaread.inline_bytes),
    ("json: escaped quotes, no closing one", _json_escaped_quotes, json_text.too_deep),
    ("json: strings never closed", _json_open_strings, json_text.too_deep),
    ("log: blank lines", _log_blank_lines, _lines),
    ("log: rows between blank runs", _log_rows_between_blank_runs, _lines),
]


def growth(make: Callable[[int], Any], parse: Callable[[Any], Any], n: int, rounds: int = 3) -> tuple[float, float]:
    """(CPU seconds at `n` bytes, CPU time at 2n over CPU time at n): the best of `rounds` interleaved
    runs each. CPU time of this process, not wall time: the other processes on a loaded host
    move it much less."""
    small, big = make(n), make(2 * n)
    best_small = best_big = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        parse(small)
        t1 = time.process_time()
        parse(big)
        t2 = time.process_time()
        best_small, best_big = min(best_small, t1 - t0), min(best_big, t2 - t1)
        if t2 - t0 > 1.0:  # long enough to be timed once
            break
    return best_small, best_big / max(best_small, 1e-6)
