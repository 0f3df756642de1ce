"""Media parts: sizes read from their own headers, and tokens by each provider's documented rule
(the figures the providers' pages give are checked here), on count, the API and cost --logs."""

from __future__ import annotations

import base64
import io
import json
import struct
import wave
from datetime import date

import pytest

from analysis.cli import main
from analysis.requests import AudioPart, FilePart, ImagePart, Message, Request, TextPart, input_tokens, parse
from analysis.requests.media import count_media, media_rules, parse_size, rule_for
from analysis.requests.mediaread import image_size, inline_bytes, pdf_pages, wav_seconds
from analysis.errors import BadInput


def png(w: int, h: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0) + b"\0" * 4


def gif(w: int, h: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", w, h) + b"\0\0\0;"


def jpeg(w: int, h: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"
    sof = b"\xff\xc2" + struct.pack(">HBHHB", 11, 8, h, w, 1) + b"\x01\x11\0"  # progressive
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def webp_vp8x(w: int, h: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\0\0\0\0" + (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def webp_vp8l(w: int, h: int) -> bytes:
    bits = (w - 1) | ((h - 1) << 14)
    body = b"VP8L" + struct.pack("<I", 5) + b"\x2f" + struct.pack("<I", bits) + b"\0"
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def wav(seconds: float, rate: int = 16000) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"\0\0" * int(seconds * rate))
    return buf.getvalue()


def pdf(pages: int) -> bytes:
    objs = "".join(f"{3 + i} 0 obj << /Type /Page /Parent 2 0 R >> endobj\n" for i in range(pages))
    kids = " ".join(f"{3 + i} 0 R" for i in range(pages))
    return (f"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
            f"2 0 obj << /Type /Pages /Kids [{kids}] /Count {pages} >> endobj\n{objs}%%EOF\n").encode()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize("make", [png, gif, jpeg, webp_vp8x, webp_vp8l])
@pytest.mark.parametrize("size", [(1, 1), (1024, 768), (300, 4000)])
def test_image_sizes_are_read_from_each_formats_header(make, size):
    assert image_size(make(*size)) == size


def test_what_is_not_an_image_header_has_no_size_and_a_url_is_never_read():
    assert image_size(b"hello world") is None and image_size(b"") is None
    assert inline_bytes("https://example.com/cat.png") is None
    assert inline_bytes("file-abc123") is None or image_size(inline_bytes("file-abc123")[0]) is None
    assert inline_bytes("data:image/png;base64," + b64(png(5, 7))) == (png(5, 7), "image/png")


def test_wav_length_and_pdf_pages_are_read_from_their_headers():
    assert wav_seconds(wav(2.5)) == pytest.approx(2.5)
    assert wav_seconds(wav(1.0, rate=8000)) == pytest.approx(1.0)
    assert wav_seconds(b"ID3\x03mp3...") is None
    assert pdf_pages(pdf(3)) == 3 and pdf_pages(pdf(1)) == 1
    assert pdf_pages(b"%PDF-1.7\n1 0 obj << /Type /Page >> endobj\n2 0 obj << /Type /Page >> endobj") == 2
    assert pdf_pages(b"not a pdf") is None


def _one(model: str, part, image_size=None):
    m = count_media(Request((Message("user", (part,)),)), (model,), image_size=image_size)
    return m.lines[0]


def test_openai_tile_models_give_the_documented_figures():
    # platform.openai.com/docs/guides/images-vision: low is 85 whatever the size; 1024x1024 high is 765;
    # 2048x4096 high is fitted to 1024x2048, then 768x1536: 6 tiles, 1105.
    assert _one("gpt-4o", ImagePart(url="https://x/a.png", detail="low")).tokens == 85
    high = _one("gpt-4o", ImagePart(width=1024, height=1024, detail="high"))
    assert (high.tokens, high.exactness) == (765, "documented")
    assert _one("gpt-4o", ImagePart(width=2048, height=4096, detail="high")).tokens == 1105
    assert _one("gpt-4o-mini", ImagePart(detail="low")).tokens == 2833
    assert _one("gpt-4o-mini", ImagePart(width=1024, height=1024)).tokens == 2833 + 4 * 5667
    assert _one("o1", ImagePart(width=512, height=512)).tokens == 75 + 150


def test_openai_patch_models_get_their_own_rule_by_data():
    # 1024x1024: 32x32 = 1024 patches, within the 1536 cap; 1800x2400 is scaled to 1056x1408, 33x44 = 1452.
    assert rule_for(("gpt-4.1-mini",), "image").kind == "openai_patches"
    assert rule_for(("gpt-4o",), "image").kind == "openai_tiles"
    assert _one("gpt-4.1-mini", ImagePart(width=1024, height=1024)).tokens == 1659  # ceil(1024 * 1.62)
    assert _one("gpt-4.1-nano", ImagePart(width=1800, height=2400)).tokens == 3572  # ceil(1452 * 2.46)
    assert _one("o4-mini", ImagePart(width=64, height=64)).tokens == 7  # ceil(4 * 1.72)


def test_anthropic_and_gemini_images_follow_their_rules():
    assert _one("claude-sonnet-4-5", ImagePart(width=1000, height=1000)).tokens == 1334  # ceil(1e6 / 750)
    assert _one("claude-sonnet-4-5", ImagePart(width=1092, height=1092)).tokens == 1590  # the vision page's table
    assert _one("claude-sonnet-4-5", ImagePart(width=8000, height=4000)).tokens <= 1600  # downscaled first
    assert _one("gemini-2.5-flash", ImagePart(width=384, height=200)).tokens == 258
    assert _one("gemini-2.5-flash", ImagePart(width=1000, height=800)).tokens == 258 * 4
    assert _one("gemini-3-pro-preview", ImagePart(url="gs://b/x.png")).tokens == 1120  # high by default, size aside
    assert _one("gemini-3-pro-preview", ImagePart(resolution="low")).tokens == 280


def test_audio_and_pdf_pages():
    clip = AudioPart("audio/wav", wav_seconds(wav(3.0)))
    assert _one("gemini-2.5-flash", clip).tokens == 96  # 32 per second
    assert _one("gpt-4o-audio-preview", clip).tokens == 30  # 1 per 100 ms
    assert _one("gemini-2.5-flash", FilePart(media_type="application/pdf", pages=4)).tokens == 4 * 258
    claude = _one("claude-sonnet-4-5", FilePart(media_type="application/pdf", pages=2))
    assert (claude.tokens, claude.exactness) == (6000, "estimate")
    unknown = _one("gemini-2.5-flash", AudioPart("audio/mp3"))
    assert unknown.tokens is None and "WAV" in unknown.note


def test_an_unsized_url_image_is_not_counted_and_says_how_to_fix_it():
    line = _one("gpt-4o", ImagePart(url="https://example.com/a.png", detail="high"))
    assert line.tokens is None and "--image-size WxH" in line.note
    assert _one("gpt-4o", ImagePart(url="https://example.com/a.png"), image_size=(1024, 1024)).tokens == 765
    assert _one("deepseek-chat", ImagePart(width=10, height=10)).tokens is None  # no rule: named, not guessed


def test_every_rule_row_has_a_source_page_and_a_date():
    for rule in media_rules():
        assert rule.source.startswith("https://") and len(rule.checked) == 10 and rule.exactness in ("documented", "estimate")


def _chat_with_image(data: bytes, detail="high"):
    url = "data:image/png;base64," + b64(data)
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": url, "detail": detail}}]}]}


def test_count_adds_media_tokens_to_the_text_and_labels_them():
    request = parse(_chat_with_image(png(1024, 1024)))
    plain = input_tokens(parse({"messages": [{"role": "user", "content": "What is this?"}]}), "gpt-4o")
    c = input_tokens(request, "gpt-4o")
    assert c.media_tokens == 765 and c.input_tokens == plain.input_tokens + 765
    assert c.exactness == "documented" and "documented rule" in c.reason
    row = c.row()
    assert row["media_tokens"] == 765 and row["media"][0]["source"].startswith("https://platform.openai.com")


def test_every_shape_reads_inline_media():
    anthropic = parse({"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": b64(jpeg(1000, 1000))}},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": b64(pdf(2))}}]}]})
    assert input_tokens(anthropic, "claude-sonnet-4-5").media_tokens == 1334 + 6000
    gemini = parse({"contents": [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "image/webp", "data": b64(webp_vp8x(300, 300))}},
        {"inlineData": {"mimeType": "audio/wav", "data": b64(wav(2.0))}},
        {"inlineData": {"mimeType": "application/pdf", "data": b64(pdf(3))}}]}]}, shape="gemini")
    assert input_tokens(gemini, "gemini-2.5-flash").media_tokens == 258 + 64 + 3 * 258
    low = parse({"contents": [{"role": "user", "parts": [
        {"inlineData": {"mimeType": "image/png", "data": b64(png(2000, 2000))},
         "mediaResolution": {"level": "MEDIA_RESOLUTION_LOW"}}]}]}, shape="gemini")
    assert input_tokens(low, "gemini-3-pro-preview").media_tokens == 280
    chat_audio = parse({"messages": [{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"format": "wav", "data": b64(wav(1.5))}}]}]})
    assert input_tokens(chat_audio, "gpt-4o-audio-preview").media_tokens == 15


