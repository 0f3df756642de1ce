"""The pattern strings, and the safe cuts that chunked counting and streaming rely on."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import ownbpe
from ownbpe import patterns
from ownbpe.fast import pretokenize
from ownbpe.patterns import BUILTIN_PATTERNS, chunk_text, is_builtin, last_safe_cut

from .conftest import MAX_EXAMPLES

# Characters that exercise every branch of the three patterns: letters of each case, marks,
# digits, punctuation, apostrophes for contractions, slashes (o200k), every kind of space.
ALPHABET = st.sampled_from(
    list("aZ'sdtmlvre ") + ["  ", " \n", "\r\n", "\n", "\t", "\u00a0", "\u3000", "\x0b", "\x85", "\u2028"]
    + list("0123456789") + list(".,!?/-_()\"") + ["é", "É", "\u0301", "ß", "ǅ", "ʰ", "中", "日本", "👩‍👩‍👧", "🙂"]
    + ["'S", "'LL", "don't", "\x1c", "\u200b"]
)
TEXT = st.lists(ALPHABET, max_size=60).map("".join)


def test_patterns_are_tiktokens(monkeypatch):
    """Our spec strings equal the `pat_str` tiktoken's own constructors use (read offline)."""
    openai_public = __import__("pytest").importorskip("tiktoken_ext.openai_public")
    # The constructors would download the rank files; we only want their pattern strings.
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {})
    monkeypatch.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", lambda *a, **k: {})
    assert openai_public.gpt2()["pat_str"] == ownbpe.GPT2_PATTERN
    assert openai_public.r50k_base()["pat_str"] == ownbpe.GPT2_PATTERN
    assert openai_public.cl100k_base()["pat_str"] == ownbpe.CL100K_PATTERN
    assert openai_public.o200k_base()["pat_str"] == ownbpe.O200K_PATTERN


def test_patterns_equal_tiktoken_encodings_pat_str(encodings):
    assert encodings["cl100k_base"][0]._pat_str == ownbpe.CL100K_PATTERN
    assert encodings["o200k_base"][0]._pat_str == ownbpe.O200K_PATTERN


def test_only_builtin_patterns_get_safe_cuts():
    assert all(is_builtin(p) for p in BUILTIN_PATTERNS.values())
    assert not is_builtin(r"\w+|\s+")
    assert not is_builtin(ownbpe.GPT2_PATTERN + "|x")


def test_chunks_examples():
    assert chunk_text("Hello, world.\n  Bye  ") == ["Hello,", " world.\n  Bye", "  "]
    assert chunk_text("") == []
    assert chunk_text("   ") == ["   "]
    assert chunk_text("a\r\n b") == ["a\r\n b"]  # "\r\n" after a letter is never a cut


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(TEXT)
def test_chunking_never_changes_pretokens(text):
    chunks = chunk_text(text)
    assert "".join(chunks) == text
    for pattern in BUILTIN_PATTERNS.values():
        compiled = regex.compile(pattern)
        assert [p for c in chunks for p in compiled.findall(c)] == compiled.findall(text)


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(TEXT, TEXT)
def test_stream_cut_is_final_whatever_follows(head, tail):
    """A cut found in `head` stays valid when any `tail` arrives later."""
    cut = last_safe_cut(head)
    if cut < 0:
        return
    assert 0 < cut < len(head)
    text = head + tail
    for pattern in BUILTIN_PATTERNS.values():
        compiled = regex.compile(pattern)
        assert compiled.findall(text[:cut]) + compiled.findall(text[cut:]) == compiled.findall(text)


def test_last_safe_cut_bounds():
    text = "one two three"
    assert last_safe_cut(text) == 7
    assert last_safe_cut(text, 0, 7) == 3  # searched only before `end`
    assert last_safe_cut(text, 3, 7) == -1  # positions must be > start
    assert last_safe_cut("x\nYz") == 2  # kind B: after a newline between two non-spaces
    assert last_safe_cut("x \nYz") == 1
    assert last_safe_cut("nospace") == -1


ASCII_ALPHABET = st.sampled_from(
    list("aZ'sdtmlvreSDTMLVRE ") + ["  ", " \n", "\r\n", "\n", "\r", "\t", "\x0b", "\x0c", "\x1c", "\x1f", "\x00", "\x7f"]
    + list("0123456789") + list(".,!?/-_()\"") + ["'S", "'LL", "don't", "ABCdef", "abcDEF", "1234567", "  \n  "]
)


