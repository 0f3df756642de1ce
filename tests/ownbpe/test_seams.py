"""Seams and whole-character starts (`ownbpe.fast.seams`): never a cut or a start that changes ids.

Three kinds of check:
- the seams found are true seams by the definition (no token's bytes occur across them),
  brute-forced over every substring;
- every part merged from its starting parts gives what merging from bytes gives;
- whole pre-tokens through the tokenizer equal tiktoken, on vocabularies built to trap each
  shortcut, and on o200k with text of many scripts.
"""

from __future__ import annotations

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

import ownbpe
from ownbpe import bpe
from ownbpe.fast import encoder
from ownbpe.fast.seams import Seams

from .conftest import MAX_EXAMPLES, load_ranks

BYTES = {bytes([i]): i for i in range(256)}

# Characters of several widths and scripts, marks and ASCII between them.
SCRIPTS = "aeé xyकखगािं्नमсловоمرحبا가나다中文😀👍🏽\u0301"


@pytest.fixture(scope="module")
def o200k():
    ranks = load_ranks("o200k_base")
    enc = tiktoken.Encoding("o200k_test", pat_str=ownbpe.O200K_PATTERN, mergeable_ranks=ranks, special_tokens={})
    return ranks, enc


def true_seams(piece: str, ranks: dict[bytes, int]) -> set[int]:
    """Character offsets no token crosses: no substring of the bytes spanning them is a token."""
    data = piece.encode()
    starts = [len(piece[:k].encode()) for k in range(len(piece) + 1)]
    out = set()
    longest = max(map(len, ranks))
    for k in range(1, len(piece)):
        b = starts[k]
        if not any(data[i:j] in ranks for i in range(max(0, b - longest), b) for j in range(b + 1, min(len(data), i + longest) + 1)):
            out.add(k)
    return out


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.text(alphabet=SCRIPTS, min_size=2, max_size=24))
def test_seams_are_true_seams(o200k, piece):
    ranks, _ = o200k
    found = Seams(ranks).cuts(piece)
    assert set(found) <= true_seams(piece, ranks)


def test_seams_found_where_nothing_crosses(o200k):
    # Not a vacuous subset: in text of other scripts half of the true seams are found (matching
    # by the nearest byte misses some: "\u0928\u0964" style tokens with another second byte).
    ranks, _ = o200k
    seams = Seams(ranks)
    text = "नमस्ते दुनिया, यह एक परीक्षण वाक्य है। Привет, мир! 안녕하세요 세계"
    pieces = [p for p in text.split() if len(p) > 1]
    found = sum(len(seams.cuts(p)) for p in pieces)
    true = sum(len(true_seams(p, ranks)) for p in pieces)
    assert true > 0 and found >= true / 2


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(st.text(alphabet=SCRIPTS, min_size=1, max_size=16), min_size=1, max_size=8))
def test_starting_parts_merge_like_bytes(o200k, pieces):
    ranks, _ = o200k
    seams = Seams(ranks)
    parts, _ = seams.split(pieces)
    for part, start in zip(parts, seams.starts(parts)):
        assert b"".join(start) == part.encode()
        assert bpe.merge_ranked(list(start), ranks) == bpe.merge_ranked(part.encode(), ranks), part


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.text(alphabet=SCRIPTS + ".,!? \n0123", min_size=1, max_size=200))
def test_o200k_ids_through_seams_equal_tiktoken(o200k, monkeypatch_module, text):
    ranks, enc = o200k
    tok = ownbpe.Tokenizer.from_tiktoken(ranks, ownbpe.O200K_PATTERN)
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)


@pytest.fixture(scope="module")
def monkeypatch_module():
    # Every batch takes the seams (normally only a batch of 512 long pieces reads the vocabulary).
    mp = pytest.MonkeyPatch()
    mp.setattr(encoder, "SEAM_FIRST_PIECES", 0)
    yield mp
    mp.undo()


def _trap(extra: dict[bytes, int]) -> tuple[ownbpe.Tokenizer, tiktoken.Encoding]:
    ranks = BYTES | extra
    enc = tiktoken.Encoding("trap", pat_str=ownbpe.O200K_PATTERN, mergeable_ranks=ranks, special_tokens={})
    return ownbpe.Tokenizer.from_tiktoken(ranks, ownbpe.O200K_PATTERN), enc


E = "é".encode()  # C3 A9
K = "क".encode()  # E0 A4 95


