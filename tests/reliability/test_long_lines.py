"""Finding 3: every adapter encodes a text of any length in bounded memory, with unchanged ids.

Long texts are cut between a letter and whitespace (and, for DeepSeek, after a newline before a
non-space): the ids of the cut encoding must equal those of the engine's uncut encoding.
"""

from __future__ import annotations

import random

import pytest

from analysis import load_builtin, load_tokenizer
from analysis.tokenizers import cuts
from analysis.tokenizers.registry import available_tokenizers


def _long_text(seed: int, *, newlines: bool) -> str:
    texts = load_builtin(["prose", "code", "multilingual", "numbers", "whitespace"])["text"].tolist()
    rng = random.Random(seed)
    rng.shuffle(texts)
    joined = "\n".join(texts) if newlines else " ".join(t.replace("\n", " ").replace("\r", " ") for t in texts)
    # tricky joins: contractions, marks, digits, CJK and trailing spaces right at letters
    extra = " it's WE'LL e\u0301t\u00e9  \t 123456 \u4e2d\u6587 x\u3000y ab  \u00a0cd O'Neil\u2019s "
    return joined[:60_000] + extra


def _uncut(tok, text: str) -> list[int]:
    """The engine's own one-call encoding (no cuts)."""
    if tok.family == "tiktoken":
        return tok._enc.encode_ordinary(tok._prepare(text))
    if tok.family == "hf":
        return tok._tok.encode(text, add_special_tokens=False).ids
    return tok.bpe.encode_ordinary(text)


@pytest.fixture
def small_chunks(monkeypatch):
    # the same code path on shorter texts: cut every ~4k characters
    monkeypatch.setattr(cuts, "CHUNK_CHARS", 4096)


@pytest.mark.parametrize("name", [n for n in available_tokenizers() if n not in ("mistral-v1", "mistral-v3")])
def test_cut_encoding_equals_uncut(name, small_chunks):
    tok = load_tokenizer(name)
    newlines = len(name) % 2 == 0
    text = _long_text(len(name), newlines=newlines)
    assert cuts.is_long(text)
    parts = cuts.split_long(text)
    assert "".join(parts) == text
    assert len(parts) > 1
    expected = _uncut(tok, text)
    assert tok.encode(text) == expected
    assert tok.count(text) == len(expected)
    assert tok.count_batch([text, "short"]) == [len(expected), len(_uncut(tok, "short"))]
    assert tok.encode_batch([text, "short"]) == [expected, _uncut(tok, "short")]


def test_a_single_line_with_no_newline_is_cut_for_deepseek(small_chunks):
    # the 200 MB case of the finding, small: no newline at all
    tok = load_tokenizer("deepseek-v4")
    text = _long_text(1, newlines=False)
    assert "\n" not in text
    assert len(list(tok._spans(text))) > 2


def test_letter_space_cut_points_are_pre_token_boundaries_on_random_text():
    # random mixes of the characters that decide pre-token boundaries
    alphabet = list("aZé\u0301'sS ll \t\n\r1234.,;!?-_/\u4e2d\u00a0\u3000") + ["'s", "'LL", "  ", "\r\n"]
    rng = random.Random(7)
    names = [n for n in ("o200k_base", "cl100k_base", "gpt2", "qwen3.6", "qwen2.5", "deepseek-v4") if n in available_tokenizers()]
    toks = [load_tokenizer(n) for n in names]
    for _ in range(30):
        text = "".join(rng.choice(alphabet) for _ in range(3000))
        parts = cuts.split_long(text, size=64)
        for tok in toks:
            joined = [i for p in parts for i in _uncut(tok, p)]
            assert joined == _uncut(tok, text), tok.name


# -- finding 6 of issue 34: a line with no cut point (one long word) under deepseek-v4 ------------
def _words(seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        "a" * 30_000,  # the finding's line: one letter, no cut point
        "x" + "a" * 20_001 + "\u00e9",  # a run followed by a letter that is not ASCII
        "-" + "ab" * 12_000 + "\u00e9" * 9,  # punctuation first and a non-ASCII letter after: never cut
        "Hello, " + "z" * 20_003 + " end\n" + "q" * 9_000,
        "".join(rng.choice("ab") for _ in range(30_000)),
        "".join(rng.choice("etaoinshrdluETAOIN") for _ in range(30_000)),
        "q" * 10_000 + "." * 10_000 + "w" * 10_000,
        "\u4e2d\u6587" + "k" * 25_000 + "123" + "m" * 9_000 + "<think>" + "n" * 9_000,
    ]


@pytest.mark.parametrize("case", range(8))
def test_a_long_word_is_cut_exactly_for_deepseek(case, monkeypatch):
    monkeypatch.setattr(cuts, "CHUNK_CHARS", 2048)
    tok = load_tokenizer("deepseek-v4")
    text = _words(case)[case]
    expected = _uncut(tok, text)
    assert tok.encode(text) == expected
    assert tok.count(text) == len(expected)


def test_the_line_of_one_letter_is_cut_inside_the_word(monkeypatch):
    monkeypatch.setattr(cuts, "CHUNK_CHARS", 2048)
    tok = load_tokenizer("deepseek-v4")
    spans = list(tok._spans("a" * 30_000))
    assert len(spans) > 5 and all(in_word for _, _, in_word in spans[1:])


def test_a_joint_that_fits_at_no_shift_falls_back_to_the_whole_text(monkeypatch):
    from analysis.tokenizers import hf_words

    monkeypatch.setattr(cuts, "CHUNK_CHARS", 2048)
    tok = load_tokenizer("deepseek-v4")
    monkeypatch.setattr(tok._junctions, "fit", lambda left, right: False)
    text = "".join(random.Random(3).choice("ab") for _ in range(20_000))
    with pytest.raises(hf_words.NoExactCut):
        list(tok._long_ids(text))
    assert tok.count(text) == len(_uncut(tok, text))  # exact all the same, in one call
