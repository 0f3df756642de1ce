"""The request-count routes, called by the official SDKs against a real server, and their refusals.

Each SDK (`openai`, `google-genai`, `anthropic`) and vLLM's documented body goes to a real
`tokenprism serve` started here with an API key, so each client's own way of sending the key is
exercised too; every count must equal `tokenprism count` on the same request. Nothing may leave
the machine: the SDK tests run with connections to anything but loopback refused.
"""

from __future__ import annotations

import io
import json
import socket
from contextlib import redirect_stdout

import pytest

from analysis.cli import main as cli_main
from analysis.requests import input_tokens, parse

from .conftest import KEY
from .server import serve

CHAT = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "How many tokens is this?"}]
TOOLS = [{"type": "function", "name": "get_weather", "description": "Weather in a city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]


def problem(r, status: int) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/problem+json")
    return r.json()


def cli_count(body, model: str, shape: str, tmp_path) -> dict:
    """The row `tokenprism count --messages FILE --shape SHAPE -m MODEL --format json` prints."""
    path = tmp_path / f"{shape}.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(["count", "--messages", str(path), "--shape", shape, "-m", model, "--format", "json"]) == 0
    (row,) = json.loads(out.getvalue())
    return row


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory):
    keys = tmp_path_factory.mktemp("keys") / "keys"
    keys.write_text(KEY + "\n", encoding="utf-8")
    with serve("--tokenizers", "o200k_base", "--api-key-file", str(keys)) as (url, proc, seconds):
        yield url


@pytest.fixture
def loopback_only(monkeypatch):
    """Refuse any connection but to 127.0.0.1 in this process: an SDK that phones home fails the test."""
    real = socket.socket.connect

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in ("127.0.0.1", "::1"):
            raise AssertionError(f"the test tried to reach {address!r}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)


# -- the official SDKs against a real server ------------------------------------------------------------
def test_openai_sdk_responses_input_tokens(keyed_server, loopback_only, tmp_path):
    openai = pytest.importorskip("openai", reason="the official openai SDK is a dev dependency")
    client = openai.OpenAI(base_url=keyed_server + "/v1", api_key=KEY, max_retries=0)
    plain = client.responses.input_tokens.count(model="gpt-4o", input="How many tokens is this?")
    assert plain.object == "response.input_tokens"
    plain_cli = cli_count({"input": "How many tokens is this?"}, "gpt-4o", "openai-responses", tmp_path)
    assert plain.input_tokens == plain_cli["input_tokens"]
    # One label everywhere: the CLI says what the service says of the same Responses body.
    assert (plain.model_extra or {})["exactness"] == plain_cli["exactness"] == "estimate"
    items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather in Oslo?"}]}]
    full = client.responses.input_tokens.count(model="gpt-5", instructions="You are terse.", input=items, tools=TOOLS)
    want = cli_count({"input": items, "instructions": "You are terse.", "tools": TOOLS}, "gpt-5", "openai-responses",
                     tmp_path)
    assert full.input_tokens == want["input_tokens"]
    extra = full.model_extra or {}
    assert extra["exactness"] == "estimate"  # OpenAI documents no Responses framing
    assert "Responses API" in extra["exactness_reason"]
    assert extra["content_tokens"] + extra["format_tokens"] == full.input_tokens
    with pytest.raises(openai.NotFoundError):
        client.responses.input_tokens.count(model="gpt-4oo", input="x")
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=keyed_server + "/v1", api_key="wrong-key-0123456789", max_retries=0
                      ).responses.input_tokens.count(model="gpt-4o", input="x")


def test_google_genai_sdk_count_tokens(keyed_server, loopback_only, tmp_path):
    genai = pytest.importorskip("google.genai", reason="the official google-genai SDK is a dev dependency")
    from google.genai import errors, types

    client = genai.Client(api_key=KEY, http_options=types.HttpOptions(base_url=keyed_server, api_version="v1beta"))
    contents = [types.Content(role="user", parts=[types.Part(text="How many tokens is this?")]),
                types.Content(role="model", parts=[types.Part(text="Six, give or take.")])]
    result = client.models.count_tokens(model="gemini-2.5-flash", contents=contents)
    body = {"contents": [{"role": c.role, "parts": [{"text": p.text} for p in c.parts or ()]} for c in contents]}
    assert result.total_tokens == cli_count(body, "gemini-2.5-flash", "gemini", tmp_path)["input_tokens"]
    assert client.models.count_tokens(model="models/gemini-2.5-flash", contents="hello").total_tokens == 1
    v1 = genai.Client(api_key=KEY, http_options=types.HttpOptions(base_url=keyed_server, api_version="v1"))
    assert v1.models.count_tokens(model="gemini-2.5-flash", contents="hello").total_tokens == 1
    with pytest.raises(errors.ClientError) as unknown:
        client.models.count_tokens(model="gemini-2.5-flashh", contents="hello")
    assert unknown.value.code == 404
    wrong = genai.Client(api_key="wrong-key-0123456789",  # kept in a name: a dropped Client closes its connection
                         http_options=types.HttpOptions(base_url=keyed_server, api_version="v1beta"))
    with pytest.raises(errors.ClientError) as unkeyed:
        wrong.models.count_tokens(model="gemini-2.5-flash", contents="x")
    assert unkeyed.value.code == 401


def test_anthropic_sdk_count_tokens_equals_cli(keyed_server, loopback_only, tmp_path):
    anthropic = pytest.importorskip("anthropic", reason="the official anthropic SDK is a dev dependency")
    client = anthropic.Anthropic(base_url=keyed_server, api_key=KEY, max_retries=0)
    tools = [{"name": "get_weather", "description": "Weather in a city", "input_schema": TOOLS[0]["parameters"]}]
    messages = [{"role": "user", "content": "Weather in Oslo?"}]
    result = client.messages.count_tokens(model="claude-sonnet-4-5", system="You are terse.", messages=messages,
                                          tools=tools)
    want = cli_count({"system": "You are terse.", "messages": messages, "tools": tools}, "claude-sonnet-4-5",
                     "anthropic", tmp_path)
    assert result.input_tokens == want["input_tokens"]
    assert (result.model_extra or {})["exactness"] == want["exactness"] == "estimate"
    with pytest.raises(anthropic.UnprocessableEntityError):
        client.messages.count_tokens(model="claude-sonnet-4-5", messages=[{"role": "wizard", "content": "hi"}])


# -- media parts through the SDKs: a stated image size (tokenprism's width/height keys), a Gemini clip --
def test_openai_and_anthropic_sdks_carry_a_stated_image_size(keyed_server, loopback_only, tmp_path):
    openai = pytest.importorskip("openai", reason="the official openai SDK is a dev dependency")
    anthropic = pytest.importorskip("anthropic", reason="the official anthropic SDK is a dev dependency")
    items = [{"role": "user", "content": [{"type": "input_text", "text": "What is this?"},
                                          {"type": "input_image", "image_url": "https://example.com/a.png",
                                           "detail": "high", "width": 1024, "height": 1024}]}]
    result = openai.OpenAI(base_url=keyed_server + "/v1", api_key=KEY, max_retries=0).responses.input_tokens.count(
        model="gpt-4o", input=items)
    want = cli_count({"input": items}, "gpt-4o", "openai-responses", tmp_path)
    assert result.input_tokens == want["input_tokens"] and want["media_tokens"] == 765  # the documented 1024x1024
    assert (result.model_extra or {})["media"][0]["part"] == "image 1024x1024 detail high"
    blocks = [{"type": "text", "text": "What is this?"},
              {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}, "width": 1000, "height": 1000}]
    client = anthropic.Anthropic(base_url=keyed_server, api_key=KEY, max_retries=0)
    counted = client.messages.count_tokens(model="claude-sonnet-4-5", messages=[{"role": "user", "content": blocks}])
    want = cli_count({"messages": [{"role": "user", "content": blocks}]}, "claude-sonnet-4-5", "anthropic", tmp_path)
    assert counted.input_tokens == want["input_tokens"] and want["media_tokens"] == 1334  # ceil(1000 x 1000 / 750)
    with pytest.raises(anthropic.UnprocessableEntityError):  # half a size is refused, naming the field
        client.messages.count_tokens(model="claude-sonnet-4-5", messages=[{"role": "user", "content": [
            {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}, "width": 1000}]}])


