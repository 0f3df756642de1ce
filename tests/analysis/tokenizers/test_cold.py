"""The cold encoder gives tiktoken's ids, id for id, and the adapter switches to the engine in time.

A short text is encoded in Python from the rank table until the adapter has encoded
`COLD_BUDGET_CHARS` that way; every answer must equal tiktoken's own engine. Each pattern in
`cold.PATTERNS` is checked here on real text of 23 languages and of code, on generated text,
and on the corners of the split patterns (spaces before a line end, contractions, digits).
"""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.tokenizers import CATALOGUE, cold, load_tokenizer
from analysis.tokenizers.tiktoken_adapter import COLD_BUDGET_CHARS, TiktokenTokenizer

BUNDLED = [n for n, e in CATALOGUE.items() if e.family == "tiktoken" and not e.fetched]
CORNERS = ["", " ", "  ", "a  \n", "a \n\n b", "\n", "\r\n\r\n", "x\t\t", "  end  ", "it's THEY'LL we'VE",
           "1234567 12 3.14159", "ǅungla Ǆ", "e\u0301 café", "👍🏽 family 👨‍👩‍👧", "مرحبا بالعالم", "日本語のテキスト",
           "ใช้ภาษาไทย", "<|endoftext|> stays text", "def f(x):\n    return x ** 2\n", "\u00a0\u2009 spaces",
           "a" * 3000, "🙂" * 200, " ?!..." * 50, "\t\n \x0b\x0c"]


def _fresh(name: str) -> TiktokenTokenizer:
    """A new adapter of `name` (not the registry's shared one), its engine not built yet."""
    tok = CATALOGUE[name].build()
    assert isinstance(tok, TiktokenTokenizer) and tok._engine is None
    return tok


def _cold(tok: TiktokenTokenizer) -> cold.ColdEncoder:
    assert tok._cold is not None, f"{tok.name}'s pattern is not in cold.PATTERNS"
    return tok._cold


def _corpus_texts(shared: Path | None) -> list[str]:
    texts = list(CORNERS)
    for module in (inspect, textwrap, pytest):
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        texts += [source[i:i + 1500] for i in range(0, min(len(source), 30_000), 1500)]
    if shared is not None:
        for path in sorted((shared / "corpora" / "flores200" / "devtest").glob("*.devtest")):
            texts += path.read_text(encoding="utf-8").splitlines()[:25]
    return texts


@pytest.fixture(scope="module")
def texts(request) -> list[str]:
    try:
        shared = request.getfixturevalue("shared_dir")
    except pytest.skip.Exception:
        shared = None  # code and corner cases still run; FLORES adds 23 scripts when present
    return _corpus_texts(shared)


@pytest.mark.parametrize("name", BUNDLED)
def test_cold_ids_are_tiktoken_ids(name, texts):
    tok = _fresh(name)
    encoder = _cold(tok)
    for text in texts:
        text = tok._prepare(text)
        assert encoder.encode(text) == tok._enc.encode_ordinary(text), (name, text[:80])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("aZé1 \t\n\r'sllvedmt.,!?-_日本😀\u0301\u00a0ǅ")), max_size=40) | st.text(max_size=40))
def test_cold_ids_on_generated_text(text):
    for name in ("cl100k_base", "o200k_base", "gpt2", "qwen3.6"):
        tok = load_tokenizer(name)
        assert isinstance(tok, TiktokenTokenizer)
        prepared = tok._prepare(text)
        ids = _cold(tok).encode(prepared)
        if ids is not None:  # None: a character tiktoken reads by an older Unicode (below)
            assert ids == tok._enc.encode_ordinary(prepared), (name, text)


def test_characters_newer_than_tiktoken_go_to_the_engine():
    tok = _fresh("o200k_base")
    text = "a \U000323b0 b"  # CJK added by Unicode 17.0: `regex` calls it a letter, tiktoken does not
    assert _cold(tok).encode(text) is None
    assert tok.encode(text) == tok._enc.encode_ordinary(text)


def test_short_texts_need_no_engine_and_answer_as_the_engine_would():
    tok = _fresh("cl100k_base")
    text = "Grüße, 世界! def f(x): return 2024"
    ids, n, pieces = tok.encode(text), tok.count(text), tok.pieces(text)
    counts, total = tok.count_batch([text, "b"]), tok.count_total([text, "hello"])
    token_bytes, n_vocab = tok.token_bytes(ids[0]), tok.n_vocab
    assert tok._engine is None  # all of that cold
    engine = tok._enc
    assert ids == engine.encode_ordinary(text) and n == len(ids)
    assert [p.text for p in pieces] == [p.text for p in load_tokenizer("cl100k_base").pieces(text)]
    assert counts == [n, 1] and total == n + 1
    assert token_bytes == engine.decode_single_token_bytes(ids[0]) and n_vocab == engine.n_vocab


def test_the_engine_is_built_once_the_budget_is_spent():
    tok = _fresh("o200k_base")
    line = "The quick brown fox jumps over the lazy dog. " * 20  # 900 characters
    answers = []
    while tok._engine is None:
        answers.append(tok.count(line))
        assert len(answers) <= COLD_BUDGET_CHARS // len(line) + 1
    assert len(answers) >= COLD_BUDGET_CHARS // len(line)  # cold until the budget was spent
    assert set(answers) == {len(tok._enc.encode_ordinary(line))}


def test_a_text_longer_than_the_budget_builds_the_engine_at_once():
    tok = _fresh("gpt2")
    text = " ".join(["word"] * (COLD_BUDGET_CHARS // 5 + 1))
    n = tok.count(text)
    assert tok._engine is not None and n == COLD_BUDGET_CHARS // 5 + 1


def test_text_of_other_scripts_spends_the_budget_faster():
    from analysis.tokenizers.tiktoken_adapter import COLD_NON_ASCII_WEIGHT

    tok = _fresh("qwen3.6")
    text = "世界" * (COLD_BUDGET_CHARS // COLD_NON_ASCII_WEIGHT // 2 + 1)  # under the budget in characters
    n = tok.count(text)
    assert tok._engine is not None  # built for this text: cold it would cost more than the budget
    assert n == len(tok._enc.encode_ordinary(tok._prepare(text)))


def test_build_makes_the_engine_and_the_names_of_one_encoding_share_it():
    a, b = _fresh("r50k_base"), _fresh("gpt2")
    a.build()
    b.build()
    assert a._engine is not None and a._engine is b._engine


def test_p50k_overlay_is_r50k_plus_24_runs_of_spaces():
    p50k, r50k = _fresh("p50k_base"), load_tokenizer("r50k_base")
    assert len(p50k._table) == len(p50k.ranks) == len(r50k.ranks) + 24
    text = "x" + " " * 12 + "y\n" + " " * 30
    assert p50k.encode(text) == p50k._enc.encode_ordinary(text) and p50k.n_vocab == 50281


@pytest.mark.parametrize("pattern", sorted(cold.PATTERNS))
def test_every_cold_pattern_splits_as_tiktoken_does(pattern, texts):
    """Each pattern under one rank table (o200k's): what differs can only be the split."""
    ranks = load_tokenizer("o200k_base").ranks
    tok = TiktokenTokenizer("pattern-check", ranks=ranks, pattern=pattern, special_tokens={},
                            source=CATALOGUE["o200k_base"].build().source)
    encoder = _cold(tok)
    for text in texts:
        assert encoder.encode(tok._prepare(text)) == tok._enc.encode_ordinary(tok._prepare(text)), text[:80]
