"""One parser per wire shape, each turning a request body into the one `Request` value.

Unlike `request` (the value itself, and the checks every shape shares), this module knows how
each provider spells things: OpenAI Chat Completions (`messages`, `tools`/`functions`), OpenAI
Responses (`input`, `instructions`), Anthropic Messages (`system`, content blocks), Gemini
(`contents`, `systemInstruction`, `functionDeclarations`) and a plain text. `parse` detects the
shape or takes it forced. Nothing is dropped: an unknown role, content type, item or tool type is
`UnknownName` naming it and where it is, and a value of the wrong type is `BadInput`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..errors import BadInput, UnknownName
from .mediaread import audio_part, file_part, image_part
from .request import AudioPart, FilePart, ImagePart, Message, Part, Request, TextPart, ToolCall, ToolChoice, ToolDef, ToolResult

SHAPES = ("openai-chat", "openai-responses", "anthropic", "gemini", "text")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _obj(value: Any, at: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadInput(f"{at} must be a JSON object, got {type(value).__name__}")
    return value


def _list(value: Any, at: str) -> list[Any]:
    if not isinstance(value, list):
        raise BadInput(f"{at} must be a JSON array, got {type(value).__name__}")
    return value


def _text(value: Any, at: str) -> str:
    if not isinstance(value, str):
        raise BadInput(f"{at} must be a string, got {type(value).__name__}")
    return value


def _str(value: Any, at: str) -> str | None:
    """An optional string field: None when absent, else it must be a string."""
    return None if value is None else _text(value, at)


def _kind(kind: str, name: Any, valid: tuple[str, ...], at: str) -> UnknownName:
    return UnknownName(kind, str(name), valid, hint=f"(at {at})")


def _arguments(value: Any, at: str) -> str:
    """Tool-call arguments as the JSON text the model sees: a string as sent, an object dumped."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return _dumps(_obj(value, at))


def _each_message(body: Mapping[str, Any], roles: tuple[str, ...],
                  hints: Mapping[str, str] | None = None) -> Iterator[tuple[str, Mapping[str, Any], str]]:
    """(where, message, role) of each of `messages`, refusing a role not in `roles`."""
    for i, raw in enumerate(_list(body.get("messages"), "messages")):
        at = f"messages[{i}]"
        m = _obj(raw, at)
        role = m.get("role")
        if not isinstance(role, str) or role not in roles:
            hint = (hints or {}).get(role, "") if isinstance(role, str) else ""
            raise UnknownName("role", str(role), roles, hint=f"(at {at}{hint})")
        yield at, m, role


def _only_text(parts: tuple[Part, ...], what: str) -> str:
    if not all(isinstance(p, TextPart) for p in parts):
        raise BadInput(f"{what} must hold text only (a string or text parts)")
    return "".join(p.text for p in parts if isinstance(p, TextPart))


def _choice(mode: str, name: str | None = None) -> ToolChoice:
    return ToolChoice(mode, name)


# -- content parts, read by a table per shape --------------------------------------------------------
PartReader = Callable[[Mapping[str, Any], str], Part]


def _typed_parts(content: Any, at: str, readers: Mapping[str, PartReader]) -> tuple[Part, ...]:
    """A string (one text part), null (none) or a list of {"type": ...} parts read by `readers`."""
    if content is None:
        return ()
    if isinstance(content, str):
        return (TextPart(content),)
    parts: list[Part] = []
    for j, raw in enumerate(_list(content, f"{at}.content")):
        where = f"{at}.content[{j}]"
        part = _obj(raw, where)
        kind = part.get("type")
        reader = readers.get(kind) if isinstance(kind, str) else None
        if reader is None:
            raise _kind("content type", kind, tuple(readers), where)
        parts.append(reader(part, where))
    return tuple(parts)


def _text_in(key: str) -> PartReader:
    return lambda part, where: TextPart(_text(part.get(key), f"{where}.{key}"))


def _mode(raw: str, at: str) -> ToolChoice:
    if raw not in ("auto", "none", "required"):
        raise _kind("tool choice", raw, ("auto", "none", "required"), at)
    return _choice(raw)


# -- OpenAI Chat Completions ----------------------------------------------------------------------
_CHAT_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


def _chat_image(part: Mapping[str, Any], where: str) -> Part:
    image = _obj(part.get("image_url"), f"{where}.image_url")
    return image_part(_str(image.get("url"), f"{where}.image_url.url"),
                      detail=_str(image.get("detail"), f"{where}.image_url.detail"))


