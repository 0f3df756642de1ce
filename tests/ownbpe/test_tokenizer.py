"""The Tokenizer: GPT-2 conformance with tiktoken, streaming, decoding, saving, explaining, errors."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ownbpe
from ownbpe import Tokenizer, format_explanation

from .conftest import MAX_EXAMPLES, O200K_SPECIALS, load_ranks

FIXTURES = [
    "address.txt",
    "german.txt",
    "tinystories_sample.txt",
    "special_token_trailing_newlines.txt",
    "special_token_double_newlines_non_whitespace.txt",
]
BYTES = {i: bytes([i]) for i in range(256)}


@pytest.mark.parametrize("name", FIXTURES)
def test_gpt2_files_encode_like_tiktoken(cs336, gpt2_tiktoken, gpt2_ownbpe, gpt2_ranks, name):
    text = (cs336 / name).read_text(encoding="utf-8")
    ranked = Tokenizer.from_tiktoken(gpt2_ranks, ownbpe.GPT2_PATTERN, {"<|endoftext|>": 50256})
    expected = gpt2_tiktoken.encode(text, allowed_special="all")
    assert gpt2_ownbpe.encode(text, allowed_special="all") == expected  # pairs rule, from merges.txt
    assert ranked.encode(text, allowed_special="all") == expected  # ranked rule, from the same ids
    ordinary = gpt2_tiktoken.encode_ordinary(text)
    assert gpt2_ownbpe.encode_ordinary(text) == ordinary == ranked.encode_ordinary(text)
    assert gpt2_ownbpe.decode(expected) == text


def test_gpt2_without_special_tokens_encodes_them_as_text(cs336, gpt2_tiktoken):
    tok = Tokenizer.from_gpt2_files(cs336 / "gpt2_vocab.json", cs336 / "gpt2_merges.txt")
    plain = Tokenizer(tok.vocab, tok.merges)  # no special tokens at all
    text = (cs336 / "tinystories_sample.txt").read_text(encoding="utf-8")
    assert plain.encode(text) == gpt2_tiktoken.encode_ordinary(text)
    assert 50256 not in plain.encode(text)


def test_overlapping_special_tokens(cs336, gpt2_ranks):
    tiktoken = pytest.importorskip("tiktoken")
    specials = {"<|endoftext|>": 50256, "<|endoftext|><|endoftext|>": 50257}
    enc = tiktoken.Encoding("gpt2-double", pat_str=ownbpe.GPT2_PATTERN, mergeable_ranks=gpt2_ranks, special_tokens=specials)
    vocab = {i: t for t, i in gpt2_ranks.items()}
    merges = [tuple(line.split(" ")) for line in (cs336 / "gpt2_merges.txt").read_text(encoding="utf-8").split("\n") if line]
    tok = Tokenizer.from_gpt2_files(cs336 / "gpt2_vocab.json", cs336 / "gpt2_merges.txt", ["<|endoftext|><|endoftext|>"])
    assert tok.special_tokens == specials
    assert len(merges) == 50000
    assert len(vocab) == 50256
    text = "Hello, how <|endoftext|><|endoftext|> are you?<|endoftext|>"
    ids = tok.encode(text, allowed_special="all")
    assert ids == enc.encode(text, allowed_special="all")
    assert ids.count(50257) == 1
    assert ids.count(50256) == 1
    assert tok.decode(ids) == text


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.text(max_size=200))
def test_roundtrip_any_text(small_tok, text):
    assert small_tok.decode(small_tok.encode(text)) == text.encode("utf-8", "replace").decode("utf-8") or "\ud800" <= max(text, default="a")
    assert small_tok.decode(small_tok.encode_ordinary(text)) == small_tok.decode(small_tok.encode_ordinary(text))


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200))
def test_roundtrip_and_bytes(small_tok, text):
    ids = small_tok.encode(text)
    assert small_tok.decode(ids) == text
    assert small_tok.decode_bytes(ids) == text.encode("utf-8")


def test_lone_surrogates_become_replacement_characters(small_tok, encodings):
    enc, tok = encodings["o200k_base"]
    assert tok.encode("a\ud800b") == enc.encode("a\ud800b")
    assert small_tok.decode(small_tok.encode("x\udfffy")) == "x\ufffdy"


def test_decode_replaces_malformed_utf8(small_tok):
    e_acute = small_tok.encode("é")
    assert small_tok.decode_bytes(e_acute) == b"\xc3\xa9"
    assert small_tok.decode([0xC3]) == "\ufffd"  # half a character
    top = small_tok.n_vocab - 1
    with pytest.raises(ValueError, match=rf"unknown token id 99999: this tokenizer's ids are 0\.\.{top}"):
        small_tok.decode([1, 99999])


def test_special_tokens_only_where_allowed(small_tok):
    eot = small_tok.special_tokens["<|endoftext|>"]
    allowed = small_tok.encode("a<|endoftext|>b", allowed_special="all")
    assert allowed == [*small_tok.encode("a"), eot, *small_tok.encode("b")]
    assert small_tok.encode("a<|endoftext|>b", allowed_special={"<|endoftext|>"}) == allowed
    assert small_tok.encode("a<|endoftext|>b", allowed_special={"<|endoftext|>"}, fast=False) == allowed
    # The default follows the constructor (CS336): a named special token is its id.
    assert small_tok.encode("a<|endoftext|>b") == allowed
    assert small_tok.encode("a<|endoftext|>b", fast=False) == allowed
    # frozenset() asks for plain text, as encode_ordinary (and tokenprism's adapter) has it.
    assert small_tok.encode("a<|endoftext|>b", allowed_special=frozenset()) == small_tok.encode_ordinary("a<|endoftext|>b")
    assert eot not in small_tok.encode("a<|endoftext|>b", allowed_special=frozenset())
    assert eot not in small_tok.encode_ordinary("a<|endoftext|>b")
    assert small_tok.decode(small_tok.encode_ordinary("<|endoftext|>")) == "<|endoftext|>"
    assert small_tok.n_vocab == eot + 1 == 256 + len(small_tok.merges) + 1  # the pairs ran out before 400
    assert small_tok.vocab[eot] == b"<|endoftext|>"


# -- streaming ------------------------------------------------------------------------------


STREAM_TEXT = st.lists(
    st.sampled_from(["Hello", " world", "\n", "\n\n", "  ", "\r\n", "<|endoftext|>", "<|endof", "text|>", "don't",
                     "1234567", " 👩‍👩‍👧", "東京", "é", "\t", "x" * 40, ".", "//"]),
    max_size=60,
).map("".join)


@settings(max_examples=MAX_EXAMPLES * 2, deadline=None)
@given(STREAM_TEXT, st.lists(st.integers(0, 400), max_size=12), st.sampled_from(["gpt2", "custom"]))
def test_encode_iterable_equals_encode_for_any_chunking(monkeypatch_stream, text, cuts, which):
    tok = monkeypatch_stream[which]
    points = sorted({min(c, len(text)) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
    assert list(tok.encode_iterable(pieces, allowed_special="all")) == tok.encode(text, allowed_special="all")
    assert list(tok.encode_iterable(pieces)) == tok.encode(text)
    assert list(tok.encode_iterable(pieces, allowed_special=frozenset())) == tok.encode_ordinary(text)


@pytest.fixture(scope="module")
def monkeypatch_stream(small_tok):
    """Tokenizers whose streaming block is tiny, so that every test string gets cut."""
    from ownbpe import tokenizer

    old = tokenizer.STREAM_BLOCK
    tokenizer.STREAM_BLOCK = 8
    custom = Tokenizer(
        small_tok.vocab, small_tok.merges, {"<|endoftext|>": small_tok.special_tokens["<|endoftext|>"]}, pattern=r"\w+|\s+|[^\w\s]+"
    )
    yield {"gpt2": small_tok, "custom": custom}
    tokenizer.STREAM_BLOCK = old


def test_encode_iterable_streams(cs336, gpt2_ownbpe):
    """Ids come out before the input ends: an endless input still yields."""
    text = (cs336 / "address.txt").read_text(encoding="utf-8")
    endless = itertools.cycle(text.splitlines(keepends=True))
    first = list(itertools.islice(gpt2_ownbpe.encode_iterable(endless), 5000))
    assert len(first) == 5000
    assert gpt2_ownbpe.decode(first).startswith(text[:200])


def test_encode_iterable_file_lines_match(cs336, gpt2_ownbpe, gpt2_tiktoken):
    with open(cs336 / "tinystories_sample.txt", encoding="utf-8", newline="") as f:
        ids = list(gpt2_ownbpe.encode_iterable(f, allowed_special="all"))
    text = (cs336 / "tinystories_sample.txt").read_text(encoding="utf-8")
    assert ids == gpt2_tiktoken.encode(text, allowed_special="all")


def test_encode_iterable_rejects_bytes(small_tok):
    with pytest.raises(TypeError, match="open files in text mode"):
        list(small_tok.encode_iterable([b"abc"]))


# -- construction errors --------------------------------------------------------------------


def test_merges_referencing_unknown_tokens():
    with pytest.raises(ValueError, match=r"merge 1 \(b'ab', b'zz'\) references an unknown token: its right token b'zz'"):
        Tokenizer(BYTES | {256: b"ab", 257: b"abc"}, [(b"a", b"b"), (b"ab", b"zz")])
    with pytest.raises(ValueError, match=r"its merged token b'ab' is not in the vocab"):
        Tokenizer(BYTES, [(b"a", b"b")])


def test_vocab_must_hold_every_byte():
    vocab = dict(BYTES)
    del vocab[7]
    with pytest.raises(ValueError, match=r"lacks 1 single-byte tokens \(e.g. b'\\x07'\)"):
        Tokenizer(vocab, [])
    with pytest.raises(ValueError, match="non-empty bytes"):
        Tokenizer(BYTES | {256: "ab"}, [])


def test_from_tiktoken_errors():
    ranks = {bytes([i]): i for i in range(256)}
    with pytest.raises(ValueError, match="rank 5 is given to both"):
        Tokenizer.from_tiktoken(ranks | {b"ab": 5}, ownbpe.GPT2_PATTERN, {})
    with pytest.raises(ValueError, match="special token '<x>' has id 3, which is the rank of"):
        Tokenizer.from_tiktoken(ranks, ownbpe.GPT2_PATTERN, {"<x>": 3})
    with pytest.raises(ValueError, match="invalid pre-tokenization pattern"):
        Tokenizer.from_tiktoken(ranks, "(", {})


# -- save / load ----------------------------------------------------------------------------


def test_save_load_roundtrip(tmp_path, small_tok, encodings):
    path = tmp_path / "small.model"
    small_tok.save(path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("ownbpe v1\n")
    assert "\nrule pairs\n"
    assert '"<|endoftext|>"' in text
    loaded = Tokenizer.load(path)
    assert loaded.vocab == small_tok.vocab
    assert loaded.merges == small_tok.merges
    assert loaded.special_tokens == small_tok.special_tokens
    assert loaded.pattern == small_tok.pattern
    sample = "Grüße 2024, don't\r\n<|endoftext|>👩‍👩‍👧"
    assert loaded.encode(sample) == small_tok.encode(sample)
    assert Tokenizer.from_file(path).encode(sample) == small_tok.encode(sample)


def test_save_load_ranked(tmp_path):
    ranks = {bytes([i]): i for i in range(256)} | {b"\xe2\x80": 256, b"ab": 257}
    tok = Tokenizer.from_tiktoken(ranks, ownbpe.O200K_PATTERN, {"<|endoftext|>": 300})
    path = tmp_path / "ranked.model"
    tok.save(path)
    text = path.read_text(encoding="utf-8")
    assert "\nrule ranked\n" in text
    assert "256 <e280>" in text
    assert "merges" not in text
    loaded = Tokenizer.load(path)
    assert loaded.rule == "ranked"
    assert loaded.vocab == tok.vocab
    assert loaded.n_vocab == 301
    assert loaded.encode("ab\u2019<|endoftext|>", allowed_special="all") == tok.encode("ab\u2019<|endoftext|>", allowed_special="all")


def _corrupt(tmp_path, small_tok, edit):
    path = tmp_path / "bad.model"
    small_tok.save(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    edit(lines, lines.index(f"merges {len(small_tok.merges)}") + 1)  # index of the first merge line
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda L, m: L.__setitem__(0, "minbpe v1"), r"line 1: not an ownbpe model"),
        (lambda L, m: L.__setitem__(0, "ownbpe v9"), r"line 1: unsupported format version"),
        (lambda L, m: L.__setitem__(2, "rule magic"), r"line 3: rule must be 'pairs' or 'ranked'"),
        (lambda L, m: L.__setitem__(10, "6 nonsense"), r"line 11: expected a token"),
        (lambda L, m: L.__setitem__(10, 'x "a"'), r"line 11: expected '<id> <token>'"),
        (lambda L, m: L.__setitem__(m, '"a" "b" "c"'), r"line {m}: unexpected text after the second token"),
        (lambda L, m: L.__setitem__(m, '"\\u00" "b"'), r"line {m}: bad JSON string"),
        (lambda L, m: L.__setitem__(m, '"a"  "b"'), r"line {m}: expected a token"),
        (lambda L, m: L.__setitem__(m, "<zz> <61>"), r"line {m}: bad hex"),
        (lambda L, m: L.__delitem__(slice(m, None)), r"line {m}: unexpected end of file \(the file is truncated\)"),
        (lambda L, m: L.insert(-1, "junk"), r"line \d+: unexpected text after 'end'"),
        (lambda L, m: L.__setitem__(4, '0 "ab"'), r"inconsistent model: the vocab lacks 1 single-byte tokens"),
    ],
)
def test_corrupt_model_files_name_the_line(tmp_path, small_tok, edit, message):
    path = _corrupt(tmp_path, small_tok, edit)
    first_merge_line = path.read_text(encoding="utf-8").split("\n").index(f"merges {len(small_tok.merges)}") + 2
    with pytest.raises(ValueError, match=message.replace("{m}", str(first_merge_line))):
        Tokenizer.load(path)


def test_load_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        Tokenizer.load(tmp_path / "none.model")


def test_load_rejects_merges_with_unknown_tokens(tmp_path, small_tok):
    path = _corrupt(tmp_path, small_tok, lambda L, m: L.__setitem__(m, '"q" "zzz"'))
    with pytest.raises(ValueError, match=r"inconsistent model: merge 0 .* references an unknown token"):
        Tokenizer.load(path)


# -- explain --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["tokenization 2024", "  Grüße\r\n\n<|endoftext|>x", "aaaaaaaa" * 40])
def test_explain_ends_in_the_encoded_ids(gpt2_ownbpe, encodings, text):
    tokenizers = [gpt2_ownbpe, encodings["o200k_base"][1], encodings["cl100k_base"][1]]
    for tok in tokenizers:
        pieces = tok.explain(text, allowed_special="all")
        assert [i for p in pieces for i in p.ids] == tok.encode(text, allowed_special="all")
        assert "".join(p.text for p in pieces) == text
        for p in pieces:
            assert b"".join(p.tokens) == p.text.encode()
            assert all(s.result == s.left + s.right and tok.vocab[s.result_id] == s.result for s in p.steps)
        assert tok.explain(text) == pieces  # the default, as encode's: named special tokens are ids
        ordinary = tok.explain(text, allowed_special=frozenset())
        assert [i for p in ordinary for i in p.ids] == tok.encode_ordinary(text)
        assert tok.explain(text, ordinary=True) == ordinary  # the older keyword
        assert tok.explain(text, ordinary=False) == pieces


def test_explain_shows_ranks_in_order(gpt2_ownbpe):
    (piece,) = gpt2_ownbpe.explain(" tokenization")
    ranks = [s.rank for s in piece.steps]
    assert piece.tokens == (b" token", b"ization")
    assert ranks[0] == min(ranks)  # the first merge is the best-ranked pair available
    text = format_explanation([piece])
    assert text.startswith('" tokenization" [0:13] -> 2 tokens: 11241 1634  = " token" | "ization"')
    assert "rank" in text
    assert '"Ġ"' not in text


def test_explain_marks_direct_lookups(encodings):
    _, tok = encodings["o200k_base"]
    pieces = tok.explain("2024<|endoftext|>", allowed_special="all")
    assert pieces[-1].special
    assert pieces[-1].ids == (199999,)
    assert any(p.direct for p in pieces[:-1])
    assert "(special token)" in format_explanation(pieces)


def test_random_texts_explain_consistently(small_tok):
    rng = random.Random(7)
    alphabet = list("ab cé\n\r东👩‍") + ["<|endoftext|>", "  "]
    for _ in range(50):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert [i for p in small_tok.explain(text) for i in p.ids] == small_tok.encode(text)
        allowed = small_tok.explain(text, allowed_special="all")
        assert [i for p in allowed for i in p.ids] == small_tok.encode(text, allowed_special="all")


@pytest.mark.parametrize("rule", ["ranked", "pairs"])
def test_new_seen_again_and_warm_text_encode_alike(cs336, gpt2_ranks, gpt2_tiktoken, rule):
    """First sight and second sight of a long text (pre-tokens only), and of short ones (chunks)."""
    if rule == "ranked":
        tok = ownbpe.Tokenizer.from_tiktoken(gpt2_ranks, ownbpe.GPT2_PATTERN, {"<|endoftext|>": 50256})
    else:
        tok = ownbpe.Tokenizer.from_gpt2_files(cs336 / "gpt2_vocab.json", cs336 / "gpt2_merges.txt")
    text = (cs336 / "corpus.en").read_text(encoding="utf-8")[:50_000] + " naïve café ☕ end  "
    expected = gpt2_tiktoken.encode_ordinary(text)
    fast = tok._fast
    assert tok.encode_ordinary(text) == expected
    # A long text fills the piece cache only: a second pass is the first minus the merging.
    assert not fast._chunk_cache
    assert fast._piece_cache
    assert tok.encode_ordinary(text) == expected
    assert not fast._chunk_cache
    # Short texts are cut into chunks, which are cached.
    lines = text.split("\n")
    assert [tok.encode_ordinary(line) for line in lines] == [gpt2_tiktoken.encode_ordinary(line) for line in lines]
    assert fast._chunk_cache
    assert [tok.encode_ordinary(line) for line in lines] == [gpt2_tiktoken.encode_ordinary(line) for line in lines]
    # A small cache budget empties the caches on the way and changes nothing.
    small = ownbpe.Tokenizer.from_tiktoken(gpt2_ranks, ownbpe.GPT2_PATTERN, cache_bytes=20_000)
    assert [small.encode_ordinary(text) for _ in range(3)] == [expected] * 3


def test_long_new_text_with_lone_surrogates_and_no_cache(encodings):
    enc, _ = encodings["o200k_base"]
    ranks = load_ranks("o200k_base")
    text = ("hello world \ud800 bad " * 500) + "x<|endoftext|>y" + "Grüße 東京 " * 400
    expected = enc.encode(text, allowed_special="all")
    for cache_bytes in (32 << 20, 0):
        tok = ownbpe.Tokenizer.from_tiktoken(ranks, ownbpe.O200K_PATTERN, O200K_SPECIALS, cache_bytes=cache_bytes)
        assert [tok.encode(text, allowed_special="all") for _ in range(3)] == [expected] * 3