def test_ascii_whitespace_class_is_the_ascii_part_of_regex_whitespace():
    assert regex.compile(f"[{pretokenize._A_WS}]").findall("".join(map(chr, range(128)))) == [
        c for c in patterns._WS if c.isascii()
    ]


@settings(max_examples=MAX_EXAMPLES * 5, deadline=None)
@given(st.lists(ASCII_ALPHABET, max_size=60).map("".join))
def test_ascii_twins_find_what_the_patterns_find(text):
    for pattern in BUILTIN_PATTERNS.values():
        assert pretokenize.pretokenizer(pattern)(text) == regex.findall(pattern, text)


# Characters of the BMP from every category the patterns tell apart (upper, lower, title,
# modifier and other letters, marks, three kinds of number, Unicode spaces, controls that
# `re` would call spaces, a lone surrogate, the long s that folds to s), and beyond the BMP.
BMP_ALPHABET = st.sampled_from(
    list("aZ'sdtmlvre ") + ["  ", " \n", "\r\n", "\n", "\t", "\x0b", "\x1c", "\x1f", "\x85", "\xa0", "\u1680"]
    + ["\u2000", "\u2028", "\u2029", "\u202f", "\u3000", "\ufeff", "\u200b"] + list("0123456789.,!?/-_()\"")
    + ["é", "É", "ǅ", "ʰ", "\u0301", "ा", "क्ष", "中", "ſ", "'ſ", "'ſt", "\u212a", "İ", "ı", "ß", "٣", "Ⅻ", "½", "\ud800"]
    + ["'S", "'LL", "'Re", "don't", "😀", "𝐀", "𠀀"]
    + ["\u0558", "\ua7ce", "\u1acf", "\U000323b0"]  # new in Unicode 17.0: not letters to tiktoken 0.14
)


@settings(max_examples=MAX_EXAMPLES * 5, deadline=None)
@given(st.lists(BMP_ALPHABET, max_size=60).map("".join))
def test_bmp_twins_find_what_the_patterns_find(text):
    # `pretokenize.findall` is `regex.findall` with the characters newer than tiktoken's tables
    # made unassigned; the BMP twins leave them out of their classes instead.
    for pattern in BUILTIN_PATTERNS.values():
        assert pretokenize.pretokenizer(pattern)(text) == pretokenize.findall(pattern, text)


def test_bmp_twins_on_every_character_of_the_bmp():
    # Every code point once, in order, then each after a space, an apostrophe and a letter (the
    # contexts where a class decides between alternatives), and in reverse.
    bmp = [chr(c) for c in range(0x10000)]
    texts = ["".join(bmp), "".join(" " + c for c in bmp), "".join("'" + c + "a" for c in bmp), "".join(reversed(bmp))]
    for text in texts:
        for pattern in BUILTIN_PATTERNS.values():
            assert pretokenize.pretokenizer(pattern)(text) == pretokenize.findall(pattern, text)


def test_ascii_twins_on_the_standard_library():
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[::5]:
        text = path.read_bytes().decode("ascii", errors="replace").replace("\ufffd", "?")
        for pattern in BUILTIN_PATTERNS.values():
            assert pretokenize.pretokenizer(pattern)(text) == regex.findall(pattern, text), path


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(TEXT)
def test_ascii_runs_are_cut_where_nothing_changes(text):
    for join_gaps in (False, True):
        parts = pretokenize.ascii_runs(text, join_gaps)
        assert "".join(p for p, _ in parts) == text
        assert all(p and (p.isascii() if flag else not p.isascii()) for p, flag in parts)
        for pattern in BUILTIN_PATTERNS.values():
            assert [t for p, _ in parts for t in regex.findall(pattern, p)] == regex.findall(pattern, text)


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(TEXT, st.integers(1, 12))
def test_safe_blocks_are_cut_where_nothing_changes(text, size):
    blocks = list(patterns.safe_blocks(text, size))
    assert "".join(blocks) == text
    assert all(blocks[:-1])  # only the last block may be empty (when the text is)
    for pattern in BUILTIN_PATTERNS.values():
        assert [t for b in blocks for t in regex.findall(pattern, b)] == regex.findall(pattern, text)


