"""With cl100k/o200k ranks, ownbpe's ids equal tiktoken's: code, 23 languages, adversarial text.

The unit run takes a sample (every 40th standard-library file, 60 lines per FLORES language);
`--runslow` runs everything.
"""

from __future__ import annotations

import functools
import random
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .conftest import MAX_EXAMPLES, load_ranks

NAMES = ["cl100k_base", "o200k_base"]


def stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)


def read_source(path: Path) -> str:
    # A few test files are deliberately not UTF-8; tiktoken and we see the same replacement.
    return path.read_bytes().decode("utf-8", errors="replace")


def assert_same(enc, tok, text, where):
    expected = enc.encode(text, allowed_special="all")
    got = tok.encode(text, allowed_special="all")
    if got != expected:
        i = next((k for k, (a, b) in enumerate(zip(got, expected)) if a != b), min(len(got), len(expected)))
        context = enc.decode(expected[max(0, i - 5) : i + 5])
        pytest.fail(f"{where}: first difference at token {i}, near {context!r}")
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text), where


@pytest.mark.parametrize("name", NAMES)
def test_stdlib_sample(encodings, name):
    enc, tok = encodings[name]
    files = stdlib_files()[::40]
    assert len(files) > 30
    for path in files:
        assert_same(enc, tok, read_source(path), path)


@pytest.mark.parametrize("name", NAMES)
def test_flores_sample(encodings, flores, name):
    enc, tok = encodings[name]
    files = sorted(flores.glob("*/*.dev*"))
    assert len(files) >= 46  # 23 languages x (dev, devtest)
    for path in files[::2]:
        lines = path.read_text(encoding="utf-8").split("\n")[:60]
        assert_same(enc, tok, "\n".join(lines), path)
        assert_same(enc, tok, " ".join(lines), path)  # joined with spaces, as parity studies do


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_stdlib_full(encodings, name):
    enc, tok = encodings[name]
    for path in stdlib_files():
        assert_same(enc, tok, read_source(path), path)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_flores_full(encodings, flores, name):
    enc, tok = encodings[name]
    for path in sorted(flores.glob("*/*.dev*")):
        text = path.read_text(encoding="utf-8")
        assert_same(enc, tok, text, path)
        assert_same(enc, tok, text.replace("\n", " "), path)


# -- adversarial text -------------------------------------------------------------------------

UNITS = [
    " ", "  ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2028", "\x0b", "\x0c",
    "0", "7", "12345", "٣", "½", "Ⅻ", ".", "!", "?!", "...", "/", "//", "'", "'s", "'LL", "’", "\"", "-", "_", "$", "@",
    "a", "Z", "é", "É", "ß", "ǅ", "ʰ", "\u0301", "\u093f", "ा", "क्ष", "中", "日本語", "한국어", "עברית", "مرحبا", "Ελλάδα", "Кириллица",
    "🙂", "👩‍👩‍👧", "👍🏽", "🇫🇷", "❤️", "\u200b", "\u200d", "\ufeff", "\x00", "\x1c", "\U0010ffff",
    "<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|endoftext", "|>",
]


def adversarial_texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 30)):
            unit = rng.choice(UNITS)
            parts.append(unit * (rng.choice([1, 1, 1, 2, 3, 5, 17, 64, 300]) if rng.random() < 0.3 else 1))
        texts.append("".join(parts))
    # Long runs, where naive encoders turn quadratic.
    texts += [c * 5000 for c in (" ", "a", "1", "!", "\n", "\r\n", "é", "中", "🙂", "ab", " a", "\t ")]
    texts += ["x" + " " * 3000 + "y", "1" * 2999 + "a", "A" * 2000 + "a", "'" * 1000 + "s"]
    return texts


@pytest.mark.parametrize("name", NAMES)
def test_adversarial_text(encodings, name):
    enc, tok = encodings[name]
    for k, text in enumerate(adversarial_texts(seed=3, n=300)):
        assert_same(enc, tok, text, f"adversarial text {k}")


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(text=st.text(max_size=80))
def test_any_text(encodings, name, text):
    enc, tok = encodings[name]
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)


