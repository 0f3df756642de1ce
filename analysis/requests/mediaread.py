"""What a media part's own bytes say about its size: an image's width and height, a WAV's or an
MP4's length, a PDF's page count, read from the headers of inline data (a data URL or base64 text).

Unlike `media` (the providers' rules that turn those sizes into tokens), this module only reads
headers, with the standard library: no pixels are decoded and no URL is ever fetched. A header it
cannot read gives None, and the count then says the part is unsized.

Read: PNG (IHDR), GIF (logical screen), JPEG (the first SOFn frame), WebP (VP8, VP8L, VP8X);
WAV (RIFF fmt and data chunks); MP4, MOV and M4A (the movie header, `moov/mvhd`: its duration
over its timescale); PDF (the page tree's /Count, else the /Type /Page objects).
Not read: MP3, FLAC, OGG and WebM lengths, which need a frame walk; their parts are counted only
with a duration given (a part's own `seconds`, see `declared`).
"""

from __future__ import annotations

import base64
import binascii
import re
import struct

from collections.abc import Mapping
from typing import Any

from ..errors import BadInput
from .request import AudioPart, FilePart, ImagePart, VideoPart

_DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+)?((?:;[\w-]+=[^;,]*)*)(;base64)?,", re.ASCII)


def inline_bytes(value: str | None) -> tuple[bytes, str | None] | None:
    """The bytes of a data URL ("data:image/png;base64,...") or of bare base64 text, with the data
    URL's media type; None for a remote URL, a file id or text that is not base64.

    >>> inline_bytes("data:image/gif;base64,R0lGODlh")
    (b'GIF89a', 'image/gif')
    >>> inline_bytes("https://example.com/a.png") is None
    True
    """
    if not value:
        return None
    media: str | None = None
    m = _DATA_URL.match(value)
    if m:
        if not m.group(3):  # a data URL in plain text: not an image header we can read
            return None
        media, value = m.group(1), value[m.end():]
    elif "://" in value[:16]:
        return None
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=False), media
    except (binascii.Error, ValueError):
        return None


def _png(b: bytes) -> tuple[int, int] | None:
    if b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR" and len(b) >= 24:
        return struct.unpack(">II", b[16:24])
    return None


