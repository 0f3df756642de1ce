"""Mutated valid files through every media reader and the log line reader (the fifth audit's "done
when": no exit 1, no 5xx, no count above the caps, no time above the linear bound).

Each valid file (PNG, GIF, JPEG, WebP VP8X and VP8L, WAV, MP4 v0 and v1, PDF; a JSON Lines log)
is mutated by hypothesis: bytes flipped, slices cut, repeated or inserted, and large numbers (0,
0xFFFFFFFF, 2^64 - 1, long digit runs) written over its fields. Each mutant is sent as a part of
each request shape the readers serve and counted for models of every media rule, in process: a
refusal must be `BadInput`/`UnknownName` (exit 2, 422), any other exception fails (exit 1, 500);
every media line's tokens stay below what the caps allow; each read takes CPU time within a
linear bound of its size. A few mutants also go through the service (no 5xx) and the CLI (no exit
1). The budget is TOKENPRISM_FUZZ_EXAMPLES (default 15); `python -m tests.benchmarks parsers`
runs it with a large one.
"""

from __future__ import annotations

import base64
import io
import json
import os
import struct
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.errors import BadInput, UnknownName
from analysis.requests import mediaread
from analysis.requests.media import count_media
from analysis.requests.shapes import parse
from analysis.textio.lines import LineBounds, iter_lines
from tests.analysis.requests.test_media import gif, jpeg, pdf, png, wav, webp_vp8l, webp_vp8x
from tests.analysis.requests.test_media_parts import mp4

EXAMPLES = int(os.environ.get("TOKENPRISM_FUZZ_EXAMPLES", "15"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Models of every media rule kind: tiles, patches, pixels, Gemini tiles, budgets, seconds, frames, pages.
MODELS = (("gpt-4o",), ("gpt-4.1-mini",), ("claude-sonnet-4-5",), ("gemini-2.5-flash",), ("gemini-3-pro-preview",))
# The most tokens any rule gives a part within the caps (a 100,000-pixel square on Gemini's tiles,
# a week of video at 24 frames a second, 100,000 pages): a few billion at most.
MOST_TOKENS_A_PART = 10**10
SECONDS_PER_MB = 2.0  # CPU seconds a reader may take per MB of input (linear), plus a fixed 0.2 s

SEEDS = {
    "png": ("image/png", png(640, 480)), "gif": ("image/gif", gif(320, 200)), "jpeg": ("image/jpeg", jpeg(800, 600)),
    "webp-vp8x": ("image/webp", webp_vp8x(1024, 768)), "webp-vp8l": ("image/webp", webp_vp8l(300, 300)),
    "wav": ("audio/wav", wav(0.5)), "mp4": ("video/mp4", mp4(12.5)), "mp4-v1": ("video/mp4", mp4(3.0, version=1)),
    "pdf": ("application/pdf", pdf(4)),
}
_BIG = [b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\xff" * 8, b"9" * 40, b"9" * 5000, b"<<", b">>", b"stream\n",
        b"/Count 99999999999999", b"/Type/Pages ", b"\x00\x00\x00\x01", b"\x00\x00\x00\x08free"]


@st.composite
def mutants(draw, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        op = draw(st.sampled_from(("flip", "cut", "repeat", "insert", "overwrite")))
        if op == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "cut":
            del data[at:at + draw(st.integers(1, 64))]
        elif op == "repeat":
            piece = bytes(data[at:at + draw(st.integers(1, 32))])
            data[at:at] = piece * draw(st.integers(1, 2000))
        elif op == "insert":
            data[at:at] = draw(st.sampled_from(_BIG))
        else:
            big = draw(st.sampled_from(_BIG))
            data[at:at + len(big)] = big
    return bytes(data)


def _bodies(media_type: str, data: bytes) -> list[tuple[str, dict]]:
    """The mutant as a part of each request shape that reads this kind of media."""
    b64 = base64.b64encode(data).decode()
    url = f"data:{media_type};base64,{b64}"
    gemini = ("gemini", {"contents": [{"parts": [{"inlineData": {"mimeType": media_type, "data": b64}}]}]})
    if media_type.startswith("image/"):
        return [("openai-chat", {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]}),
                ("anthropic", {"messages": [{"role": "user", "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": b64}}]}]}),
                gemini]
    if media_type.startswith("audio/"):
        return [("openai-chat", {"messages": [{"role": "user", "content": [
                    {"type": "input_audio", "input_audio": {"data": b64, "format": "wav"}}]}]}), gemini]
    if media_type.startswith("video/"):
        return [gemini]
    return [("openai-chat", {"messages": [{"role": "user", "content": [{"type": "file", "file": {"file_data": url}}]}]}),
            ("anthropic", {"messages": [{"role": "user", "content": [
                {"type": "document", "source": {"type": "base64", "media_type": media_type, "data": b64}}]}]}),
            gemini]