@pytest.mark.parametrize(
    "extra, text",
    [
        # The last byte of é joins x (280) before é itself forms (300): é must not start whole.
        ({E: 300, b"\xa9x": 280}, "éx éxé"),
        # ü forms first (270), then é's last byte joins it (280) before é forms (300).
        ({E: 300, "ü".encode(): 270, b"\xa9" + "ü".encode(): 280}, "éü aéü"),
        # The space and é's first byte join (260) before é forms: the start of a piece.
        ({E: 300, b" \xc3": 260, b" \xc3\xa9": 301}, "a éé é"),
        # A token holding é whole ranks below é's own merge (290 < 300), so x meets y first
        # (295) in the byte-level run: starting é whole would give "éx" + "y" instead.
        ({E: 300, b"xy": 295, E + b"x": 290}, "éxy éxyé"),
        # Two-step characters: the highest of their merges counts, not the last.
        ({"क".encode()[:2]: 400, "क".encode(): 300, b"\x95\xe0": 350}, "कक कखक"),
        # A seam that is not one: a token crosses only through partial characters.
        ({b"\xa9\xc3": 260, E: 300}, "éé ééé"),
        # Half characters: the space and क's first byte join (265) before क's leading pair
        # (270), so क must start as bytes, not as that pair and a byte.
        ({K[:2]: 270, b" \xe0": 265, K: 300}, " क कक"),
        # x and क's first byte join (260), then its second (262), before क's trailing pair
        # (265): starting from that pair would give x\xe0 + \xa4\x95.
        ({K[1:]: 265, K[:2]: 270, K: 300, b"x\xe0": 260, b"x\xe0\xa4": 262}, "xक कxक"),
        # The trailing pair ranks below the leading one: it is the first merge, and it may start.
        ({K[1:]: 265, K[:2]: 270, K: 300, b"\x95\xe0": 268}, "कक कखक"),
    ],
)
def test_traps_match_tiktoken(monkeypatch_module, extra, text):
    tok, enc = _trap(extra)
    assert tok.encode_ordinary(text) == enc.encode_ordinary(text)
    for word in text.split():
        assert tok.encode_ordinary(word) == enc.encode_ordinary(word), word


def test_whole_characters_are_started_where_safe(o200k):
    # Not vacuous: most characters of Hindi parts start whole under o200k.
    ranks, _ = o200k
    seams = Seams(ranks)
    parts, _ = seams.split(["परीक्षण", "दुनिया", "वाक्य"])
    starts = list(seams.starts(parts))
    assert sum(map(len, starts)) < sum(len(p.encode()) for p in parts) / 2


def test_seams_forget_learned_pairs_when_the_cache_is_emptied(o200k):
    ranks, enc = o200k
    words = "परीक्षण वाक्य दुनिया नमस्ते Привет словарь 안녕하세요 세계".split()
    tok = ownbpe.Tokenizer.from_tiktoken(ranks, ownbpe.O200K_PATTERN, cache_bytes=20_000)
    tok._fast._seams._known_pairs()  # ready: the seams take every batch
    for k in range(40):
        text = " ".join(words[i % len(words)] + words[(i * k) % len(words)] for i in range(k + 2))
        assert tok.encode_ordinary(text) == enc.encode_ordinary(text)
        assert tok._fast._cache_load + tok._fast._part_load + tok._fast._seams.load <= 20_000


def test_parts_outlive_pieces_when_the_budget_is_reached(o200k):
    # Chunks and pieces are emptied first (they are rebuilt from parts without merging); the
    # parts and learned pairs stay while they hold at most half of the budget.
    ranks, enc = o200k
    tok = ownbpe.Tokenizer.from_tiktoken(ranks, ownbpe.O200K_PATTERN, cache_bytes=400_000)
    tok._fast._seams._known_pairs()
    hindi = "परीक्षण वाक्य दुनिया नमस्ते सरकार विद्यालय"
    tok.encode_ordinary(hindi)
    parts = dict(tok._fast._part_cache)
    assert parts and tok._fast._part_load + tok._fast._seams.load < 200_000
    for k in range(200):  # new English words until the pieces overflow the budget
        text = " ".join(f"w{k}x{i}q" for i in range(40))
        assert tok.encode_ordinary(text) == enc.encode_ordinary(text)
    assert len(tok._fast._piece_cache) < 200 * 40  # emptied at least once...
    assert tok._fast._part_cache == parts  # ...but not the parts
    assert tok.encode_ordinary(hindi) == enc.encode_ordinary(hindi)


def test_half_characters_are_started_where_safe(o200k):
    # Not vacuous: under o200k some Hindi characters that may not start whole start as their
    # first merge, a token of two of their three bytes (and every part still merges as bytes do).
    ranks, _ = o200k
    seams = Seams(ranks)
    parts, _ = seams.split(["परीक्षण", "दुनिया", "वाक्य", "हिन्दी", "भाषा", "प्रधानमंत्री"])
    starts = list(seams.starts(parts))
    halves = [u for start in starts for u in start if len(u) == 2]  # Devanagari: 3 bytes a character
    assert halves and all(u in ranks for u in halves)
    for part, start in zip(parts, starts):
        assert bpe.merge_ranked(list(start), ranks) == bpe.merge_ranked(part.encode(), ranks), part