def test_the_cli_counts_media_and_takes_an_image_size(tmp_path, capsys):
    body = _chat_with_image(png(1024, 1024))
    body["messages"][0]["content"].append({"type": "image_url", "image_url": {"url": "https://example.com/b.jpg"}})
    path = tmp_path / "vision.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    assert main(["count", "--messages", str(path), "-m", "gpt-4o", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["media_tokens"] == 765 and row["exactness"] == "estimate" and "--image-size" in row["exactness_reason"]
    assert main(["count", "--messages", str(path), "-m", "gpt-4o", "--image-size", "512x512"]) == 0
    out = capsys.readouterr().out
    assert "image 512x512 (--image-size): 255 tokens (documented" in out and "media_tokens" in out
    assert main(["count", "--messages", str(path), "-m", "gpt-4o", "--image-size", "big"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err
    with pytest.raises(BadInput):
        parse_size("0x10")


def test_a_log_of_vision_requests_is_priced_with_its_media_tokens(tmp_path):
    from analysis.cost import plan_traffic, price_records, read_log_records, summarise

    rows = [{"request": _chat_with_image(png(1024, 1024)), "response": "A cat."},
            {"request": _chat_with_image(png(1024, 1024), detail="low"), "response": "A dog."}]
    path = tmp_path / "vision.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    records, report = read_log_records(path)
    plan = plan_traffic(["gpt-4o"], on=date(2026, 1, 15))
    summary = summarise(price_records(records, plan), plan, report)
    expected = sum(input_tokens(r.request, "gpt-4o").input_tokens for r in records)
    text_only = sum(input_tokens(r.request, "gpt-4o").input_tokens - input_tokens(r.request, "gpt-4o").media_tokens
                    for r in records)
    assert expected == text_only + 765 + 85
    got = summary.models.set_index("model").loc["gpt-4o", "input_tokens"]
    assert got == expected