def _check_reads(media_type: str, data: bytes) -> None:
    t0 = time.process_time()
    for shape, body in _bodies(media_type, data):
        try:
            request = parse(body, shape=shape)
        except (BadInput, UnknownName):
            continue
        for names in MODELS:
            for line in count_media(request, names).lines:
                assert line.tokens is None or 0 <= line.tokens <= MOST_TOKENS_A_PART, (shape, names, line)
    for read in (mediaread.read_image, lambda d: mediaread.read_seconds(d, audio=True), mediaread.pdf_pages):
        got = read(data)
        if isinstance(got, tuple):
            assert max(got) <= mediaread.MAX_PIXELS
        elif isinstance(got, (int, float)):
            assert 0 < got <= max(mediaread.MAX_SECONDS, mediaread.MAX_PAGES)
    spent = time.process_time() - t0
    assert spent < 0.2 + SECONDS_PER_MB * len(data) / 1e6 * len(MODELS), (len(data), spent)


@pytest.mark.parametrize("kind", list(SEEDS))
def test_mutated_media_files_read_within_the_caps_and_a_linear_time(kind):
    media_type, seed = SEEDS[kind]

    @FUZZ
    @given(mutants(seed))
    def check(data: bytes) -> None:
        _check_reads(media_type, data)

    check()


LOG_SEED = (b'{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "response": {"usage": '
            b'{"prompt_tokens": 8, "completion_tokens": 2}}}\n') * 3 + b"\n\n\r\n"


@FUZZ
@given(mutants(LOG_SEED), st.booleans(), st.booleans())
def test_mutated_logs_split_into_lines_within_a_linear_time(data, universal, skip_blank):
    t0 = time.process_time()
    every = list(iter_lines(io.BytesIO(data), where="log", bounds=LineBounds(), universal=universal))
    kept = list(iter_lines(io.BytesIO(data), where="log", bounds=LineBounds(), universal=universal, skip_blank=skip_blank))
    spent = time.process_time() - t0
    assert b"".join(line for _, line in every) == data  # nothing lost, nothing added
    blank = (b"\n", b"\r\n", b"\r") if universal else (b"\n",)
    assert kept == ([(n, line) for n, line in every if line not in blank] if skip_blank else every)
    assert spent < 0.2 + SECONDS_PER_MB * len(data) / 1e6


@FUZZ
@given(mutants(LOG_SEED))
def test_mutated_logs_are_priced_or_refused_never_a_bug(tmp_path_factory, capsys, data):
    from tests.reliability.cli_run import run_cli

    log = tmp_path_factory.mktemp("log") / "log.jsonl"
    log.write_bytes(data)
    for errors in ("strict", "skip"):
        code, out, err = run_cli(["cost", "--logs", str(log), "-m", "gpt-4o", "--errors", errors], capsys)
        assert code in (0, 2), err
        assert "internal error" not in err


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("fastapi", reason="the service needs fastapi (pip install -e '.[dev]')")
    from analysis.api.settings import Settings
    from tests.analysis.api.conftest import ready_client

    c = ready_client(Settings(tokenizers=("o200k_base",)))
    yield c
    c.__exit__(None, None, None)


ROUTES = {"openai-chat": "/v1/count", "anthropic": "/v1/messages/count_tokens",
          "gemini": "/v1beta/models/gemini-2.5-flash:countTokens"}


@pytest.mark.parametrize("kind", ["png", "mp4-v1", "pdf", "wav"])
def test_mutated_media_never_get_a_5xx(client, kind):
    media_type, seed = SEEDS[kind]

    @settings(max_examples=max(3, EXAMPLES // 3), deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
    @given(mutants(seed))
    def check(data: bytes) -> None:
        for shape, body in _bodies(media_type, data):
            if shape == "openai-chat":
                body = dict(body, models=["gpt-4o", "claude-sonnet-4-5", "gemini-2.5-flash"])
            elif shape == "anthropic":
                body = dict(body, model="claude-sonnet-4-5")
            r = client.post(ROUTES[shape], content=json.dumps(body), headers={"content-type": "application/json"})
            assert r.status_code < 500, (shape, r.status_code, r.text[:300])

    check()


def test_a_wav_of_a_huge_byte_rate_field_is_not_an_error():
    data = wav(0.1)
    at = data.index(b"fmt ") + 16
    assert mediaread.read_seconds(data[:at] + struct.pack("<I", 0xFFFFFFFF) + data[at + 4:], audio=True) is not None
