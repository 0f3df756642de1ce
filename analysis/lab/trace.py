"""Merge traces: how a tokenizer built each token of a text, merge by merge, as tables.

Unlike `bpe` (training replayed on a small corpus), this explains the encoding of one text under
a trained tokenizer, from `ownbpe.Tokenizer.explain`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..render import visible

if TYPE_CHECKING:  # the frames are built on request: `show_token` alone (the service) needs no pandas
    import pandas as pd


def merge_trace(explanations) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`ownbpe.Tokenizer.explain` output as two frames, for tables.

    Returns:
        (pieces, steps): pieces has one row per pre-token (piece, start, n_tokens, tokens, ids,
        whole_piece_in_vocab); steps one row per merge that fired (piece, step, rank, left,
        right, result, result_id). Whitespace is made visible.

    >>> import ownbpe
    >>> tok = ownbpe.Tokenizer({i: bytes([i]) for i in range(256)} | {256: b"ab"}, [(b"a", b"b")])
    >>> merge_trace(tok.explain("ab"))[1][["left", "right", "result"]].values.tolist()
    [['a', 'b', 'ab']]
    """
    import pandas as pd

    pieces, steps = [], []
    for p in explanations:
        label = visible(p.text)
        pieces.append({"piece": label, "start": p.start, "n_tokens": len(p.ids),
                       "tokens": " | ".join(visible(show_token(t)) for t in p.tokens), "ids": " ".join(map(str, p.ids)),
                       "whole_piece_in_vocab": p.direct})
        for k, m in enumerate(p.steps, start=1):
            steps.append({"piece": label, "step": k, "rank": m.rank, "left": visible(show_token(m.left)),
                          "right": visible(show_token(m.right)), "result": visible(show_token(m.result)), "result_id": m.result_id})
    return (pd.DataFrame(pieces, columns=["piece", "start", "n_tokens", "tokens", "ids", "whole_piece_in_vocab"]),
            pd.DataFrame(steps, columns=["piece", "step", "rank", "left", "right", "result", "result_id"]))


def show_token(token: bytes) -> str:
    """A token as text; bytes that are not whole UTF-8 characters as <xx>."""
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"<{b:02x}>" for b in token)
