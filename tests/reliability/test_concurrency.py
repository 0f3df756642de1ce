"""Findings 8 and 9: no global lock on the hot path, vocabularies load side by side, warm-up.

No timing here (speed is measured in `python -m tests.benchmarks reliability`): the tests use
events, so a lock that serialises what should overlap shows up as a deadlock (a timeout).
"""

from __future__ import annotations

import threading

import pytest

from analysis.tokenizers import registry


@pytest.fixture(autouse=True)
def _forget_planted_names():
    """The names a test plants are loaded under `registry.LOADED`: forgotten after it, through the shelf."""
    yield
    for name in ("slow-one", "build-a", "build-b", "once", "warm-me"):
        registry.LOADED.discard(name)


def _slow_entry(monkeypatch, name: str, build):
    entry = registry.Entry(name, "tiktoken", "test", "x", "x", "MIT", build)
    monkeypatch.setitem(registry.CATALOGUE, name, entry)
    registry.LOADED.discard(name)


def test_a_loaded_adapter_is_returned_while_another_is_being_built(monkeypatch):
    loaded = registry.load_tokenizer("gpt2")
    building, release = threading.Event(), threading.Event()

    def slow_build():
        building.set()
        assert release.wait(30)
        return loaded

    _slow_entry(monkeypatch, "slow-one", slow_build)
    t = threading.Thread(target=registry.load_tokenizer, args=("slow-one",))
    t.start()
    assert building.wait(30)
    try:
        # used to wait for the global lock, i.e. for the slow build to finish
        result: list = []
        getter = threading.Thread(target=lambda: result.append(registry.load_tokenizer("gpt2")))
        getter.start()
        getter.join(10)
        assert result == [loaded], "the lookup of a loaded adapter waited for another tokenizer's build"
    finally:
        release.set()
        t.join(30)


def test_two_vocabularies_build_at_the_same_time(monkeypatch):
    a_started, b_started = threading.Event(), threading.Event()
    tok = registry.load_tokenizer("gpt2")

    def build_a():
        a_started.set()
        assert b_started.wait(20), "b never started while a was building: builds are serialised"
        return tok

    def build_b():
        b_started.set()
        assert a_started.wait(20)
        return tok

    _slow_entry(monkeypatch, "build-a", build_a)
    _slow_entry(monkeypatch, "build-b", build_b)
    assert registry.load_tokenizers(["build-a", "build-b"], workers=2) == [tok, tok]


def test_a_name_is_built_once_when_threads_ask_together(monkeypatch):
    calls = []
    tok = registry.load_tokenizer("gpt2")
    gate = threading.Event()

    def build():
        calls.append(1)
        gate.wait(5)
        return tok

    _slow_entry(monkeypatch, "once", build)
    threads = [threading.Thread(target=registry.load_tokenizer, args=("once",)) for _ in range(4)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join(30)
    assert calls == [1]


def test_shared_encodings_and_rank_tables():
    a, b = registry.load_tokenizer("gpt2"), registry.load_tokenizer("r50k_base")
    assert a._enc is b._enc  # one engine for the one encoding with two names
    assert registry.load_tokenizer("o200k_base").ranks is registry.load_tokenizer("o200k_harmony").ranks


def test_warm_up_loads_in_the_background(monkeypatch):
    tok = registry.load_tokenizer("gpt2")
    _slow_entry(monkeypatch, "warm-me", lambda: tok)
    thread = registry.warm_up(["warm-me", "no-such-tokenizer"])  # a bad name does not stop the others
    thread.join(30)
    assert registry.LOADED.peek("warm-me") is tok


def test_fast_rank_parser_agrees_with_the_checked_one_and_falls_back(tmp_path):
    from analysis.tokenizers.vocab import VocabularyError, read_tiktoken_ranks
    from ownbpe.io import _bulk_ranks, parse_tiktoken_ranks

    good = b"YQ== 0\nYg== 1\nYWI= 2\n"
    # the line-by-line path is what a blank line at the end sends the file to
    assert _bulk_ranks(good) == parse_tiktoken_ranks(good + b"\n") == {b"a": 0, b"b": 1, b"ab": 2}
    assert _bulk_ranks(good + b"\n") is None
    for bad in (b"YQ== 0\nYg== 0\n", b"YQ== 0\nnot base64! 1\n", b"YQ== 0 extra\nYg==\n", b"YQ== x\n"):
        assert _bulk_ranks(bad) is None
        path = tmp_path / "bad.tiktoken"
        path.write_bytes(bad)
        with pytest.raises(VocabularyError, match="line"):
            read_tiktoken_ranks(path)
