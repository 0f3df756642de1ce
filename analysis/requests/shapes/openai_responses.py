"""OpenAI Responses: `input` (a string or items), `instructions`, `tools`, `tool_choice`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..mediaread import CLIP_LENGTH, IMAGE_SIZE, audio_part, declared, file_part, image_detail, image_part
from ..request import Message, Part, Request, TextPart, ToolCall, ToolChoice, ToolResult
from ._read import (PartReader, _arguments, _choice, _function_def, _function_tools, _kind, _list, _mode, _obj, _str,
                    _text, _text_in, _typed_parts)

_RESPONSES_ROLES = ("user", "assistant", "system", "developer")
_RESPONSES_ITEMS = ("message", "function_call", "function_call_output")


_RESPONSES_PARTS: dict[str, PartReader] = {
    "input_text": _text_in("text"), "output_text": _text_in("text"), "text": _text_in("text"),
    "refusal": _text_in("refusal"),
    "input_image": lambda part, where: image_part(_str(part.get("image_url"), f"{where}.image_url"),
                                                  detail=image_detail(_str(part.get("detail"), f"{where}.detail"), f"{where}.detail"),
                                                  **declared(part, where, IMAGE_SIZE)),
    "input_file": lambda part, where: file_part(_str(part.get("filename"), f"{where}.filename"),
                                                data=_str(part.get("file_data"), f"{where}.file_data")),
    "input_audio": lambda part, where: _audio(part, where),
}


def _audio(part: Mapping[str, Any], where: str) -> Part:
    audio = _obj(part.get("input_audio", {}), f"{where}.input_audio")
    return audio_part(_str(audio.get("data"), f"{where}.input_audio.data"),
                      _str(audio.get("format"), f"{where}.input_audio.format"), **declared(part, where, CLIP_LENGTH))


def _responses_parts(content: Any, at: str) -> tuple[Part, ...]:
    return _typed_parts(content, at, _RESPONSES_PARTS)


def _responses_tool_choice(raw: Any) -> ToolChoice | None:
    if raw is None:
        return None
    if isinstance(raw, str):
        return _mode(raw, "tool_choice")
    choice = _obj(raw, "tool_choice")
    if choice.get("type") != "function":
        raise _kind("tool choice type", choice.get("type"), ("function",), "tool_choice")
    return _choice("tool", _text(choice.get("name"), "tool_choice.name"))


def parse_openai_responses(body: Mapping[str, Any]) -> Request:
    """An OpenAI Responses body: `input` (a string or items), `instructions`, `tools`, `tool_choice`.

    >>> r = parse_openai_responses({"input": "Hi", "instructions": "Be brief."})
    >>> (r.system, r.messages[0].role, r.messages[0].text)
    ('Be brief.', 'user', 'Hi')
    """
    body = _obj(body, "the request")
    raw_input = body.get("input")
    messages: list[Message] = []
    if isinstance(raw_input, str):
        messages.append(Message("user", (TextPart(raw_input),)))
    else:
        for i, raw in enumerate(_list(raw_input, "input")):
            at = f"input[{i}]"
            item = _obj(raw, at)
            kind = item.get("type", "message")
            if kind == "message":
                role = item.get("role")
                if role not in _RESPONSES_ROLES:
                    raise _kind("role", role, _RESPONSES_ROLES, at)
                messages.append(Message(role, _responses_parts(item.get("content"), at)))
            elif kind == "function_call":
                messages.append(Message("assistant", (ToolCall(_text(item.get("name"), f"{at}.name"),
                                                               _arguments(item.get("arguments"), f"{at}.arguments"),
                                                               _str(item.get("call_id"), f"{at}.call_id")),)))
            elif kind == "function_call_output":
                output = item.get("output")
                parts = (TextPart(output),) if isinstance(output, str) else _responses_parts(output, f"{at}.output")
                messages.append(Message("tool", (ToolResult(parts, _str(item.get("call_id"), f"{at}.call_id")),)))
            else:
                raise _kind("input item type", kind, _RESPONSES_ITEMS, at)
    tools = [_function_def(tool, at) for at, tool in _function_tools(body)]
    instructions = _str(body.get("instructions"), "instructions")
    return Request(tuple(messages), instructions, tuple(tools), _responses_tool_choice(body.get("tool_choice")),
                   api="responses")
