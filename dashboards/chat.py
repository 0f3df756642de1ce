"""The Compare page's Chat mode: a messages editor, the request count per model, the format drawn apart.

Unlike the Text mode (one text under tokenizers, in the page script), this mode counts a chat
request the way each model's provider does, through `analysis.requests.input_tokens`, so every
number equals `tokenprism count --messages` for the same request. Where a model's format is
rendered token by token (exact), the prompt is drawn with the format's tokens greyed; elsewhere
the content is drawn and the format's tokens are a labelled number.

The request lives in the link as one JSON parameter, `chat` ({"messages": [...], "tools": [...]}),
the models as `chat_models`. Dropped images join the last user message as image parts of their real
size, read from each file's own header (`analysis.requests.mediaread`), and each model prices them by
its provider's rule; an upload is not carried by the link.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd
import streamlit as st

from analysis.errors import BadInput, UnknownName
from analysis.render import HIGHLIGHT_CHARS, highlight_prefix, html_prompt, html_tokens, markdown_text
from analysis.textio import MAX_INPUT_CHARS, json_text
from analysis.requests import Count, prompt_tokens
from analysis.requests.mediaread import image_size
from dashboards import links, look, shared

ROLES = ("system", "user", "assistant")
DEFAULT_MODELS = ("openai:gpt-4o", "openai:gpt-oss-120b", "groq:qwen/qwen3-32b", "anthropic:claude-sonnet-4-5")
DEFAULT_CHAT = {"messages": [{"role": "system", "content": "You are terse."},
                             {"role": "user", "name": "ann", "content": "How many tokens is this?"}]}
LINK_PARAMS = [
    links.Param("chat", "a chat request as JSON", max_chars=links.LINK_MAX_TEXT),
    links.Param("chat_models", "model ids", multi=True),
]
_EDITOR = "chat_editor"
IMAGE_TYPES = ["png", "jpg", "jpeg", "gif", "webp"]
DETAILS = ("auto", "low", "high")
NOT_COUNTED = shared.whole_tokens(None)  # the product's word for media no rule counts ("not counted")
MAX_IMAGE_BYTES = 20_000_000  # OpenAI's and Anthropic's own per-image limits are of this order


def _cell(value: Any) -> str | None:
    """An editor cell as text; empty, None and NaN (a new row's blank cell) are None."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value)
    return text if text.strip() else None


def _frame(chat: dict[str, Any]) -> pd.DataFrame:
    rows = [{"role": m.get("role"), "name": m.get("name"), "content": m.get("content")} for m in chat["messages"]]
    return pd.DataFrame(rows, columns=["role", "name", "content"]).astype("object")


def _linked_chat() -> tuple[dict[str, Any], str | None]:
    """The chat of the link (or the default), and what is wrong with the link's, if anything."""
    raw = st.query_params.get("chat")
    if raw is None:
        return DEFAULT_CHAT, None
    form = '{"messages": [{"role": "user", "content": "..."}]}. The example chat is shown instead.'
    try:
        chat = json_text.read_json(raw, source="The link's chat could not be read", what=f"it should be {form}")
        if not isinstance(chat, dict) or not isinstance(chat.get("messages"), list):
            raise ValueError("it holds no \"messages\" list")
        for m in chat["messages"]:
            if not isinstance(m, dict) or not isinstance(m.get("content", ""), str):
                raise ValueError("each message is an object with a text \"content\"")
        return chat, None
    except BadInput as e:
        return DEFAULT_CHAT, str(e)
    except ValueError as e:
        return DEFAULT_CHAT, f"The link's chat could not be read ({e}); it should be {form}"


def request_body(edited: pd.DataFrame, tools_text: str) -> dict[str, Any]:
    """The editor's rows and the tools text as an OpenAI Chat Completions body (blank rows dropped)."""
    messages = []
    for row in edited.to_dict("records"):
        role, name, content = _cell(row.get("role")), _cell(row.get("name")), row.get("content")
        content = "" if _cell(content) is None and not isinstance(content, str) else str(content)
        if role is None and not content:
            continue
        message: dict[str, Any] = {"role": role or "user", "content": content}
        if name:
            message["name"] = name
        messages.append(message)
    body: dict[str, Any] = {"messages": messages}
    if tools_text.strip():
        body["tools"] = json_text.read_json(tools_text, source="the tools", what='give a list of tool definitions, e.g. '
                                            '[{"type": "function", "function": {"name": ...}}]')
    return body


def with_images(body: dict[str, Any], images: list[tuple[str, bytes]], detail: str = "auto") -> dict[str, Any]:
    """`body` with each (file name, bytes) image joined to its last user message (a new one if there
    is none) as an OpenAI image part stating the size its header gives: the part tokenprism's
    `width`/`height` keys carry, so each model prices it by its rule without the bytes in the body.

    Raises:
        BadInput: a file whose header is not a PNG, JPEG, GIF or WebP image's, or one too large.
    """
    if not images:
        return body
    parts: list[dict[str, Any]] = []
    for name, data in images:
        if len(data) > MAX_IMAGE_BYTES:
            raise BadInput(f"{name} is {len(data) / 1e6:,.1f} MB; images up to {MAX_IMAGE_BYTES // 1_000_000} MB "
                           "are counted here")
        size = image_size(data)
        if size is None:
            raise BadInput(f"{name}: its size could not be read, as it is not a PNG, JPEG, GIF or WebP image; "
                           "drop one of those")
        parts.append({"type": "image_url", "image_url": {"url": name, "detail": detail},
                      "width": size[0], "height": size[1]})
    messages = [dict(m) for m in body["messages"]]
    last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "user"), None)
    if last is None:
        messages.append({"role": "user", "content": parts})
    else:
        text = messages[last]["content"]
        messages[last]["content"] = ([{"type": "text", "text": text}] if text else []) + parts
    return {**body, "messages": messages}


