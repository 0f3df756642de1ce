"""The shapes existing clients speak: vLLM's /tokenize and /detokenize, Anthropic's count_tokens.

`model` may be a model id (resolved through the model map, `analysis.models`) or a
tokenizer name. Every answer carries `tokenizer` and `exactness`: a Claude 3+ count comes from
a proxy tokenizer and says "estimate" (the JSON contract's word), never passing for the model's own count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from fastapi import APIRouter

from ...cost import find_model
from ...errors import BadInput, UnknownName
from ...models import ChatOverhead, resolve as resolve_model
from ...requests import parse as parse_request
from ...tokenizers import Tokenizer
from ..problems import Problem, check_limit
from ..runtime import Runtime
from ..schemas import (
    ContentBlock, CountTokensRequest, CountTokensResponse, VllmDetokenizeRequest, VllmDetokenizeResponse,
    VllmTokenizeRequest, VllmTokenizeResponse,
)
from . import ERRORS, RuntimeDep, check_texts
from .tokenize import check_ids

router = APIRouter(tags=["compatible"], responses=ERRORS)


@dataclass(frozen=True)
class Resolved:
    tokenizer: Tokenizer
    exactness: str
    note: str
    chat: ChatOverhead | None
    max_model_len: int | None


@lru_cache(maxsize=1024)
def _context_window(model: str) -> int | None:
    try:
        _, info = find_model(model)
    except (KeyError, LookupError, ValueError):
        return None
    return info.context_window


def resolve(rt: Runtime, model: str) -> Resolved:
    """The served tokenizer for a model id or tokenizer name, with its exactness; 404 otherwise."""
    if model in rt.tokenizers or not rt.ready:
        return Resolved(rt.tokenizer(model), "exact", "", None, None)
    try:
        spec = resolve_model(model)  # the one resolver: a misspelt id is refused, never matched by a glob
    except UnknownName as e:
        raise Problem(404, f"{e} Tokenizers served: {', '.join(rt.tokenizers)} (GET /v1/models lists the models)",
                      type_="unknown-model", valid=e.closest or list(rt.tokenizers)) from None
    except BadInput as e:  # an empty id
        raise Problem(422, str(e), type_="invalid-input") from None
    if spec.tokenizer is None:
        raise Problem(404, f"model {model!r} has no text tokenizer: {spec.reason}", type_="unknown-model",
                      valid=list(rt.tokenizers))
    choice = spec.choice()
    if not choice.usable:
        raise Problem(404, f"model {model!r} maps to tokenizer {choice.wanted!r}, which is {choice.status}; fix: "
                      f"fetch it, then restart the server with --tokenizers including {choice.wanted}",
                      type_="tokenizer-unavailable", valid=list(rt.tokenizers))
    if choice.tokenizer not in rt.tokenizers:
        raise Problem(404, f"model {model!r} is counted with {choice.tokenizer!r}, which this server does not load; "
                      f"restart it with --tokenizers including {choice.tokenizer}", type_="tokenizer-not-loaded",
                      valid=list(rt.tokenizers))
    exactness = "exact" if choice.exactness == "exact" else "estimate"  # models.toml's "approximate" is the contract's estimate
    return Resolved(rt.tokenizers[choice.tokenizer], exactness, choice.note, choice.chat, _context_window(model))


# -- vLLM --------------------------------------------------------------------------------------
@router.post("/tokenize", response_model=VllmTokenizeResponse, summary="vLLM-compatible: token ids of a prompt")
async def vllm_tokenize(body: VllmTokenizeRequest, rt: RuntimeDep) -> dict:
    check_texts(rt, [body.prompt], "prompt")
    r = resolve(rt, body.model)
    ids = await rt.run(r.tokenizer.encode, body.prompt, work=len(body.prompt))
    rt.metrics.count_tokens(r.tokenizer.name, len(ids))
    strs = None
    if body.return_token_strs:
        strs = [r.tokenizer.token_bytes(i).decode("utf-8", errors="replace") for i in ids]
    return {"count": len(ids), "max_model_len": r.max_model_len, "tokens": ids, "token_strs": strs,
            "tokenizer": r.tokenizer.name, "exactness": r.exactness}


@router.post("/detokenize", response_model=VllmDetokenizeResponse, summary="vLLM-compatible: the text of token ids")
async def vllm_detokenize(body: VllmDetokenizeRequest, rt: RuntimeDep) -> dict:
    r = resolve(rt, body.model)
    check_ids(rt, body.tokens, r.tokenizer.n_vocab, "tokens")
    data = await rt.run(r.tokenizer.decode_bytes, body.tokens)
    return {"prompt": data.decode("utf-8", errors="replace"), "tokenizer": r.tokenizer.name, "exactness": r.exactness}


# -- Anthropic ---------------------------------------------------------------------------------
def _block_text(block: ContentBlock, where: str) -> str:
    extra = block.model_extra or {}
    if block.type == "text":
        return block.text or ""
    if block.type == "thinking":
        return str(extra.get("thinking", ""))
    if block.type == "tool_use":
        return f"{extra.get('name', '')} {json.dumps(extra.get('input', {}), ensure_ascii=False)}"
    if block.type == "tool_result":
        content = extra.get("content", "")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict) and c.get("type") == "text")
        return ""
    raise Problem(422, f"{where} is a {block.type!r} block; only text, thinking, tool_use and tool_result blocks can "
                  "be counted offline. Fix: leave images and documents out of the count", type_="unsupported-content")


def _texts(body: CountTokensRequest) -> list[str]:
    texts = []
    if isinstance(body.system, str):
        texts.append(body.system)
    elif body.system:
        texts += [_block_text(b, f"system[{i}]") for i, b in enumerate(body.system)]
    for i, m in enumerate(body.messages):
        if isinstance(m.content, str):
            texts.append(m.content)
        else:
            texts += [_block_text(b, f"messages[{i}].content[{j}]") for j, b in enumerate(m.content)]
    tools = (body.model_extra or {}).get("tools")
    if tools:
        texts.append(json.dumps(tools, ensure_ascii=False))
    return texts


@router.post("/v1/messages/count_tokens", response_model=CountTokensResponse,
             summary="Anthropic-compatible: input tokens of a Messages request (Claude 3+: an estimate)")
async def count_tokens(body: CountTokensRequest, rt: RuntimeDep) -> dict:
    check_limit(rt.settings.limits, "max_messages", len(body.messages), "{n:,} messages")
    try:  # the one Anthropic parser checks roles and content types, and names what it refuses
        parse_request(body.model_dump(exclude_none=True), shape="anthropic")
    except (UnknownName, BadInput) as e:
        raise Problem(422, str(e), type_="invalid-input") from None
    texts = _texts(body)
    check_texts(rt, texts, "message text")
    r = resolve(rt, body.model)
    n = sum(await rt.run(r.tokenizer.count_batch, texts, work=sum(map(len, texts)))) if texts else 0
    notes = [r.note] if r.note else []
    if r.chat is not None:
        n += r.chat.tokens(len(body.messages))
    else:
        notes.append("chat-format overhead unknown for this model: only the text is counted")
    if (body.model_extra or {}).get("tools"):
        notes.append("tool definitions counted as their JSON text (an estimate)")
    rt.metrics.count_tokens(r.tokenizer.name, n)
    exactness = r.exactness if not (body.model_extra or {}).get("tools") else "estimate"
    return {"input_tokens": n, "tokenizer": r.tokenizer.name, "exactness": exactness, "note": "; ".join(notes)}
