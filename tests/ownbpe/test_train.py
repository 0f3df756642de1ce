"""Training: exact conformance with the CS336 reference, determinism, incremental counts, errors."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ownbpe
from ownbpe import _educational, count
from ownbpe.train import train_bpe, train_bpe_from_iterator

from .conftest import MAX_EXAMPLES, gpt2_token


def reference_merges(path):
    merges = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line:
            left, right = line.split(" ")
            merges.append((gpt2_token(left), gpt2_token(right)))
    return merges


def test_cs336_reference_merges_and_vocab(cs336):
    vocab, merges = train_bpe(cs336 / "corpus.en", 500, ["<|endoftext|>"])
    assert merges == reference_merges(cs336 / "train-bpe-reference-merges.txt")
    expected = json.loads((cs336 / "train-bpe-reference-vocab.json").read_text(encoding="utf-8"))
    expected_values = {k.encode() if k == "<|endoftext|>" else gpt2_token(k) for k in expected}
    assert set(vocab.values()) == expected_values
    assert sorted(vocab) == list(range(500))
    # Our layout: bytes are their own ids, merges follow in order, special tokens come last.
    assert all(vocab[i] == bytes([i]) for i in range(256))
    assert [vocab[256 + k] for k in range(len(merges))] == [a + b for a, b in merges]
    assert vocab[499] == b"<|endoftext|>"


def test_cs336_snapshot_with_special_tokens(cs336, shared_dir):
    """The official snapshot test; its 5 MB input is not in ../shared, so this usually skips."""
    corpus = next(iter(shared_dir.rglob("tinystories_sample_5M.txt")), None)
    if corpus is None or corpus.stat().st_size != 5_242_880:
        pytest.skip("tinystories_sample_5M.txt is not available (see ../shared/conformance/cs336/README.md)")
    snapshot = json.loads((cs336 / "train_bpe_special_tokens_snapshot.json").read_text(encoding="utf-8"))
    vocab, merges = train_bpe(corpus, 1000, ["<|endoftext|>"])
    assert [[a.hex(), b.hex()] for a, b in merges] == snapshot["merges"]
    assert sorted(v.hex() for v in vocab.values()) == snapshot["vocab_values"]


CORPUS_TEXT = st.lists(
    st.sampled_from(["a", "b", "ab", "aa", " ", "  ", "\n", "\r\n", "é", "!", "1", "X", "<s>", "'s", "ba"]), max_size=80
).map("".join)


@settings(max_examples=MAX_EXAMPLES, deadline=None)
@given(st.lists(CORPUS_TEXT, min_size=1, max_size=3), st.integers(256, 320))
def test_incremental_counts_equal_full_recount(texts, extra):
    # The readable reference recounts every pair before every merge.
    vocab_size = extra + 1
    assert train_bpe_from_iterator(texts, vocab_size, ["<s>"]) == _educational.train(texts, vocab_size, ["<s>"])


def test_wikipedia_example_with_reference_tie_break():
    # Wikipedia's "aaabdaaabac" as one pre-token. After (a,a), (aa,a) and (a,b) tie at 2:
    # the lexicographically greatest pair as bytes wins, (b"aa", b"a") > (b"a", b"b").
    _, merges = train_bpe_from_iterator(["aaabdaaabac"], 259)
    assert merges == [(b"a", b"a"), (b"aa", b"a"), (b"aaa", b"b")]


def test_special_tokens_split_and_are_never_merged(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text(("hello<|endoftext|>" * 50) + "<|endoftext|><|endoftext|>", encoding="utf-8")
    vocab, merges = train_bpe(corpus, 300, ["<|endoftext|>"])
    assert not any(b"<|" in a + b or b"|>" in a + b for a, b in merges)
    assert list(vocab.values()).count(b"<|endoftext|>") == 1
    assert b"hello" in vocab.values()
    assert len(merges) == 4


def test_crlf_is_kept_as_two_characters(tmp_path):
    corpus = tmp_path / "crlf.txt"
    corpus.write_bytes(b"line one\r\nline two\r\n" * 20)
    vocab, merges = train_bpe(corpus, 280)
    assert (b"\r", b"\n") in merges


def test_returns_fewer_merges_when_pairs_run_out():
    vocab, merges = train_bpe_from_iterator(["abab"], 1000)
    assert merges == [(b"a", b"b"), (b"ab", b"ab")]
    assert len(vocab) == 258


@pytest.mark.parametrize("pattern", [ownbpe.GPT2_PATTERN, ownbpe.O200K_PATTERN, r"\w+|\W"])
def test_same_merges_for_any_number_of_workers(cs336, tmp_path, monkeypatch, pattern):
    text = (cs336 / "tinystories_sample.txt").read_text(encoding="utf-8")
    corpus = tmp_path / "stories.txt"
    prose = (cs336 / "corpus.en").read_text(encoding="utf-8")
    corpus.write_text("".join(text + "\n" + prose[k * 7000 : (k + 1) * 7000] for k in range(3)), encoding="utf-8")
    monkeypatch.setattr(count, "PARALLEL_MIN_BYTES", 0)  # use the pool even on a small file
    monkeypatch.setattr(count, "PART_MIN_BYTES", 1)
    ranges = count._byte_ranges(corpus, corpus.stat().st_size, 3, ("<|endoftext|>",), pattern)
    assert len(ranges) == 3  # the file really is split
    results = [train_bpe(corpus, 400, ["<|endoftext|>"], pattern=pattern, workers=w) for w in (1, 2, 3)]
    assert results[0] == results[1] == results[2]


def test_progress_goes_to_stderr_only(cs336, capsys):
    train_bpe(cs336 / "corpus.en", 300, progress=True)
    out, err = capsys.readouterr()
    assert out == ""
    # each stage in turn, each with the time spent and an estimate of the time left
    stages = [err.rfind(stage) for stage in ("pre-tokenizing", "indexing pairs", "merging")]
    assert -1 < stages[0] < stages[1] < stages[2]
    assert len(re.findall(r"\[\d\d:\d\d<\d\d:\d\d", err)) >= 3


# -- errors ---------------------------------------------------------------------------------


def test_vocab_size_too_small(cs336):
    with pytest.raises(ValueError, match=r"at least 256 \(one token per byte\) \+ 2 special tokens = 258"):
        train_bpe(cs336 / "corpus.en", 257, ["<a>", "<b>"])
    with pytest.raises(TypeError, match="vocab_size must be an int"):
        train_bpe(cs336 / "corpus.en", "500")


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="training corpus not found: .*nope.txt"):
        train_bpe(tmp_path / "nope.txt", 300)


def test_invalid_utf8_names_the_byte_offset(tmp_path):
    corpus = tmp_path / "latin1.txt"
    corpus.write_bytes("héllo".encode("latin-1"))
    with pytest.raises(ValueError, match=r"invalid UTF-8 at byte offset 1 .*convert the corpus to UTF-8") as err:
        train_bpe(corpus, 300)
    assert isinstance(err.value.__cause__, UnicodeDecodeError)


def test_bad_arguments(cs336):
    with pytest.raises(TypeError, match="not the string"):
        train_bpe(cs336 / "corpus.en", 300, "<|endoftext|>")
    with pytest.raises(ValueError, match="non-empty strings"):
        train_bpe(cs336 / "corpus.en", 300, [""])
    with pytest.raises(ValueError, match="workers must be a positive int"):
        train_bpe(cs336 / "corpus.en", 300, workers=0)
    with pytest.raises(ValueError, match="invalid pre-tokenization pattern"):
        train_bpe(cs336 / "corpus.en", 300, pattern="(")


def test_vocab_size_too_large(cs336):
    with pytest.raises(ValueError, match="too large: ownbpe trains at most 1,114,112 tokens"):
        train_bpe(cs336 / "corpus.en", 2_000_000)


# -- the same merges however the counting is done (issue 61) ----------------------------------


def test_cs336_tinystories_sample_matches_the_readable_reference(cs336):
    # corpus.en has CS336's own reference merges (above); its TinyStories sample has none, so the
    # readable reference, which recounts every pair before each merge, is the oracle there.
    path = cs336 / "tinystories_sample.txt"
    text = path.read_text(encoding="utf-8")
    vocab, merges = train_bpe(path, 600, ["<|endoftext|>"])
    assert len(merges) > 250  # the sample holds enough pairs to keep merging for a while
    assert (vocab, merges) == _educational.train(text, 600, ["<|endoftext|>"])


@pytest.mark.parametrize("n_parts", [1, 2, 5])
def test_counts_by_parts_give_the_merges_of_the_whole_file(cs336, tmp_path, n_parts):
    # What `tokenprism train --engine dask` does on the workers, here in one process.
    stories = (cs336 / "tinystories_sample.txt").read_text(encoding="utf-8")
    prose = (cs336 / "corpus.en").read_text(encoding="utf-8")
    corpus = tmp_path / "mixed.txt"
    corpus.write_text("<|endoftext|>".join([stories, prose[:60000], stories, prose[60000:]]), encoding="utf-8")
    parts = ownbpe.file_parts(corpus, n_parts, ["<|endoftext|>"])
    assert len(parts) == n_parts
    assert parts[0][0] == 0 and parts[-1][1] == corpus.stat().st_size
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
    counts: dict[str, int] = {}
    for start, end in parts:
        for piece, c in ownbpe.count_file_part(corpus, start, end, ["<|endoftext|>"]).items():
            counts[piece] = counts.get(piece, 0) + c
    assert counts == count.count_file(corpus, ["<|endoftext|>"])
    assert ownbpe.train_bpe_from_counts(counts, 700, ["<|endoftext|>"]) == train_bpe(corpus, 700, ["<|endoftext|>"])


def test_train_from_counts_refuses_bad_counts():
    with pytest.raises(ValueError, match="positive ints; got 'ab': 0"):
        ownbpe.train_bpe_from_counts({"ab": 0}, 300)
    with pytest.raises(ValueError, match="n_parts must be a positive int"):
        ownbpe.file_parts(__file__, 0)
