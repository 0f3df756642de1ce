"""`keep_tokens`: the kept text is a prefix, never ends inside a character, fits, and is as long as it may be."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from analysis.errors import BadInput
from analysis.tokenizers import Piece, load_tokenizer
from analysis.tokenizers.prefix import keep_tokens

# Byte-level tokenizers available offline, from each backend that has one: tiktoken (three
# vocabularies), Hugging Face (deepseek-v4) and ownbpe.
BYTE_LEVEL = ["o200k_base", "cl100k_base", "gpt2", "deepseek-v4", "ownbpe"]

# Characters whose UTF-8 bytes tokenizers split across tokens: 2-, 3- and 4-byte characters, CJK,
# emoji with modifiers and joiners, combining marks, and the whitespace pre-tokenizers treat apart.
TRICKY = list("aé中文字한국👍🏽👨\u200d👩\u200d👧e\u0301\u0308ॐ𝔘𝕏 \n\t\r.0")
TEXTS = st.text(alphabet=st.one_of(st.sampled_from(TRICKY), st.characters(blacklist_categories=("Cs",))), max_size=40)


def first_tokens_bytes(tok, text: str, n: int) -> bytes:
    return tok.decode_bytes(tok.encode(text)[:n])


@pytest.mark.parametrize("name", BYTE_LEVEL)
@given(text=TEXTS, n=st.integers(min_value=1, max_value=24))
@example(text="👍🏽👍🏽👍🏽", n=2)
@example(text="中文字中文字 e\u0301", n=3)
def test_kept_text_is_a_whole_character_prefix_that_fits(name, text, n):
    tok = load_tokenizer(name)
    kept = keep_tokens(text, tok, n)
    assert text.startswith(kept.text)
    assert tok.count(kept.text) == kept.n_tokens
    assert kept.n_tokens <= n
    assert kept.total_tokens == tok.count(text)
    # The first n tokens' bytes: the kept text is their longest start made of whole characters.
    covered = first_tokens_bytes(tok, text, n)
    data = kept.text.encode("utf-8")
    assert covered.startswith(data)
    rest = covered[len(data):]
    try:
        rest.decode("utf-8")
        ends_on_a_character = True
    except UnicodeDecodeError:
        ends_on_a_character = False
    if ends_on_a_character:
        # The n-th token ends on a character boundary: nothing of the first n tokens is dropped.
        # Alone, that text is n tokens, or fewer where the pre-tokenizer joins what it split
        # inside the whole text (a run of spaces before a word: see the test below).
        assert rest == b""
        assert not kept.mid_character
    else:
        # Only the incomplete character at the end is dropped: less than one character's bytes.
        assert kept.mid_character
        assert 0 < len(rest) < 4
        assert text.encode("utf-8")[len(data):].startswith(rest)


@pytest.mark.parametrize("name", ["qwen2.5"])
@given(text=TEXTS, n=st.integers(min_value=1, max_value=24))
def test_a_normalising_tokenizer_also_keeps_a_prefix_that_fits(name, text, n):
    # Qwen normalises to NFC before encoding, so its bytes are not the text's: prefix and fit only.
    tok = load_tokenizer(name)
    kept = keep_tokens(text, tok, n)
    assert text.startswith(kept.text)
    assert tok.count(kept.text) == kept.n_tokens <= n


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_a_cut_inside_a_run_of_spaces_keeps_fewer_tokens_but_no_longer_prefix_fits(name):
    # Inside the text the run is ' ' + ' 1' (the last space goes with the word); at the end of
    # the kept text it is one token '  ': the tokenizer allows no prefix of exactly 2 tokens.
    tok = load_tokenizer(name)
    text = "a   1"
    assert [tok.decode_bytes([i]) for i in tok.encode(text)] == [b"a", b"  ", b" ", b"1"]
    kept = keep_tokens(text, tok, 3)
    assert (kept.text, kept.n_tokens, kept.mid_character) == ("a   ", 2, False)
    assert tok.count(text[: len(kept.text) + 1]) > 3


def test_a_text_within_the_budget_is_kept_whole():
    tok = load_tokenizer("o200k_base")
    kept = keep_tokens("hello world", tok, 5)
    assert (kept.text, kept.n_tokens, kept.total_tokens, kept.cut) == ("hello world", 2, 2, False)


def test_an_emoji_split_across_tokens_is_dropped_whole():
    tok = load_tokenizer("cl100k_base")
    text = "ok 👍🏽"
    ids = tok.encode(text)
    # cl100k spells the emoji in several byte tokens: a budget that ends inside it drops it all
    inside = next(n for n in range(1, len(ids)) if not _decodes(tok.decode_bytes(ids[:n])))
    kept = keep_tokens(text, tok, inside)
    assert kept.mid_character
    assert kept.text == "ok "  # the space was the first byte of the token ' \xf0\x9f\x91': it is a whole character
    assert tok.count(kept.text) <= inside


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_special_token_strings_stay_text():
    tok = load_tokenizer("o200k_base")
    kept = keep_tokens("<|endoftext|> and more", tok, 3)
    assert kept.text == "<|end"  # '<', '|', 'end': the marker is seven tokens of text, not one special id
    assert kept.total_tokens == 9


def test_a_negative_budget_is_refused():
    with pytest.raises(BadInput, match="0 or more"):
        keep_tokens("hi", load_tokenizer("o200k_base"), -1)


def test_zero_tokens_keep_nothing():
    assert keep_tokens("hi", load_tokenizer("o200k_base"), 0).text == ""


class _PrefixUnstable:
    """A tokenizer whose "abc" is "ab" + "c", but whose "ab" alone is two tokens: a prefix that
    grows when encoded on its own, which no real tokenizer here showed in 100,000 random texts."""

    def pieces(self, text: str) -> list[Piece]:
        if text == "abc":
            return [Piece(1, b"ab", 0, 2), Piece(2, b"c", 2, 3)]
        return [Piece(ord(c), c.encode(), i, i + 1) for i, c in enumerate(text)]

    def count(self, text: str) -> int:
        return len(self.pieces(text))


def test_a_prefix_that_grows_on_its_own_is_cut_again_until_it_fits():
    kept = keep_tokens("abc", _PrefixUnstable(), 1)  # type: ignore[arg-type]
    assert (kept.text, kept.n_tokens, kept.total_tokens) == ("a", 1, 2)