def test_safe_blocks_sizes():
    text = "word " * 1000
    blocks = list(patterns.safe_blocks(text, 64))
    assert all(59 <= len(b) <= 64 for b in blocks[:-1])  # the last cut before 64 characters
    # No cut within a block's reach: the block runs on to the first cut after it.
    assert list(patterns.safe_blocks("x" * 100 + " y z", 10)) == ["x" * 100, " y z"]
    assert list(patterns.safe_blocks("x" * 100, 10)) == ["x" * 100]


# ASCII text with a few non-ASCII characters, often at the edges of 64-character blocks (the
# smallest block size the block search allows), so that blocks come out all-ASCII or mixed and
# matches start and end right at block edges.
EDGES = [0, 1, 62, 63, 64, 65, 126, 127, 128, 129, 191, 192, 255, 256, 299]
BLOCKY_TEXT = st.builds(
    lambda size, where, chars: "".join(
        chars[k % len(chars)] if i in where else "ab c.\n"[i % 6] for k, i in enumerate(range(size))
    ),
    st.integers(0, 300),
    st.sets(st.one_of(st.sampled_from(EDGES), st.integers(0, 299)), max_size=8),
    st.lists(st.sampled_from(["é", "中", "🙂"]), min_size=1, max_size=3),
)


@settings(max_examples=MAX_EXAMPLES * 3, deadline=None)
@given(BLOCKY_TEXT)
def test_block_search_for_non_ascii_finds_what_finditer_finds(text):
    # `_non_ascii_matches` skips all-ASCII blocks; with the smallest block size the stretches
    # are cut in every possible way and must still give exactly the matches of `finditer`.
    saved = pretokenize.ASCII_BLOCK
    pretokenize.ASCII_BLOCK = 64
    try:
        for pattern in (pretokenize._NON_ASCII, pretokenize._NON_ASCII_JOINED):
            spans = [m.span() for m in pretokenize._non_ascii_matches(pattern, text, pretokenize._mixed_blocks(text))]
            assert spans == [m.span() for m in pattern.finditer(text)]
    finally:
        pretokenize.ASCII_BLOCK = saved


def test_text_mostly_of_non_ascii_blocks_is_one_part():
    # With join_gaps, text with non-ASCII characters in most blocks is not cut (the BMP twin
    # takes it whole); with a few accents it is.
    german = "Die Straße führt über die Brücke. " * 40
    assert pretokenize.ascii_runs(german, join_gaps=True) == [(german, False)]
    assert len(pretokenize.ascii_runs(german)) > 2
    english = ("plain words " * 200 + "café ") * 3
    assert [part for part, is_ascii in pretokenize.ascii_runs(english, join_gaps=True) if not is_ascii] == [" café"] * 3


def test_pretokenizer_pickles_into_worker_processes():
    # Parallel training sends the pre-tokenizer to its worker processes.
    import pickle

    from ownbpe.fast.pretokenize import pretokenizer
    from ownbpe.patterns import GPT2_PATTERN

    for text in ("Hello, world!", "Hello, wörld!"):
        assert pickle.loads(pickle.dumps(pretokenizer(GPT2_PATTERN)))(text) == pretokenizer(GPT2_PATTERN)(text)


def test_no_safe_cut_between_a_newline_and_the_slash_o200k_keeps_with_it():
    # o200k's punctuation runs end in [\r\n/]*: in ".\n//" the newline and the slashes belong to
    # the ".". A cut after that newline changed the pre-tokens (found by the long-line tests).
    text = "end.\n// comment\nx.\n/y and z"
    assert all(last_safe_cut(text, 0, end) != 5 for end in range(6, len(text) + 1))  # never after "end.\n"
    o200k = regex.compile(BUILTIN_PATTERNS["o200k"])
    assert ".\n//" in o200k.findall(text)
    for pattern in BUILTIN_PATTERNS.values():
        compiled = regex.compile(pattern)
        assert [p for c in chunk_text(text) for p in compiled.findall(c)] == compiled.findall(text)
        cut = last_safe_cut(text)
        assert compiled.findall(text[:cut]) + compiled.findall(text[cut:]) == compiled.findall(text)
