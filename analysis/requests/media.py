"""Media tokens: an image, an audio or video clip or a PDF counted by its provider's documented rule.

Unlike the chat formats (which count text), this module only prices media parts: each rule is a
row of `analysis/models/media.toml` (figures, source page, the day they were read, exactness),
chosen for a model by glob over its ids, and applied by one small function per rule *kind*. A part
the rule cannot price (a URL image with no size, a non-WAV clip with no duration, a rule-less
model) is listed as not counted, with what would count it.

>>> from .request import ImagePart, Message, Request
>>> r = Request(messages=(Message("user", (ImagePart(width=1024, height=1024, detail="high"),)),))
>>> m = count_media(r, ("gpt-4o",))
>>> m.tokens, m.lines[0].exactness
(765, 'documented')
"""

from __future__ import annotations

import fnmatch
import importlib.resources
import math
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import BadInput, shown
from ..textio.numbers import ascii_whole
from .mediaread import MAX_PIXELS
from .request import MEDIA_PARTS, AudioPart, FilePart, ImagePart, Part, Request, ToolResult, VideoPart

MEDIA = ("image", "audio", "video", "pdf")
_KEYS = {"media", "match", "kind", "params", "exactness", "source", "checked"}


@dataclass(frozen=True, slots=True)
class MediaRule:
    """One row of media.toml."""
    media: str
    match: tuple[str, ...]
    kind: str
    params: Mapping[str, Any]
    exactness: str
    source: str
    checked: str

    def matches(self, names: tuple[str, ...]) -> bool:
        return any(fnmatch.fnmatchcase(n.lower(), p.lower()) for n in names for p in self.match)


@dataclass(frozen=True, slots=True)
class MediaLine:
    """One media part's count: `tokens` None when it is not counted (`note` says why and the fix)."""
    part: str  # "image 1024x1024 (high)", "audio 3.0 s", "video 30.00 s", "pdf 2 pages"
    tokens: int | None
    exactness: str  # "documented", "estimate" or "not counted"
    note: str = ""
    source: str = ""

    def row(self) -> dict[str, Any]:
        return {"part": self.part, "tokens": self.tokens, "exactness": self.exactness, "note": self.note,
                "source": self.source}


@dataclass(frozen=True, slots=True)
class MediaCount:
    lines: tuple[MediaLine, ...] = ()

    @property
    def tokens(self) -> int:
        return sum(line.tokens or 0 for line in self.lines)

    @property
    def exactness(self) -> str:
        """ "documented" when every part is counted by a documented rule, else "estimate"."""
        return "documented" if all(line.exactness == "documented" for line in self.lines) else "estimate"

    def reason(self) -> str:
        if not self.lines:
            return ""
        counted = [line for line in self.lines if line.tokens is not None]
        out = []
        if counted:
            kinds = sorted({line.exactness for line in counted})
            out.append(f"{len(counted)} media part{'s' if len(counted) > 1 else ''} counted by the provider's "
                       f"{' and '.join(kinds)} rule ({sum(line.tokens or 0 for line in counted)} tokens)")
        out += [f"{line.part} not counted: {line.note}" for line in self.lines if line.tokens is None]
        return "; ".join(out)


@lru_cache(maxsize=1)
def media_rules() -> tuple[MediaRule, ...]:
    """The rows of the packaged media.toml, in order (first match of a media kind wins)."""
    text = importlib.resources.files("analysis.models").joinpath("media.toml").read_text(encoding="utf-8")
    return tuple(_rule(raw, i) for i, raw in enumerate(tomllib.loads(text).get("rule", [])))


def _rule(raw: Mapping[str, Any], i: int) -> MediaRule:
    extra = set(raw) - _KEYS
    missing = _KEYS - set(raw)
    if extra or missing or raw["media"] not in MEDIA or raw["kind"] not in KINDS:
        raise BadInput(f"media.toml rule {i}: keys {sorted(extra)} unknown, {sorted(missing)} missing, or media "
                       f"{raw.get('media')!r} / kind {raw.get('kind')!r} not one of {MEDIA} / {sorted(KINDS)}")
    return MediaRule(raw["media"], tuple(raw["match"]), raw["kind"], dict(raw["params"]), raw["exactness"],
                     raw["source"], raw["checked"])


def rule_for(names: tuple[str, ...], media: str) -> MediaRule | None:
    """The first rule of `media` whose globs match one of a model's ids, or None."""
    return next((r for r in media_rules() if r.media == media and r.matches(names)), None)


# -- one function per rule kind: (part, params, size) -> tokens, or a str saying why not ----------
Size = tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class Estimated:
    """A count a documented rule gives only roughly for this part (`why` says what is not documented)."""
    tokens: int
    why: str


Priced = int | str | Estimated


def _level(part: Part) -> str | None:
    """The part's media resolution (Gemini's; OpenAI's `detail` is another field), lower case, or None."""
    level = getattr(part, "resolution", None)
    return level.lower() if isinstance(level, str) and level else None


