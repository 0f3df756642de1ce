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

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import BadInput, shown
from .request import AudioPart, FilePart, ImagePart, VideoPart

# Every repeat bounded (a media type's names, at most 16 parameters of bounded length) and possessive,
# so a data URL with no comma fails in time linear in what it could match, never more.
_DATA_URL = re.compile(r"data:([\w.+-]{1,127}+/[\w.+-]{1,127}+)?((?:;[\w-]{1,64}+=[^;,]{0,1024}+){0,16}+)(;base64)?,",
                       re.ASCII)
# The most boxes, chunks or segments a header walk visits: real files have tens before the one
# read here; a file of millions of empty ones is read no further than this.
MAX_STEPS = 10_000


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
        return _b64decode(value), media
    except (binascii.Error, ValueError):
        return None


B64_PIECE = 1 << 18  # characters decoded by one call: a few ms, so a server thread holds the GIL no longer


def _b64decode(text: str) -> bytes:
    """Base64 text (padding optional, other characters dropped), decoded in pieces of `B64_PIECE`
    characters while the text is clean base64: a 4 MB body decoded in one call holds the GIL for
    tens of ms, and every other request of the server waits as long."""
    pad = "=" * (-len(text) % 4)
    if len(text) <= B64_PIECE:
        return base64.b64decode(text + pad, validate=False)
    pieces = []
    for at in range(0, len(text), B64_PIECE):
        piece = text[at:at + B64_PIECE]
        try:
            pieces.append(base64.b64decode(piece + pad if at + B64_PIECE >= len(text) else piece, validate=True))
        except binascii.Error:  # line breaks or other characters: the lenient decoder, in one call
            return base64.b64decode(text + pad, validate=False)
    return b"".join(pieces)


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
    for _ in range(MAX_STEPS):
        if i + 4 > len(b) or b[i] != 0xFF:
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
    for _ in range(MAX_STEPS):
        if i + 8 > len(data):
            break
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
    for _ in range(MAX_STEPS):
        if i + 8 > len(data):
            return None
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
    for _ in range(MAX_STEPS):
        if j + 8 > len(moov):
            return None
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


# The PDF walk: each dictionary (`<< ... >>`) is visited once, and only its own bytes (its nested
# dictionaries' are their own) are searched, with every gap bounded, so the walk is linear in the
# file. A stream's bytes (between `stream` and `endstream`) are skipped, not read as dictionaries.
# The marks are found with `bytes.find` (a few ms for 3 MB), not a regex alternation (over 300 ms,
# with the GIL held: the server would answer nothing else meanwhile).
_PDF_PAGES = re.compile(rb"/Type\s{0,64}/Pages(?![A-Za-z0-9])")
_PDF_PAGE = re.compile(rb"/Type\s{0,64}/Page(?![A-Za-z0-9])")
_PDF_COUNT = re.compile(rb"/Count\s{1,64}(\d{1,%d})(\d?)" % 18)
MAX_PDF_DEPTH = 64  # dictionaries nested deeper than this are read as their parent's bytes
MAX_DICT_BYTES = 4_000_000  # the most of one dictionary's own bytes searched (a 100,000-page /Kids is ~1 MB)
MAX_PDF_DICTS = 200_000  # the most dictionaries read: a 1,000-page PDF has a few tens of thousands
_MARKS = (b"<<", b">>", b"stream")


def _pdf_dicts(data: bytes) -> Iterator[bytes]:
    """Each dictionary's own bytes (its nested dictionaries left out), in the order they close."""
    stack: list[list[bytes]] = []
    sizes: list[int] = []
    deeper = 0  # dictionaries open past MAX_PDF_DEPTH
    at = 0  # where the innermost open dictionary's current run of own bytes began
    i = 0
    ahead = [data.find(mark) for mark in _MARKS]  # the next place of each mark at or after i
    while True:
        for k, mark in enumerate(_MARKS):
            if 0 <= ahead[k] < i:
                ahead[k] = data.find(mark, i)
        found = [p for p in ahead if p >= 0]
        if not found:
            return
        pos = min(found)
        kind = ahead.index(pos)
        i = pos + 2
        if kind == 0:
            if len(stack) >= MAX_PDF_DEPTH:
                deeper += 1
            else:
                if stack:
                    _keep(stack[-1], sizes, data, at, pos)
                stack.append([])
                sizes.append(0)
                at = i
        elif kind == 1:
            if deeper:
                deeper -= 1
            elif stack:
                _keep(stack[-1], sizes, data, at, pos)
                own = stack.pop()
                sizes.pop()
                yield b"".join(own)
                at = i
        else:
            i = pos + 6
            if stack or data[pos - 1:pos].isalpha() or data[i:i + 1] not in (b"\r", b"\n"):
                continue  # a word in a dictionary, "endstream", or not the keyword
            end = data.find(b"endstream", i)  # a stream's body: binary bytes, skipped to its end
            if end < 0:
                return
            i = at = end + 9


