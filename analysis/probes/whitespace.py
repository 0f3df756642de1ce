"""Probe 4, whitespace: why a trailing space changes the count, and " the" is not "the".

Unlike the `whitespace` corpus (whole texts with trailing spaces on every line, measured by
`pipeline.measure` and compared with `pipeline.variant_deltas`), these probes take one short text at a
time and append exactly k spaces, a newline or a tab, so the cost of each character and its
effect on the tokens *before* it can be read off directly. Byte-level BPE vocabularies store
most words with their leading space (" the"), so a space at the end of a prompt has no word to
attach to and becomes a token of its own, and a pre-tokenizer rule such as `\\s+(?!\\S)` can
move a space from one token to the next.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from ..errors import BadInput
from ..tokenizers import TokenizersArg
from ..pipeline import as_tokenizers
from ..render import visible

DEFAULT_TEXTS = ("Hello world", "The answer is 42.", "    return total", "Dear team,")
DEFAULT_WORDS = ("the", "The", "hello", "world", "tokenizer", "2024", "return", "Paris", "naïve")


SUFFIX_CHARS = {"spaces": " ", "newline": "\n", "tab": "\t"}


def suffix_label(kind: str, k: int) -> str:
    """The `suffix` label of `trailing_whitespace` rows: k characters of one kind.

    >>> suffix_label("spaces", 3), suffix_label("spaces", 1), suffix_label("newline", 1), suffix_label("tab", 2)
    ('3 spaces', '1 space', 'newline', '2 tabs')
    """
    if kind == "spaces":
        return f"{k} space{'s' if k != 1 else ''}"
    if kind not in SUFFIX_CHARS:
        raise BadInput(f"unknown suffix kind {kind!r}: use one of {', '.join(SUFFIX_CHARS)}")
    name = {"newline": "newline", "tab": "tab"}[kind]
    return name if k == 1 else f"{k} {name}s"


def _suffixes(max_spaces: int) -> list[tuple[str, str, int, str]]:
    """(label, kind, k, suffix) for 0..max_spaces spaces, then 1-2 newlines and 1-2 tabs."""
    return ([(suffix_label("spaces", k), "spaces", k, " " * k) for k in range(max_spaces + 1)]
            + [(suffix_label(kind, k), kind, k, SUFFIX_CHARS[kind] * k) for kind in ("newline", "tab") for k in (1, 2)])


def before_after(trailing: pd.DataFrame, kind: str, k: int) -> pd.DataFrame:
    """One text's `trailing_whitespace` rows as before/after counts for one suffix.

    Returns:
        One row per tokenizer: tokenizer, before, after, extra_tokens, last_tokens_changed (the
        suffix changed how the end of the text is cut, not just added tokens), new tokens.

    >>> t = trailing_whitespace("cl100k_base", ["Hello world"], max_spaces=2)
    >>> before_after(t, "spaces", 2)[["before", "after", "extra_tokens"]].to_dict("records")
    [{'before': 2, 'after': 3, 'extra_tokens': 1}]
    """
    before = trailing[trailing["suffix"] == suffix_label("spaces", 0)].set_index("tokenizer")["n_tokens"]
    after = trailing[trailing["suffix"] == suffix_label(kind, k)]
    return (after.assign(before=after["tokenizer"].map(before).astype(int),
                         last_tokens_changed=~after["prefix_kept"].astype(bool))
            [["tokenizer", "before", "n_tokens", "extra_tokens", "last_tokens_changed", "tail"]]
            .rename(columns={"n_tokens": "after", "tail": "new tokens"})
            .reset_index(drop=True))


def _show(tok, ids: Sequence[int]) -> str:
    """Tokens as text with visible whitespace, separated by "|" (no real line breaks)."""
    return "|".join(visible(tok.token_bytes(i).decode("utf-8", "replace")).replace("\n", "") for i in ids)


def trailing_whitespace(tokenizers: TokenizersArg = None, texts: Iterable[str] = DEFAULT_TEXTS, *, max_spaces: int = 8) -> pd.DataFrame:
    """Token count after appending k spaces (k = 0..max_spaces), a newline or a tab to each text.

    Args:
        tokenizers: names, adapters, a comma-separated string, or None (all available).
        texts: the texts (one group of rows each).
        max_spaces: the largest k tried.

    Returns:
        One row per tokenizer x text x suffix: suffix (label: "3 spaces", "newline", "tab"),
        suffix_kind (spaces/newline/tab), k, n_tokens, extra_tokens (vs the bare text),
        prefix_kept (the bare text's ids are a prefix of the new ids: False means the suffix
        changed the tokens of the last word, not only the count), tail (the tokens from the
        first changed one, "|"-separated, whitespace visible).

    >>> t = trailing_whitespace("cl100k_base", ["Hello world"], max_spaces=2).set_index("suffix")
    >>> t.loc[["1 space", "2 spaces"], ["extra_tokens", "prefix_kept", "tail"]].to_dict("records")
    [{'extra_tokens': 1, 'prefix_kept': True, 'tail': '·'}, {'extra_tokens': 1, 'prefix_kept': True, 'tail': '··'}]
    """
    if max_spaces < 0:
        raise BadInput(f"max_spaces must be >= 0, got {max_spaces}")
    toks = as_tokenizers(tokenizers)
    texts = list(texts)
    suffixes = _suffixes(max_spaces)
    rows = []
    for tok in toks:
        for text in texts:
            base = tok.encode(text)
            for label, kind, k, suffix in suffixes:
                ids = tok.encode(text + suffix)
                # first position where the new encoding departs from the bare one
                common = next((i for i, (a, b) in enumerate(zip(base, ids)) if a != b), min(len(base), len(ids)))
                rows.append((tok.name, text, label, kind, k, len(ids), len(ids) - len(base),
                             common == len(base), _show(tok, ids[common:])))
    cols = ["tokenizer", "text", "suffix", "suffix_kind", "k", "n_tokens", "extra_tokens", "prefix_kept", "tail"]
    return pd.DataFrame(rows, columns=cols).assign(
        tokenizer=lambda d: pd.Categorical(d["tokenizer"], categories=[t.name for t in toks]),
        suffix=lambda d: pd.Categorical(d["suffix"], categories=[s[0] for s in suffixes]))


def leading_space(tokenizers: TokenizersArg = None, words: Iterable[str] = DEFAULT_WORDS) -> pd.DataFrame:
    """Each word bare ("the"), after a space (" the") and after a newline ("\\nthe").

    Args:
        tokenizers: as `trailing_whitespace`.
        words: the words.

    Returns:
        One row per tokenizer x word x form: form ("bare", "leading space", "after newline"),
        n_tokens, ids (space-separated), pieces ("|"-separated, whitespace visible),
        same_ids_as_bare (the word's ids are the bare word's ids; False for " the" in every
        byte-level vocabulary: the space is part of the token).

    >>> l = leading_space("cl100k_base", ["the"])
    >>> l[["form", "n_tokens", "pieces", "same_ids_as_bare"]].to_dict("records")[:2]
    [{'form': 'bare', 'n_tokens': 1, 'pieces': 'the', 'same_ids_as_bare': True}, {'form': 'leading space', 'n_tokens': 1, 'pieces': '·the', 'same_ids_as_bare': False}]
    """
    toks = as_tokenizers(tokenizers)
    forms = {"bare": "", "leading space": " ", "after newline": "\n"}
    rows = []
    for tok in toks:
        for word in words:
            bare = tok.encode(word)
            for form, prefix in forms.items():
                ids = tok.encode(prefix + word)
                head = len(ids) - len(bare)
                # same ids: the word's tokens are the bare word's, the prefix sits in tokens of its own
                same = head >= 0 and ids[head:] == bare and tok.decode_bytes(ids[:head]) == prefix.encode()
                rows.append((tok.name, word, form, len(ids), " ".join(map(str, ids)), _show(tok, ids), same))
    return pd.DataFrame(rows, columns=["tokenizer", "word", "form", "n_tokens", "ids", "pieces", "same_ids_as_bare"]) \
        .assign(tokenizer=lambda d: pd.Categorical(d["tokenizer"], categories=[t.name for t in toks]),
                form=lambda d: pd.Categorical(d["form"], categories=list(forms)))


def whitespace_summary(trailing: pd.DataFrame) -> pd.DataFrame:
    """Per tokenizer and suffix, over all texts: total extra tokens and the share of texts whose
    last tokens changed (prefix not kept).

    >>> s = whitespace_summary(trailing_whitespace("cl100k_base", ["Hello world"], max_spaces=1))
    >>> s[["suffix", "extra_tokens"]].head(2).to_dict("records")
    [{'suffix': '0 spaces', 'extra_tokens': 0}, {'suffix': '1 space', 'extra_tokens': 1}]
    """
    return (trailing.assign(last_tokens_changed=~trailing["prefix_kept"].astype(bool))
            .groupby(["tokenizer", "suffix"], observed=True, sort=True)
            .agg(n_texts=("text", "size"), extra_tokens=("extra_tokens", "sum"),
                 extra_tokens_per_text=("extra_tokens", "mean"),
                 share_last_tokens_changed=("last_tokens_changed", "mean"))
            .reset_index())