def _chat_audio(part: Mapping[str, Any], where: str) -> Part:
    audio = _obj(part.get("input_audio"), f"{where}.input_audio")
    fmt = _str(audio.get("format"), f"{where}.input_audio.format")
    return audio_part(_str(audio.get("data"), f"{where}.input_audio.data"), fmt)


_CHAT_PARTS: dict[str, PartReader] = {
    "text": _text_in("text"), "refusal": _text_in("refusal"), "image_url": _chat_image,
    "input_audio": _chat_audio,
    "file": lambda part, where: file_part(
        _str(_obj(part.get("file"), f"{where}.file").get("filename"), f"{where}.file.filename"),
        data=_str(_obj(part.get("file"), f"{where}.file").get("file_data"), f"{where}.file.file_data")),
}


def _chat_parts(content: Any, at: str) -> tuple[Part, ...]:
    return _typed_parts(content, at, _CHAT_PARTS)


def _function_def(raw: Any, at: str) -> ToolDef:
    f = _obj(raw, at)
    params = f.get("parameters")
    return ToolDef(_text(f.get("name"), f"{at}.name"), _str(f.get("description"), f"{at}.description"),
                   dict(_obj(params, f"{at}.parameters")) if params is not None else {})


def _function_tools(body: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(where, tool) of each of OpenAI's `tools`, refusing types other than function (hosted tools)."""
    for i, raw in enumerate(body.get("tools") or ()):
        at = f"tools[{i}]"
        tool = _obj(raw, at)
        if tool.get("type") != "function":
            raise _kind("tool type", tool.get("type"), ("function",), at)
        yield at, tool


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


def parse_openai_chat(body: Mapping[str, Any]) -> Request:
    """An OpenAI Chat Completions body (`messages`, `tools` or legacy `functions`, `tool_choice`).

    >>> r = parse_openai_chat({"messages": [{"role": "system", "name": "ex", "content": "Hi."}]})
    >>> (r.messages[0].role, r.messages[0].name, r.messages[0].text)
    ('system', 'ex', 'Hi.')
    """
    body = _obj(body, "the request")
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


# -- OpenAI Responses ------------------------------------------------------------------------------
_RESPONSES_ROLES = ("user", "assistant", "system", "developer")
_RESPONSES_ITEMS = ("message", "function_call", "function_call_output")


_RESPONSES_PARTS: dict[str, PartReader] = {
    "input_text": _text_in("text"), "output_text": _text_in("text"), "text": _text_in("text"),
    "refusal": _text_in("refusal"),
    "input_image": lambda part, where: image_part(_str(part.get("image_url"), f"{where}.image_url"),
                                                  detail=_str(part.get("detail"), f"{where}.detail")),
    "input_file": lambda part, where: file_part(_str(part.get("filename"), f"{where}.filename"),
                                                data=_str(part.get("file_data"), f"{where}.file_data")),
    "input_audio": lambda part, where: AudioPart(media_type=_str(
        _obj(part.get("input_audio", {}), where).get("format"), f"{where}.input_audio.format")),
}


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


# -- Anthropic Messages ----------------------------------------------------------------------------
_ANTHROPIC_ROLES = ("user", "assistant")
_ANTHROPIC_BLOCKS = ("text", "image", "document", "tool_use", "tool_result", "thinking")
_SYSTEM_HINT = {"system": "; Anthropic takes the system prompt as a top-level 'system'"}
_ANTHROPIC_CHOICES = {"auto": "auto", "none": "none", "any": "required", "tool": "tool"}


def _source_media(block: Mapping[str, Any], at: str) -> str | None:
    source = block.get("source")
    return _str(_obj(source, f"{at}.source").get("media_type"), f"{at}.source.media_type") if source else None


def _anthropic_blocks(content: Any, at: str) -> tuple[Part, ...]:
    if isinstance(content, str):
        return (TextPart(content),)
    parts: list[Part] = []
    for j, raw in enumerate(_list(content, at)):
        where = f"{at}[{j}]"
        block = _obj(raw, where)
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(_text(block.get("text"), f"{where}.text")))
        elif kind == "thinking":  # an earlier turn's reasoning, sent back as text
            parts.append(TextPart(_text(block.get("thinking"), f"{where}.thinking")))
        elif kind == "image":
            source = _obj(block.get("source"), f"{where}.source")
            parts.append(image_part(_str(source.get("url"), f"{where}.source.url"),
                                    data=_str(source.get("data"), f"{where}.source.data"),
                                    media_type=_source_media(block, where)))
        elif kind == "document":
            source = _obj(block.get("source") or {}, f"{where}.source")
            data = source.get("data") if source.get("type") == "base64" else None
            parts.append(file_part(_str(block.get("title"), f"{where}.title"),
                                   data=_str(data, f"{where}.source.data"), media_type=_source_media(block, where)))
        elif kind == "tool_use":
            parts.append(ToolCall(_text(block.get("name"), f"{where}.name"), _dumps(block.get("input", {})),
                                  _str(block.get("id"), f"{where}.id")))
        elif kind == "tool_result":
            inner = block.get("content", "")
            parts.append(ToolResult(_anthropic_blocks(inner, f"{where}.content"),
                                    _str(block.get("tool_use_id"), f"{where}.tool_use_id")))
        else:
            raise _kind("content type", kind, _ANTHROPIC_BLOCKS, where)
    return tuple(parts)


