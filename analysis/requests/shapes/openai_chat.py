"""OpenAI Chat Completions: `messages`, `tools` or legacy `functions`, `tool_choice`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ...errors import BadInput, UnknownName
from ...memo import BoundedMemo, run_caches
from ..mediaread import CLIP_LENGTH, IMAGE_SIZE, audio_part, declared, file_part, image_detail, image_part
from ..request import Message, Part, Request, TextPart, ToolCall, ToolChoice, ToolDef, ToolResult
from ._read import (PartReader, _arguments, _choice, _each_message, _function_def, _function_tools, _kind, _mode,
                    _obj, _str, _text, _text_in, _typed_parts)

_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def _chat_image(part: Mapping[str, Any], where: str) -> Part:
    image = _obj(part.get("image_url"), f"{where}.image_url")
    return image_part(_str(image.get("url"), f"{where}.image_url.url"),
                      detail=image_detail(_str(image.get("detail"), f"{where}.image_url.detail"), f"{where}.image_url.detail"), **declared(part, where, IMAGE_SIZE))


def _chat_audio(part: Mapping[str, Any], where: str) -> Part:
    audio = _obj(part.get("input_audio"), f"{where}.input_audio")
    fmt = _str(audio.get("format"), f"{where}.input_audio.format")
    return audio_part(_str(audio.get("data"), f"{where}.input_audio.data"), fmt, **declared(part, where, CLIP_LENGTH))


_CHAT_PARTS: dict[str, PartReader] = {
    "text": _text_in("text"), "refusal": _text_in("refusal"), "image_url": _chat_image,
    "input_audio": _chat_audio,
    "file": lambda part, where: file_part(
        _str(_obj(part.get("file"), f"{where}.file").get("filename"), f"{where}.file.filename"),
        data=_str(_obj(part.get("file"), f"{where}.file").get("file_data"), f"{where}.file.file_data")),
}


def _chat_parts(content: Any, at: str) -> tuple[Part, ...]:
    return _typed_parts(content, at, _CHAT_PARTS)


def _chat_tool_choice(body: Mapping[str, Any]) -> ToolChoice | None:
    raw = body.get("tool_choice", body.get("function_call"))
    if raw is None:
        return None
    if isinstance(raw, str):
        return _mode(raw, "tool_choice")
    choice = _obj(raw, "tool_choice")
    if choice.get("type") == "allowed_tools":  # a subset of the tools, in auto or required mode
        return _choice(_text(_obj(choice.get("allowed_tools"), "tool_choice.allowed_tools").get("mode", "auto"),
                             "tool_choice.allowed_tools.mode"))
    function = choice.get("function", choice)  # {"type": "function", "function": {...}} or legacy {"name"}
    return _choice("tool", _text(_obj(function, "tool_choice.function").get("name"), "tool_choice.function.name"))


# a tuple, not a set: a role that is a list or an object is compared, not hashed (and read below)
_PLAIN_ROLES = ("system", "developer", "user", "assistant")
# The system prompts of a log repeat from row to row: each distinct one becomes one `Message` (a
# frozen value) that the rows share, rather than a copy built and kept per row. Bounded in prompts
# and in their length (a long prompt, such as retrieved documents, is seldom repeated), and
# emptied when full, so a log of ever-new prompts holds at most 256 x 8,192 characters here. The
# memo is the run's ("openai_chat.prompts", `analysis.memo`): outside a run nothing is kept.
_PROMPTS_LIMIT, _PROMPT_CHARS = 256, 8192


def plain_chat(body: Mapping[str, Any]) -> Request | None:
    """The request of a body whose messages are all plain text (a role of `_PLAIN_ROLES`, string
    content, an optional string name, no other key) and which has no tools: the value the general
    reading below gives, built without its per-field reads (and a system prompt seen before
    shared, the run's "openai_chat.prompts"); None for anything else (read below, its errors worded)."""
    raw = body.get("messages")
    if type(raw) is not list or "tool_choice" in body or "function_call" in body:
        return None
    tools: tuple[ToolDef, ...] = ()
    if "tools" in body or "functions" in body:
        known = _known_tools(body)
        if known is None:
            return None
        tools = known
    messages = []
    prompts: BoundedMemo[Message] | None = None
    for m in raw:
        if type(m) is not dict:
            return None
        role, content = m.get("role"), m.get("content")
        if type(content) is not str or role not in _PLAIN_ROLES:
            return None
        # "role" and "content" are there (found above): two keys, or three with "name", and no other
        if len(m) == 2:
            name = None
        elif len(m) == 3 and "name" in m:
            name = m["name"]
            if name is not None and type(name) is not str:
                return None
        else:
            return None
        if (role == "system" or role == "developer") and len(content) <= _PROMPT_CHARS:
            if prompts is None:
                prompts = run_caches().memo("openai_chat.prompts", _PROMPTS_LIMIT)
            key = (role, content, name)
            message = prompts.peek(key)
            if message is None:
                message = Message.of_text(role, content, name)
                prompts.put(key, message)
            messages.append(message)
        else:
            messages.append(Message.of_text(role, content, name))
    return Request(tuple(messages), None, tools)


# The tool definitions of a log repeat from row to row as they do in an agent's requests: each
# distinct `tools` list (by its JSON text) is read once into its `ToolDef`s, which the rows share.
# Bounded in lists and in their text, and emptied when full, as the prompts (the run's "openai_chat.tools").
_TOOLS_LIMIT, _TOOLS_BYTES = 256, 65_536


def _known_tools(body: Mapping[str, Any]) -> tuple[ToolDef, ...] | None:
    """The `ToolDef`s of a body's `tools` (with no legacy `functions`), read once per distinct list;
    None for anything else (read below, its errors worded). A list whose JSON text holds a null is
    not kept: orjson writes NaN as null, so that text would not tell the two apart."""
    if "functions" in body:
        return None
    raw = body.get("tools")
    try:
        key = orjson.dumps(raw)
    except (TypeError, orjson.JSONEncodeError):  # not JSON, or an integer beyond 64 bits
        return None
    memo = run_caches().memo("openai_chat.tools", _TOOLS_LIMIT)
    tools = memo.peek(key)
    if tools is None:
        if b"null" in key or len(key) > _TOOLS_BYTES:
            return None
        try:
            tools = tuple(_function_def(tool.get("function"), f"{at}.function") for at, tool in _function_tools(body))
        except (BadInput, UnknownName):  # worded by the general reading, after the messages' own errors
            return None
        memo.put(key, tools)
    return tools


def parse_openai_chat(body: Mapping[str, Any]) -> Request:
    """An OpenAI Chat Completions body (`messages`, `tools` or legacy `functions`, `tool_choice`).

    >>> r = parse_openai_chat({"messages": [{"role": "system", "name": "ex", "content": "Hi."}]})
    >>> (r.messages[0].role, r.messages[0].name, r.messages[0].text)
    ('system', 'ex', 'Hi.')
    """
    body = _obj(body, "the request")
    fast = plain_chat(body)
    if fast is not None:
        return fast
    messages: list[Message] = []
    for at, m, role in _each_message(body, _CHAT_ROLES):
        name = _str(m.get("name"), f"{at}.name")
        parts = _chat_parts(m.get("content"), at)
        if role in ("tool", "function"):
            # A tool result; the legacy role "function" names the function instead of a call id.
            call_id = _str(m.get("tool_call_id"), f"{at}.tool_call_id")
            messages.append(Message("tool", (ToolResult(parts, call_id, name),)))
            continue
        calls: list[Part] = []
        for j, rawcall in enumerate(m.get("tool_calls") or ()):
            where = f"{at}.tool_calls[{j}]"
            call = _obj(rawcall, where)
            if call.get("type", "function") != "function":
                raise _kind("tool call type", call.get("type"), ("function",), where)
            fn = _obj(call.get("function"), f"{where}.function")
            calls.append(ToolCall(_text(fn.get("name"), f"{where}.function.name"),
                                  _arguments(fn.get("arguments"), f"{where}.function.arguments"),
                                  _str(call.get("id"), f"{where}.id")))
        if m.get("function_call") is not None:
            fn = _obj(m["function_call"], f"{at}.function_call")
            calls.append(ToolCall(_text(fn.get("name"), f"{at}.function_call.name"),
                                  _arguments(fn.get("arguments"), f"{at}.function_call.arguments")))
        messages.append(Message(role, parts + tuple(calls), name))
    tools = [_function_def(tool.get("function"), f"{at}.function") for at, tool in _function_tools(body)]
    tools += [_function_def(raw, f"functions[{i}]") for i, raw in enumerate(body.get("functions") or ())]
    return Request(tuple(messages), None, tuple(tools), _chat_tool_choice(body))