def show() -> None:
    """Draw the Chat mode (the page's link parameters are checked by the page before this runs)."""
    chat, link_problem = _linked_chat()
    raw = st.query_params.get("chat")
    if st.session_state.get("_chat_link") != raw or "_chat_rows" not in st.session_state:
        # A new link (or the first run) seeds the editor; the editor keeps its edits after that.
        st.session_state["_chat_link"] = raw
        st.session_state["_chat_rows"] = _frame(chat)
        st.session_state["chat_tools"] = json.dumps(chat["tools"], indent=1) if chat.get("tools") else ""
        st.session_state.pop(_EDITOR, None)
    if link_problem:
        st.warning(markdown_text(link_problem), icon=":material/link_off:")

    st.caption("Edit the messages (add a row at the bottom; a name is optional). Each model counts the request "
               "the way its provider does: your text plus the chat format around it.")
    edited = st.data_editor(
        st.session_state["_chat_rows"], key=_EDITOR, num_rows="dynamic", hide_index=True, width="stretch",
        column_config={
            "role": st.column_config.SelectboxColumn("role", options=list(ROLES), required=True, default="user"),
            "name": st.column_config.TextColumn("name", help="optional: a participant's name (OpenAI's `name`)"),
            "content": st.column_config.TextColumn("content", width="large"),
        })
    tools_text = st.text_area("Tools (optional, JSON)", key="chat_tools", height=90,
                              placeholder='[{"type": "function", "function": {"name": "get_weather", "parameters": {...}}}]',
                              help="OpenAI tool definitions; each format counts them its own way.")
    dropped = st.file_uploader("Images (optional)", type=IMAGE_TYPES, accept_multiple_files=True, key="chat_images",
                               help="Dropped images join the last user message. Each is counted by its own size "
                                    "(read from the file's header) under each model's rule; the link does not "
                                    "carry them.")
    detail = st.segmented_control("Image detail", DETAILS, default="auto", key="chat_image_detail",
                                  help="OpenAI's detail (auto is counted as high, the upper figure); the other "
                                       "providers' rules do not read it.") or "auto"
    models = st.multiselect("Models", shared.model_choices(), default=list(DEFAULT_MODELS), key="chat_models",
                            bind="query-params", accept_new_options=True,
                            help="Any model id `tokenprism count -m` takes; type one that is not listed.")
    try:
        body = request_body(edited, tools_text)
    except BadInput as e:
        st.error(markdown_text(str(e)))
        st.stop()
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    carried = len(text) <= links.LINK_MAX_TEXT
    if carried and body != DEFAULT_CHAT:
        if st.query_params.get("chat") != text:
            st.query_params["chat"] = text
        st.session_state["_chat_link"] = text  # our own write is not a new link
    elif "chat" in st.query_params:
        del st.query_params["chat"]
        st.session_state["_chat_link"] = None
    note = "" if carried else (f"The chat is longer than {links.LINK_MAX_TEXT:,} characters, so the link holds the "
                               "models only.")
    links.copy_link("", note=" ".join(filter(None, [note, "The link does not carry the dropped images." if dropped
                                                    else ""])))
    if not body["messages"]:
        st.warning("Add at least one message.")
        st.stop()
    size = len(tools_text) + sum(len(m["content"]) + len(m.get("name") or "") for m in body["messages"])
    if size > MAX_INPUT_CHARS:  # Text mode's limit, over the whole request
        st.warning(f"The request has {size:,} characters of messages and tools; the limit here is "
                   f"{MAX_INPUT_CHARS:,}. Trim it, or count it without a limit with the CLI: "
                   "tokenprism count --messages FILE")
        st.stop()
    if not models:
        st.warning("Pick at least one model.")
        st.stop()
    try:
        counted = with_images(body, [(f.name, f.getvalue()) for f in dropped or ()], detail)
    except BadInput as e:
        st.error(str(e), icon=":material/image_not_supported:")
        counted = body
    counted_text = json.dumps(counted, ensure_ascii=False, separators=(",", ":"))
    counts = _counts(counted_text, models)
    if not counts:
        st.stop()
    # the tools' own part: what each count takes with the tools, beyond the same request without them
    bare = ({c.model: shared.request_count(json.dumps({**counted, "tools": []}), c.model) for c in counts}
            if body.get("tools") else {})
    rows = [_row(c, bare.get(c.model)) for c in counts]
    if any(isinstance(r["media_tokens"], str) for r in rows):  # a column of one type: the numbers as words too
        rows = [{**r, "media_tokens": shared.whole_tokens(r["media_tokens"]) if isinstance(r["media_tokens"], int)
                 else r["media_tokens"]} for r in rows]
    st.table(pd.DataFrame(rows), hide_index=True)
    for c in counts:
        st.caption(f"**{markdown_text(c.model)}** · {c.exactness}: {c.reason}")
        if note := shared.request_ignored(counted_text, c.model):  # a field the format drops: the same count without it
            st.caption(f"**{markdown_text(c.model)}** · {markdown_text(note)}")
    if any(c.media for c in counts):
        st.markdown("**Images, by each model's rule**")
        st.table(pd.DataFrame([{"model": c.model, "part": line.part, "tokens": shared.whole_tokens(line.tokens),
                                "exactness": line.exactness, "rule": line.note, "source": line.source}
                               for c in counts for line in c.media]), hide_index=True)
    _draw(counts, body, bare)


