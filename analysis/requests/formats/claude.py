"""The "claude" family: Anthropic's models, estimated (Claude 3 and later have no public tokenizer).

Unlike the families rendered id for id, this one can only estimate: the text is counted with the
model's proxy tokenizer (models.toml), and the framing is modelled on what Anthropic does publish:

* per message, the role marker of Anthropic's documented legacy prompt format ("\\n\\nHuman: " and
  "\\n\\nAssistant: ", Text Completions API), and "\\n\\nAssistant:" priming the reply;
* with tools, the tool-use system prompt Anthropic documents per model and tool choice (docs:
  "Tool use with Claude", pricing: "tool use system prompt token count"), plus each definition
  as its JSON text (name, description, input_schema), and tool calls as {"name", "input"} JSON.

Its error is unmeasured: this repository has no calibration of these counts against logged
Claude usage (`cost --logs` compares recounts with logged usage per serving model, and no such
log ships with it). Every count of this family is labelled an estimate and says so.
"""

from __future__ import annotations

import json
import re

from ...tokenizers import Tokenizer
from ..request import Request, ToolCall, ToolResult
from .base import ChatFormat, Rendered
from .parts import join_reasons, media_counts, media_note, result_text, text_parts, tools_json_text

HUMAN, ASSISTANT, PRIMING = "\n\nHuman: ", "\n\nAssistant: ", "\n\nAssistant:"
UNMEASURED = ("its error is unmeasured: no calibration against logged Claude usage exists here "
              "(run `tokenprism cost --logs` on logs that carry usage to measure it)")

# Anthropic's documented tool-use system prompt, in Claude's own tokens: (auto or none, any or tool).
# Claude 3 figures: docs.anthropic.com "tool-use-pricing-and-tokens"; later models: Anthropic's tool
# use overview ("Claude 4.x, Sonnet 3.7 and 3.5: 346 / 313").
_TOOL_PROMPT = (
    (re.compile(r"claude-3-opus", re.I), (530, 281)),
    (re.compile(r"claude-3-sonnet", re.I), (159, 235)),
    (re.compile(r"claude-3(-5)?-haiku", re.I), (264, 340)),
)
_TOOL_PROMPT_LATER = (346, 313)


def tool_prompt_tokens(model_ids: tuple[str, ...], mode: str) -> int:
    """Anthropic's documented tool-use system prompt for a model and tool-choice mode."""
    pair = next((p for rx, p in _TOOL_PROMPT if any(rx.search(m) for m in model_ids)), _TOOL_PROMPT_LATER)
    return pair[1] if mode in ("required", "tool") else pair[0]


def _render(request: Request, tokenizer: Tokenizer, model_ids: tuple[str, ...], add_generation_prompt: bool) -> Rendered:
    count = tokenizer.count
    content = fmt = 0
    if request.system:
        content += count(request.system)
    for message in request.messages:
        fmt += count(ASSISTANT if message.role == "assistant" else HUMAN)
        content += count("".join(text_parts(message)))
        for part in message.parts:
            if isinstance(part, ToolCall):
                fmt += count(json.dumps({"name": part.name, "input": ""}))
                content += count(part.arguments)
            elif isinstance(part, ToolResult):
                content += count(result_text(part))
    if add_generation_prompt:
        fmt += count(PRIMING)
    tools = ""
    if request.tools:
        mode = request.tool_choice.mode if request.tool_choice else "auto"
        prompt = tool_prompt_tokens(model_ids, mode)
        fmt += prompt + count(tools_json_text(request.tools, wrap=False, description="null", schema_key="input_schema",
                                              ensure_ascii=False))
        tools = f"tools: Anthropic's documented tool-use system prompt ({prompt} tokens) plus the definitions as JSON"
    return Rendered(content, fmt, "estimate",
                    join_reasons("Claude's chat format is not public: role markers of Anthropic's documented legacy "
                                 "prompt format ('\\n\\nHuman:' / '\\n\\nAssistant:') per message", tools,
                                 media_note(media_counts(request)), UNMEASURED))


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """A Claude request, estimated (the tool-use prompt of the current models when tools are given).

    >>> from analysis.tokenizers import load_tokenizer
    >>> r = render(Request.from_text("hello world"), load_tokenizer("o200k_base"))
    >>> (r.content_tokens, r.exactness)
    (2, 'estimate')
    """
    return _render(request, tokenizer, (), add_generation_prompt)


def for_model(model_ids: tuple[str, ...]) -> ChatFormat:
    """The family's format for one model (its documented tool-use prompt size)."""
    def render_model(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
        return _render(request, tokenizer, model_ids, add_generation_prompt)

    return render_model