def _size(part: ImagePart, size: Size) -> Size:
    return (part.width, part.height) if part.width and part.height else size


_UNSIZED = ("its size is not known (a URL is never fetched): give it with --image-size WxH, "
            "or send the image inline (data URL or base64)")


def _openai_tiles(part: Part, p: Mapping[str, Any], size: Size) -> Priced:
    assert isinstance(part, ImagePart)
    if (part.detail or "auto") == "low":
        return int(p["low"])
    wh = _size(part, size)
    if wh is None:
        return _UNSIZED
    w, h = float(wh[0]), float(wh[1])
    fit = p["fit"] / max(w, h)
    if fit < 1:
        w, h = w * fit, h * fit
    short = p["short"] / min(w, h)
    if short < 1:
        w, h = w * short, h * short
    tiles = math.ceil(int(w) / p["tile_px"]) * math.ceil(int(h) / p["tile_px"])
    return int(p["base"] + p["tile"] * tiles)


def _openai_patches(part: Part, p: Mapping[str, Any], size: Size) -> Priced:
    assert isinstance(part, ImagePart)
    wh = _size(part, size)
    if wh is None:
        return _UNSIZED
    w, h, patch, cap = wh[0], wh[1], p["patch"], p["cap"]
    patches = math.ceil(w / patch) * math.ceil(h / patch)
    if patches > cap:  # scale down to fit the cap, then so that whole patches fit the width
        shrink = math.sqrt(patch * patch * cap / (w * h))
        shrink *= min(1.0, math.floor(w * shrink / patch) / (w * shrink / patch))
        patches = min(cap, math.ceil(w * shrink / patch - 1e-9) * math.ceil(h * shrink / patch - 1e-9))
    return math.ceil(patches * p["multiplier"])


def _claude_pixels(part: Part, p: Mapping[str, Any], size: Size) -> Priced:
    assert isinstance(part, ImagePart)
    wh = _size(part, size)
    if wh is None:
        return _UNSIZED
    w, h = float(wh[0]), float(wh[1])
    scale = min(1.0, p["long_edge"] / max(w, h), math.sqrt(p["max_tokens"] * p["per_token"] / (w * h)))
    return min(int(p["max_tokens"]), math.ceil(int(w * scale) * int(h * scale) / p["per_token"]))


def _gemini_tiles(part: Part, p: Mapping[str, Any], size: Size) -> Priced:
    assert isinstance(part, ImagePart)
    level = _level(part)
    if level in p.get("levels", {}):  # generationConfig.mediaResolution: a flat figure per image
        return int(p["levels"][level])
    wh = _size(part, size)
    if wh is None:
        return _UNSIZED
    tiles = 1 if wh[0] <= p["small"] and wh[1] <= p["small"] else (
        math.ceil(wh[0] / p["tile_px"]) * math.ceil(wh[1] / p["tile_px"]))
    if level is not None:  # a level the rule gives no figure for (2.x's "high": "zoomed reframing")
        return Estimated(int(p["tokens"]) * tiles, f"media resolution {level} has no published count; counted as the "
                                                   "default tiles")
    return int(p["tokens"]) * tiles


def _pages(part: Part) -> int | str:
    if not isinstance(part, FilePart) or not part.pages:
        return "its page count is not known: send the PDF inline (base64) so its page tree can be read"
    return part.pages


def _gemini_budget(part: Part, p: Mapping[str, Any], size: Size) -> Priced:
    level = _level(part) or str(p["default"])
    if level not in p["levels"]:
        level = str(p["default"])
    per = int(p["levels"][level])
    if not p.get("per_page"):
        return per
    pages = _pages(part)
    return pages if isinstance(pages, str) else per * pages


_NO_LENGTH = ("its duration is not known: send it inline (WAV, MP4, MOV or M4A, whose headers give it), "
              "or state it (the part's \"seconds\", or Gemini's videoMetadata offsets)")


def _per_second(part: Part, p: Mapping[str, Any], size: Size) -> Priced:
    assert isinstance(part, (AudioPart, VideoPart))
    if part.seconds is None:
        return _NO_LENGTH
    level = _level(part)
    if level in p.get("levels", {}):  # a rate the provider gives only roughly ("~100 tokens/second")
        return Estimated(math.ceil(part.seconds * p["levels"][level]), f"media resolution {level}: about "
                         f"{p['levels'][level]} tokens a second, as the provider rounds it")
    return math.ceil(part.seconds * p["rate"])


def _gemini_frames(part: Part, p: Mapping[str, Any], size: Size) -> Priced:
    """Gemini 3 video: a budget per sampled frame (by media resolution), frames at the clip's fps (default 1)."""
    assert isinstance(part, VideoPart)
    if part.seconds is None:
        return _NO_LENGTH
    level = _level(part) or str(p["default"])
    per = int(p["levels"].get(level, p["levels"][p["default"]]))
    return per * max(1, math.ceil(part.seconds * (part.fps or p["fps"]) - 1e-9))


