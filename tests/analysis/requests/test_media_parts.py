"""What a media part may say of itself (an image's width and height, a clip's seconds), video
clips (an MP4's own header, Gemini's videoMetadata) and Gemini's media resolution, per part and
request-wide, each priced by its rule in models/media.toml."""

from __future__ import annotations

import struct

import pytest

from analysis.errors import BadInput
from analysis.requests import AudioPart, ImagePart, Message, Request, VideoPart, input_tokens, parse
from analysis.requests.media import count_media, rule_for
from analysis.requests.mediaread import mp4_seconds

from .test_media import b64, png


def mp4(seconds: float, *, scale: int = 600, version: int = 0, moov_last: bool = True) -> bytes:
    """A minimal ISO media file: ftyp, then mdat and moov/mvhd (or moov first)."""
    if version:
        body = bytes([1, 0, 0, 0]) + struct.pack(">QQIQ", 0, 0, scale, int(seconds * scale)) + b"\0" * 80
    else:
        body = bytes(4) + struct.pack(">IIII", 0, 0, scale, int(seconds * scale)) + b"\0" * 80
    mvhd = struct.pack(">I4s", 8 + len(body), b"mvhd") + body
    moov = struct.pack(">I4s", 8 + len(mvhd), b"moov") + mvhd
    ftyp = struct.pack(">I4s", 16, b"ftyp") + b"isom\0\0\0\1"
    mdat = struct.pack(">I4s", 8 + 64, b"mdat") + b"\0" * 64
    return ftyp + (mdat + moov if moov_last else moov + mdat)


@pytest.mark.parametrize("version", [0, 1])
@pytest.mark.parametrize("moov_last", [True, False])
def test_an_mp4_length_is_read_from_its_movie_header(version, moov_last):
    assert mp4_seconds(mp4(12.5, version=version, moov_last=moov_last)) == pytest.approx(12.5)
    assert mp4_seconds(b"not an mp4 at all") is None and mp4_seconds(mp4(3)[:20]) is None


def _gemini(*parts, config=None):
    body = {"contents": [{"role": "user", "parts": [{"text": "What happens?"}, *parts]}]}
    if config:
        body["generationConfig"] = config
    return parse(body, shape="gemini")


def _media(request, model):
    return count_media(request, (model,))


def test_video_is_263_tokens_a_second_on_gemini_2_and_per_frame_on_gemini_3():
    inline = _gemini({"inlineData": {"mimeType": "video/mp4", "data": b64(mp4(10))}})
    (video,) = [p for p in inline.messages[0].parts if isinstance(p, VideoPart)]
    assert video.seconds == pytest.approx(10)
    line = _media(inline, "gemini-2.5-flash").lines[0]
    assert (line.tokens, line.exactness) == (2630, "documented")  # ai.google.dev/gemini-api/docs/tokens: 263/s
    g3 = _media(inline, "gemini-3-pro-preview").lines[0]
    assert (g3.tokens, g3.exactness) == (700, "estimate")  # 10 frames at 1 fps x 70 (medium)
    clip = _gemini({"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}, "mediaResolution": {"level": "MEDIA_RESOLUTION_HIGH"},
                    "videoMetadata": {"startOffset": "10s", "endOffset": "40s", "fps": 2}})
    assert _media(clip, "gemini-3-pro-preview").tokens == 60 * 280  # 30 s at 2 fps, high
    assert _media(clip, "gemini-2.5-flash").lines[0].tokens == 30 * 263


def test_a_video_with_no_length_is_not_counted_and_says_how():
    line = _media(_gemini({"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}}), "gemini-2.5-flash").lines[0]
    assert line.tokens is None and "seconds" in line.note and "videoMetadata" in line.note
    assert _media(_gemini({"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}, "seconds": 4}),
                  "gemini-2.5-flash").tokens == 4 * 263
    assert rule_for(("gpt-4o",), "video") is None  # OpenAI's chat API takes no video: named, not guessed
    with pytest.raises(BadInput, match="endOffset"):
        _gemini({"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"},
                 "videoMetadata": {"startOffset": "40s", "endOffset": "10s"}})


def test_the_requests_media_resolution_applies_where_a_part_sets_none():
    image = {"inlineData": {"mimeType": "image/png", "data": b64(png(2000, 2000))}}
    own = dict(image, mediaResolution={"level": "MEDIA_RESOLUTION_HIGH"})
    low = {"mediaResolution": "MEDIA_RESOLUTION_LOW"}
    g3 = _media(_gemini(image, own, config=low), "gemini-3-pro-preview")
    assert [line.tokens for line in g3.lines] == [280, 1120]  # the part's own level overrides the request's
    assert _media(_gemini(image), "gemini-3-pro-preview").tokens == 1120  # default high
    assert _media(_gemini(dict(image, mediaResolution={"level": "MEDIA_RESOLUTION_ULTRA_HIGH"})),
                  "gemini-3-pro-preview").tokens == 2240
    # Gemini 2.x: LOW and MEDIUM are a flat figure per image (the API reference's enum), else 258 per tile
    assert _media(_gemini(image, config=low), "gemini-2.5-flash").tokens == 64
    assert _media(_gemini(image, config={"mediaResolution": "MEDIA_RESOLUTION_MEDIUM"}), "gemini-2.5-flash").tokens == 256
    assert _media(_gemini(image), "gemini-2.5-flash").tokens == 258 * 9
    high = _media(_gemini(image, config={"media_resolution": "MEDIA_RESOLUTION_HIGH"}), "gemini-2.5-flash").lines[0]
    assert (high.tokens, high.exactness) == (258 * 9, "estimate") and "no published count" in high.note
    assert _media(_gemini(image, config={"mediaResolution": "MEDIA_RESOLUTION_UNSPECIFIED"}), "gemini-2.5-flash").tokens == 258 * 9
    video = {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}, "seconds": 10}
    rough = _media(_gemini(video, config=low), "gemini-2.5-flash").lines[0]
    assert (rough.tokens, rough.exactness) == (1000, "estimate")


@pytest.mark.parametrize("body, shape", [
    ({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/a.png"},
                                                 "width": 1024, "height": 1024}]}]}, "openai-chat"),
    ({"input": [{"role": "user", "content": [{"type": "input_image", "image_url": "https://x/a.png", "detail": "high",
                                              "width": 1024, "height": 1024}]}]}, "openai-responses"),
    ({"messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://x/a.png"},
                                                 "width": 1024, "height": 1024}]}]}, "anthropic"),
    ({"contents": [{"parts": [{"fileData": {"mimeType": "image/png", "fileUri": "gs://b/a.png"},
                               "width": 1024, "height": 1024}]}]}, "gemini"),
])
def test_every_shape_takes_an_image_size_on_the_part(body, shape):
    (part,) = parse(body, shape=shape).messages[0].parts
    assert (part.width, part.height) == (1024, 1024)


