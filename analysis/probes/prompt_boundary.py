"""The prompt boundary: why a trailing space, or a prompt cut mid-word, changes what a model writes.

Unlike `whitespace` (what a trailing space costs in tokens), this probe looks at the last token of a
prompt and at the vocabulary: the tokens that *extend* it. A model generates token by token; when
a prompt ends in ``:``, the vocabulary's ``://`` (one token in training, every time a URL was
written) is no longer a continuation the model can produce after it, because the prompt already
took the ``:``. Token healing (Guidance's name for it) backs the prompt off by its last token and
lets the model choose among the tokens that begin with that token's bytes. The vocabulary's share
of tokens that begin with a space says how often a trailing space lands in the same trap.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..pipeline import as_tokenizers
from ..render import bytes_label
from ..tokenizers import TokenizersArg
from ..tokenizers.base import Tokenizer

DEFAULT_TEXTS = ("https:", "The answer is ")
# what usually follows each default text, to show the token the whole string is written with
CONTINUATIONS = {"https:": "//", "The answer is ": "42"}


def draw(data: bytes) -> str:
    """A token's bytes on one line, as `compare --show` draws them (a line break as ↵)."""
    return bytes_label(data).replace("↵\n", "↵")


def _vocabulary(tok: Tokenizer) -> list[tuple[int, bytes]]:
    specials = set(tok.special_tokens.values())
    out = []
    for i in range(tok.n_vocab):
        if i in specials:
            continue
        try:
            out.append((i, tok.token_bytes(i)))
        except (KeyError, ValueError, IndexError):
            pass
    return out


def prompt_boundary(tokenizers: TokenizersArg = None, texts: Sequence[str] = DEFAULT_TEXTS, *,
                    examples: int = 5, continuations: dict[str, str] | None = None) -> pd.DataFrame:
    """Per tokenizer and text: the last token, the vocabulary tokens that extend it, and the healed prompt.

    Returns:
        One row per tokenizer x text: n_tokens, last_token (drawn), last_id, n_extensions (tokens whose
        bytes begin with the last token's and are longer), extensions (the shortest few, drawn),
        continued_as (the token that covers the boundary once the text goes on, with `continuations`:
        "https:" + "//" is written with "://"), is_extension (that token is one of the extensions),
        healed_prompt (the text less its last token, what token healing sends), space_initial_share.

    >>> row = prompt_boundary("cl100k_base", ["https:"]).iloc[0]
    >>> row["last_token"], row["continued_as"], bool(row["is_extension"])
    (':', '://', True)
    """
    continuations = CONTINUATIONS if continuations is None else continuations
    rows = []
    for tok in as_tokenizers(tokenizers):
        vocab = _vocabulary(tok)
        spaced = sum(1 for _, b in vocab if b[:1] == b" ") / len(vocab) if vocab else float("nan")
        for text in texts:
            pieces = tok.pieces(text)
            if not pieces:
                continue
            last = pieces[-1]
            ext = sorted(((len(b), i, b) for i, b in vocab if len(b) > len(last.bytes) and b.startswith(last.bytes)))
            ext_ids = {i for _, i, _ in ext}
            cont = continuations.get(text)
            over = None
            if cont:
                over = next((p for p in tok.pieces(text + cont) if p.start <= last.start < max(p.end, p.start + 1)), None)
            rows.append({"tokenizer": tok.name, "text": text, "n_tokens": len(pieces),
                         "last_token": draw(last.bytes), "last_id": last.id, "n_extensions": len(ext),
                         "extensions": " ".join(draw(b) for _, _, b in ext[:examples]),
                         "continued_as": draw(over.bytes) if over else "", "is_extension": bool(over and over.id in ext_ids),
                         "healed_prompt": text[: last.start], "space_initial_share": spaced})
    return pd.DataFrame(rows)


def boundary_headline(table: pd.DataFrame) -> str:
    """Under cl100k_base, 'https:' ends in ':', which 245 vocabulary tokens extend (among them '://') ..."""
    if table.empty:
        return "No tokenizer was asked."
    r = table.iloc[0]
    cont = (f"; {r['text']!r} followed by {CONTINUATIONS.get(r['text'], '')!r} is written with {r['continued_as']!r}, "
            f"one of them" if r["is_extension"] else "")
    share = table.drop_duplicates("tokenizer")[["tokenizer", "space_initial_share"]]
    shares = (f"{share['space_initial_share'].iloc[0]:.1%} of its vocabulary" if len(share) == 1 else
              ", ".join(f"{t} {s:.1%}" for t, s in share.itertuples(index=False)) + " of the vocabulary")
    return (f"Under {r['tokenizer']}, {r['text']!r} ends in the token {r['last_token']!r}, which "
            f"{r['n_extensions']:,} vocabulary tokens extend{cont}: the model cannot "
            f"write them after a prompt that already took {r['last_token']!r}, so token healing sends "
            f"{r['healed_prompt']!r} and lets the model choose; a trailing space is the same trap, since tokens "
            f"that begin with a space are {shares}.")
