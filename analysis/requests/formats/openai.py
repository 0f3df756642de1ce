"""The "openai" family: OpenAI's chat models, counted by the rules the OpenAI Cookbook documents.

Reference: the OpenAI Cookbook notebook "How to count tokens with tiktoken"
(github.com/openai/openai-cookbook, examples/How_to_count_tokens_with_tiktoken.ipynb). Unlike the
open-model families, whose templates are public and rendered id for id, OpenAI publishes no
rendering of its chat format, only counting rules that its notebook checks against the API's
`prompt_tokens`:

* messages: 3 tokens per message plus the tokens of its role and content; a `name` adds its own
  tokens plus 1; every reply is primed with 3 tokens. gpt-3.5-turbo-0301 differed: 4 per message,
  and a name replaced the role (-1).
* function (tool) definitions: per function 7 tokens on gpt-4o and gpt-4o-mini, 10 on
  gpt-3.5-turbo and gpt-4, plus "name:description"; 3 once if it has properties, then per
  property 3 plus "name:type:description" (a final "." of a description is dropped), and an enum
  adds -3 once and 3 plus the value's tokens per value; 12 once after all functions.

These counts are labelled "documented": OpenAI calls them an estimate that may change. The
notebook verified them on gpt-3.5-turbo (0301, 0613, 0125), gpt-4 (0314, 0613), gpt-4o
(2024-08-06) and gpt-4o-mini (2024-07-18); any other model (gpt-4.1, gpt-5, the o-series) gets
the same rules labelled an estimate that says so. Whatever the notebook does not cover (tool calls
and results, several text parts, a developer role, nested parameter schemas, a forced tool
choice) is counted by the nearest rule and labelled an estimate naming it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...tokenizers import Tokenizer
from ..request import Request, ToolCall, ToolDef, ToolResult
from .base import ChatFormat, Rendered
from .parts import join_reasons, media_counts, media_note, result_text, text_parts

SOURCE = "OpenAI Cookbook, 'How to count tokens with tiktoken'"
PRIMING = 3  # every reply is primed with <|start|>assistant<|message|>
PROP_INIT, PROP_KEY, ENUM_INIT, ENUM_ITEM, FUNC_END = 3, 3, -3, 3, 12
_DOCUMENTED_ROLES = ("system", "user", "assistant")
_SCHEMA_KEYS = {"type", "description", "enum"}
_PARAMETER_KEYS = {"type", "properties", "required"}


@dataclass(frozen=True, slots=True)
class Rules:
    """The per-model constants of the Cookbook's rules, and the models they were verified on."""
    per_message: int
    per_name: int
    func_init: int
    verified: str


CL100K = Rules(3, 1, 10, "gpt-3.5-turbo (0613, 0125) and gpt-4 (0314, 0613)")
O200K = Rules(3, 1, 7, "gpt-4o (2024-08-06) and gpt-4o-mini (2024-07-18)")
TURBO_0301 = Rules(4, -1, 10, "gpt-3.5-turbo-0301")

# The model families the notebook assigns its rules to and verified on one of their snapshots.
_COVERED = re.compile(r"(^|[:/])(gpt-3\.5-turbo|gpt-35-turbo|gpt-3\.5-0301|gpt-4o|gpt-4(?![.\d])(-|$))", re.I)
_TURBO_0301 = re.compile(r"(^|[:/])gpt-3\.5(-turbo)?-0301", re.I)


def rules_for(tokenizer: Tokenizer, model_ids: tuple[str, ...] = ()) -> Rules:
    if any(_TURBO_0301.search(m) for m in model_ids):
        return TURBO_0301
    return CL100K if tokenizer.name == "cl100k_base" else O200K


