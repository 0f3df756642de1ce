"""llama.cpp's server shapes: POST /tokenize and /detokenize over the files of `--tokenizer-dir`.

Unlike `compat` (vLLM's shapes on the same two paths, for the tokenizers this server loaded),
these answer for a tokenizer file the client names: a ``.gguf`` (`gguf_build`) or a SentencePiece
``.model`` inside the folder the server was started with. The two shapes share the paths, so
these handlers come first and hand a body that is not llama.cpp's to vLLM's handlers:

- /tokenize: a body with ``content`` (and neither ``prompt`` nor ``messages``) is llama.cpp's:
  ``{"content", "add_special": false, "parse_special": true, "with_pieces": false, "model"}``
  answers ``{"tokens": [ids]}``, or ``{"tokens": [{"id", "piece"}]}`` with pieces, a piece being
  a string when its bytes are UTF-8 and a list of byte values otherwise (as llama.cpp's server).
  ``content`` may also be a list mixing strings and ids, as llama.cpp's ``tokenize_mixed`` takes.
- /detokenize: ``{"tokens": [ids], "model"}`` whose ``model`` is absent or a file of the folder
  answers ``{"content": text}``, the tokens' pieces joined (special tokens written as their text).

``model`` names a file of the folder by its name alone; with a single file it may be left out.
A name with a path in it, a hidden name, a link out of the folder or a missing file is problem
details (404/422) that names the file by its base name only, never the server's path.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError
from starlette.responses import JSONResponse

from ...errors import BadInput, UnknownName
from ...tokenizers import Tokenizer
from ...tokenizers.folder import SUFFIXES, folder_files
from ..problems import Problem
from ..runtime import Runtime
from ..schemas import VllmDetokenizeRequest, VllmDetokenizeResponse, VllmTokenizeRequest, VllmTokenizeResponse
from . import ERRORS, RuntimeDep, check_texts, compat
from .tokenize import check_ids

router = APIRouter(tags=["llama.cpp"], responses=ERRORS)


class _Files:
    """The folder's tokenizers, loaded on first use and kept (one lock per process: loads are rare)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.loaded: dict[str, tuple[Tokenizer, list[int], list[int]]] = {}


_files = _Files()


def _folder(rt: Runtime) -> Path:
    folder = rt.settings.tokenizer_dir
    if not folder:
        raise Problem(404, "this server has no tokenizer folder: llama.cpp's /tokenize and /detokenize shapes serve "
                      "files from one. Fix: start it with `tokenprism serve --tokenizer-dir DIR`, or send vLLM's "
                      "shape (model and prompt)", type_="no-tokenizer-dir")
    return Path(folder)


def _shown(name: str) -> str:
    """A client's name, cut short and with any path removed, for a message."""
    base = re.split(r"[\\/]", name)[-1]
    return repr(base[:80] + ("…" if len(base) > 80 else ""))


def _resolve(rt: Runtime, model: Any) -> tuple[str, Path]:
    folder = _folder(rt)
    files = folder_files(folder)
    if model is None:
        if len(files) != 1:
            raise Problem(422, f"name the tokenizer file in model: the folder holds {len(files)} files "
                          f"({', '.join(files[:20]) or 'none'})", type_="invalid-input", valid=files[:100])
        model = files[0]
    if not isinstance(model, str):
        raise Problem(422, "model must be a string: the name of a file in the server's tokenizer folder",
                      type_="invalid-input")
    if model != os.path.basename(model) or "\\" in model or model.startswith(".") or "\0" in model:
        raise Problem(422, f"model {_shown(model)} must be a file name inside the server's tokenizer folder, not a "
                      f"path. Valid: {', '.join(files[:20]) or 'none'}", type_="invalid-input", valid=files[:100])
    path = folder / model
    root = folder.resolve()
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        real = None
    if real is None or real.parent != root or not real.is_file() or path.suffix not in SUFFIXES:
        raise Problem(404, f"no tokenizer file {_shown(model)} in the server's tokenizer folder; valid: "
                      f"{', '.join(files[:20]) or 'none'}", type_="unknown-name", valid=files[:100])
    return model, real


def _scrub(message: str, *paths: Path) -> str:
    """A library message without the server's folders in it (file names stay)."""
    from ...tokenizers.fetch import data_dir

    for p in (*paths, data_dir()):
        message = message.replace(str(p) + os.sep, "").replace(str(p), "")
    return message


def _load(rt: Runtime, model: Any) -> tuple[Tokenizer, list[int], list[int]]:
    name, path = _resolve(rt, model)
    with _files.lock:
        got = _files.loaded.get(str(path))
        if got is not None:
            return got
        try:
            if path.suffix == ".gguf":
                from ...tokenizers.gguf_build import added_ids, build
                from ...tokenizers.gguf_reader import read_metadata

                meta = read_metadata(path)
                tok = build(meta)
                before, after = added_ids(meta)
            else:
                from ...tokenizers.sentencepiece_adapter import SentencePieceTokenizer
                from ...tokenizers.base import Source

                tok = SentencePieceTokenizer(f"sp:{name}", path, source=Source("", name, "see file"))
                bos = tok._sp.bos_id()
                before, after = ([bos] if bos >= 0 else []), []
        except (ValueError, OSError, KeyError) as e:
            raise Problem(422, f"{name}: {_scrub(str(e), path.parent)}", type_="bad-tokenizer-file") from None
        _files.loaded[str(path)] = (tok, before, after)
        return tok, before, after