def _gif(b: bytes) -> tuple[int, int] | None:
    if b[:6] in (b"GIF87a", b"GIF89a") and len(b) >= 10:
        return struct.unpack("<HH", b[6:10])
    return None


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg(b: bytes) -> tuple[int, int] | None:
    if b[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 4 <= len(b):
        if b[i] != 0xFF:
            return None
        marker = b[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", b[i + 2:i + 4])
        if marker in _SOF and i + 9 <= len(b):
            height, width = struct.unpack(">HH", b[i + 5:i + 9])
            return width, height
        i += 2 + length
    return None


def _webp(b: bytes) -> tuple[int, int] | None:
    if b[:4] != b"RIFF" or b[8:12] != b"WEBP" or len(b) < 25:
        return None
    chunk = b[12:16]
    if chunk == b"VP8 " and b[23:26] == b"\x9d\x01\x2a" and len(b) >= 30:
        w, h = struct.unpack("<HH", b[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if chunk == b"VP8L" and b[20] == 0x2F:
        (bits,) = struct.unpack("<I", b[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(b) >= 30:
        return int.from_bytes(b[24:27], "little") + 1, int.from_bytes(b[27:30], "little") + 1
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG, GIF, JPEG or WebP header; None for anything else.

    >>> image_size(b"GIF89a\\x20\\x03\\x58\\x02")
    (800, 600)
    """
    for read in (_png, _gif, _jpeg, _webp):
        size = read(data)
        if size is not None:
            return size if size[0] > 0 and size[1] > 0 else None
    return None


def wav_seconds(data: bytes) -> float | None:
    """The length of a WAV (RIFF/WAVE) in seconds, from its fmt byte rate and data chunk size."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    i, byte_rate, size = 12, 0, None
    while i + 8 <= len(data):
        chunk, length = data[i:i + 4], struct.unpack("<I", data[i + 4:i + 8])[0]
        if chunk == b"fmt " and i + 20 <= len(data):
            (byte_rate,) = struct.unpack("<I", data[i + 16:i + 20])
        elif chunk == b"data":
            # a streamed WAV may give 0 or 0xFFFFFFFF: then the bytes that follow are the data
            size = length if 0 < length < 0xFFFFFFFF else len(data) - i - 8
            break
        i += 8 + length + (length & 1)
    if not byte_rate or size is None:
        return None
    return min(size, len(data) - i - 8) / byte_rate


def mp4_seconds(data: bytes) -> float | None:
    """An ISO media file's (MP4, MOV, M4A) length from its movie header (`moov/mvhd`), or None.

    The header may sit at the end of the file (after `mdat`): the top-level boxes are walked by
    their sizes, so only the headers are read.
    """
    i = 0
    while i + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[i:i + 8])
        head = 8
        if size == 1 and i + 16 <= len(data):  # a 64-bit size
            size, head = struct.unpack(">Q", data[i + 8:i + 16])[0], 16
        elif size == 0:  # to the end of the file
            size = len(data) - i
        if size < head:
            return None
        if kind == b"moov":
            return _mvhd(data[i + head:i + size])
        i += size
    return None


def _mvhd(moov: bytes) -> float | None:
    j = 0
    while j + 8 <= len(moov):
        size, kind = struct.unpack(">I4s", moov[j:j + 8])
        if size < 8:
            return None
        if kind == b"mvhd":
            body = moov[j + 8:j + size]
            if body[:1] == b"\x01" and len(body) >= 32:  # version 1: 64-bit times and duration
                scale, duration = struct.unpack(">IQ", body[20:32])
            elif len(body) >= 20:
                scale, duration = struct.unpack(">II", body[12:20])
            else:
                return None
            return duration / scale if scale else None
        j += size
    return None


_PAGES_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b", re.S)
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")


def pdf_pages(data: bytes) -> int | None:
    """A PDF's page count: the largest /Count of its page-tree nodes (the root's), else the number
    of /Type /Page objects; None for a file that is not a PDF or shows neither (compressed object
    streams can hide both).
    """
    if not data.startswith(b"%PDF-"):
        return None
    counts = [int(a or b) for a, b in _PAGES_COUNT.findall(data)]
    if counts:
        return max(counts)
    pages = len(_PAGE.findall(data))
    return pages or None


# -- what a part may say of itself -------------------------------------------------------------
MAX_PIXELS = 100_000  # a side longer than this is a typo, not an image
MAX_SECONDS = 86_400.0 * 7


IMAGE_SIZE = ("width", "height")
CLIP_LENGTH = ("seconds",)
_BOUNDS = {"width": (MAX_PIXELS, True), "height": (MAX_PIXELS, True), "seconds": (MAX_SECONDS, False)}


def declared(part: Mapping[str, Any], where: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """The size a media part states beside the provider's own fields (tokenprism's extension, the
    same keys in every shape): `width` and `height` of an image (`IMAGE_SIZE`), in pixels;
    `seconds` of an audio or video clip (`CLIP_LENGTH`). Absent keys are left out; a header the
    bytes carry wins over them.

    >>> declared({"type": "image_url", "width": 800, "height": 600}, "messages[0].content[1]", IMAGE_SIZE)
    {'width': 800, 'height': 600}

    Raises:
        BadInput: a value that is not a positive number in range (the message names the field).
    """
    out: dict[str, Any] = {}
    for key in keys:
        value = part.get(key)
        top, whole = _BOUNDS[key]
        if value is None:
            continue
        ok = isinstance(value, int) if whole else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok or not 0 < value <= top:
            kind = "a whole number of pixels" if whole else "a number of seconds"
            raise BadInput(f"{where}.{key} must be {kind} between 1 and {top:,g}, got {value!r}")
        out[key] = value
    if ("width" in out) != ("height" in out):
        raise BadInput(f"{where}: give both width and height of the image, or neither")
    return out


def image_part(url: str | None = None, *, data: str | None = None, media_type: str | None = None,
               detail: str | None = None, width: int | None = None, height: int | None = None,
               resolution: str | None = None) -> ImagePart:
    """An `ImagePart` sized from its inline bytes (`data`, or `url` when it is a data URL), else by
    the `width` and `height` the part states."""
    raw = inline_bytes(data if data is not None else url)
    size = (image_size(raw[0]) if raw else None) or ((width, height) if width and height else None)
    media_type = media_type or (raw[1] if raw else None)
    return ImagePart(url=url, media_type=media_type, detail=detail,
                     width=size[0] if size else None, height=size[1] if size else None, resolution=resolution)


def audio_part(data: str | None, media_type: str | None = None, *,
               seconds: float | None = None) -> AudioPart:
    """An `AudioPart` whose duration is read from inline WAV or M4A bytes, else the `seconds` it states."""
    raw = inline_bytes(data)
    read = (wav_seconds(raw[0]) or mp4_seconds(raw[0])) if raw else None
    return AudioPart(media_type=media_type, seconds=read if read is not None else seconds)


def video_part(url: str | None = None, *, data: str | None = None, media_type: str | None = None,
               resolution: str | None = None, seconds: float | None = None,
               fps: float | None = None) -> VideoPart:
    """A `VideoPart` whose length is read from inline MP4/MOV bytes, else the `seconds` given."""
    raw = inline_bytes(data if data is not None else url)
    read = mp4_seconds(raw[0]) if raw else None
    return VideoPart(url=url, media_type=media_type or (raw[1] if raw else None),
                     seconds=read if read is not None else seconds, fps=fps, resolution=resolution)


def file_part(name: str | None = None, *, data: str | None = None, media_type: str | None = None,
              resolution: str | None = None) -> FilePart:
    """A `FilePart` whose page count is read from inline PDF bytes (a data URL or base64)."""
    raw = inline_bytes(data)
    media_type = media_type or (raw[1] if raw else None)
    pages = pdf_pages(raw[0]) if raw else None
    if pages is not None and media_type is None:
        media_type = "application/pdf"
    return FilePart(name=name, media_type=media_type, pages=pages, resolution=resolution)