@functools.cache
def version_sensitive_characters() -> tuple[str, ...]:
    """Every character whose class in the patterns (letter, number or mark, or none of them)
    differs between `regex` and Python's own Unicode data: those added or changed by newer
    Unicode versions, where `regex` and tiktoken's Rust tables can disagree."""
    import unicodedata

    import regex

    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    in_regex = set(regex.findall(r"[\p{L}\p{N}\p{M}]", "".join(chars)))
    return tuple(c for c in chars if (c in in_regex) != (unicodedata.category(c)[0] in "LNM"))


def _tiktoken_sees_a_letter(enc, c: str) -> bool:
    # A letter, number or mark before ":A" is a pre-token of its own; anything else joins ":".
    return enc.encode_ordinary(c + ":A") == enc.encode_ordinary(c) + enc.encode_ordinary(":A")


@functools.cache
def unicode_gap() -> frozenset[str]:
    """The characters `regex` reads as letters, numbers or marks and tiktoken does not: those
    of Unicode versions newer than tiktoken's tables (regex 2025.10 and later: Unicode 17.0;
    tiktoken 0.14: 16.0). Empty when the two agree."""
    import regex
    import tiktoken

    import ownbpe

    enc = tiktoken.Encoding("o200k_probe", pat_str=ownbpe.O200K_PATTERN, mergeable_ranks=load_ranks("o200k_base"), special_tokens={})
    letters = regex.compile(r"[\p{L}\p{N}\p{M}]")
    return frozenset(c for c in version_sensitive_characters() if bool(letters.match(c)) != _tiktoken_sees_a_letter(enc, c))


def newer_than_tiktoken() -> set[str]:
    from ownbpe.fast.pretokenize import NEWER_THAN_TIKTOKEN

    return {chr(c) for first, last in NEWER_THAN_TIKTOKEN for c in range(first, last + 1)}


def test_the_newer_characters_are_those_tiktoken_lacks():
    # ownbpe reads the characters of NEWER_THAN_TIKTOKEN as unassigned. That list must hold
    # every character `regex` and tiktoken disagree on (regex 2026.11 against tiktoken 0.14:
    # 17,559, all added by Unicode 17.0), and no character tiktoken reads as a letter, number
    # or mark: a newer tiktoken that knows them fails here, and the list must then shrink.
    import tiktoken

    import ownbpe

    newer = newer_than_tiktoken()
    assert unicode_gap() <= newer
    enc = tiktoken.Encoding("o200k_probe", pat_str=ownbpe.O200K_PATTERN, mergeable_ranks=load_ranks("o200k_base"), special_tokens={})
    assert not [c for c in sorted(newer) if _tiktoken_sees_a_letter(enc, c)]


@pytest.mark.parametrize("name", NAMES)
def test_characters_of_newer_unicode_versions(encodings, name):
    # Characters whose class changed since Python's Unicode data (14.0 on 3.11), and those
    # newer than tiktoken's tables, each where its class decides the split: before a
    # punctuation mark and a capital, after a space. ownbpe must split every one as tiktoken
    # does: the BMP twins' classes, and `regex` with the newer characters made unassigned.
    enc, tok = encodings[name]
    chars = sorted(set(version_sensitive_characters()) | newer_than_tiktoken())
    assert len(chars) > 20_000  # Unicode 15.0 and 16.0 added thousands of letters, 17.0 17,559
    # Those of the BMP alone first, by a fresh tokenizer (its caches would otherwise answer
    # from the pre-tokens of the mixed text): they go to the BMP twin.
    fresh = type(tok).from_tiktoken(dict(tok._encoder), tok.pattern, tok.special_tokens)
    assert_same(enc, fresh, "".join(c + ":A " + c + "a1" for c in chars if c <= "\uffff"), "characters of the BMP")
    for k in range(0, len(chars), 500):
        text = "".join(c + ":A " + c + "a1" for c in chars[k : k + 500])
        assert_same(enc, tok, text, f"characters {chars[k]!r}..")