def _strip_dot(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


def tool_tokens(tools: tuple[ToolDef, ...], tokenizer: Tokenizer, rules: Rules) -> tuple[int, list[str]]:
    """(tokens of the function definitions by the Cookbook's rules, what they did not cover)."""
    if not tools:
        return 0, []
    count, rough = tokenizer.count, []
    n = 0
    for tool in tools:
        n += rules.func_init
        if tool.description is None:
            rough.append("a function without a description")
        n += count(f"{tool.name}:{_strip_dot(tool.description or '')}")
        params = tool.parameters
        if set(params) - _PARAMETER_KEYS:
            rough.append(f"parameter keywords {sorted(set(params) - _PARAMETER_KEYS)}")
            n += count(json.dumps({k: params[k] for k in sorted(set(params) - _PARAMETER_KEYS)}, ensure_ascii=False))
        props = params.get("properties") or {}
        if not isinstance(props, Mapping):
            rough.append("properties that are not an object")
            props = {}
        if props:
            n += PROP_INIT
        for key, raw in props.items():
            n += PROP_KEY
            schema: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
            ptype, pdesc = schema.get("type"), schema.get("description")
            if not isinstance(ptype, str) or not isinstance(pdesc, str):
                rough.append("a property without a type or description string")
            if "enum" in schema:
                n += ENUM_INIT
                for item in schema["enum"] if isinstance(schema["enum"], list) else ():
                    n += ENUM_ITEM + count(item if isinstance(item, str) else json.dumps(item))
            type_text = ptype if isinstance(ptype, str) else json.dumps(ptype)
            n += count(f"{key}:{type_text}:{_strip_dot(pdesc if isinstance(pdesc, str) else '')}")
            extra = sorted(set(schema) - _SCHEMA_KEYS)
            if extra:  # nested objects, array items, formats: the notebook has no rule for them
                rough.append(f"schema keywords {extra}")
                n += count(json.dumps({k: schema[k] for k in extra}, ensure_ascii=False))
    return n + FUNC_END, rough


def _render(request: Request, tokenizer: Tokenizer, rules: Rules, covered: str | None,
            add_generation_prompt: bool) -> Rendered:
    count = tokenizer.count
    content = fmt = 0
    rough: list[str] = []
    if request.api == "responses":
        # The notebook's rules are Chat Completions'; the Responses API frames items server-side.
        rough.append("the Responses API's framing, which OpenAI does not document (its Chat Completions rules "
                     "are applied)")
    if request.system:
        # A system prompt given apart (Anthropic's `system`, Gemini's `systemInstruction`, `cost
        # --system`) is what Chat Completions takes as a leading system message: the notebook's rule
        # for that message, documented. Only Responses' `instructions` are framed by its server.
        if request.api == "responses":
            rough.append("Responses' instructions, counted as a leading system message")
        fmt += rules.per_message + count("system")
        content += count(request.system)
    for message in request.messages:
        fmt += rules.per_message + count(message.role)
        if message.role not in _DOCUMENTED_ROLES:
            rough.append(f"the {message.role} role")
        if message.name:
            fmt += count(message.name) + rules.per_name
        texts = text_parts(message)
        if len(texts) > 1:
            rough.append("content given as several text parts")
        content += count("".join(texts))
        for part in message.parts:
            if isinstance(part, ToolCall):
                rough.append("tool calls")
                fmt += count(part.name)
                content += count(part.arguments)
            elif isinstance(part, ToolResult):
                rough.append("tool results")
                content += count(result_text(part))
    if add_generation_prompt:
        fmt += PRIMING
    tools, tool_rough = tool_tokens(request.tools, tokenizer, rules)
    rough += tool_rough
    if request.tool_choice is not None and request.tool_choice.mode != "auto":
        rough.append(f"tool_choice {request.tool_choice.mode!r}, whose tokens the notebook does not count")
    media = media_note(media_counts(request))
    rule_text = (f"{SOURCE}: {rules.per_message} tokens per message plus its role, "
                 f"{'a name replaces the role' if rules.per_name < 0 else f'{rules.per_name} per name'}, "
                 f"{PRIMING} priming the reply" + (f", {rules.func_init} per function definition" if request.tools else ""))
    priming = "" if add_generation_prompt else f"without the {PRIMING} reply-priming tokens, which the API always adds"
    if covered is None:
        return Rendered(content, fmt + tools, "estimate",
                        join_reasons(f"{rule_text}; verified there only on gpt-3.5-turbo, gpt-4, gpt-4o and gpt-4o-mini, "
                                     f"and applied here by extension because this model takes the same Chat Completions "
                                     f"messages on {tokenizer.name} (OpenAI documents no count for it)",
                                     priming, _not_covered(rough), media))
    if rough or media:
        return Rendered(content, fmt + tools, "estimate",
                        join_reasons(f"{rule_text} (verified against the API on {covered})", priming,
                                     _not_covered(rough), media))
    return Rendered(content, fmt + tools, "documented",
                    join_reasons(f"{rule_text}; verified against the API on {covered}; OpenAI calls these rules an "
                                 "estimate that may change", priming))


def _not_covered(rough: list[str]) -> str:
    return f"not covered by the notebook, so estimated: {', '.join(dict.fromkeys(rough))}" if rough else ""


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """A request by the Cookbook's rules for a model it verified on the tokenizer's vocabulary.

    >>> from analysis.tokenizers import load_tokenizer
    >>> from analysis.requests import Request
    >>> r = render(Request.from_text("hello world"), load_tokenizer("o200k_base"))
    >>> (r.content_tokens, r.format_tokens, r.exactness)
    (2, 7, 'documented')
    """
    rules = rules_for(tokenizer)
    return _render(request, tokenizer, rules, rules.verified, add_generation_prompt)


# Stand-ins for the ids the API's own rendering adds (OpenAI does not publish them): negative, so
# never a vocabulary id. Only equality matters to a prefix cache.
_START, _SEP, _END, _NAME, _ASSISTANT = -1, -2, -3, -4, -5


def cache_sequence(request: Request, tokenizer: Tokenizer, model_ids: tuple[str, ...] = (),
                   encode: Callable[[str], Sequence[int]] | None = None) -> list[int] | None:
    """The prompt as a prefix cache sees it, as many ids as `render` counts (with the reply priming):
    the tool definitions first (stand-ins, one id derived from the tools, as many as their tokens),
    then per message ``<|im_start|>`` role [name] ``<|im_sep|>`` content ``<|im_end|>``, where the
    three markers, the name's extra token and the priming's role are stand-ins and every text is
    its own ids. Equal prompts give equal sequences, and two prompts share a prefix as long as the
    texts and markers they share. None: a rule set without this layout (gpt-3.5-turbo-0301) or a
    request with media (whose tokens have no place in the text). `encode`: the tokenizer's encode,
    or a memo of it (a system prompt shared by a log's rows).

    >>> from analysis.tokenizers import load_tokenizer
    >>> tok = load_tokenizer("o200k_base")
    >>> seq = cache_sequence(Request.from_text("hello world"), tok)
    >>> len(seq) == render(Request.from_text("hello world"), tok).input_tokens, seq[:1], seq[-3:]
    (True, [-1], [-1, -5, -2])
    """
    rules = rules_for(tokenizer, model_ids)
    if rules.per_message != 3 or rules.per_name != 1 or media_counts(request):
        return None
    encode = tokenizer.encode if encode is None else encode
    out: list[int] = []
    if request.tools:
        n, _ = tool_tokens(request.tools, tokenizer, rules)
        stand_in = -6 - int.from_bytes(hashlib.blake2b(repr(request.tools).encode("utf-8", "surrogatepass"),
                                                       digest_size=7).digest(), "little")
        out += [stand_in] * n
    if request.system:
        out += [_START, *encode("system"), _SEP, *encode(request.system), _END]
    for message in request.messages:
        out += [_START, *encode(message.role)]
        if message.name:
            out += [*encode(message.name), _NAME]
        out += [_SEP, *encode("".join(text_parts(message)))]
        for part in message.parts:
            if isinstance(part, ToolCall):
                out += [*encode(part.name), *encode(part.arguments)]
            elif isinstance(part, ToolResult):
                out += encode(result_text(part))
        out.append(_END)
    return out + [_START, _ASSISTANT, _SEP]


def for_model(model_ids: tuple[str, ...]) -> ChatFormat:
    """The family's format for one model: its rule set, and whether the notebook's evidence covers it.

    `model_ids` are the names of one model (as typed, and as the price data spells it).
    """
    covered = any(_COVERED.search(m) for m in model_ids)

    def render_model(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
        rules = rules_for(tokenizer, model_ids)
        return _render(request, tokenizer, rules, rules.verified if covered else None, add_generation_prompt)

    return render_model
