"""Word lists for the probes that ask about words (spelling, reversal, the audit's whole words).

Unlike `corpora.words`, which counts the words of a text, this module names the words: the most
common words of a language, from `wordfreq`'s lists (shipped inside its PyPI package; nothing is
downloaded), or, where wordfreq is not installed or has no list for the language, the words of
tokenprism's built-in text in that language, most frequent first. `word_source` says which.
"""

from __future__ import annotations

import functools
import re
from collections import Counter

DEFAULT_WORDS = 10_000

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")  # letters, with one inner apostrophe (don't)


@functools.lru_cache(maxsize=16)
def _wordfreq(language: str, n: int) -> tuple[str, ...] | None:
    try:
        import wordfreq
    except ImportError:
        return None
    if language not in wordfreq.available_languages("best"):  # wordfreq would quietly use the nearest language
        return None
    words = wordfreq.top_n_list(language, n * 2, wordlist="best")
    # wordfreq lists also hold numbers and punctuation-bearing forms; the probes ask about words
    kept = [w for w in words if _WORD.fullmatch(w)]
    return tuple(kept[:n]) or None


@functools.lru_cache(maxsize=16)
def _builtin(language: str, n: int) -> tuple[str, ...]:
    from ..corpora.builtin import load_parallel

    frame = load_parallel("builtin", joined=True)
    text = " ".join(frame.loc[frame["language"] == language, "text"].astype(str))
    counts = Counter(w.lower() for w in _WORD.findall(text))
    return tuple(w for w, _ in counts.most_common(n))


def common_words(language: str = "en", n: int = DEFAULT_WORDS) -> tuple[str, ...]:
    """The `n` most common words of `language` (an ISO 639-1 code), lower-case, most common first.

    >>> common_words("en", 5)
    ('the', 'to', 'and', 'of', 'a')
    """
    return _wordfreq(language, n) or _builtin(language, n)


def word_source(language: str = "en") -> str:
    """Where `common_words(language)` comes from, for a table's note."""
    if _wordfreq(language, 10) is not None:
        from importlib.metadata import version

        return f"wordfreq {version('wordfreq')}'s 'best' list"
    return "the words of tokenprism's built-in parallel text"
