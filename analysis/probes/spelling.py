"""Spelling and reversal: how many letters a model never sees, because a whole word is one token.

Unlike `vocabulary` (what the vocabulary holds) this probe asks about words in use: the most common
words of a language (`words.common_words`), each written as it appears inside a sentence (after a
space), and the same words reversed. A word that is one token reaches the model as one id: the
letters inside it are never shown, which is why "how many r's in strawberry" goes wrong. A reversed
word is rarely in the vocabulary, so it falls apart into many short tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..pipeline import as_tokenizers
from ..render import visible
from ..tokenizers import TokenizersArg
from .words import common_words, word_source


def spelling(tokenizers: TokenizersArg = None, words: Sequence[str] | None = None, *,
             language: str = "en") -> pd.DataFrame:
    """Per tokenizer, over `words` written after a space (" word"), forward and reversed.

    Args:
        tokenizers: adapters or names (None: every offline tokenizer).
        words: the words (default: the 10,000 most common of `language`).
        language: the word list's language.

    Returns:
        One row per tokenizer: n_words, one_token_share (words that are one token after a space),
        one_token_share_bare (alone, at the start of a text), letters_per_token, tokens_per_word,
        reversed_tokens_per_word and reverse_ratio (reversed over forward tokens).

    >>> row = spelling("cl100k_base", ["the", "tokenization"]).iloc[0]
    >>> int(row["n_words"]), float(row["one_token_share"])
    (2, 0.5)
    """
    words = list(common_words(language) if words is None else words)
    spaced = [" " + w for w in words]
    backward = [" " + w[::-1] for w in words]
    letters = sum(len(w) for w in words)
    rows = []
    for tok in as_tokenizers(tokenizers):
        fwd = tok.count_batch(spaced)
        bare = tok.count_batch(words)
        rev = tok.count_batch(backward)
        n_fwd, n_rev = sum(fwd), sum(rev)
        rows.append({"tokenizer": tok.name, "n_words": len(words),
                     "one_token_share": sum(1 for n in fwd if n == 1) / len(words) if words else float("nan"),
                     "one_token_share_bare": sum(1 for n in bare if n == 1) / len(words) if words else float("nan"),
                     "letters_per_token": letters / n_fwd if n_fwd else float("nan"),
                     "tokens_per_word": n_fwd / len(words) if words else float("nan"),
                     "reversed_tokens_per_word": n_rev / len(words) if words else float("nan"),
                     "reverse_ratio": n_rev / n_fwd if n_fwd else float("nan")})
    frame = pd.DataFrame(rows)
    frame.attrs["note"] = f"words: the {len(words):,} most common ({word_source(language)}), each after a space"
    return frame


def spelling_headline(table: pd.DataFrame) -> str:
    """One sentence from `spelling`'s table: the share of words whose letters are hidden, and reversal's cost."""
    if table.empty:
        return "No tokenizer was asked."
    top = table.sort_values("one_token_share", ascending=False).iloc[0]
    n = int(top["n_words"])
    text = (f"Under {top['tokenizer']}, {top['one_token_share']:.0%} of the {n:,} most common words are a single "
            f"token after a space: the model gets one id and never sees their letters (a token holds "
            f"{top['letters_per_token']:.1f} letters on average)")
    rev = table.sort_values("reverse_ratio", ascending=False).iloc[0]
    return text + (f"; reversed, the same words cost {rev['reverse_ratio']:.1f}x the tokens under {rev['tokenizer']}, "
                   f"cut into short pieces that are rarely whole words.")


def spell_word(tokenizers: TokenizersArg, word: str = "strawberry", letter: str = "r") -> pd.DataFrame:
    """One word's tokens with the letters under each, and how many times each token holds `letter`.

    Returns:
        One row per tokenizer x token: tokenizer, position, id, token (drawn), letters (spaced out),
        n_letter (occurrences of `letter`, case-insensitive).

    >>> spell_word("cl100k_base", "strawberry")[["token", "n_letter"]].values.tolist()
    [['str', 1], ['aw', 0], ['berry', 2]]
    """
    rows = []
    for tok in as_tokenizers(tokenizers):
        for k, p in enumerate(tok.pieces(word)):
            text = word[p.start:p.end]
            rows.append({"tokenizer": tok.name, "position": k, "id": p.id, "token": visible(text),
                         "letters": " ".join(text), "n_letter": text.lower().count(letter.lower())})
    return pd.DataFrame(rows, columns=["tokenizer", "position", "id", "token", "letters", "n_letter"])


def spell_word_headline(table: pd.DataFrame, word: str, letter: str) -> str:
    """'strawberry' is 3 tokens under cl100k_base (str|aw|berry); its 3 r's sit in 2 of them."""
    parts = []
    for name, g in table.groupby("tokenizer", sort=False, observed=True):
        holding = int((g["n_letter"] > 0).sum())
        parts.append(f"{len(g)} tokens under {name} ({'|'.join(g['token'])}), its {int(g['n_letter'].sum())} "
                     f"{letter}'s in {holding} of them")
    return f"{word!r} is " + "; ".join(parts) + f": the model sees ids, not the {len(word)} letters."
