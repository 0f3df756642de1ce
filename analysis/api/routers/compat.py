"""The shapes existing clients speak: vLLM's /tokenize and /detokenize, Anthropic's count_tokens.

Unlike `providers` (OpenAI's and Gemini's count endpoints), these are the self-hosting and
Anthropic shapes. A vLLM `prompt` is a text: `model` may be a model id or a tokenizer name, and
its `exactness` is the vocabulary's ("estimate" for a proxy, the JSON contract's word). vLLM `messages` and Anthropic
bodies are requests: they go through `requests.count_request` (the model's chat format, and
`exactness` exact, documented or estimate with its reason), never passing for more than they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from fastapi import APIRouter

from ...cost import find_model
from ...tokenizers import Tokenizer
from ..problems import Problem
from ..runtime import Runtime
from ..schemas import (
    CountTokensRequest, CountTokensResponse, VllmDetokenizeRequest, VllmDetokenizeResponse,
    VllmTokenizeRequest, VllmTokenizeResponse,
)
from . import ERRORS, RuntimeDep, check_texts
from .requests import count_request, parse_body, served_spec
from .tokenize import check_ids

router = APIRouter(tags=["compatible"], responses=ERRORS)


@dataclass(frozen=True)
class Resolved:
    tokenizer: Tokenizer
    exactness: str
    note: str
    max_model_len: int | None
    label: str  # the tokenizer as every face shows it: "~o200k_base" for a model's proxy vocabulary


@lru_cache(maxsize=1024)
def _context_window(model: str) -> int | None:
    try:
        _, info = find_model(model)
    except (KeyError, LookupError, ValueError):
        return None
    return info.context_window


async def resolve(rt: Runtime, model: str) -> Resolved:
    """The served tokenizer for a model id or tokenizer name, with its exactness; 404 otherwise."""
    if model in rt.tokenizers or not rt.ready:
        tok = rt.tokenizer(model)
        return Resolved(tok, "exact", "", None, tok.name)
    choice = (await served_spec(rt, model)).choice()
    assert choice.tokenizer is not None  # served_spec refuses a model without a usable tokenizer
    exactness = "exact" if choice.exactness == "exact" else "estimate"  # a text count of "none" has no tokenizer here
    return Resolved(rt.tokenizers[choice.tokenizer], exactness, choice.note, _context_window(model), choice.label)


# -- vLLM --------------------------------------------------------------------------------------
@router.post("/tokenize", response_model=VllmTokenizeResponse,
             summary="vLLM-compatible: token ids of a prompt, or of a chat (messages) in the model's format")
async def vllm_tokenize(body: VllmTokenizeRequest, rt: RuntimeDep) -> dict:
    if (body.prompt is None) == (body.messages is None):
        raise Problem(422, "give exactly one of prompt (a text) and messages (a chat), as vLLM's /tokenize takes",
                      type_="invalid-input")
    if body.messages is not None:
        return await _tokenize_chat(body, rt)
    assert body.prompt is not None
    check_texts(rt, [body.prompt], "prompt")
    r = await resolve(rt, body.model)
    ids = await rt.run(r.tokenizer.encode, body.prompt, work=len(body.prompt))
    rt.metrics.count_tokens(r.tokenizer.name, len(ids))
    # A prompt is encoded as it is: all content, no format (counts are ints on every route, never null).
    return {"count": len(ids), "max_model_len": r.max_model_len, "tokens": ids,
            "token_strs": _strs(r.tokenizer, ids) if body.return_token_strs else None,
            "tokenizer": r.label, "exactness": r.exactness, "exactness_reason": r.note or None,
            "content_tokens": len(ids), "format_tokens": 0}


def _strs(tokenizer: Tokenizer, ids: list[int]) -> list[str]:
    return [tokenizer.token_bytes(i).decode("utf-8", errors="replace") for i in ids]


async def _tokenize_chat(body: VllmTokenizeRequest, rt: RuntimeDep) -> dict:
    """vLLM's chat form: the prompt the model's chat template renders, counted by `input_tokens`.

    `tokens` are the rendered prompt's ids only where the count is exact (the model's own format
    and vocabulary); elsewhere they are null, never made up, and `exactness_reason` says why.
    """
    if body.continue_final_message:
        # vLLM refuses the pair; the single flag needs a format that leaves the last turn open,
        # which no format here renders yet, so a count would be wrong by that turn's end marker.
        fix = ("they cannot both be true" if body.add_generation_prompt else
               "not supported here: the chat formats close every message. Fix: leave it false (the count then "
               "includes the final message's end-of-turn tokens)")
        raise Problem(422, f"continue_final_message: {fix}", type_="invalid-input")
    if body.add_special_tokens:
        raise Problem(422, "add_special_tokens=true is not supported with messages: the chat format already writes "
                      "the special tokens its template holds, and vLLM would add a BOS on top. Fix: leave it false "
                      "(vLLM's default for messages)", type_="invalid-input")
    request = parse_body({"messages": body.messages, "tools": body.tools}, "openai-chat")
    count = await count_request(rt, request, body.model, add_generation_prompt=body.add_generation_prompt)
    ids = list(count.ids) if count.ids is not None else None
    strs = _strs(rt.tokenizers[count.tokenizer], ids) if body.return_token_strs and ids is not None else None
    reason = count.reason if ids is not None else "; ".join(filter(None, (
        count.reason, f"no token ids: the count is {count.exactness}, and only an exact count has them")))
    return {"count": count.input_tokens, "max_model_len": _context_window(body.model), "tokens": ids,
            "token_strs": strs, "tokenizer": (await served_spec(rt, body.model)).tokenizer_label(count.tokenizer),
            "exactness": count.exactness,
            "exactness_reason": reason, "content_tokens": count.content_tokens, "format_tokens": count.format_tokens}


@router.post("/detokenize", response_model=VllmDetokenizeResponse, summary="vLLM-compatible: the text of token ids")
async def vllm_detokenize(body: VllmDetokenizeRequest, rt: RuntimeDep) -> dict:
    r = await resolve(rt, body.model)
    check_ids(rt, body.tokens, r.tokenizer.n_vocab, "tokens")
    data = await rt.run(r.tokenizer.decode_bytes, body.tokens)
    return {"prompt": data.decode("utf-8", errors="replace"), "tokenizer": r.label, "exactness": r.exactness,
            "exactness_reason": r.note or None}


# -- Anthropic ---------------------------------------------------------------------------------
@router.post("/v1/messages/count_tokens", response_model=CountTokensResponse,
             summary="Anthropic-compatible: input tokens of a Messages request (Claude 3+: an estimate)")
async def count_tokens(body: CountTokensRequest, rt: RuntimeDep) -> dict:
    request = parse_body(body.model_dump(exclude_none=True), "anthropic")  # roles and block types checked here
    count = await count_request(rt, request, body.model)
    return {"input_tokens": count.input_tokens, "tokenizer": count.tokenizer, "exactness": count.exactness,
            "note": count.reason, "exactness_reason": count.reason}