def _keep(own: list[bytes], sizes: list[int], data: bytes, start: int, end: int) -> None:
    room = MAX_DICT_BYTES - sizes[-1]
    if room > 0 and end > start:
        piece = data[start:min(end, start + room)]
        own.append(piece)
        sizes[-1] += len(piece)


@dataclass(frozen=True, slots=True)
class OutOfRange:
    """A size a part's header gives beyond the caps (`MAX_PIXELS`, `MAX_SECONDS`, `MAX_PAGES`):
    the part is counted as unsized, and `note` says why."""
    note: str


def pdf_pages(data: bytes) -> int | OutOfRange | None:
    """A PDF's page count: the largest /Count of its page-tree nodes (the root's), else the number
    of /Type /Page objects; None for a file that is not a PDF or shows neither (compressed object
    streams can hide both); `OutOfRange` for a count above `MAX_PAGES`.

    >>> pdf_pages(b"%PDF-1.4 << /Type /Pages /Kids [] /Count 3 >>")
    3
    >>> pdf_pages(b"%PDF-1.4 << /Count 1000000000000 /Type /Pages >>")
    OutOfRange(note='the PDF header gives 1000000000000 pages, more than the cap of 100,000')
    """
    if not data.startswith(b"%PDF-"):
        return None
    count: int | None = None
    over: str | None = None
    pages = 0
    for seen, own in enumerate(_pdf_dicts(data)):
        if seen >= MAX_PDF_DICTS:
            return OutOfRange(f"the PDF holds more than {MAX_PDF_DICTS:,} dictionaries, the most read for a page count")
        if _PDF_PAGES.search(own):
            for m in _PDF_COUNT.finditer(own):
                digits = m.group(1) + m.group(2)
                n = int(m.group(1)) if not m.group(2) else None
                if n is None or n > MAX_PAGES:
                    over = over or (digits.decode() if n is not None else f"a {len(digits)}+ digit number of")
                elif count is None or n > count:
                    count = n
        elif _PDF_PAGE.search(own):
            pages += 1
    if over is not None:
        return OutOfRange(f"the PDF header gives {over} pages, more than the cap of {MAX_PAGES:,}")
    if count is not None:
        return count
    if pages > MAX_PAGES:
        return OutOfRange(f"the PDF holds more than {MAX_PAGES:,} page objects, the cap")
    return pages or None


# -- the caps: one per size, however it arrives ----------------------------------------------------
# A size a part states (`declared`), a header holds (the readers above), a flag gives
# (--image-size, `media.parse_size`) or an offset implies (Gemini's videoMetadata) meets the same
# cap. From a field or a flag a size out of range is refused, naming it; from a header the part is
# counted as unsized, with a note (`OutOfRange`). docs/reliability.md lists them.
MAX_PIXELS = 100_000  # a side longer than this is a typo, not an image
MAX_SECONDS = 86_400.0 * 7  # a week of audio or video
MAX_PAGES = 100_000  # no provider takes a PDF of more than a few thousand pages
MAX_FPS = 24.0  # Gemini samples at most 24 frames a second, so frames are at most MAX_SECONDS * MAX_FPS


def _in_range(what: str, value: float, top: float, unit: str) -> str | None:
    """Why a size read from a header is out of range, or None."""
    if value != value or not 0 < value <= top:  # value != value: NaN
        return f"the {what} header gives {value:.6g} {unit}, outside the cap of 1 to {top:,g}"
    return None


