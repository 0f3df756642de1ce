"""Counting pre-tokens: streaming reads, byte ranges for workers, invalid UTF-8."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import ownbpe
from ownbpe import count
from ownbpe.count import count_pretokens
from ownbpe.train import train_bpe

from .conftest import MAX_EXAMPLES


def test_count_pretokens_splits_special_tokens_first():
    assert count_pretokens("a b a", ["b"]) == {"a": 1, " ": 1, " a": 1}
    assert count_pretokens("x<e>x", ["<e>"], r"\w+|\W") == {"x": 2}


STREAM_TEXT = st.lists(
    st.sampled_from(["ab", " c", "\n", "  ", "<e>", "<e><e>", "d.\n", "x\r\n", "é", "東京", "👩‍👩‍👧", " 12345", "'s"]), max_size=80
).map("".join)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(STREAM_TEXT, st.integers(2, 9), st.sampled_from([3, 7, 64]))
def test_byte_ranges_and_blocks_count_like_the_whole(text, n_parts, block):
    """Cutting the corpus for the workers, and reading it in blocks, never changes a count."""
    old = count.BLOCK_BYTES
    count.BLOCK_BYTES = block  # tiny blocks: characters and special tokens straddle them
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "c.txt"
            path.write_bytes(text.encode("utf-8"))
            size = path.stat().st_size
            for pattern in (ownbpe.GPT2_PATTERN, ownbpe.CL100K_PATTERN, ownbpe.O200K_PATTERN, r"\S+|\s"):
                specials = ("<e><e>", "<e>")
                ranges = count._byte_ranges(path, size, n_parts, specials, pattern)
                assert ranges[0][0] == 0
                assert ranges[-1][1] == size
                assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
                total = Counter()
                for start, end in ranges:
                    total.update(count._count_range(str(path), start, end, specials, pattern))
                expected = Counter(p for seg in regex.split("<e><e>|<e>", text) for p in regex.findall(pattern, seg))
                assert +total == expected
    finally:
        count.BLOCK_BYTES = old


def test_invalid_utf8_far_into_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(count, "BLOCK_BYTES", 7)
    corpus = tmp_path / "bad.txt"
    corpus.write_bytes("ok é ".encode() * 100 + b"\xff" + b"tail")
    with pytest.raises(ValueError, match=r"invalid UTF-8 at byte offset 600 \(b'\\xff"):
        train_bpe(corpus, 300)


def test_invalid_utf8_found_by_a_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(count, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(count, "PART_MIN_BYTES", 1)
    corpus = tmp_path / "bad.txt"
    corpus.write_bytes(b"fine text " * 50 + b"\xc3(" + b" more text" * 50 + b"\xff")
    with pytest.raises(ValueError, match=r"invalid UTF-8 at byte offset 500 "):
        count.count_file(corpus, workers=2)
