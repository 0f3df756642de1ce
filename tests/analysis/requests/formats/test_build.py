"""`Prompt`: markers as ids, texts as text, and every token labelled format or content."""

from __future__ import annotations

import pytest

from analysis.errors import BadInput
from analysis.requests.formats.build import Prompt
from analysis.tokenizers import load_tokenizer


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_harmony")


def test_a_run_is_encoded_whole_and_a_seam_token_goes_with_its_first_byte(tok):
    p = Prompt(tok, "test")
    p.run([("a\n", "format"), ("\nb", "content")])
    whole = tok.encode("a\n\nb")
    assert p.ids == whole
    assert len(whole) < len(tok.encode("a\n")) + len(tok.encode("\nb"))
    # "a" and "\n\n" start in the format piece; "b" starts in the content piece.
    assert p.kinds == ["format", "format", "content"]


def test_queued_texts_flush_at_markers_and_spans_tile(tok):
    p = Prompt(tok, "test")
    p.special("<|start|>")
    p.text("user", "format")
    p.special("<|message|>")
    p.text("<|end|> typed", "content")
    p.special("<|end|>")
    r = p.rendered("exact", "why")
    assert r.ids[0] == tok.special_tokens["<|start|>"]
    assert r.ids[-1] == tok.special_tokens["<|end|>"]
    assert r.ids.count(tok.special_tokens["<|end|>"]) == 1  # the typed one is text
    assert [(s.kind) for s in r.spans] == ["format", "content", "format"]
    assert r.spans[0].start == 0
    assert r.spans[-1].end == len(r.ids)
    assert all(a.end == b.start for a, b in zip(r.spans, r.spans[1:]))
    assert r.content_tokens == len(tok.encode("<|end|> typed"))


def test_a_missing_marker_names_the_tokenizer():
    with pytest.raises(BadInput, match=r"'\[INST\]'.*'o200k_base'"):
        Prompt(load_tokenizer("o200k_base"), "mistral").special("[INST]")
