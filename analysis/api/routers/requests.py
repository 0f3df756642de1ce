"""The one path every request-counting route takes: model checked, body parsed, `input_tokens` counted.

Unlike `compat` and `providers` (which speak the providers' wire shapes), this module holds what
those routes share, so each refuses the same things the same way: an unknown model is 404 with
the closest ids, a model whose tokenizer this server does not load is 404 naming the restart,
and an unknown role, content or item type is 422 naming where in the body it is (the parsers of
`analysis.requests` find them). No route reads messages itself.
"""

from __future__ import annotations

from typing import Any

from ...errors import BadInput, UnknownName, check_name, shown
from ...models import ModelSpec, resolve as resolve_model
from ...requests import Count, Request, input_tokens, parse
from ..problems import Problem, check_limit
from ..runtime import Runtime
from . import check_texts


async def served_spec(rt: Runtime, model: str) -> ModelSpec:
    """The model's spec when this server can count it: 404 (closest ids) or 422 (an empty id, or one
    over `MAX_NAME` characters, refused before any look-up) otherwise.

    The look-up runs in the encoding pool: an unknown id costs a closest-name search, which must
    not hold the event loop (and /healthz) while it runs."""
    if not rt.ready:
        raise rt.not_ready()
    try:
        check_name("model", model)
        spec = await rt.run(resolve_model, model)  # the one resolver: a misspelt id is refused, never matched by a glob
    except UnknownName as e:
        raise Problem(404, f"{e} Tokenizers served: {', '.join(rt.tokenizers)} (GET /v1/models lists the models)",
                      type_="unknown-model", valid=e.closest or list(rt.tokenizers)) from None
    except BadInput as e:  # an empty id
        raise Problem(422, str(e), type_="invalid-input") from None
    if spec.tokenizer is None:
        raise Problem(404, f"model {shown(model)} has no text tokenizer: {spec.reason}", type_="unknown-model",
                      valid=list(rt.tokenizers))
    choice = spec.choice()
    if not choice.usable:
        raise Problem(404, f"model {shown(model)} maps to tokenizer {choice.wanted!r}, which is {choice.status}; fix: "
                      f"fetch it, then restart the server with --tokenizers including {choice.wanted}",
                      type_="tokenizer-unavailable", valid=list(rt.tokenizers))
    if choice.tokenizer not in rt.tokenizers:
        raise Problem(404, f"model {shown(model)} is counted with {choice.tokenizer!r}, which this server does not load; "
                      f"restart it with --tokenizers including {choice.tokenizer}", type_="tokenizer-not-loaded",
                      valid=list(rt.tokenizers))
    return spec


def parse_body(body: Any, shape: str | None) -> Request:
    """A wire body (of `shape`, or detected) as a `Request`; what the parser refuses (a role, a content
    type, a body of no known shape) is 422 naming it."""
    try:
        return parse(body, shape=shape)
    except UnknownName as e:
        raise Problem(422, str(e), type_="invalid-input", valid=list(e.valid), closest=list(e.closest)) from None
    except BadInput as e:
        raise Problem(422, str(e), type_="invalid-input") from None


async def count_request(rt: Runtime, request: Request, model: str, *, add_generation_prompt: bool = True) -> Count:
    """`input_tokens` of a parsed request to a served model, within the server's limits."""
    spec = await served_spec(rt, model)
    check_limit(rt.settings.limits, "max_messages", len(request.messages), "{n:,} messages")
    texts = request.texts()  # every text it carries, each held to the per-text limit
    check_texts(rt, texts, "request text (a message, tool or tool argument)")
    count = await rt.run(input_tokens, request, spec, add_generation_prompt=add_generation_prompt,
                         work=sum(map(len, texts)) + 1)
    rt.metrics.count_tokens(count.tokenizer, count.input_tokens)
    return count
