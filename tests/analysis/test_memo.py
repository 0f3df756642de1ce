"""`memo.Shelf`: what a process loads once (vocabularies, tiktoken engines) and keeps for every run.

No timing here: the tests use events, so a lock that lets two threads load one key, or that makes
one key wait for another, shows up as a second load or as a deadlock (a timeout).
"""

from __future__ import annotations

import threading

import pytest

from analysis.memo import IdentityKey, RunCaches, Shelf, open_run

WAIT = 20  # seconds an event may take before the test calls it a deadlock


def test_concurrent_first_loads_of_one_key_load_it_once():
    shelf: Shelf[str, object] = Shelf("test")
    calls: list[str] = []
    loading, release = threading.Event(), threading.Event()

    def load(key: str) -> object:
        calls.append(key)
        loading.set()
        assert release.wait(WAIT)
        return object()

    results: list[object] = []
    arrived = [threading.Event() for _ in range(8)]

    def ask(i: int) -> None:
        arrived[i].set()
        results.append(shelf.get("vocab", load))

    first = threading.Thread(target=ask, args=(0,))
    first.start()
    assert loading.wait(WAIT)
    others = [threading.Thread(target=ask, args=(i,)) for i in range(1, 8)]
    for t in others:
        t.start()
    for event in arrived:
        assert event.wait(WAIT)
    for t in others:
        t.join(0.2)  # give them time to reach the lock: none may start a load of its own
    assert calls == ["vocab"]
    release.set()
    for t in [first, *others]:
        t.join(WAIT)
    assert calls == ["vocab"] and len(results) == 8 and all(r is results[0] for r in results)
    assert shelf.get("vocab", lambda key: pytest.fail("loaded again")) is results[0]


def test_two_keys_load_side_by_side_and_a_loaded_key_never_waits():
    shelf: Shelf[str, str] = Shelf("test")
    shelf.get("ready", lambda key: "loaded before")
    a_started, b_started, release = threading.Event(), threading.Event(), threading.Event()

    def load_a(key: str) -> str:
        a_started.set()
        assert b_started.wait(WAIT), "b never started while a was loading: the loads are serialised"
        assert release.wait(WAIT)
        return "a"

    def load_b(key: str) -> str:
        b_started.set()
        assert a_started.wait(WAIT)
        assert release.wait(WAIT)
        return "b"

    got: dict[str, str] = {}
    threads = [threading.Thread(target=lambda k=k, f=f: got.__setitem__(k, shelf.get(k, f)))
               for k, f in (("a", load_a), ("b", load_b))]
    for t in threads:
        t.start()
    assert a_started.wait(WAIT) and b_started.wait(WAIT)
    # both loads are in progress: a loaded key is still found, without waiting for them
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(shelf.get("ready", lambda key: "again")))
    reader.start()
    reader.join(WAIT)
    assert found == ["loaded before"]
    release.set()
    for t in threads:
        t.join(WAIT)
    assert got == {"a": "a", "b": "b"} and sorted(shelf.keys()) == ["a", "b", "ready"]


def test_a_failed_load_keeps_nothing_and_a_load_may_ask_the_shelf_again():
    shelf: Shelf[str, int] = Shelf("test")

    def not_fetched(key: str) -> int:
        raise OSError(f"{key} is not fetched")

    with pytest.raises(OSError, match="x is not fetched"):
        shelf.get("x", not_fetched)
    assert "x" not in shelf and shelf.peek("x") is None
    assert shelf.get("x", lambda key: 1) == 1
    # a load that asks for another key, and one that keeps itself under its own key first (as a
    # file's tokenizer is kept under its name of content): re-entrant, no deadlock, one value
    assert shelf.get("outer", lambda key: shelf.get("inner", lambda k: 2) + 1) == 3
    assert shelf.get("self", lambda key: shelf.put(key, 7, replace=False)) == 7 and shelf.peek("self") == 7


def test_put_replaces_or_keeps_and_discard_forgets():
    shelf: Shelf[str, str] = Shelf("test")
    assert shelf.put("t", "trained") == "trained"
    assert shelf.put("t", "other", replace=False) == "trained"
    assert shelf.put("t", "retrained") == "retrained" and shelf.get("t", lambda key: "built") == "retrained"
    shelf.discard("t")
    shelf.discard("never there")
    assert "t" not in shelf and len(shelf) == 0
    assert shelf.get("t", lambda key: "built") == "built"
    assert repr(shelf) == "Shelf('test', 1 loaded)"


def test_a_shelf_outlives_runs_where_a_run_cache_does_not():
    shelf: Shelf[str, object] = Shelf("test")
    with open_run() as run:
        value = shelf.get("vocab", lambda key: object())
        run.memo("answers").put("q", 1)
    assert shelf.peek("vocab") is value and len(run.memo("answers")) == 0
    assert isinstance(run, RunCaches)


def test_an_identity_key_holds_its_object():
    a, b = [1], [1]
    shelf: Shelf[tuple, str] = Shelf("test")
    shelf.get((IdentityKey(a), "p"), lambda key: "of a")
    assert shelf.get((IdentityKey(a), "p"), lambda key: "again") == "of a"
    assert shelf.get((IdentityKey(b), "p"), lambda key: "of b") == "of b"  # equal, not the same: its own entry
    key = IdentityKey([2])
    assert key.obj == [2]  # kept alive by the key: its id cannot be reused while the entry lives


def test_the_process_resources_are_shelves():
    from analysis.engine import base
    from analysis.tokenizers import cuts, registry, tiktoken_adapter

    for shelf in (registry.LOADED, base._LOADED, tiktoken_adapter._ENGINES, cuts._COMPILED):
        assert isinstance(shelf, Shelf), shelf
    tok = registry.load_tokenizer("gpt2")
    assert "gpt2" in registry.LOADED and base.worker_tokenizers(["gpt2"])[0] is tok
    # gpt2 and r50k_base are one encoding: one engine on the shelf, found by the rank table's identity
    assert registry.load_tokenizer("r50k_base")._enc is tok._enc