def tool_part(count: Count, bare: Count | None) -> int:
    """The tokens `count` spends on its tool definitions: its input beyond `bare`'s, the same request
    without tools (0 without tools). Filed apart from the format, whose tokens they were counted in."""
    return 0 if bare is None else count.input_tokens - bare.input_tokens


def _row(count: Count, bare: Count | None) -> dict[str, Any]:
    row = {k: v for k, v in count.row().items() if k not in ("exactness_reason", "media")}
    row["media_tokens"] = media_cell(count)
    row["tokenizer"] = shared.tokenizer_label(count)
    tools = tool_part(count, bare)
    if bare is not None:  # format_tokens without the tools, then the tools' own column
        at = list(row).index("format_tokens") + 1
        items = list(row.items())
        items[at - 1] = ("format_tokens", row["format_tokens"] - tools)
        row = dict([*items[:at], ("tool_tokens", tools), *items[at:]])
    return row


def media_cell(count: Count) -> int | str:
    """The media tokens of `count` as the Chat table shows them: the number where the model counts
    every media part (0 without media), "not counted" where it counts none (no rule of its provider
    prices them: a number would read as zero tokens), and the number with the parts left out where
    it counts some.

    >>> from analysis.requests.media import MediaLine
    >>> def count(*lines):
    ...     return Count("m", "t", None, None, sum(x.tokens or 0 for x in lines), lines)  # type: ignore[arg-type]
    >>> media_cell(count()), media_cell(count(MediaLine("image", 765, "documented")))
    (0, 765)
    >>> media_cell(count(MediaLine("image", None, "not counted")))
    'not counted'
    >>> media_cell(count(MediaLine("image", 1105, "documented"), MediaLine("file", None, "not counted")))
    '1,105 (1 part not counted)'
    """
    left_out = sum(line.tokens is None for line in count.media)
    if not left_out:
        return count.media_tokens
    if left_out == len(count.media):
        return NOT_COUNTED
    return f"{count.media_tokens:,} ({left_out} part{'s' if left_out > 1 else ''} {NOT_COUNTED})"


def media_words(count: Count) -> str:
    """The media part of a count's sum in words: " + 765 media", " + media not counted", or "" without media."""
    if not count.media:
        return ""
    cell = media_cell(count)
    if cell == NOT_COUNTED:
        return f" + media {NOT_COUNTED}"
    return f" + {cell:,} media" if isinstance(cell, int) else f" + {cell.replace(' (', ' media (', 1)}"


