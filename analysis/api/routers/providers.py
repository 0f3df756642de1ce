"""The providers' own count endpoints: OpenAI's Responses `input_tokens` and Gemini's `countTokens`.

Unlike `compat` (vLLM's and Anthropic's shapes, which tokenprism spoke first), these two answer
the official `openai` and `google-genai` SDKs with `base_url` pointed here, so a program that
asks its provider for a count gets it offline. Both parse through `analysis.requests` and count
through `requests.count_request`; the answer keeps the provider's fields and adds ours
(`tokenizer`, `exactness` and its reason), which the SDKs read past.
"""

from __future__ import annotations

from fastapi import APIRouter

from ..problems import Problem
from ..schemas import (
    GeminiCountTokensRequest, GeminiCountTokensResponse, ResponsesInputTokensRequest, ResponsesInputTokensResponse,
)
from . import ERRORS, RuntimeDep
from .requests import count_request, parse_body

router = APIRouter(tags=["providers"], responses=ERRORS)

@router.post("/v1/responses/input_tokens", response_model=ResponsesInputTokensResponse,
             summary="OpenAI-compatible: input tokens of a Responses request (the format's part an estimate)")
async def responses_input_tokens(body: ResponsesInputTokensRequest, rt: RuntimeDep) -> dict:
    if body.model is None:
        raise Problem(422, "model is missing: name the model to count for, e.g. model='gpt-4o'", type_="invalid-input")
    for field in ("conversation", "previous_response_id"):
        if getattr(body, field) is not None:
            raise Problem(422, f"{field} refers to items stored on OpenAI's servers, which an offline count cannot "
                          "read. Fix: send those items in input instead", type_="invalid-input")
    raw = body.model_dump(exclude_none=True)
    raw.setdefault("input", [])  # instructions alone are a request too
    request = parse_body(raw, "openai-responses")
    count = await count_request(rt, request, body.model)
    exactness, reason = count.exactness, count.reason
    text_format = (body.model_extra or {}).get("text")
    if isinstance(text_format, dict) and isinstance(text_format.get("format"), dict) \
            and text_format["format"].get("type") == "json_schema":
        exactness, reason = "estimate", f"{reason}; text.format's JSON schema is not counted"
    return {"object": "response.input_tokens", "input_tokens": count.input_tokens, "tokenizer": count.tokenizer,
            "exactness": exactness, "exactness_reason": reason, "content_tokens": count.content_tokens,
            "format_tokens": count.format_tokens, "media_tokens": count.media_tokens,
            "media": [line.row() for line in count.media] or None}


_MODALITY = {"image": "IMAGE", "audio": "AUDIO", "video": "VIDEO", "pdf": "DOCUMENT"}


async def _gemini_count(model: str, body: GeminiCountTokensRequest, rt: RuntimeDep) -> dict:
    raw = body.model_dump(exclude_none=True)
    if "contents" not in raw and "generateContentRequest" not in raw:
        raise Problem(422, "give contents (a list of {role, parts}) or generateContentRequest", type_="invalid-input")
    inner = raw.get("generateContentRequest")
    if "cachedContent" in raw or (isinstance(inner, dict) and "cachedContent" in inner):
        raise Problem(422, "cachedContent refers to content stored on Google's servers, which an offline count "
                      "cannot read. Fix: send that content in contents instead", type_="invalid-input")
    request = parse_body(raw, "gemini")
    count = await count_request(rt, request, model)
    # Text (and tools as text) under TEXT; media parts by their rule under their modality.
    details = {"TEXT": count.input_tokens - count.media_tokens}
    for line in count.media:
        modality = _MODALITY.get(line.part.split(" ", 1)[0], "DOCUMENT")
        details[modality] = details.get(modality, 0) + (line.tokens or 0)
    return {"totalTokens": count.input_tokens,
            "promptTokensDetails": [{"modality": k, "tokenCount": v} for k, v in details.items()],
            "tokenizer": count.tokenizer, "exactness": count.exactness, "exactnessReason": count.reason}


@router.post("/v1beta/models/{model}:countTokens", response_model=GeminiCountTokensResponse,
             summary="Gemini-compatible: tokens of contents (exact with Gemma 3's vocabulary where fetched)")
async def gemini_count_tokens(model: str, body: GeminiCountTokensRequest, rt: RuntimeDep) -> dict:
    return await _gemini_count(model, body, rt)


@router.post("/v1/models/{model}:countTokens", response_model=GeminiCountTokensResponse,
             summary="Gemini-compatible, the v1 path (the SDK's api_version='v1')")
async def gemini_count_tokens_v1(model: str, body: GeminiCountTokensRequest, rt: RuntimeDep) -> dict:
    return await _gemini_count(model, body, rt)
