"""The service's request and response bodies as pydantic models: together they are the OpenAPI schema.

Unlike `settings` (limits that change per deployment), these describe shapes only; limits are
checked in the handlers, so a deployment can raise them without a different schema. The
compatibility shapes (vLLM's /tokenize, Anthropic's count_tokens) keep the field names those
clients send and read, and add `tokenizer`/`exactness` so an estimate is never taken for an
exact count.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool, create_model

from ..errors import shown
from ..contract import RequestExactness as RequestExactness, TextExactness

# The contract's words: a model's text (its own vocabulary, a proxy, none) and a request's count
# (`analysis.requests.Count`: the model's own format and vocabulary, the provider's published
# rules, or an estimate that `exactness_reason` explains).
Exactness = TextExactness


PART_SIZE = ("A media part may state its size beside the provider's own fields, the same keys in every shape: "
             "`width` and `height` (whole pixels) of an image given by URL, `seconds` of an audio or video clip. "
             "Media are priced by each model's rule (`media` in the answer); an inline image's or clip's own header "
             "wins over a stated size; a URL is never fetched.")


# A number a client sends: a JSON number, or a string of ASCII digits (a string keeps a decimal
# exact). Python's Decimal would also take "1_000", " 5 " and "٥"; a client that sends those means
# something else, so they are refused by name. Booleans are JSON booleans (`StrictBool`): "yes" is
# not true.
_ASCII_NUMBER = re.compile(r"-?(?:[0-9]{1,40}(?:\.[0-9]{0,40})?|\.[0-9]{1,40})(?:[eE][+-]?[0-9]{1,4})?", re.ASCII)


def _ascii_number(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    if isinstance(value, str) and not _ASCII_NUMBER.fullmatch(value):
        raise ValueError(f"must be a number in ASCII digits, such as 1000 or \"0.25\", got {shown(value, 40)}")
    return value


AsciiDecimal = Annotated[Decimal, BeforeValidator(_ascii_number)]


class Strict(BaseModel):
    """Native bodies: unknown fields are an error (a typo must not be ignored silently)."""

    model_config = ConfigDict(extra="forbid")


class ProblemDetails(BaseModel):
    """RFC 9457 problem details: every error response."""

    type: str = Field(description="urn:tokenprism:problem:<slug>")
    title: str
    status: int
    detail: str = Field(description="what went wrong and how to fix it")
    instance: str | None = None
    valid: list[str] | None = Field(None, description="the valid names, for an unknown tokenizer")
    errors: list[dict[str, str]] | None = Field(None, description="schema problems: field and problem")


# -- tokenizers and counting ---------------------------------------------------------------------
class TokenizerInfo(BaseModel):
    name: str
    family: str
    n_vocab: int
    description: str
    source: str = Field(description="the package and file the vocabulary comes from")
    licence: str


class TokenizersResponse(BaseModel):
    tokenizers: list[TokenizerInfo]


class CountRequest(Strict):
    """Texts x tokenizers (`text`/`texts`, `tokenizers`), or a request x models (`messages`, `model`/`models`)."""

    text: str | None = Field(None, description="one text (give text or texts)")
    texts: list[str] | None = Field(None, description="a batch of texts (give text or texts)")
    tokenizers: list[str] | None = Field(None, description="tokenizer names; default: every tokenizer this server loaded")
    messages: list[dict[str, Any]] | None = Field(
        None, description="a chat (OpenAI chat, Anthropic, Responses items or Gemini contents), counted per model. "
        + PART_SIZE)
    model: str | None = Field(None, description="with messages: one model id (give model or models)")
    models: list[str] | None = Field(None, description="with messages: model ids (give model or models)")
    tools: list[dict[str, Any]] | None = Field(None, description="with messages: tool definitions in the same shape")
    shape: Literal["openai-chat", "openai-responses", "anthropic", "gemini"] | None = Field(
        None, description="with messages: the shape (default: detected)")

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"text": "hello", "tokenizers": ["o200k_base"]},
                     {"model": "gpt-4o", "messages": [{"role": "user", "content": "hello"}]},
                     {"models": ["gpt-4o", "claude-sonnet-4-5"], "messages": [{"role": "user", "content": [
                         {"type": "text", "text": "What is in this picture?"},
                         {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "high"},
                          "width": 1024, "height": 768}]}]}]})


class MediaLine(BaseModel):
    """One media part's count (`analysis.requests.media.MediaLine.row`)."""

    part: str = Field(description='what the part is, e.g. "image 1024x1024 detail high"')
    tokens: int | None = Field(description="null: not counted (note says why and the fix)")
    exactness: Literal["documented", "estimate", "not counted"]
    note: str
    source: str = Field(description="the provider's page the rule comes from")


