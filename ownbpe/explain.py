"""Why a text splits the way it does: the merges that fired in each pre-token, as data and text.

Unlike `bpe` (which records raw `(rank, left, right)` triples while merging), this module holds
the result objects that `Tokenizer.explain` returns and the plain-text rendering the CLI prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from .io import token_literal


@dataclass(frozen=True)
class MergeStep:
    """One merge that fired: `left + right -> result`, with the rank that decided its turn.

    `rank` is the position in the merges list (pairs rule), or the rank of `result` in the
    tiktoken ranks (ranked rule, where it is also the id of `result`).
    """

    rank: int
    left: bytes
    right: bytes
    result: bytes
    result_id: int

    def __str__(self) -> str:
        return f"rank {self.rank:>6}: {token_literal(self.left)} + {token_literal(self.right)} -> {token_literal(self.result)}"


@dataclass(frozen=True)
class PieceExplanation:
    """How one pre-token (or special token) became ids.

    Attributes:
        text: the pre-token as found in the text.
        start: its character offset in the explained text.
        special: it is a special token, encoded as its own id without merging.
        direct: ranked rule only: the whole piece is a token and is taken as is (tiktoken's
            shortcut); `steps` then show the merges that would build it, which may differ.
        steps: the merges in the order they fired.
        ids: the resulting token ids.
        tokens: the bytes of each resulting token.
    """

    text: str
    start: int
    special: bool
    direct: bool
    steps: tuple[MergeStep, ...]
    ids: tuple[int, ...]
    tokens: tuple[bytes, ...]

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def format_explanation(pieces: list[PieceExplanation], *, show_steps: bool = True) -> str:
    """Render `Tokenizer.explain` output as indented text, one block per pre-token.

    >>> step = MergeStep(3, b"a", b"b", b"ab", 3)
    >>> print(format_explanation([PieceExplanation("ab", 0, False, False, (step,), (3,), (b"ab",))]))
    "ab" [0:2] -> 1 token: 3
      rank      3: "a" + "b" -> "ab"
    """
    lines = []
    for p in pieces:
        n = len(p.ids)
        ids = " ".join(map(str, p.ids))
        head = f"{token_literal(p.text.encode('utf-8', 'surrogatepass'))} [{p.start}:{p.end}] -> {n} token{'s' if n != 1 else ''}: {ids}"
        if p.special:
            head += "  (special token)"
        elif n > 1:
            head += "  = " + " | ".join(token_literal(t) for t in p.tokens)
        lines.append(head)
        if show_steps:
            lines += [f"  {s}" for s in p.steps]
            if p.direct and (len(p.steps) < len(p.text.encode("utf-8", "surrogatepass")) - 1):
                lines.append("  (the whole piece is a token: taken as is, like tiktoken)")
    return "\n".join(lines)
