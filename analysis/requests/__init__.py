"""Requests to a model: what a provider actually bills, not just a string.

`Request` is the one value every face parses its wire shape into (OpenAI chat and Responses,
Anthropic Messages, Gemini contents, plain text); everything downstream sees only `Request`.
"""

from .request import (
    AudioPart as AudioPart,
    FilePart as FilePart,
    ImagePart as ImagePart,
    Message as Message,
    Part as Part,
    ROLES as ROLES,
    Request as Request,
    TextPart as TextPart,
    ToolCall as ToolCall,
    ToolDef as ToolDef,
    ToolResult as ToolResult,
)