class RequestCount(BaseModel):
    """The fields of every request count (`analysis.requests.Count.row`)."""

    tokenizer: str
    input_tokens: int
    content_tokens: int = Field(description="the tokens of the text the caller wrote")
    format_tokens: int = Field(description="the tokens the model's chat format adds around it")
    media_tokens: int = Field(0, description="the tokens of the images, audio and PDFs, by the provider's rule")
    media: list[MediaLine] | None = Field(None, description="one line per media part (present when there are any)")
    exactness: RequestExactness
    exactness_reason: str


class RequestCountRow(RequestCount):
    """One model's count of the request: the row of `tokenprism count --format json`."""

    model: str


class RequestCountResponse(BaseModel):
    results: list[RequestCountRow] = Field(description="one row per model, in the order given")


class CountRow(BaseModel):
    text_index: int = Field(description="position of the text in the request (0 for `text`)")
    tokenizer: str
    family: str
    n_vocab: int
    n_tokens: int
    n_chars: int = Field(description="Unicode code points")
    n_bytes: int = Field(description="UTF-8 bytes")
    chars_per_token: float | None = Field(description="null for an empty text")
    bytes_per_token: float | None = Field(description="null for an empty text")


class CountResponse(BaseModel):
    n_texts: int
    results: list[CountRow] = Field(description="one row per text x tokenizer, text-major: the numbers of `tokenprism compare`")


class TokenizeRequest(Strict):
    text: str
    tokenizer: str = "o200k_base"
    pieces: StrictBool = Field(False, description="also return each token's bytes and character offsets")


class PieceOut(BaseModel):
    id: int
    text: str = Field(description="the token's bytes as UTF-8; a partial character shows as U+FFFD")
    bytes_hex: str
    start: int = Field(description="character offset where the token starts in the text")
    end: int = Field(description="character offset where it ends (start == end for a continuation of a split character)")
    partial: bool = Field(description="the token holds part of a character's UTF-8 bytes")


class TokenizeResponse(BaseModel):
    tokenizer: str
    n_tokens: int
    ids: list[int]
    pieces: list[PieceOut] | None = None


class DetokenizeRequest(Strict):
    ids: list[int]
    tokenizer: str = "o200k_base"


class DetokenizeResponse(BaseModel):
    tokenizer: str
    text: str = Field(description="the decoded text; bytes that are not whole UTF-8 characters become U+FFFD")
    n_bytes: int
    complete_utf8: bool = Field(description="false when the ids end or start inside a character")


class ExplainRequest(Strict):
    text: str
    tokenizer: str = "o200k_base"


class MergeOut(BaseModel):
    rank: int
    left: str
    right: str
    result: str
    result_id: int


class ExplainPiece(BaseModel):
    text: str = Field(description="the pre-token")
    start: int
    end: int
    special: bool
    whole_piece_in_vocab: bool = Field(description="the pre-token is one token and is taken whole")
    ids: list[int]
    tokens: list[str] = Field(description="each token as text; bytes that are not whole characters as <xx>")
    merges: list[MergeOut] = Field(description="the merges that fired, in order")


class ExplainResponse(BaseModel):
    tokenizer: str
    n_tokens: int
    pieces: list[ExplainPiece]