def _split_specials(tok: Tokenizer, text: str) -> list[str | int]:
    """`text` cut at the special tokens' strings (longest first), which become their ids (parse_special)."""
    specials = tok.special_tokens
    if not specials or not any(s in text for s in specials):
        return [text]
    pattern = re.compile("|".join(map(re.escape, sorted(specials, key=len, reverse=True))))
    out: list[str | int] = []
    at = 0
    for m in pattern.finditer(text):
        if m.start() > at:
            out.append(text[at:m.start()])
        out.append(specials[m.group()])
        at = m.end()
    if at < len(text):
        out.append(text[at:])
    return out


def _tokenize(tok: Tokenizer, parts: list[str | int], parse_special: bool) -> list[int]:
    ids: list[int] = []
    for part in parts:
        if isinstance(part, int):
            ids.append(part)
            continue
        for piece in (_split_specials(tok, part) if parse_special else [part]):
            ids.extend([piece] if isinstance(piece, int) else tok.encode(piece))
    return ids


def _piece(tok: Tokenizer, i: int) -> str | list[int]:
    data = tok.token_bytes(i)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return list(data)


def _flag(body: dict, key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise Problem(422, f"{key} must be true or false, got {type(value).__name__}", type_="invalid-input")
    return value


async def _json(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as e:  # as FastAPI answers a body it cannot decode
        pos = getattr(e, "pos", 0)
        raise RequestValidationError([{"type": "json_invalid", "loc": ("body", pos), "msg": "JSON decode error",
                                       "input": {}, "ctx": {"error": getattr(e, "msg", type(e).__name__)}}]) from None


def _vllm(model_type: type[BaseModel], body: Any) -> Any:
    try:
        return model_type.model_validate(body)
    except ValidationError as e:  # the same 422 as when FastAPI validates the body itself
        raise RequestValidationError([{**err, "loc": ("body", *err["loc"])} for err in e.errors()]) from None


def _is_llamacpp_detokenize(rt: Runtime, body: dict) -> bool:
    model = body.get("model")
    if not rt.settings.tokenizer_dir:
        return False
    return model is None or (isinstance(model, str) and model.endswith(SUFFIXES))


@router.post("/tokenize", include_in_schema=False)
async def tokenize(request: Request, rt: RuntimeDep) -> Any:
    body = await _json(request)
    if not (isinstance(body, dict) and "content" in body and "prompt" not in body and "messages" not in body):
        out = await compat.vllm_tokenize(_vllm(VllmTokenizeRequest, body), rt)
        return JSONResponse(VllmTokenizeResponse.model_validate(out).model_dump(mode="json"))
    content = body["content"]
    parts = [content] if isinstance(content, str) else content
    if not isinstance(parts, list) or not all(isinstance(p, (str, int)) and not isinstance(p, bool) for p in parts):
        raise Problem(422, "content must be a string, or a list of strings and token ids", type_="invalid-input")
    add_special, parse_special = _flag(body, "add_special", False), _flag(body, "parse_special", True)
    with_pieces = _flag(body, "with_pieces", False)
    check_texts(rt, [p for p in parts if isinstance(p, str)], "content")
    tok, before, after = _load(rt, body.get("model"))
    check_ids(rt, [p for p in parts if isinstance(p, int)], tok.n_vocab, "content")
    try:
        ids = await rt.run(_tokenize, tok, parts, parse_special, work=sum(len(p) for p in parts if isinstance(p, str)))
    except (BadInput, UnknownName) as e:
        raise Problem(422, _scrub(str(e), _folder(rt)), type_="invalid-input") from None
    if add_special:
        ids = [*before, *ids, *after]
    rt.metrics.count_tokens(tok.name, len(ids))
    tokens: list[Any] = [{"id": i, "piece": _piece(tok, i)} for i in ids] if with_pieces else ids
    return JSONResponse({"tokens": tokens})


@router.post("/detokenize", include_in_schema=False)
async def detokenize(request: Request, rt: RuntimeDep) -> Any:
    body = await _json(request)
    if not (isinstance(body, dict) and _is_llamacpp_detokenize(rt, body)):
        out = await compat.vllm_detokenize(_vllm(VllmDetokenizeRequest, body), rt)
        return JSONResponse(VllmDetokenizeResponse.model_validate(out).model_dump(mode="json"))
    tokens = body.get("tokens", [])
    if not isinstance(tokens, list) or not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
        raise Problem(422, "tokens must be a list of token ids (integers)", type_="invalid-input")
    tok, _, _ = _load(rt, body.get("model"))
    check_ids(rt, tokens, tok.n_vocab, "tokens")
    data = await rt.run(tok.decode_bytes, tokens, work=len(tokens))
    return JSONResponse(jsonable_encoder({"content": data.decode("utf-8", errors="replace")}))