def test_google_genai_sdk_counts_a_clip_by_its_video_metadata(keyed_server, loopback_only, tmp_path):
    genai = pytest.importorskip("google.genai", reason="the official google-genai SDK is a dev dependency")
    from google.genai import types

    client = genai.Client(api_key=KEY, http_options=types.HttpOptions(base_url=keyed_server, api_version="v1beta"))
    clip = types.Part(file_data=types.FileData(file_uri="gs://bucket/talk.mp4", mime_type="video/mp4"),
                      video_metadata=types.VideoMetadata(start_offset="10s", end_offset="40s"))
    result = client.models.count_tokens(model="gemini-2.5-flash", contents=[
        types.Content(role="user", parts=[types.Part(text="Summarise."), clip])])
    body = {"contents": [{"role": "user", "parts": [{"text": "Summarise."}, {
        "fileData": {"fileUri": "gs://bucket/talk.mp4", "mimeType": "video/mp4"},
        "videoMetadata": {"startOffset": "10s", "endOffset": "40s"}}]}]}
    want = cli_count(body, "gemini-2.5-flash", "gemini", tmp_path)
    assert result.total_tokens == want["input_tokens"] and want["media_tokens"] == 30 * 263  # 30 s at 263 a second


def test_vllm_chat_tokenize_over_http(keyed_server, loopback_only, tmp_path):
    httpx = pytest.importorskip("httpx")
    headers = {"authorization": f"Bearer {KEY}"}
    body = {"model": "gpt-4o", "messages": CHAT, "add_generation_prompt": True, "return_token_strs": True}
    r = httpx.post(keyed_server + "/tokenize", json=body, headers=headers, timeout=30).json()
    assert r["count"] == cli_count({"messages": CHAT}, "gpt-4o", "openai-chat", tmp_path)["input_tokens"]
    assert r["max_model_len"] == 128000
    assert r["tokens"] is None and r["token_strs"] is None  # documented, not exact: no ids are made up
    assert "no token ids" in r["exactness_reason"]
    assert httpx.post(keyed_server + "/tokenize", json=body, timeout=30).status_code == 401