def _per_page(part: Part, p: Mapping[str, Any], size: Size) -> Priced:
    pages = _pages(part)
    return pages if isinstance(pages, str) else int(p["tokens"]) * pages


KINDS: dict[str, Callable[[Part, Mapping[str, Any], Size], Priced]] = {
    "openai_tiles": _openai_tiles, "openai_patches": _openai_patches, "claude_pixels": _claude_pixels,
    "gemini_tiles": _gemini_tiles, "gemini_budget": _gemini_budget, "per_second": _per_second,
    "gemini_frames": _gemini_frames, "per_page": _per_page,
}


def _walk(parts: tuple[Part, ...]) -> Iterator[Part]:
    for part in parts:
        if isinstance(part, ToolResult):
            yield from _walk(part.parts)
        elif isinstance(part, MEDIA_PARTS):
            yield part


def media_parts(request: Request) -> list[Part]:
    """The image, audio, video and file parts of a request, tool results' included, in order."""
    return [p for m in request.messages for p in _walk(m.parts)]


def _label(part: Part, size: Size) -> tuple[str, str]:
    """(media kind, a short label) of a part."""
    level = f" media resolution {_level(part)}" if _level(part) else ""
    if isinstance(part, ImagePart):
        wh = _size(part, size)
        dims = f" {wh[0]}x{wh[1]}" if wh else " (unsized)"
        given = " (--image-size)" if wh and not (part.width and part.height) else ""
        return "image", f"image{dims}{given}" + (f" detail {part.detail}" if part.detail else "") + level
    if isinstance(part, AudioPart):
        return "audio", "audio" + (f" {part.seconds:.2f} s" if part.seconds is not None else "")
    if isinstance(part, VideoPart):
        fps = f" at {part.fps:g} fps" if part.fps else ""
        return "video", "video" + (f" {part.seconds:.2f} s" if part.seconds is not None else "") + fps + level
    assert isinstance(part, FilePart)
    if (part.media_type or "").lower() == "application/pdf" or (part.name or "").lower().endswith(".pdf"):
        return "pdf", "pdf" + (f" {part.pages} page{'s' if part.pages != 1 else ''}" if part.pages else "") + level
    return "file", f"file {part.media_type or part.name or ''}".rstrip()


def count_media(request: Request, names: tuple[str, ...], *, image_size: Size = None) -> MediaCount:
    """Each media part of `request` priced for the model named `names` (its ids, as models.toml
    matches them); `image_size` is the (width, height) of images whose size is not inline.
    """
    lines = []
    for part in media_parts(request):
        media, label = _label(part, image_size)
        rule = rule_for(names, media) if media in MEDIA else None
        if rule is None:
            why = (f"no {media} rule is known for {names[0]}" if media in MEDIA
                   else "only images, audio, video and PDFs are counted")
            lines.append(MediaLine(label, None, "not counted", why))
            continue
        priced = KINDS[rule.kind](part, rule.params, image_size)
        if isinstance(priced, str) and getattr(part, "unsized", None):
            priced = f"{getattr(part, 'unsized')}, so it is not used; {priced}"
        if isinstance(priced, str):
            lines.append(MediaLine(label, None, "not counted", priced, rule.source))
        elif isinstance(priced, Estimated):
            lines.append(MediaLine(label, priced.tokens, "estimate", f"{rule.kind}, read {rule.checked}: {priced.why}",
                                   rule.source))
        else:
            lines.append(MediaLine(label, priced, rule.exactness, f"{rule.kind}, read {rule.checked}", rule.source))
    return MediaCount(tuple(lines))


def without_media(request: Request) -> Request:
    """The request with its media parts left out, for the chat formats (which count text only)."""
    def keep(parts: tuple[Part, ...]) -> tuple[Part, ...]:
        out: list[Part] = []
        for p in parts:
            if isinstance(p, ToolResult):
                out.append(ToolResult(keep(p.parts), p.tool_call_id, p.name))
            elif not isinstance(p, MEDIA_PARTS):
                out.append(p)
        return tuple(out)
    from dataclasses import replace
    return replace(request, messages=tuple(replace(m, parts=keep(m.parts)) for m in request.messages))


def parse_size(text: str) -> tuple[int, int]:
    """ "1024x768" -> (1024, 768): ASCII digits, each side from 1 to `MAX_PIXELS`, the cap of a
    size a part states or a header gives.

    Raises:
        BadInput: not WIDTHxHEIGHT in pixels within the cap (the value shown cut and escaped).
    """
    w, sep, h = text.lower().strip().partition("x")
    try:
        if not sep:
            raise BadInput("no x")
        return ascii_whole(w, "width", top=MAX_PIXELS), ascii_whole(h, "height", top=MAX_PIXELS)
    except BadInput:
        raise BadInput(f"image size {shown(text)} is not WIDTHxHEIGHT in pixels, each side a whole number from 1 "
                       f"to {MAX_PIXELS:,} in ASCII digits: give it as, say, 1024x768") from None