# -- models and cost ---------------------------------------------------------------------------
_MODEL_MONEY = ("usd_per_mtok_input", "usd_per_mtok_cached_input", "usd_per_mtok_output")
_MODEL_FIELDS: dict[str, Any] = {c: (str | None, None) for c in (
    "model", "name", *_MODEL_MONEY, "tiers", "price_remark", "tokenizer", "tokenizer_status", "price_source",
    "price_as_of", "note")}
ModelRow = create_model(
    "ModelRow",
    __doc__="One priced model; money in USD as exact decimal strings, null where there is no price.",
    **_MODEL_FIELDS,
    exactness=(Exactness, ...),
)


class ModelsResponse(BaseModel):
    price_source: str
    models: list[ModelRow]  # type: ignore[valid-type]


class CostRequest(Strict):
    text: str | None = Field(None, description="the prompt of one request (give text or texts)")
    texts: list[str] | None = Field(None, description="one request per text")
    models: list[str] | None = Field(None, description="model ids or provider:model; default: a cross-provider selection")
    requests_per_month: AsciiDecimal = Field(description="a non-negative number (a string keeps it exact)")
    output_tokens: AsciiDecimal | None = Field(None, description="output tokens per request (give this or output_ratio)")
    output_ratio: AsciiDecimal | None = Field(None, description="output tokens = ratio x content tokens (the text, not the chat format's tokens)")
    cached_share: AsciiDecimal | None = Field(None, description="share (0..1) of input tokens read from the prompt cache; "
                                         "with a shared prefix it replaces each model's simulated cache (0: no cache)")
    messages_per_request: int = Field(1, description="chat messages per request: 1 counts each text as `tokenprism count` "
                                      "does; N > 1 the format of N turns (an estimate); 0 the raw text, no chat format")
    chars_per_request: AsciiDecimal | None = Field(None, description="scale each text to this many characters")
    reasoning_tokens: AsciiDecimal | None = Field(None, description="reasoning tokens per request on models that reason "
                                             "(billed as output); without it or reasoning_ratio such a model's row "
                                             "says 'reasoning not included'")
    reasoning_ratio: AsciiDecimal | None = Field(None, description="reasoning tokens = ratio x visible output tokens, "
                                            "on models that reason")
    batch: StrictBool = Field(False, description="price every model at genai-prices' batch price (a model without one "
                        "is refused as a 422 problem)")
    service_tier: Literal["default", "flex", "priority"] | None = Field(
        None, description="price every model at this service tier (genai-prices'; a model without it is refused)")
    on: date | None = Field(None, description="the day whose prices apply (default: today, UTC)")
    fallback_tokenizer: str | None = Field(None, description="count unmapped models with this tokenizer, labelled an estimate")
    system: str | None = Field(None, description="a system prompt every request shares. With it (or tools, "
                               "requests_per_lifetime, cache_breakpoints) each text is priced as a request after the "
                               "shared prefix, each model's prompt cache by its own rule, and the response is "
                               "`tokenprism cost TEXT --system S --format json`'s (cached_share then overrides every rule)")
    tools: list[dict[str, Any]] | None = Field(None, description="OpenAI function tools every request shares: part of the prefix")
    requests_per_lifetime: AsciiDecimal | None = Field(None, description="requests per cache lifetime of each model (above 0, "
                                                  "at most 1e9), as a stream already running; default: one burst")
    cache_breakpoints: Literal["request", "auto"] = Field(
        "request", description="where an Anthropic-style cache may write: the request's own cache_control (a text has "
                               "none), or auto: after the system prompt and tools and after the message")

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"text": "Summarise this contract.", "models": ["gpt-4o", "claude-sonnet-4-5"],
         "requests_per_month": 100000, "output_tokens": 300},
        {"text": "Where is parcel 7?", "system": "You are a support agent...", "requests_per_lifetime": 10,
         "cache_breakpoints": "auto", "models": ["gpt-4.1", "claude-sonnet-4-5"], "requests_per_month": 100000,
         "output_tokens": 300}]})