def parse_anthropic(body: Mapping[str, Any]) -> Request:
    """An Anthropic Messages body: `system` (a string or text blocks), `messages`, `tools`, `tool_choice`.

    >>> r = parse_anthropic({"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]})
    >>> (r.system, r.messages[0].text)
    ('Be brief.', 'Hi')
    """
    body = _obj(body, "the request")
    system = body.get("system")
    system_text = None if system is None else _only_text(_anthropic_blocks(system, "system"), "system")
    messages: list[Message] = []
    for at, m, role in _each_message(body, _ANTHROPIC_ROLES, _SYSTEM_HINT):
        messages.append(Message(role, _anthropic_blocks(m.get("content", ""), f"{at}.content")))
    tools: list[ToolDef] = []
    for i, raw in enumerate(body.get("tools") or ()):
        at = f"tools[{i}]"
        tool = _obj(raw, at)
        if tool.get("type", "custom") != "custom":  # server tools (web search, bash, ...) are not definitions
            raise _kind("tool type", tool.get("type"), ("custom",), at)
        schema = tool.get("input_schema")
        tools.append(ToolDef(_text(tool.get("name"), f"{at}.name"),
                             _str(tool.get("description"), f"{at}.description"),
                             dict(_obj(schema, f"{at}.input_schema")) if schema is not None else {}))
    choice = None
    if body.get("tool_choice") is not None:
        raw_choice = _obj(body["tool_choice"], "tool_choice")
        kind = raw_choice.get("type")
        if kind not in _ANTHROPIC_CHOICES:
            raise _kind("tool choice", kind, tuple(_ANTHROPIC_CHOICES), "tool_choice")
        choice = _choice(_ANTHROPIC_CHOICES[kind], _str(raw_choice.get("name"), "tool_choice.name"))
    return Request(tuple(messages), system_text, tuple(tools), choice)


# -- Gemini ----------------------------------------------------------------------------------------
_GEMINI_ROLES = {"user": "user", "model": "assistant", "function": "tool"}
_GEMINI_PARTS = ("text", "inlineData", "fileData", "functionCall", "functionResponse")
_GEMINI_MODES = {"AUTO": "auto", "NONE": "none", "ANY": "required", "VALIDATED": "auto"}


def _get(obj: Mapping[str, Any], camel: str) -> Any:
    """A Gemini field by its REST name (camelCase) or the snake_case the Python SDK also accepts."""
    if camel in obj:
        return obj[camel]
    return obj.get("".join("_" + c.lower() if c.isupper() else c for c in camel))


def _gemini_parts(content: Mapping[str, Any], at: str) -> tuple[Part, ...]:
    parts: list[Part] = []
    for j, raw in enumerate(_list(content.get("parts"), f"{at}.parts")):
        where = f"{at}.parts[{j}]"
        part = _obj(raw, where)
        if "text" in part:
            parts.append(TextPart(_text(part["text"], f"{where}.text")))
        elif _get(part, "inlineData") is not None:
            data = _obj(_get(part, "inlineData"), f"{where}.inlineData")
            media = _str(_get(data, "mimeType"), f"{where}.inlineData.mimeType") or ""
            parts.append(_media_part(media, data=_str(data.get("data"), f"{where}.inlineData.data"),
                                     level=_level(part, where)))
        elif _get(part, "fileData") is not None:
            data = _obj(_get(part, "fileData"), f"{where}.fileData")
            media = _str(_get(data, "mimeType"), f"{where}.fileData.mimeType") or ""
            parts.append(_media_part(media, _str(_get(data, "fileUri"), f"{where}.fileData.fileUri"),
                                     level=_level(part, where)))
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


def _level(part: Mapping[str, Any], where: str) -> str | None:
    """A Gemini 3 part's mediaResolution ({"level": "MEDIA_RESOLUTION_HIGH"}) as "low" / "medium" / "high"."""
    raw = _get(part, "mediaResolution")
    level = _obj(raw, f"{where}.mediaResolution").get("level") if isinstance(raw, Mapping) else raw
    text = _str(level, f"{where}.mediaResolution")
    return text.lower().removeprefix("media_resolution_") if text else None