def tool_positions(ids: tuple[int, ...], bare_ids: tuple[int, ...]) -> set[int]:
    """The positions of `ids` (a prompt rendered with tools) that `bare_ids` (the same prompt
    without them) does not have: the tokens the tool definitions add, wherever the format puts them.

    >>> sorted(tool_positions((1, 2, 7, 8, 3), (1, 2, 3)))
    [2, 3]
    """
    import difflib

    added: set[int] = set()
    for op, i1, i2, _, _ in difflib.SequenceMatcher(a=ids, b=bare_ids, autojunk=False).get_opcodes():
        if op in ("delete", "replace"):
            added.update(range(i1, i2))
    return added


def _counts(text: str, models: list[str]) -> list[Count]:
    """One count per model; a refused model or request is a message, never an exception. A problem
    of the request itself (tools given as an object, an unknown role) is said once, naming the
    models it stops, not once per model."""
    out = []
    refused: dict[str, list[str]] = {}
    for model in models:
        problem = shared.model_problem(model)
        if problem:
            st.error(markdown_text(problem), icon=":material/error:")  # it quotes the id typed or linked
            continue
        try:
            out.append(shared.request_count(text, model))
        except (BadInput, UnknownName) as e:
            refused.setdefault(str(e), []).append(model)
    for message, names in refused.items():
        st.error(markdown_text(f"{', '.join(names)}: {message}"), icon=":material/error:")
    return out


def drawn_prompt(tokens: list[tuple[int, bytes, str]], limit: int = HIGHLIGHT_CHARS) -> list[tuple[int, bytes, str]]:
    """The first of a prompt's tokens, up to about `limit` characters of them: what Chat mode draws.

    Text mode draws a text up to `HIGHLIGHT_CHARS` characters; a chat is held to the same bound,
    counted in the bytes of its tokens (format and content alike), so a long chat's drawing stays
    as large as a long text's.

    >>> len(drawn_prompt([(1, b"ab", "content")] * 10, limit=5))
    3
    """
    out, size = [], 0
    for token in tokens:
        if size >= limit:
            break
        out.append(token)
        size += len(token[1])
    return out


def drawn_texts(texts: list[str], limit: int = HIGHLIGHT_CHARS) -> list[str]:
    """The messages' texts as drawn: in order, cut (at a line break when one is near) once `limit`
    characters are drawn.

    >>> drawn_texts(["abc", "defg", "hij"], limit=5)
    ['abc', 'de']
    """
    out, left = [], limit
    for text in texts:
        if left <= 0:
            break
        out.append(highlight_prefix(text, limit=left))
        left -= len(out[-1])
    return out


def _draw(counts: list[Count], body: dict[str, Any], bare: dict[str, Count]) -> None:
    st.subheader("Tokens of the request")
    st.html(look.CHAT_LEGEND)
    for c in counts:
        tools = tool_part(c, bare.get(c.model))
        parts = (f"{c.format_tokens - tools:,} format + {tools:,} tools" if c.model in bare
                 else f"{c.format_tokens:,} format")
        media = media_words(c)
        st.markdown(f"**{markdown_text(c.model)}** · {c.input_tokens:,} tokens = {c.content_tokens:,} content + {parts}"
                    f"{media} · {c.exactness}")
        if c.ids is not None:
            tokens = prompt_tokens(c)
            other = bare.get(c.model)
            if other is not None and other.ids is not None:
                added = tool_positions(c.ids, other.ids)
                tokens = [(i, b, "tool" if n in added and kind == "format" else kind)
                          for n, (i, b, kind) in enumerate(tokens)]
            shown = drawn_prompt(tokens)
            if len(shown) < len(tokens):
                st.caption(f"Drawing the first {len(shown):,} of {len(tokens):,} tokens (the counts are for all of them).")
            st.html(look.Html(html_prompt(shown)))
            continue
        # Not rendered token by token: the content as the model's tokenizer cuts it, the format a number.
        tok = shared.tokenizer(c.tokenizer)
        texts = [m["content"] for m in body["messages"] if m["content"]]
        shown_texts = drawn_texts(texts)
        if sum(map(len, shown_texts)) < sum(map(len, texts)):
            st.caption(f"Drawing the first {sum(map(len, shown_texts)):,} of {sum(map(len, texts)):,} characters of the "
                       "messages (the counts are for all of them).")
        st.html(look.Html("".join(html_tokens(t, tok.pieces(t)) for t in shown_texts)))
        st.caption(f"Chat format: +{c.format_tokens - tools:,} tokens"
                   + (f"; tools: +{tools:,} tokens" if c.model in bare else "")
                   + f", counted ({c.exactness}), not drawn: this model's chat format is not rendered token by token here.")