def _row_model(name: str, doc: str, columns: list[str]) -> type[BaseModel]:
    def kind(c: str) -> Any:  # the JSON contract (analysis/contract.py), by column name
        if c == "parts":
            return list[dict[str, Any]] | None  # the bill by part: tokens, rate, USD, exactness
        if c.startswith("usd_"):
            return str | None  # money: a decimal string with 10 places
        if c == "n_requests" or c.endswith("_tokens"):
            return int | None  # a token count
        if c.endswith(("_per_request", "_per_token")) or c == "chars_per_request":
            return float | None  # a ratio: a mean per request
        return str | None
    fields: dict[str, Any] = {c: (kind(c), None) for c in columns}
    return create_model(name, __doc__=doc, **fields)


def _cost_columns() -> tuple[list[str], list[str]]:
    from ..cost import CATEGORY_COLUMNS, MODEL_COLUMNS

    return MODEL_COLUMNS, CATEGORY_COLUMNS


CostModelRow = _row_model("CostModelRow", "One model's cost; money as exact decimal strings, null = no price.",
                          _cost_columns()[0])
CostCategoryRow = _row_model("CostCategoryRow", "One model x category.", _cost_columns()[1])


class CostResponse(BaseModel):
    """The same document as `tokenprism cost --format json`."""

    price_source: str
    prices_on: str
    workload: dict[str, Any]
    input: dict[str, int]
    models: list[CostModelRow]  # type: ignore[valid-type]
    categories: list[CostCategoryRow]  # type: ignore[valid-type]
    notes: list[str] = Field(description="what every reader must know: ESTIMATE lines name the models counted by a proxy")


class SharedPrefixCostResponse(BaseModel):
    """The same document as `tokenprism cost TEXT --system S --format json`: each text priced as a
    request after the shared prefix, each model's prompt cache simulated by its own rule."""

    estimate: bool
    price_source: str
    prices_on: str
    source: str
    log: str = Field(description="what the requests are")
    n_rows: int
    usd_as_served: str | None
    usd_as_billed: str | None
    usd_recounted_billed: str | None
    n_billed: int
    headlines: list[str]
    models: list[dict[str, Any]] = Field(description="one row per model, as `cost --logs --format json`: tokens by "
                                         "part, cache_read_tokens, cache_write_tokens, cache_rule, reasoning_tokens "
                                         "and reasoning_source, usd_total, usd_per_month, parts with their exactness")
    days: list[dict[str, Any]]
    served: list[dict[str, Any]]
    calibration: list[dict[str, Any]]
    calibration_rows: list[dict[str, Any]]
    notes: list[str]


# -- compatibility shapes ------------------------------------------------------------------------
class Loose(BaseModel):
    """Compatibility bodies: fields this service does not use are accepted and ignored, as
    the original servers evolve and clients send more than we read."""

    model_config = ConfigDict(extra="allow")


class VllmTokenizeRequest(Loose):
    """vLLM's two forms: `prompt` (a text), or `messages` (a chat rendered in the model's format)."""

    model: str = Field(description="a model id (gpt-4o, claude-sonnet-4-5, ...); with prompt also a tokenizer name")
    prompt: str | None = Field(None, description="a text (give prompt or messages)")
    messages: list[dict[str, Any]] | None = Field(None, description="OpenAI chat messages (give prompt or messages)")
    tools: list[dict[str, Any]] | None = Field(None, description="with messages: OpenAI function tools")
    add_generation_prompt: StrictBool = Field(True, description="with messages: count the header that primes the reply")
    continue_final_message: StrictBool = Field(False, description="with messages: not supported (refused when true)")
    add_special_tokens: StrictBool | None = Field(
        None, description="prompt: accepted, no BOS/EOS ids are added; messages: only false (the template writes them)")
    return_token_strs: StrictBool = False


class VllmTokenizeResponse(BaseModel):
    count: int
    max_model_len: int | None = Field(description="the model's context window when the price data knows it")
    tokens: list[int] | None = Field(description="the ids; null for messages whose count is not exact (never made up)")
    token_strs: list[str] | None = None
    tokenizer: str
    exactness: RequestExactness
    exactness_reason: str | None = Field(None, description="messages: why the count is as exact as it says")
    content_tokens: int | None = Field(None, description="the tokens of the text the caller wrote (a prompt: all of them)")
    format_tokens: int | None = Field(None, description="the tokens the model's chat format adds (a prompt: 0)")


