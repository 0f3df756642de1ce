"""Requests to a model: what a provider actually bills, not just a string.

`Request` is the one value every face parses its wire shape into (OpenAI chat and Responses,
Anthropic Messages, Gemini contents, plain text); everything downstream sees only `Request`.
`parse` reads any of those shapes (`shapes`), and `input_tokens` counts a request to a model in
the model's chat format (`count`, `formats`); `ignored_fields` names what a format leaves out.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .request import (
        AudioPart as AudioPart,
        FilePart as FilePart,
        ImagePart as ImagePart,
        VideoPart as VideoPart,
        Message as Message,
        Part as Part,
        ROLES as ROLES,
        Request as Request,
        TextPart as TextPart,
        ToolCall as ToolCall,
        ToolChoice as ToolChoice,
        ToolDef as ToolDef,
        ToolResult as ToolResult,
    )
    from .shapes import (
        MESSAGES_KEY as MESSAGES_KEY,
        SHAPES as SHAPES,
        detect_shape as detect_shape,
        parse as parse,
    )
    from .count import (
        Count as Count,
        RequestCounter as RequestCounter,
        counter_for as counter_for,
        input_tokens as input_tokens,
        prompt_tokens as prompt_tokens,
        request_counter as request_counter,
    )
    from .ignored import (
        ignored_fields as ignored_fields,
        ignored_note as ignored_note,
    )

# name -> its module, imported on first use (see analysis.lazy)
_LAZY: dict[str, str] = {
    **dict.fromkeys(('AudioPart', 'FilePart', 'ImagePart', 'Message', 'Part', 'ROLES', 'Request', 'TextPart', 'ToolCall', 'ToolChoice', 'ToolDef', 'ToolResult', 'VideoPart',), '.request'),
    **dict.fromkeys(('MESSAGES_KEY', 'SHAPES', 'detect_shape', 'parse',), '.shapes'),
    **dict.fromkeys(('Count', 'RequestCounter', 'counter_for', 'input_tokens', 'prompt_tokens', 'request_counter',), '.count'),
    **dict.fromkeys(('ignored_fields', 'ignored_note',), '.ignored'),
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