# -- in process: exact ids, refusals, keys ----------------------------------------------------------
def test_vllm_chat_ids_where_exact(client):
    body = {"model": "deepseek-v3", "messages": CHAT, "return_token_strs": True}
    r = client.post("/tokenize", json=body).json()
    want = input_tokens(parse({"messages": CHAT}, shape="openai-chat"), "deepseek-v3")
    assert r["exactness"] == "exact"
    assert r["tokens"] == list(want.ids) and r["count"] == len(r["tokens"]) == want.input_tokens
    assert "".join(r["token_strs"]) == "<｜begin▁of▁sentence｜>You are terse.<｜User｜>How many tokens is this?<｜Assistant｜>"
    bare = client.post("/tokenize", json={**body, "add_generation_prompt": False}).json()
    assert bare["count"] < r["count"] and r["tokens"][:bare["count"]] == bare["tokens"]
    assert "both" in problem(client.post("/tokenize", json={**body, "continue_final_message": True}), 422)["detail"]
    assert "not supported" in problem(client.post("/tokenize", json={**body, "add_generation_prompt": False,
                                                                     "continue_final_message": True}), 422)["detail"]
    assert "add_special_tokens" in problem(client.post("/tokenize", json={**body, "add_special_tokens": True}),
                                           422)["detail"]
    assert "exactly one" in problem(client.post("/tokenize", json={**body, "prompt": "x"}), 422)["detail"]


def test_v1_count_with_messages_equals_cli(client, tmp_path):
    r = client.post("/v1/count", json={"models": ["gpt-4o", "deepseek-v3"], "messages": CHAT})
    assert r.status_code == 200, r.text
    rows = r.json()["results"]
    assert [row["model"] for row in rows] == ["gpt-4o", "deepseek-v3"]
    for row in rows:
        assert row == cli_count(CHAT, row["model"], "openai-chat", tmp_path)
    tools = client.post("/v1/count", json={"model": "gpt-4o", "messages": CHAT, "tools": [
        {"type": "function", "function": {k: v for k, v in TOOLS[0].items() if k != "type"}}]}).json()["results"][0]
    assert tools["input_tokens"] > rows[0]["input_tokens"]
    gemini = client.post("/v1/count", json={"model": "gpt-4o", "shape": "gemini",
                                            "messages": [{"role": "user", "parts": [{"text": "hi"}]}]}).json()
    assert gemini["results"][0]["content_tokens"] == 1
    assert "not both" in problem(client.post("/v1/count", json={"model": "gpt-4o", "messages": CHAT, "text": "x"}),
                                 422)["detail"]
    assert "go with messages" in problem(client.post("/v1/count", json={"text": "x", "model": "gpt-4o"}), 422)["detail"]
    problem(client.post("/v1/count", json={"messages": CHAT}), 422)
    problem(client.post("/v1/count", json={"models": [], "messages": CHAT}), 422)
    assert "--max-models" in problem(client.post("/v1/count", json={"models": ["gpt-4o", "gpt-4", "gpt-4o-mini",
                                                                               "gpt-5"], "messages": CHAT}), 422)["detail"]


ROUTES = {
    "/v1/responses/input_tokens": lambda model, role: {"model": model, "input": [{"role": role, "content": "hi"}]},
    "/v1beta/models/{model}:countTokens": lambda model, role: {"contents": [{"role": role, "parts": [{"text": "hi"}]}]},
    "/v1/models/{model}:countTokens": lambda model, role: {"contents": [{"role": role, "parts": [{"text": "hi"}]}]},
    "/tokenize": lambda model, role: {"model": model, "messages": [{"role": role, "content": "hi"}]},
    "/v1/messages/count_tokens": lambda model, role: {"model": model, "messages": [{"role": role, "content": "hi"}]},
    "/v1/count": lambda model, role: {"model": model, "messages": [{"role": role, "content": "hi"}]},
}