def read_image(data: bytes) -> tuple[int, int] | OutOfRange | None:
    """`image_size` within the caps: (width, height), `OutOfRange` past `MAX_PIXELS`, or None."""
    size = image_size(data)
    if size is None:
        return None
    why = _in_range("image", max(size), MAX_PIXELS, "pixels a side")
    return OutOfRange(why) if why else size


def read_seconds(data: bytes, *, audio: bool) -> float | OutOfRange | None:
    """A clip's length from its header (WAV or MP4 for audio, MP4 for video), within `MAX_SECONDS`."""
    seconds = (wav_seconds(data) or mp4_seconds(data)) if audio else mp4_seconds(data)
    if seconds is None:
        return None
    why = _in_range("clip", seconds, MAX_SECONDS, "seconds")
    return OutOfRange(why) if why else seconds


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
            raise BadInput(f"{where}.{key} must be {kind} between 1 and {top:,g}, got {shown(value)}")
        out[key] = value
    if ("width" in out) != ("height" in out):
        raise BadInput(f"{where}: give both width and height of the image, or neither")
    return out


IMAGE_DETAILS = ("auto", "low", "high")  # OpenAI's image `detail`


def image_detail(value: str | None, where: str) -> str | None:
    """OpenAI's image `detail` ("auto", "low" or "high"), or None when absent.

    Raises:
        BadInput: any other value, with the valid ones (the value cut and escaped).
    """
    if value is None or value in IMAGE_DETAILS:
        return value
    raise BadInput(f"{where} must be one of {', '.join(IMAGE_DETAILS)}, got {shown(value)}")


def _note(read: object) -> str | None:
    return read.note if isinstance(read, OutOfRange) else None


def image_part(url: str | None = None, *, data: str | None = None, media_type: str | None = None,
               detail: str | None = None, width: int | None = None, height: int | None = None,
               resolution: str | None = None) -> ImagePart:
    """An `ImagePart` sized from its inline bytes (`data`, or `url` when it is a data URL), else by
    the `width` and `height` the part states; a header out of range leaves it unsized, with a note."""
    raw = inline_bytes(data if data is not None else url)
    read = read_image(raw[0]) if raw else None
    if isinstance(read, OutOfRange):
        size = None
    else:
        size = read or ((width, height) if width and height else None)
    media_type = media_type or (raw[1] if raw else None)
    return ImagePart(url=url, media_type=media_type, detail=detail,
                     width=size[0] if size else None, height=size[1] if size else None, resolution=resolution,
                     unsized=_note(read))


def audio_part(data: str | None, media_type: str | None = None, *,
               seconds: float | None = None) -> AudioPart:
    """An `AudioPart` whose duration is read from inline WAV or M4A bytes, else the `seconds` it states."""
    raw = inline_bytes(data)
    read = read_seconds(raw[0], audio=True) if raw else None
    length = None if isinstance(read, OutOfRange) else read if read is not None else seconds
    return AudioPart(media_type=media_type, seconds=length, unsized=_note(read))


def video_part(url: str | None = None, *, data: str | None = None, media_type: str | None = None,
               resolution: str | None = None, seconds: float | None = None,
               fps: float | None = None) -> VideoPart:
    """A `VideoPart` whose length is read from inline MP4/MOV bytes, else the `seconds` given."""
    raw = inline_bytes(data if data is not None else url)
    read = read_seconds(raw[0], audio=False) if raw else None
    length = None if isinstance(read, OutOfRange) else read if read is not None else seconds
    return VideoPart(url=url, media_type=media_type or (raw[1] if raw else None),
                     seconds=length, fps=fps, resolution=resolution, unsized=_note(read))


def file_part(name: str | None = None, *, data: str | None = None, media_type: str | None = None,
              resolution: str | None = None) -> FilePart:
    """A `FilePart` whose page count is read from inline PDF bytes (a data URL or base64)."""
    raw = inline_bytes(data)
    media_type = media_type or (raw[1] if raw else None)
    read = pdf_pages(raw[0]) if raw else None
    if read is not None and media_type is None:
        media_type = "application/pdf"
    return FilePart(name=name, media_type=media_type, pages=read if isinstance(read, int) else None,
                    resolution=resolution, unsized=_note(read))