class VllmDetokenizeRequest(Loose):
    model: str
    tokens: list[int]


class VllmDetokenizeResponse(BaseModel):
    prompt: str
    tokenizer: str
    exactness: RequestExactness
    exactness_reason: str | None = Field(None, description="why the ids are another vocabulary's (a proxy), if they are")


class ContentBlock(Loose):
    """An Anthropic content block; an image block may state its size (tokenprism's extension)."""

    type: str
    text: str | None = None
    width: int | None = Field(None, ge=1, description="an image block: its width in pixels, where its source is a URL. "
                              + PART_SIZE)
    height: int | None = Field(None, ge=1, description="an image block: its height in pixels (give both or neither)")


class Message(Loose):
    role: str
    content: str | list[ContentBlock]


class CountTokensRequest(Loose):
    model: str
    messages: list[Message] = Field(min_length=1, description="at least one message, as Anthropic requires")
    system: str | list[ContentBlock] | None = None


class CountTokensResponse(BaseModel):
    input_tokens: int
    tokenizer: str = Field(description="the tokenizer that counted")
    exactness: RequestExactness = Field(description="estimate: not the model's own count (see exactness_reason)")
    exactness_reason: str = ""
    note: str = Field("", description="the same as exactness_reason (kept for older clients)")


class ResponsesInputTokensRequest(Loose):
    """The body of the `openai` SDK's `client.responses.input_tokens.count(...)`."""

    model: str | None = Field(None, description="a model id; required here (OpenAI's default model is not ours to guess)")
    input: str | list[dict[str, Any]] | None = Field(None, description="a text, or Responses input items. " + PART_SIZE)
    instructions: str | None = None
    tools: list[dict[str, Any]] | None = Field(None, description="function tools (hosted tools are refused)")
    tool_choice: str | dict[str, Any] | None = None
    conversation: str | dict[str, Any] | None = Field(None, description="refused: its items are on OpenAI's servers")
    previous_response_id: str | None = Field(None, description="refused: its items are on OpenAI's servers")


class ResponsesInputTokensResponse(RequestCount):
    """OpenAI's two fields, then ours: the format's part of an OpenAI model's count is an estimate."""

    object: Literal["response.input_tokens"] = "response.input_tokens"


class GeminiCountTokensRequest(Loose):
    """The body of `google-genai`'s `client.models.count_tokens(...)` (REST camelCase, or snake_case)."""

    contents: list[dict[str, Any]] | None = Field(
        None, description="Gemini contents (give this or generateContentRequest). A part's `mediaResolution`, else "
        "`generationConfig.mediaResolution`, sets each medium's budget; a video's length is its inline MP4 header's, "
        "its `videoMetadata` offsets' or its stated `seconds`. " + PART_SIZE)
    generationConfig: dict[str, Any] | None = Field(None, description="read for its mediaResolution only")
    generateContentRequest: dict[str, Any] | None = Field(None, description="a whole generateContent body")
    systemInstruction: dict[str, Any] | str | None = None
    tools: list[dict[str, Any]] | None = None


class ModalityTokenCount(BaseModel):
    modality: Literal["TEXT", "IMAGE", "AUDIO", "VIDEO", "DOCUMENT"]
    tokenCount: int


class GeminiCountTokensResponse(BaseModel):
    totalTokens: int
    promptTokensDetails: list[ModalityTokenCount]
    tokenizer: str
    exactness: RequestExactness
    exactnessReason: str


class Health(BaseModel):
    status: str


class Readiness(BaseModel):
    status: str
    tokenizers: list[str]
    seconds_to_ready: float | None
    unavailable: dict[str, str] = Field(default_factory=dict,
                                        description="tokenizers that failed to load (name -> why); the others are served")
    engines_built: bool = Field(False, description=(
        "whether every tokenizer's engine is built: ready answers at once (short texts are encoded from "
        "the rank tables), the engines for long texts and heavy traffic are built in the background"))