def test_a_stated_size_prices_the_image_and_the_header_wins_over_it():
    stated = parse({"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://x/a.png", "detail": "high"}, "width": 1024, "height": 1024}]}]})
    assert input_tokens(stated, "gpt-4o").media_tokens == 765
    assert input_tokens(stated, "gpt-4o", image_size=(512, 512)).media_tokens == 765  # the part's own size first
    inline = parse({"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64(png(512, 512)), "detail": "high"},
         "width": 4000, "height": 4000}]}]})
    assert input_tokens(inline, "gpt-4o").media_tokens == 255  # what the bytes say, not the stated size


@pytest.mark.parametrize("extra, problem", [
    ({"width": 1024}, "both width and height"),
    ({"width": 0, "height": 10}, "width must be a whole number of pixels"),
    ({"width": 10.5, "height": 10}, "width must be a whole number"),
    ({"width": True, "height": 10}, "width must be"),
    ({"width": 10, "height": 10**7}, "height must be"),
])
def test_a_bad_stated_size_is_refused_by_its_field(extra, problem):
    with pytest.raises(BadInput, match=problem) as e:
        parse({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/a.png"},
                                                          **extra}]}]})
    assert "messages[0].content[0]" in str(e.value)


def test_an_audio_part_may_state_its_seconds():
    body = {"messages": [{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"format": "mp3", "data": "SUQzAwAAAAAA"}, "seconds": 12}]}]}
    assert input_tokens(parse(body), "gpt-4o-audio-preview").media_tokens == 120  # 10 a second
    with pytest.raises(BadInput, match="seconds must be a number of seconds"):
        parse({"messages": [{"role": "user", "content": [
            {"type": "input_audio", "input_audio": {"format": "mp3", "data": "SUQz"}, "seconds": "long"}]}]})


def test_openais_detail_is_not_read_as_geminis_media_resolution():
    body = {"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://x/a.png", "detail": "low"}, "width": 2000, "height": 2000}]}]}
    line = count_media(parse(body), ("gemini-2.5-flash",)).lines[0]
    assert (line.tokens, line.exactness) == (258 * 9, "documented")  # the tile rule, not LOW's 64
    assert count_media(parse(body), ("gpt-4o",)).tokens == 85


@pytest.mark.parametrize("model, tokens, exactness", [
    ("gpt-5", 70 + 140 * 4, "documented"),  # a tile model with its own figures: 70 base, 140 a tile
    ("gpt-5-chat-latest", 70 + 140 * 4, "documented"),
    ("gpt-4.1", 85 + 170 * 4, "documented"),
    ("gpt-5-mini", 1659, "documented"),  # ceil(1024 patches x 1.62)
    ("gpt-5-nano", 2520, "documented"),  # ceil(1024 x 2.46)
    ("gpt-5.2", 1024, "estimate"),  # patches x 1, a calculator's figure
    ("gpt-5.4-mini", 1659, "estimate"),
])
def test_the_gpt5_generations_get_their_own_image_rules(model, tokens, exactness):
    part = ImagePart(url="https://x/a.png", detail="high", width=1024, height=1024)
    (line,) = count_media(Request((Message("user", (part,)),)), (model,)).lines
    assert (line.tokens, line.exactness) == (tokens, exactness)


def test_gpt54_patch_budget_is_2500():
    # 2000x2000: 63 x 63 = 3969 patches, over 2500: scaled by sqrt(2500 x 32^2 / 2000^2) = 0.8 to 1600 px, 50 x 50
    part = ImagePart(width=2000, height=2000)
    assert count_media(Request((Message("user", (part,)),)), ("gpt-5.4",)).tokens == 2500
    assert count_media(Request((Message("user", (part,)),)), ("gpt-5.2",)).tokens <= 1536


def test_openai_audio_is_documented_for_realtime_models_and_an_estimate_for_chat_audio_models():
    clip = AudioPart("audio/wav", 3.0)
    realtime = count_media(Request((Message("user", (clip,)),)), ("gpt-realtime",)).lines[0]
    chat = count_media(Request((Message("user", (clip,)),)), ("gpt-4o-audio-preview",)).lines[0]
    assert (realtime.tokens, realtime.exactness) == (30, "documented")  # 1 token per 100 ms of user audio
    assert (chat.tokens, chat.exactness) == (30, "estimate")
