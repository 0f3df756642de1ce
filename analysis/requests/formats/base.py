"""The shape every chat format shares: a request in, its ids (where exact) and its counts out.

Unlike the family modules beside it, this module renders nothing: it defines `Rendered`, the
result every format returns, and `ChatFormat`, the signature every format has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from ...contract import RequestExactness
from ...models.families import FAMILIES as FAMILIES  # named below the resolver, so a ModelSpec can name its family
from ...tokenizers import Tokenizer
from ..request import Request

Exactness = RequestExactness  # the contract's words for a request: exact, documented or estimate


@dataclass(frozen=True, slots=True)
class Span:
    """`ids[start:end]` are the format's own tokens (`kind="format"`) or a message's (`"content"`)."""
    start: int
    end: int
    kind: Literal["format", "content"]


@dataclass(frozen=True, slots=True)
class Rendered:
    """A request as a family's format renders it.

    `ids` is the whole prompt, where the format is built token by token (exact formats); it is
    None where the format is only counted by documented rules or estimated. `spans` tile `ids`.
    `input_tokens == content_tokens + format_tokens` always.
    """
    content_tokens: int
    format_tokens: int
    exactness: Exactness
    reason: str
    ids: tuple[int, ...] | None = None
    spans: tuple[Span, ...] = ()

    @property
    def input_tokens(self) -> int:
        return self.content_tokens + self.format_tokens


class ChatFormat(Protocol):
    def __call__(self, request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered: ...
