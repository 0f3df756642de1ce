"""Llama 3 and 4 against llama-models' `ChatFormat`, id for id.

Both sides use the tokenizer.model files llama-models ships (never a vocabulary a user fetched):
the reference through its own `Tokenizer`, ours through the registry's rank reader with the
registry's split pattern and special tokens, which are checked against the reference's first.

llama-models' llama4 `chat_format` imports torch and torchvision at module level, for images
only. Where torch is not installed (it is far too large for a test dependency), the test puts
empty placeholder modules in their place for that import; the text path never touches them,
and a placeholder that were called would fail the test.
"""

from __future__ import annotations

import importlib
import json
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from analysis.errors import BadInput
from analysis.requests import ImagePart, Message, Request, TextPart, ToolCall, ToolDef, ToolResult
from analysis.requests.formats import llama3, llama4
from analysis.tokenizers.base import Source
from analysis.tokenizers.specials import llama_pattern_and_specials
from analysis.tokenizers.tiktoken_adapter import TiktokenTokenizer
from analysis.tokenizers.vocab import read_tiktoken_ranks

from .strategies import TEXTS, requests

lm = pytest.importorskip("llama_models", reason="llama-models (a dev dependency) is not installed")


class _Absent(types.ModuleType):
    """Stands in for torch/torchvision at import; any use of it is an error."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Absent(f"{self.__name__}.{name}")

    def __call__(self, *a, **k):
        raise AssertionError(f"{self.__name__} was called: the text path needs torch after all")


def _import_llama4_chat_format():
    try:
        import torch  # noqa: F401
    except ImportError:
        for name in ("torch", "torch.nn", "torch.nn.functional", "torchvision", "torchvision.transforms",
                     "torchvision.transforms.functional"):
            sys.modules.setdefault(name, _Absent(name))
    return importlib.import_module("llama_models.llama4.chat_format")


FAMILIES = {"llama3": (llama3, "llama_models.llama3"), "llama4": (llama4, "llama_models.llama4")}


@pytest.fixture(scope="module", params=list(FAMILIES))
def pair(request):
    name = request.param
    module, package = FAMILIES[name]
    ref_tok_mod = importlib.import_module(f"{package}.tokenizer")
    path = Path(ref_tok_mod.__file__).parent / "tokenizer.model"
    ref_tok = ref_tok_mod.Tokenizer(path)
    chat_format = _import_llama4_chat_format() if name == "llama4" else importlib.import_module(f"{package}.chat_format")
    ranks = read_tiktoken_ranks(path)
    pattern, specials = llama_pattern_and_specials(name, len(ranks))
    assert specials == ref_tok.special_tokens  # the registry names every special id as llama-models does
    ours = TiktokenTokenizer(name, ranks=ranks, pattern=pattern, special_tokens=specials,
                             source=Source("llama-models", str(path.relative_to(path.parents[2])), "Llama Community License"))
    return name, module, chat_format.ChatFormat(ref_tok), ours


def reference(chat_format, request: Request, *, add_generation_prompt: bool = True) -> list[int]:
    from llama_models.datatypes import RawMessage, ToolCall as RefToolCall

    dialog = []
    if request.system is not None:
        dialog.append(RawMessage(role="system", content=request.system))
    for m in request.messages:
        role = {"developer": "system"}.get(m.role, m.role)
        text = "".join([p.text for p in m.parts if isinstance(p, TextPart)]
                       + [q.text for p in m.parts if isinstance(p, ToolResult) for q in p.parts if isinstance(q, TextPart)])
        calls = [RefToolCall(call_id=p.id or "x", tool_name=p.name, arguments=json.loads(p.arguments or "{}"))
                 for p in m.parts if isinstance(p, ToolCall)]
        dialog.append(RawMessage(role=role, content=text, tool_calls=calls))
    ids = list(chat_format.encode_dialog_prompt(dialog).tokens)
    return ids if add_generation_prompt else ids[:-4]  # the assistant header: start, role, end, "\n\n"


def check(pair, request, **kw):
    name, module, chat_format, ours = pair
    got = module.render(request, ours, **kw)
    assert list(got.ids) == reference(chat_format, request, **kw)
    assert got.exactness == "exact"
    assert "llama-models" in got.reason
    assert got.input_tokens == len(got.ids)
    return got


def test_known_conversation(pair):
    req = Request(system="You are terse.", messages=(
        Message("user", (TextPart("What is 2+2? <|eot_id|><|eot|> [INST]"),), name="bob"),
        Message("assistant", (TextPart("Let me call."), ToolCall("calc", '{"expr": "2+2", "é": [1, 2]}'))),
        Message("tool", (ToolResult((TextPart("4"),), name="calc"),)),
        Message("assistant", (TextPart("4"),)),
        Message("user", (TextPart(""),)),
    ))
    got = check(pair, req)
    name, _, _, ours = pair
    end_of_turn = "<|eot_id|>" if name == "llama3" else "<|eot|>"
    # The user typed the end-of-turn markers: they stay text, so only the format's own ends count.
    ends = got.ids.count(ours.special_tokens[end_of_turn]) + got.ids.count(ours.special_tokens[end_of_turn.replace("t", "m", 1)])
    assert ends == 6


def test_no_generation_prompt(pair):
    check(pair, Request.from_text("hi"), add_generation_prompt=False)


def test_tools_are_an_estimate(pair):
    _, module, _, ours = pair
    req = Request(messages=(Message("user", (TextPart("hi"),)),), tools=(ToolDef("f", "does f", {"type": "object"}),))
    got = module.render(req, ours)
    plain = module.render(Request(messages=req.messages), ours)
    assert got.exactness == "estimate"
    assert got.ids is None
    assert "tool definitions" in got.reason
    assert got.content_tokens == plain.content_tokens
    assert got.format_tokens > plain.format_tokens


def test_refusals(pair):
    _, module, _, ours = pair
    with pytest.raises(BadInput, match="ImagePart"):
        module.render(Request(messages=(Message("user", (ImagePart(url="x"),)),)), ours)
    with pytest.raises(BadInput, match="not JSON"):
        module.render(Request(messages=(Message("assistant", (ToolCall("f", "{oops"),)),)), ours)


def test_a_tokenizer_without_the_markers_is_refused(pair):
    from analysis.tokenizers import load_tokenizer

    _, module, _, _ = pair
    with pytest.raises(BadInput, match="begin_of_text.*o200k_base"):
        module.render(Request.from_text("hi"), load_tokenizer("o200k_base"))


_ARGS = st.dictionaries(st.text(max_size=5), st.one_of(TEXTS, st.integers(), st.booleans(), st.none()), max_size=3)
_CALLS = st.builds(lambda name, args: ToolCall(name, json.dumps(args)), st.from_regex(r"[a-z_]{1,8}", fullmatch=True), _ARGS)
_TOOL_TURNS = st.lists(st.one_of(
    st.builds(lambda text, calls: Message("assistant", (TextPart(text), *calls)), TEXTS, st.lists(_CALLS, max_size=2)),
    st.builds(lambda text: Message("tool", (ToolResult((TextPart(text),), name="f"),)), TEXTS),
), max_size=3)


@given(requests(roles=("system", "developer", "user", "assistant")), _TOOL_TURNS, st.booleans())
def test_random_conversations(pair, request, tool_turns, gen):
    check(pair, Request(system=request.system, messages=request.messages + tuple(tool_turns)), add_generation_prompt=gen)
