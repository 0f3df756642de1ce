"""The tokenizers, and one text's ids, pieces and merges: /v1/tokenizers, /v1/tokenize,
/v1/detokenize and /v1/explain."""

from __future__ import annotations

from fastapi import APIRouter

from ...lab.explain import explain as explain_text
from ...lab.trace import show_token
from ...tokenizers import CATALOGUE
from ..problems import Problem, check_limit
from ..runtime import Runtime
from ..schemas import (
    DetokenizeRequest, DetokenizeResponse, ExplainRequest, ExplainResponse, TokenizeRequest, TokenizeResponse,
    TokenizersResponse,
)
from . import ERRORS, RuntimeDep, check_texts

router = APIRouter(tags=["tokenize"], responses=ERRORS)


@router.get("/v1/tokenizers", response_model=TokenizersResponse, summary="The tokenizers this server serves")
async def tokenizers(rt: RuntimeDep) -> dict:
    toks = rt.select(None)
    rows = []
    for tok in toks:
        entry = CATALOGUE.get(tok.name)
        rows.append({"name": tok.name, "family": tok.family, "n_vocab": tok.n_vocab,
                     "description": entry.description if entry else "", "source": str(tok.source),
                     "licence": tok.source.licence})
    return {"tokenizers": rows}


def _pieces(tok, text: str) -> list[dict]:
    return [{"id": p.id, "text": p.text, "bytes_hex": p.bytes.hex(), "start": p.start, "end": p.end,
             "partial": p.partial} for p in tok.pieces(text)]


@router.post("/v1/tokenize", response_model=TokenizeResponse, response_model_exclude_none=True,
             summary="Token ids of a text, and optionally each token's bytes and character offsets")
async def tokenize(body: TokenizeRequest, rt: RuntimeDep) -> dict:
    check_texts(rt, [body.text], "text")
    tok = rt.tokenizer(body.tokenizer)
    if body.pieces:
        pieces = await rt.run(_pieces, tok, body.text)
        ids = [p["id"] for p in pieces]
    else:
        pieces, ids = None, await rt.run(tok.encode, body.text, work=len(body.text))
    rt.metrics.count_tokens(tok.name, len(ids))
    return {"tokenizer": tok.name, "n_tokens": len(ids), "ids": ids, "pieces": pieces}


def check_ids(rt: Runtime, ids: list[int], n_vocab: int, field: str) -> None:
    check_limit(rt.settings.limits, "max_ids", len(ids), "{n:,} ids in one request", "split them")
    bad = next((i for i in ids if not 0 <= i < n_vocab), None)
    if bad is not None:
        raise Problem(422, f"{field} holds {bad}, which is not a token id of this tokenizer (valid: 0..{n_vocab - 1})",
                      type_="invalid-input")


@router.post("/v1/detokenize", response_model=DetokenizeResponse, summary="The text of token ids")
async def detokenize(body: DetokenizeRequest, rt: RuntimeDep) -> dict:
    tok = rt.tokenizer(body.tokenizer)
    check_ids(rt, body.ids, tok.n_vocab, "ids")
    data = await rt.run(tok.decode_bytes, body.ids)
    text = data.decode("utf-8", errors="replace")
    try:
        data.decode("utf-8")
        complete = True
    except UnicodeDecodeError:
        complete = False
    return {"tokenizer": tok.name, "text": text, "n_bytes": len(data), "complete_utf8": complete}


def _explain(text: str, name: str) -> list[dict]:
    out = []
    for p in explain_text(text, name):
        out.append({"text": p.text, "start": p.start, "end": p.end, "special": p.special,
                    "whole_piece_in_vocab": p.direct, "ids": list(p.ids), "tokens": [show_token(t) for t in p.tokens],
                    "merges": [{"rank": m.rank, "left": show_token(m.left), "right": show_token(m.right),
                                "result": show_token(m.result), "result_id": m.result_id} for m in p.steps]})
    return out


@router.post("/v1/explain", response_model=ExplainResponse,
             summary="The BPE merges behind each token of a text (tiktoken-family tokenizers and ownbpe)")
async def explain(body: ExplainRequest, rt: RuntimeDep) -> dict:
    check_limit(rt.settings.limits, "max_explain_chars", len(body.text),
                "text has {n:,} characters, and explain records each merge of each", "explain a shorter passage")
    tok = rt.tokenizer(body.tokenizer)
    pieces = await rt.run(_explain, body.text, tok.name)
    return {"tokenizer": tok.name, "n_tokens": sum(len(p["ids"]) for p in pieces), "pieces": pieces}