@pytest.mark.parametrize("route", ROUTES)
def test_every_request_route_refuses_unknown_models_and_roles(client, route):
    ok_role = "model" if "countTokens" in route else "user"
    typo = problem(client.post(route.format(model="gpt-4oo"), json=ROUTES[route]("gpt-4oo", ok_role)), 404)
    assert "gpt-4o" in typo["valid"] and "did you mean gpt-4o" in typo["detail"]
    wizard = problem(client.post(route.format(model="gpt-4o"), json=ROUTES[route]("gpt-4o", "wizard")), 422)
    assert "unknown role 'wizard'" in wizard["detail"]
    assert client.post(route.format(model="gpt-4o"), json=ROUTES[route]("gpt-4o", ok_role)).status_code == 200


@pytest.mark.parametrize("route", ROUTES)
def test_every_request_route_takes_the_key(keyed_client, route):
    path, body = route.format(model="gpt-4o"), ROUTES[route]("gpt-4o", "user")
    assert problem(keyed_client.post(path, json=body), 401)["type"].endswith("missing-api-key")
    assert keyed_client.post(path, json=body, headers={"x-api-key": KEY}).status_code == 200


def test_gemini_key_header_and_query(keyed_client):
    body = {"contents": [{"parts": [{"text": "hello"}]}]}
    path = "/v1beta/models/gemini-2.5-flash:countTokens"
    r = keyed_client.post(path, json=body, headers={"x-goog-api-key": KEY})
    assert r.status_code == 200 and r.json()["totalTokens"] == 1
    assert r.json()["promptTokensDetails"] == [{"modality": "TEXT", "tokenCount": 1}]
    assert keyed_client.post(path + f"?key={KEY}", json=body).status_code == 200
    assert problem(keyed_client.post(path, json=body, headers={"x-goog-api-key": "nope"}), 401)
    assert "contents" in problem(keyed_client.post(path, json={}, headers={"x-goog-api-key": KEY}), 422)["detail"]


def test_responses_refuses_what_lives_on_openais_servers(client):
    for field, value in (("previous_response_id", "resp_123"), ("conversation", "conv_123")):
        r = problem(client.post("/v1/responses/input_tokens", json={"model": "gpt-4o", "input": "x", field: value}), 422)
        assert field in r["detail"] and "Fix" in r["detail"]
    assert "model is missing" in problem(client.post("/v1/responses/input_tokens", json={"input": "x"}), 422)["detail"]
    hosted = {"model": "gpt-4o", "input": "x", "tools": [{"type": "web_search"}]}
    assert "web_search" in problem(client.post("/v1/responses/input_tokens", json=hosted), 422)["detail"]
    schema = {"model": "gpt-4o", "input": "x", "text": {"format": {"type": "json_schema", "name": "a", "schema": {}}}}
    assert "JSON schema is not counted" in client.post("/v1/responses/input_tokens", json=schema).json()["exactness_reason"]
    cached = {"generateContentRequest": {"model": "models/gemini-2.5-flash", "cachedContent": "cachedContents/1",
                                         "contents": [{"parts": [{"text": "x"}]}]}}
    assert "cachedContent" in problem(client.post("/v1beta/models/gemini-2.5-flash:countTokens", json=cached),
                                      422)["detail"]
    only = client.post("/v1/responses/input_tokens", json={"model": "gpt-4o", "instructions": "Be brief."}).json()
    assert only["input_tokens"] > 0 and only["exactness"] == "estimate"


def test_every_text_a_request_carries_is_held_to_the_per_text_limit(client):
    """`Request.texts()`: a tool's description, a tool call's arguments and a message's second text part
    each meet --max-text-chars (50,000 here) apart, and the problem names the text's place among them."""
    big = "x" * 50_001
    tool = {"type": "function", "function": {"name": "t", "description": big, "parameters": {"type": "object"}}}
    detail = problem(client.post("/v1/count", json={"model": "gpt-4o", "messages": CHAT, "tools": [tool]}),
                     422)["detail"]
    # texts: the system message, the question, then the tool's name, description and schema
    assert detail.startswith("request text (a message, tool or tool argument)[3] has 50,001 characters"), detail
    call = [*CHAT, {"role": "assistant", "tool_calls": [{"id": "a", "type": "function",
                                                         "function": {"name": "t", "arguments": big}}]}]
    detail = problem(client.post("/v1/count", json={"model": "gpt-4o", "messages": call}), 422)["detail"]
    assert detail.startswith("request text (a message, tool or tool argument)[3] has 50,001 characters"), detail
    halves = [*CHAT[:1], {"role": "user", "content": [{"type": "text", "text": "x" * 30_000},
                                                     {"type": "text", "text": "y" * 30_000}]}]
    assert client.post("/v1/count", json={"model": "gpt-4o", "messages": halves}).status_code == 200  # apart, not joined
