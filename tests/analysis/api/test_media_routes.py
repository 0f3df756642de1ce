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
