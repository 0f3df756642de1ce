"""Llama 4's header-token chat format, id for id as llama-models' llama4 `ChatFormat` encodes it.

Unlike Llama 3 (`llama3`, where the shape is built), only the markers differ: `<|header_start|>`
and `<|header_end|>` around the role, `<|eot|>` after a turn, and `<|eom|>` after an assistant
turn that calls tools and after a tool's reply. Reference:
`llama_models.llama4.chat_format.ChatFormat.encode_dialog_prompt` (llama-models 0.3.0), tested id
for id with the tokenizer.model that package ships.
"""

from __future__ import annotations

from ...tokenizers import Tokenizer
from ..request import Request
from .base import Rendered
from .llama3 import LLAMA4, render_headers


def render(request: Request, tokenizer: Tokenizer, *, add_generation_prompt: bool = True) -> Rendered:
    """The Llama 4 prompt of `request` (see `llama3` for how a request maps)."""
    return render_headers(request, tokenizer, LLAMA4, add_generation_prompt=add_generation_prompt)