def _media_part(media_type: str, url: str | None = None, *, data: str | None = None,
                level: str | None = None) -> Part:
    if media_type.startswith("image/"):
        return image_part(url, data=data, media_type=media_type, detail=level)
    if media_type.startswith("audio/"):
        return audio_part(data, media_type)
    return file_part(url, data=data, media_type=media_type or None, detail=level)


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
    for i, raw in enumerate(_list(body.get("contents"), "contents")):
        at = f"contents[{i}]"
        content = _obj(raw, at)
        role = content.get("role", "user")
        if role not in _GEMINI_ROLES:
            raise _kind("role", role, tuple(_GEMINI_ROLES), at)
        parts = _gemini_parts(content, at)
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


# -- detection -------------------------------------------------------------------------------------
_ANTHROPIC_ONLY = {"tool_use", "tool_result", "thinking", "document"}


def _looks_anthropic(body: Mapping[str, Any]) -> bool:
    if "system" in body or any(isinstance(t, Mapping) and "input_schema" in t for t in body.get("tools") or ()):
        return True
    for m in body.get("messages") or ():
        content = m.get("content") if isinstance(m, Mapping) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, Mapping) and (block.get("type") in _ANTHROPIC_ONLY
                                               or (block.get("type") == "image" and "source" in block)):
                return True
    return False


def detect_shape(body: Any) -> str:
    """The wire shape of a body: a string is text; a bare list is messages (or Gemini contents).

    >>> detect_shape({"contents": []}), detect_shape({"input": "hi"}), detect_shape("hi")
    ('gemini', 'openai-responses', 'text')
    >>> detect_shape({"system": "Be brief.", "messages": []}), detect_shape([{"role": "user", "content": "hi"}])
    ('anthropic', 'openai-chat')
    """
    if isinstance(body, str):
        return "text"
    if isinstance(body, list):
        if any(isinstance(m, Mapping) and "parts" in m for m in body):
            return "gemini"
        if any(isinstance(m, Mapping) and m.get("type") in _RESPONSES_ITEMS[1:] for m in body):
            return "openai-responses"
        return detect_shape({"messages": body})
    body = _obj(body, "the request")
    if "contents" in body or _get(body, "generateContentRequest") is not None:
        return "gemini"
    if "messages" in body:
        return "anthropic" if _looks_anthropic(body) else "openai-chat"
    if "input" in body or "instructions" in body:
        return "openai-responses"
    if isinstance(body.get("prompt"), str):
        return "text"
    raise BadInput(f"cannot tell the shape of a request with keys {sorted(body) or 'none'}: expected messages "
                   f"(OpenAI chat, Anthropic), input (OpenAI Responses), contents (Gemini) or prompt (text); "
                   f"force one with shape= ({', '.join(SHAPES)})")


def _as_body(body: Any, shape: str) -> Any:
    """A bare list given for a shape that wraps it in an object."""
    if isinstance(body, list):
        key = {"openai-chat": "messages", "anthropic": "messages", "openai-responses": "input", "gemini": "contents"}.get(shape)
        if key is None:
            raise BadInput(f"a bare list cannot be read as the {shape} shape")
        return {key: body}
    return body


def _parse_text(body: Any) -> Request:
    if isinstance(body, Mapping) and isinstance(body.get("prompt"), str):
        return Request.from_text(body["prompt"])
    if not isinstance(body, str):
        raise BadInput(f"the text shape reads a string (or an object with a 'prompt' string), got {type(body).__name__}")
    return Request.from_text(body)


PARSERS: dict[str, Callable[[Any], Request]] = {
    "openai-chat": parse_openai_chat, "openai-responses": parse_openai_responses, "anthropic": parse_anthropic,
    "gemini": parse_gemini, "text": _parse_text,
}


def parse(body: Any, *, shape: str | None = None) -> Request:
    """A request body of any shape (detected, or forced with `shape`) as a `Request`.

    Raises:
        UnknownName: an unknown shape, role, content type, item or tool type (named, with where).
        BadInput: a value of the wrong type, or a body whose shape cannot be told.

    >>> parse([{"role": "user", "content": "Hi"}]).messages[0].text
    'Hi'
    """
    if shape is None:
        shape = detect_shape(body)
    elif shape not in PARSERS:
        raise UnknownName("request shape", shape, SHAPES)
    return PARSERS[shape](_as_body(body, shape))
