"""The count routes with media: Gemini's countTokens splits TEXT from IMAGE by the rule's count."""

from __future__ import annotations

import base64

from tests.analysis.requests.test_media import png


def test_gemini_count_tokens_route_splits_modalities(client):
    data = base64.b64encode(png(100, 100)).decode()
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}, {"inlineData": {"mimeType": "image/png", "data": data}}]}]}
    r = client.post("/v1beta/models/gemini-2.5-flash:countTokens", json=body).json()
    details = {d["modality"]: d["tokenCount"] for d in r["promptTokensDetails"]}
    assert details["IMAGE"] == 258 and r["totalTokens"] == details["TEXT"] + 258


def test_v1_count_prices_an_image_by_the_size_its_part_states(client):
    part = {"type": "image_url", "image_url": {"url": "https://example.com/a.png", "detail": "high"}}
    body = {"models": ["gpt-4o", "claude-sonnet-4-5"], "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What is this?"}, dict(part, width=1024, height=1024)]}]}
    rows = {r["model"]: r for r in client.post("/v1/count", json=body).json()["results"]}
    assert rows["gpt-4o"]["media_tokens"] == 765 and rows["claude-sonnet-4-5"]["media_tokens"] == 1399  # ceil(1024 x 1024 / 750)
    assert rows["gpt-4o"]["media"][0]["exactness"] == "documented"
    bare = client.post("/v1/count", json=dict(body, messages=[{"role": "user", "content": [part]}])).json()["results"][0]
    assert bare["media_tokens"] == 0 and bare["media"][0]["tokens"] is None and bare["exactness"] == "estimate"
    bad = client.post("/v1/count", json=dict(body, messages=[{"role": "user", "content": [dict(part, width=-3, height=2)]}]))
    assert bad.status_code == 422 and "messages[0].content[0].width" in bad.json()["detail"]


def test_the_openapi_schema_documents_the_stated_size(client):
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert "width" in schema["CountRequest"]["properties"]["messages"]["description"]
    assert {"width", "height"} <= set(schema["ContentBlock"]["properties"])
    assert "VIDEO" in schema["ModalityTokenCount"]["properties"]["modality"]["enum"]
