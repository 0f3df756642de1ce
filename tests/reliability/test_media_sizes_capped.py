"""One cap per size however it arrives (findings 2 and 3 of the fifth audit, media parts).

A size a header holds (PNG IHDR, MP4 mvhd, WAV byte rate, PDF /Count), an offset implies (Gemini's
videoMetadata) or a flag gives (--image-size) meets the caps a stated size meets (mediaread's
MAX_PIXELS, MAX_SECONDS, MAX_PAGES). From a header: the part is unsized, with a note; from a field
or a flag: 422 or exit 2 naming it. Before, they gave astronomical counts labelled "documented", or
an internal error (a 5,000-digit /Count, "infs", "²").
"""

from __future__ import annotations

import base64
import json
import struct

import pytest

pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")

from analysis.api.settings import Settings  # noqa: E402
from analysis.requests import mediaread  # noqa: E402
from analysis.requests.media import count_media, parse_size  # noqa: E402
from analysis.requests.shapes import parse  # noqa: E402
from analysis.errors import BadInput  # noqa: E402
from tests.analysis.api.conftest import ready_client  # noqa: E402
from tests.analysis.requests.test_media import png, wav  # noqa: E402
from tests.reliability.cli_run import run_cli  # noqa: E402

# the largest count any rule gives a part within the caps is a few million tokens
MOST_TOKENS_A_PART = 50_000_000


@pytest.fixture(scope="module")
def client():
    c = ready_client(Settings(tokenizers=("o200k_base",)))
    yield c
    c.__exit__(None, None, None)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def mp4_v1(duration: int, scale: int = 1) -> bytes:
    body = bytes([1, 0, 0, 0]) + struct.pack(">QQIQ", 0, 0, scale, duration) + b"\0" * 80
    mvhd = struct.pack(">I4s", 8 + len(body), b"mvhd") + body
    return struct.pack(">I4s", 8 + len(mvhd), b"moov") + mvhd


def wav_byte_rate_one(n_bytes: int = 2_900_000) -> bytes:
    data = wav(0.01)
    fmt_at = data.index(b"fmt ")
    data = data[:fmt_at + 16] + struct.pack("<I", 1) + data[fmt_at + 20:]
    data_at = data.index(b"data")
    # a streamed data chunk (length 0): the bytes that follow are the data, one second each
    return data[:data_at + 4] + struct.pack("<I", 0) + data[data_at + 8:] + b"\0" * n_bytes


def pdf_count(digits: str) -> bytes:
    return f"%PDF-1.4\n1 0 obj << /Type /Pages /Kids [] /Count {digits} >> endobj\n".encode()


HEADERS = [
    pytest.param(lambda d: mediaread.read_image(d), png(4294967295, 4294967295), "image", id="png-ihdr-2^32"),
    pytest.param(lambda d: mediaread.read_seconds(d, audio=False), mp4_v1(2**64 - 1), "clip", id="mp4-mvhd-2^64"),
    pytest.param(lambda d: mediaread.read_seconds(d, audio=True), wav_byte_rate_one(), "clip", id="wav-byte-rate-1"),
    pytest.param(lambda d: mediaread.pdf_pages(d), pdf_count("1000000000000"), "PDF", id="pdf-count-10^12"),
    pytest.param(lambda d: mediaread.pdf_pages(d), pdf_count("9" * 5000), "PDF", id="pdf-count-5000-digits"),
]


@pytest.mark.parametrize(("read", "data", "what"), HEADERS)
def test_a_header_out_of_range_leaves_the_part_unsized_with_a_note(read, data, what):
    got = read(data)
    assert type(got).__name__ == "OutOfRange", got
    assert what in got.note and "cap" in got.note


def _media_rows(client, path: str, body: dict) -> dict:
    r = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    return r.json()


def test_header_sizes_out_of_range_are_not_counted_on_the_count_route(client):
    parts = [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(png(4294967295, 4294967295))}},
             {"type": "input_audio", "input_audio": {"data": b64(wav_byte_rate_one(200_000)), "format": "wav"}},
             {"type": "file", "file": {"file_data": "data:application/pdf;base64," + b64(pdf_count("9" * 5000))}}]
    body = {"models": ["gemini-2.5-flash", "claude-sonnet-4-5", "gpt-4o"], "messages": [{"role": "user", "content": parts}]}
    for row in _media_rows(client, "/v1/count", body)["results"]:
        assert row["media_tokens"] < MOST_TOKENS_A_PART, row
        for line in row["media"]:
            assert line["tokens"] is None or line["tokens"] < MOST_TOKENS_A_PART, line
    lines = [line for row in _media_rows(client, "/v1/count", body)["results"] for line in row["media"]]
    assert any("cap" in line["note"] and line["tokens"] is None for line in lines), lines


def test_an_mp4_of_2_64_seconds_is_not_counted_on_gemini(client):
    part = {"inlineData": {"mimeType": "video/mp4", "data": b64(mp4_v1(2**64 - 1))}}
    r = _media_rows(client, "/v1beta/models/gemini-2.5-flash:countTokens", {"contents": [{"parts": [part]}]})
    assert r["totalTokens"] < MOST_TOKENS_A_PART, r


def test_a_pdf_count_of_5000_digits_is_no_internal_error_on_anthropic(client):
    doc = {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64(pdf_count("9" * 5000))}}
    body = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": [doc]}]}
    r = _media_rows(client, "/v1/messages/count_tokens", body)
    assert r["input_tokens"] < MOST_TOKENS_A_PART, r


@pytest.mark.parametrize("end", ["infs", "nans", "1e300s", "-5s", "604801s", "1_000s", "١٠s", " 5s", "5.0000000001s"])
def test_a_gemini_offset_out_of_range_or_not_ascii_digits_is_refused_by_name(client, end):
    part = {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}, "videoMetadata": {"endOffset": end}}
    r = client.post("/v1beta/models/gemini-2.5-flash:countTokens", json={"contents": [{"parts": [part]}]})
    assert r.status_code == 422, r.text
    assert "contents[0].parts[0].videoMetadata.endOffset" in r.json()["detail"]


@pytest.mark.parametrize("end", [float("inf"), 1e300, -1])
def test_a_gemini_offset_given_as_a_number_is_capped_too(end):
    body = {"contents": [{"parts": [{"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"},
                                     "videoMetadata": {"endOffset": end}}]}]}
    with pytest.raises(BadInput, match="endOffset"):
        parse(body, shape="gemini")


def test_a_gemini_offset_within_the_cap_still_counts():
    body = {"contents": [{"parts": [{"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"},
                                     "videoMetadata": {"startOffset": "1.5s", "endOffset": "11.5s"}}]}]}
    m = count_media(parse(body, shape="gemini"), ("gemini-2.5-flash",))
    assert m.lines[0].part.startswith("video 10.00 s") and m.tokens == 2630  # 263 tokens a second


@pytest.mark.parametrize("size", ["99999999999999999999x99999999999999999999", "100001x1", "²x2", "١٠x١٠",
                                  "9" * 5000 + "x2", "1_000x2", "0x5", "12x", "inf x inf"])
def test_image_size_flag_out_of_range_or_not_ascii_is_exit_2(size, capsys):
    code, out, err = run_cli(["count", "hi", "-m", "gpt-4o", "--image-size", size], capsys)
    assert code == 2, (code, err)
    assert "--image-size" in err and len(err) < 600, err
    with pytest.raises(BadInput):
        parse_size(size)


def test_image_size_flag_at_the_cap_is_taken():
    assert parse_size("100000x1") == (100_000, 1) and parse_size(" 1024X768 ") == (1024, 768)
