"""Gemini: `contents`, `systemInstruction`, `tools[].functionDeclarations`, `toolConfig`, and the
media resolution (a part's `mediaResolution`, else the request's `generationConfig.mediaResolution`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import BadInput, shown
from ...textio.numbers import ascii_seconds
from ..mediaread import CLIP_LENGTH, IMAGE_SIZE, MAX_FPS, MAX_SECONDS, audio_part, declared, file_part, image_part, video_part
from ..request import Message, Part, Request, TextPart, ToolCall, ToolDef, ToolResult
from ._read import _choice, _dumps, _kind, _list, _obj, _only_text, _str, _text

_GEMINI_ROLES = {"user": "user", "model": "assistant", "function": "tool"}
_GEMINI_PARTS = ("text", "inlineData", "fileData", "functionCall", "functionResponse")
_GEMINI_MODES = {"AUTO": "auto", "NONE": "none", "ANY": "required", "VALIDATED": "auto"}


def _get(obj: Mapping[str, Any], camel: str) -> Any:
    """A Gemini field by its REST name (camelCase) or the snake_case the Python SDK also accepts."""
    if camel in obj:
        return obj[camel]
    return obj.get("".join("_" + c.lower() if c.isupper() else c for c in camel))


def _gemini_parts(content: Mapping[str, Any], at: str, level: str | None = None) -> tuple[Part, ...]:
    """The parts of one content; `level` is the request's media resolution, which a part's own overrides."""
    parts: list[Part] = []
    for j, raw in enumerate(_list(content.get("parts"), f"{at}.parts")):
        where = f"{at}.parts[{j}]"
        part = _obj(raw, where)
        if "text" in part:
            parts.append(TextPart(_text(part["text"], f"{where}.text")))
        elif _get(part, "inlineData") is not None:
            data = _obj(_get(part, "inlineData"), f"{where}.inlineData")
            media = _str(_get(data, "mimeType"), f"{where}.inlineData.mimeType") or ""
            parts.append(_media_part(media, part, where, data=_str(data.get("data"), f"{where}.inlineData.data"),
                                     level=_level(part, where) or level))
        elif _get(part, "fileData") is not None:
            data = _obj(_get(part, "fileData"), f"{where}.fileData")
            media = _str(_get(data, "mimeType"), f"{where}.fileData.mimeType") or ""
            parts.append(_media_part(media, part, where, _str(_get(data, "fileUri"), f"{where}.fileData.fileUri"),
                                     level=_level(part, where) or level))
        elif _get(part, "functionCall") is not None:
            call = _obj(_get(part, "functionCall"), f"{where}.functionCall")
            parts.append(ToolCall(_text(call.get("name"), f"{where}.functionCall.name"), _dumps(call.get("args", {})),
                                  _str(call.get("id"), f"{where}.functionCall.id")))
        elif _get(part, "functionResponse") is not None:
            resp = _obj(_get(part, "functionResponse"), f"{where}.functionResponse")
            parts.append(ToolResult((TextPart(_dumps(resp.get("response", {}))),),
                                    _str(resp.get("id"), f"{where}.functionResponse.id"),
                                    _str(resp.get("name"), f"{where}.functionResponse.name")))
        else:
            keys = [k for k in part if k not in ("thought", "thoughtSignature", "thought_signature")]
            raise _kind("content type", keys[0] if keys else "(empty part)", _GEMINI_PARTS, where)
    return tuple(parts)


MEDIA_RESOLUTIONS = ("low", "medium", "high", "ultra_high")  # MEDIA_RESOLUTION_<LEVEL>, case aside


def _level(part: Mapping[str, Any], where: str, key: str = "mediaResolution") -> str | None:
    """A media resolution as "low" / "medium" / "high" / "ultra_high": a Gemini 3 part's
    ({"level": "MEDIA_RESOLUTION_HIGH"}) or the request's (generationConfig's "MEDIA_RESOLUTION_LOW");
    None where it is not set (or UNSPECIFIED, the model's default).

    Raises:
        BadInput: any other level, with the valid ones (the value shown cut and escaped).
    """
    raw = _get(part, key)
    level = _obj(raw, f"{where}.{key}").get("level") if isinstance(raw, Mapping) else raw
    text = _str(level, f"{where}.{key}")
    if not text:
        return None
    name = text.lower().removeprefix("media_resolution_")
    if name == "unspecified":
        return None
    if name not in MEDIA_RESOLUTIONS:
        valid = ", ".join(f"MEDIA_RESOLUTION_{v.upper()}" for v in ("unspecified", *MEDIA_RESOLUTIONS))
        raise BadInput(f"{where}.{key}: unknown media resolution {shown(text)}; valid: {valid}")
    return name


def _offset(value: Any, at: str) -> float:
    """A protobuf Duration as JSON ("12.5s"), or a number of seconds, from 0 to `MAX_SECONDS`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not 0 <= value <= MAX_SECONDS:  # NaN and infinities fail too
            raise BadInput(f"{at} must be a duration such as \"12.5s\" from 0 to {MAX_SECONDS:,g} seconds, "
                           f"got {shown(value)}")
        return float(value)
    return ascii_seconds(_str(value, at) or "", at, top=MAX_SECONDS)


def _clip(part: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A video part's length and sampling from its `videoMetadata` (startOffset, endOffset, fps), where set."""
    meta = _get(part, "videoMetadata")
    if meta is None:
        return {}
    meta = _obj(meta, f"{where}.videoMetadata")
    out: dict[str, Any] = {}
    end = _get(meta, "endOffset")
    if end is not None:
        start = _get(meta, "startOffset")
        length = _offset(end, f"{where}.videoMetadata.endOffset") - (
            _offset(start, f"{where}.videoMetadata.startOffset") if start is not None else 0.0)
        if length <= 0:
            raise BadInput(f"{where}.videoMetadata: endOffset must come after startOffset")
        out["seconds"] = length
    fps = meta.get("fps")
    if fps is not None:
        if isinstance(fps, bool) or not isinstance(fps, (int, float)) or not 0 < fps <= MAX_FPS:
            raise BadInput(f"{where}.videoMetadata.fps must be a number of frames per second in (0, {MAX_FPS:g}], "
                           f"got {shown(fps)}")
        out["fps"] = float(fps)
    return out


def _media_part(media_type: str, part: Mapping[str, Any], where: str, url: str | None = None, *,
                data: str | None = None, level: str | None = None) -> Part:
    if media_type.startswith("image/"):
        return image_part(url, data=data, media_type=media_type, resolution=level, **declared(part, where, IMAGE_SIZE))
    if media_type.startswith("audio/"):
        return audio_part(data, media_type, **declared(part, where, CLIP_LENGTH))
    if media_type.startswith("video/"):
        return video_part(url, data=data, media_type=media_type, resolution=level,
                          **{**declared(part, where, CLIP_LENGTH), **_clip(part, where)})
    return file_part(url, data=data, media_type=media_type or None, resolution=level)


def parse_gemini(body: Mapping[str, Any]) -> Request:
    """A Gemini body: `contents`, `systemInstruction`, `tools[].functionDeclarations`, `toolConfig`.

    A countTokens body that wraps the request in `generateContentRequest` is read from inside it.

    >>> r = parse_gemini({"contents": [{"role": "model", "parts": [{"text": "Hi"}]}]})
    >>> (r.messages[0].role, r.messages[0].text)
    ('assistant', 'Hi')
    """
    body = _obj(body, "the request")
    if _get(body, "generateContentRequest") is not None:
        body = _obj(_get(body, "generateContentRequest"), "generateContentRequest")
    messages: list[Message] = []
    config = _get(body, "generationConfig")
    level = _level(_obj(config, "generationConfig"), "generationConfig") if config is not None else None
    for i, raw in enumerate(_list(body.get("contents"), "contents")):
        at = f"contents[{i}]"
        content = _obj(raw, at)
        role = content.get("role", "user")
        if role not in _GEMINI_ROLES:
            raise _kind("role", role, tuple(_GEMINI_ROLES), at)
        parts = _gemini_parts(content, at, level)
        if role == "user" and parts and all(isinstance(p, ToolResult) for p in parts):
            role = "function"  # function responses are sent in a user turn; they are tool results
        messages.append(Message(_GEMINI_ROLES[role], parts))
    system = None
    raw_system = _get(body, "systemInstruction")
    if raw_system is not None:
        if isinstance(raw_system, str):
            system = raw_system
        else:
            system = _only_text(_gemini_parts(_obj(raw_system, "systemInstruction"), "systemInstruction"),
                                "systemInstruction")
    tools: list[ToolDef] = []
    for i, raw in enumerate(body.get("tools") or ()):
        at = f"tools[{i}]"
        tool = _obj(raw, at)
        decls = _get(tool, "functionDeclarations")
        if decls is None:
            raise _kind("tool", next(iter(tool), "(empty tool)"), ("functionDeclarations",), at)
        for j, decl in enumerate(_list(decls, f"{at}.functionDeclarations")):
            where = f"{at}.functionDeclarations[{j}]"
            d = _obj(decl, where)
            params = d.get("parameters", _get(d, "parametersJsonSchema"))
            tools.append(ToolDef(_text(d.get("name"), f"{where}.name"),
                                 _str(d.get("description"), f"{where}.description"),
                                 dict(_obj(params, f"{where}.parameters")) if params is not None else {}))
    choice = None
    config = _get(body, "toolConfig")
    if config is not None:
        fcc = _get(_obj(config, "toolConfig"), "functionCallingConfig")
        if fcc is not None:
            mode = _obj(fcc, "toolConfig.functionCallingConfig").get("mode", "AUTO")
            if mode not in _GEMINI_MODES:
                raise _kind("function calling mode", mode, tuple(_GEMINI_MODES), "toolConfig.functionCallingConfig")
            allowed = _get(fcc, "allowedFunctionNames") or []
            choice = (_choice("tool", str(allowed[0])) if _GEMINI_MODES[mode] == "required" and len(allowed) == 1
                      else _choice(_GEMINI_MODES[mode]))
    return Request(tuple(messages), system, tuple(tools), choice)
