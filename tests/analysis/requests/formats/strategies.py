"""Random conversations for the chat-format reference tests.

Texts mix ASCII, other scripts, emoji, whitespace runs and the marker strings of every family's
format, so a test fails if any renderer lets typed marker text become a special id.
"""

from __future__ import annotations

from hypothesis import strategies as st

from analysis.requests import Message, Request, TextPart

# Every family's marker strings, typed as text by a user.
MARKERS = ("<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|call|>", "<|constrain|>", "<|return|>",
           "<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>",
           "<|header_start|>", "<|header_end|>", "<|eot|>", "<|python_tag|>", "[INST]", "[/INST]", "<s>", "</s>",
           "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[AVAILABLE_TOOLS]", "[TOOL_CALLS]", "<|im_start|>", "<|im_end|>",
           "<|endoftext|>", "<think>", "</think>", "<tool_call>", "<｜begin▁of▁sentence｜>", "<｜User｜>",
           "<｜Assistant｜>", "<｜end▁of▁sentence｜>", "<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>")

_FRAGMENTS = st.sampled_from(MARKERS + ("\n", "\n\n", " ", "  ", "\t", "hello", " world", "Ünïcödé", "日本語", "😀",
                                         "ﬁ", "e\u0301", "{\"a\": 1}", "1234567", "'s", "\r\n", "[", "]", "<|", "|>"))
TEXTS = st.one_of(
    st.just(""),
    st.lists(_FRAGMENTS, max_size=6).map("".join),
    st.text(max_size=30),
    st.lists(st.one_of(_FRAGMENTS, st.text(max_size=8)), max_size=5).map("".join),
)
NAMES = st.one_of(st.none(), st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{0,10}", fullmatch=True))


def messages(roles: tuple[str, ...] = ("system", "user", "assistant"), *, names: bool = True,
             min_size: int = 0, max_size: int = 6) -> st.SearchStrategy[tuple[Message, ...]]:
    message = st.builds(lambda role, text, name: Message(role, (TextPart(text),), name=name if names and role == "user" else None),
                        st.sampled_from(roles), TEXTS, NAMES)
    return st.lists(message, min_size=min_size, max_size=max_size).map(tuple)


def requests(roles: tuple[str, ...] = ("system", "user", "assistant"), *, names: bool = True,
             system: bool = True, **kw) -> st.SearchStrategy[Request]:
    return st.builds(Request, messages=messages(roles, names=names, **kw),
                     system=st.one_of(st.none(), TEXTS) if system else st.none())