@pytest.mark.parametrize("name", NAMES)
def test_streaming_adversarial_text(encodings, name, monkeypatch):
    from ownbpe import tokenizer

    monkeypatch.setattr(tokenizer, "STREAM_BLOCK", 16)  # cut as often as possible
    enc, tok = encodings[name]
    rng = random.Random(11)
    for text in adversarial_texts(seed=5, n=60):
        points = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, 25)))
        pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
        assert list(tok.encode_iterable(pieces, allowed_special="all")) == enc.encode(text, allowed_special="all")
        assert list(tok.encode_iterable(pieces, allowed_special=frozenset())) == enc.encode_ordinary(text)


@pytest.mark.parametrize("name", NAMES)
def test_first_sight_in_small_blocks(encodings, name, monkeypatch):
    # New long text is encoded block by block, cut at safe cuts: with blocks of 40 characters
    # the cuts fall everywhere in adversarial text, and the ids must not change.
    from ownbpe.fast import encoder

    monkeypatch.setattr(encoder, "NEW_BLOCK", 40)
    enc, shared = encodings[name]
    text = "".join(adversarial_texts(seed=13, n=400))
    assert len(text) > 2 * encoder.LONG_TEXT_CHARS
    tok = type(shared).from_tiktoken(dict(shared._encoder), shared.pattern, shared.special_tokens)
    assert_same(enc, tok, text, "adversarial text in blocks of 40 characters")


@pytest.mark.parametrize("name", NAMES)
def test_first_sight_of_mixed_scripts_with_ascii_gaps(encodings, name):
    """New long text (the pre-token path) whose non-ASCII stretches are parted by ASCII gaps
    of every length: gaps under 64 characters stay inside the non-ASCII parts, longer ones
    go to the ASCII pattern; the joins and cuts fall on spaces, newlines, slashes, digits and
    apostrophes, where a wrong cut would change the pre-tokens."""
    from ownbpe.fast.encoder import LONG_TEXT_CHARS

    enc, shared = encodings[name]
    rng = random.Random(7)
    gaps = [" ", "\n", "/", " /\n", "'s ", "12345", " x ", "\r\n\n  ", "ab.\n//"]
    for k in range(4):
        parts = []
        while sum(map(len, parts)) < 2 * LONG_TEXT_CHARS:
            parts.append(rng.choice(UNITS[:-5]) * rng.choice([1, 1, 2, 7]))
            gap = rng.choice(gaps)
            parts.append(gap * rng.choice([1, 1, 3, 40, 300]))  # up to a few thousand characters
        text = "".join(parts)
        tok = type(shared).from_tiktoken(dict(shared._encoder), shared.pattern, shared.special_tokens)
        assert_same(enc, tok, text, f"mixed text {k}")


@pytest.mark.parametrize("name", NAMES)
def test_newer_characters_fast_path_as_tiktoken_plain_path_as_regex(encodings, name):
    # Characters of Unicode 17.0 (CJK, Armenian, cuneiform) among a BMP letter and an emoji.
    # The fast path and `explain` read them as tiktoken 0.14 does (Unicode 16.0: unassigned);
    # the plain path and `_educational` as the installed `regex` does, and agree with each other.
    import regex

    from ownbpe import _educational

    enc, tok = encodings[name]
    text = "x\U000323b0:A \u0558b \U0001f642\U00012550 1\U000323b1 caf\u00e9"
    explained = tok.explain(text)
    assert [i for p in explained for i in p.ids] == enc.encode_ordinary(text)
    assert [text[p.start : p.start + len(p.text)] for p in explained] == [p.text for p in explained]
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)
    plain = tok.encode_ordinary(text, fast=False)
    assert plain == _educational.encode(text, tok._encoder, pattern=tok.pattern)
    assert _educational.pretokenize(text, pattern=tok.pattern) == regex.findall(tok.pattern, text)
    if regex.match(r"\p{L}", "\U000323b0"):  # regex knows Unicode 17.0: the two paths differ here
        assert plain != enc.encode_ordinary(text)
    else:
        assert plain == enc.encode_ordinary(text)
