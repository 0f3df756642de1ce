"""Names -> lazy, cached tokenizers: each built on first use, once per process, behind a lock.

Unlike `catalogue` (the rows: which file from which package makes which tokenizer), `builders`
(the constructors) and `specs` (the ``family:path`` syntax), this module keeps what was built, on
`LOADED` (a `memo.Shelf`: a process resource shared by every run, request and rerun, never a run's
cache): constructors run on first use, once per process, behind one lock per name, so adapters
can be shared between threads, different vocabularies load side by side, and a loaded name is
looked up without any lock.
"""

from __future__ import annotations

import os
import threading
from typing import Iterable

from ..errors import BadInput
from ..memo import Shelf
from .base import Tokenizer
from .builders import build_from_file as build_from_file  # kept importable from here
from .catalogue import CATALOGUE, Entry as Entry, available_tokenizers, is_available as is_available, unknown
from .specials import (QWEN3_ADDED as QWEN3_ADDED, TEKKEN_SPECIALS as TEKKEN_SPECIALS,
                       llama_pattern_and_specials as llama_pattern_and_specials)
from .specs import load_spec

# The tokenizers this process has loaded, by registry name or spec (and a file's tokenizer also by
# its name of content, FAMILY:FILE@DIGEST). Looking up a loaded adapter takes no lock at all, so
# sessions that share adapters never wait for each other.
LOADED: Shelf[str, Tokenizer] = Shelf("tokenizers by name")


def load_tokenizer(name_or_spec: str) -> Tokenizer:
    """Return the tokenizer for a registry name or a ``family:path`` spec (cached, thread-safe).

    Raises:
        UnknownName: unknown name (a KeyError; the message lists the valid names).
        VocabularyError: the vocabulary is not fetched yet (the message gives the command) or
            its file is corrupt (the message names file and line).

    >>> load_tokenizer("o200k_base").encode("hello world")
    [24912, 2375]
    """
    if not isinstance(name_or_spec, str):
        raise TypeError(f"tokenizer name must be a str, got {type(name_or_spec).__name__}")
    return LOADED.get(name_or_spec.strip(), _build)  # building is rare and slow: never twice for one name


def _build(key: str) -> Tokenizer:
    if key in CATALOGUE:
        return CATALOGUE[key].build()
    if ":" in key:
        tok = load_spec(key, load_tokenizer)
        if "@" in tok.name:
            # a file's tokenizer is named by its content's digest (gguf:FILE@DIGEST, sp:FILE@DIGEST): that
            # name finds it too, so the engines, which pass names to their workers, run it; and one
            # content is one adapter, whatever path it was read from
            tok = LOADED.put(tok.name, tok, replace=False)
        return tok
    raise unknown(key)


def load_tokenizers(names: list[str], *, workers: int | None = None) -> list[Tokenizer]:
    """Load several tokenizers at once, in threads (file reads, gunzip and the Rust builders overlap).

    Returns them in the order of `names`; the first error (unknown name, corrupt file) is raised.
    """
    todo = [n for n in names if n.strip() not in LOADED]
    if len(todo) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=workers or min(len(todo), os.cpu_count() or 1)) as pool:
            for f in [pool.submit(load_tokenizer, n) for n in todo]:
                f.exception()  # wait for all; errors are raised below, in order
    return [load_tokenizer(n) for n in names]


def build_engines(toks: Iterable[Tokenizer]) -> None:
    """Build now what each of `toks` defers to its first long text (tiktoken's engine).

    For processes that will encode much: a server after it turned ready, a pool before it forks
    its workers (so that they inherit the engines instead of each building its own).
    """
    for tok in toks:
        tok.build()  # a no-op for adapters with nothing deferred


def warm_up(names: list[str] | None = None) -> threading.Thread:
    """Start loading `names` (default: every available tokenizer) and building their engines in a
    daemon thread; returns it.

    Errors are left for the request that needs the tokenizer: it will raise them with a message.
    """
    def run() -> None:
        try:
            build_engines(load_tokenizers(names if names is not None else available_tokenizers()))
        except (ValueError, KeyError, OSError):
            pass  # every name was tried; the page that asks for a broken one shows its problem

    thread = threading.Thread(target=run, name="tokenprism-warm-up", daemon=True)
    thread.start()
    return thread


def tiktoken_params(name: str) -> tuple[dict[bytes, int], str, dict[str, int]]:
    """(ranks, pattern, special_tokens) of a tiktoken-family tokenizer, e.g. for ownbpe's explain."""
    from .tiktoken_adapter import TiktokenTokenizer

    tok = load_tokenizer(name)
    if not isinstance(tok, TiktokenTokenizer):
        names = [n for n in available_tokenizers() if CATALOGUE[n].family == "tiktoken"]
        raise BadInput(f"{name!r} is not a tiktoken-family tokenizer; choose one of {', '.join(names)}")
    return tok.ranks, tok.pattern, tok.special_tokens
