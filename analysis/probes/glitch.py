"""Glitch-token candidates without weights: tokens a model may never have learned, from the vocabulary alone.

Unlike Land & Bartolo's method (*Fishing for Magikarp*, 2024), which reads the model's embedding
matrix and then confirms each candidate by prompting the model, this probe has only the vocabulary
and text. It ranks tokens by signals that need no model, each a reason shown beside the token:

- ``unreachable``: its text never encodes back to it (`vocabulary`), so training text never held it;
- ``inside longer``: its text is part of a longer token, so the longer token took its occurrences
  (" SolidGoldMagikarp" inside Reddit user names, "rawdownload" inside "rawdownloadcloneembedreportprint");
- ``identifier``: a long identifier with no space inside, in mixed case ("PostalCodesNL", "ForCanBeConverted");
- ``unseen``: never produced when the built-in corpora (and FLORES, when given) are encoded.

These are *candidates*: confirming one needs the model. `recall` measures how many of a list of
verified under-trained tokens the ranking finds in its top N.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import pandas as pd

from ..tokenizers.base import Tokenizer
from .prompt_boundary import draw
from .vocabulary import VocabAudit

LABEL = "candidates: confirming needs the model"
WEIGHTS = {"unreachable": 3.0, "inside longer": 1.0, "identifier": 2.0, "unseen": 1.0}
_IDENT = re.compile(r"[$_]?[A-Za-z][A-Za-z0-9_$]{7,}")


def _is_identifier(text: str) -> bool:
    """A long spaceless identifier in mixed case (an upper-case letter after the first character).

    >>> _is_identifier(" ForCanBeConverted"), _is_identifier("understanding"), _is_identifier("$PostalCodesNL")
    (True, False, True)
    """
    t = text[1:] if text.startswith(" ") else text
    return bool(_IDENT.fullmatch(t)) and any(c.isupper() for c in t[1:]) and any(c.islower() for c in t)


def _inside_longer(texts: dict[int, str], *, min_len: int = 5) -> set[int]:
    """Ids whose text (at least `min_len` characters, less a leading space) is inside a longer token's text."""
    cores = {i: (t[1:] if t.startswith(" ") else t) for i, t in texts.items()}
    wanted: dict[str, list[int]] = {}
    for i, c in cores.items():
        if len(c) >= min_len and c.strip():
            wanted.setdefault(c, []).append(i)
    found: set[int] = set()
    if not wanted:
        return found
    longest = max(map(len, wanted))
    for i, t in texts.items():  # every substring of every token, as long as a wanted one could be
        n = len(t)
        if n <= min_len:
            continue
        for a in range(n):
            for b in range(a + min_len, min(n, a + longest) + 1):
                ids = wanted.get(t[a:b])
                if ids:
                    found.update(j for j in ids if j != i and len(texts[j]) < n)
    return found


def produced_ids(tok: Tokenizer, texts: Iterable[str]) -> set[int]:
    """Every id the tokenizer produces on `texts`."""
    seen: set[int] = set()
    for ids in tok.encode_batch(list(texts)):
        seen.update(ids)
    return seen


def glitch_candidates(tok: Tokenizer, audit: VocabAudit, *, corpus: Sequence[str] = (), top: int = 50) -> pd.DataFrame:
    """The `top` candidates, highest score first, each with its reasons.

    Args:
        tok: the tokenizer; audit: its `vocabulary.audit_vocabulary`.
        corpus: texts to encode for the ``unseen`` signal (empty: the signal is left out).
        top: rows kept (0: all with a score).

    Returns:
        Columns rank, id, token (drawn), score, reasons; ``attrs["label"]`` is `LABEL`.
    """
    skip = set(audit.ids["special"]) | set(audit.ids["no_token"]) | set(audit.ids["single_byte"]) \
        | set(audit.ids["utf8_fragment"])
    texts: dict[int, str] = {}
    for i in range(tok.n_vocab):
        if i not in skip:
            try:
                texts[i] = tok.token_bytes(i).decode("utf-8")
            except (KeyError, ValueError, IndexError):
                pass
    reasons: dict[int, list[str]] = {}
    for i in audit.reencoded:
        reasons.setdefault(i, []).append("unreachable")
    for i in _inside_longer(texts):
        reasons.setdefault(i, []).append("inside longer")
    for i, t in texts.items():
        if _is_identifier(t):
            reasons.setdefault(i, []).append("identifier")
    if corpus:
        seen = produced_ids(tok, corpus)
        for i in list(reasons):  # unseen only adds weight to a token with another reason
            if i not in seen:
                reasons[i].append("unseen")
    rows = [{"id": i, "token": draw(tok.token_bytes(i)), "score": sum(WEIGHTS[r] for r in rs),
             "length": len(texts.get(i, "")), "reasons": ", ".join(rs)} for i, rs in reasons.items()]
    frame = pd.DataFrame(rows, columns=["id", "token", "score", "length", "reasons"])
    frame = frame.sort_values(["score", "length", "id"], ascending=[False, False, True]).reset_index(drop=True)
    if top:
        frame = frame.head(top)
    frame.insert(0, "rank", range(1, len(frame) + 1))
    frame.attrs["label"] = LABEL
    return frame.drop(columns=["length"])


def recall(ranked: pd.DataFrame, verified: Iterable[int], n: int) -> float:
    """Share of the `verified` ids that are in the first `n` rows of `ranked`."""
    v = set(verified)
    return len(v & set(ranked["id"].head(n))) / len(v) if v else float("nan")


def glitch_headline(name: str, table: pd.DataFrame) -> str:
    if table.empty:
        return f"{name}: no token shows a signal ({LABEL})."
    r = table.iloc[0]
    return (f"{name}'s strongest glitch-token candidates are {', '.join(repr(t) for t in table['token'].head(3))} "
            f"({r['reasons']}); these are {LABEL}, which the vocabulary alone cannot give.")
