"""The dashboard's logic that is not drawing: input checks, boundary diffs, filters, merge traces.

Unlike `render` (one text as HTML or terminal colours), `compare` (counts) and `bpe_lab` (the
BPE lab's training and replay), this module holds what the Compare, Explore, Why and Cost pages
would otherwise compute inline: checking a paste or an upload against the stated limits,
finding special-token strings that are counted as plain text, pricing the compared text,
marking where two tokenizers cut a text differently, filtering tables, and laying out merge
traces. It never imports streamlit, so all of it is tested without a browser.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import pandas as pd

from .render import piece_label, visible
from .tokenizers import Piece, Tokenizer

# Stated limits. Compare counts up to a megabyte of text (its speed target); drawing every
# token of that much text would freeze the browser, so boundaries are drawn for a prefix.
MAX_INPUT_CHARS = 1_000_000
MAX_UPLOAD_BYTES = 4_000_000  # a million characters of UTF-8 is at most 4 MB
HIGHLIGHT_CHARS = 20_000

# Leading bytes of common binary formats, to name what was uploaded instead of a UTF-8 error.
_MAGIC = {
    b"\x89PNG": "a PNG image", b"\xff\xd8\xff": "a JPEG image", b"GIF8": "a GIF image",
    b"%PDF": "a PDF document", b"PK\x03\x04": "a ZIP archive (or .docx/.xlsx)", b"\x1f\x8b": "a gzip archive",
    b"\x7fELF": "an executable", b"MZ": "a Windows executable",
}


# -- input --------------------------------------------------------------------------------------
def input_problem(text: str, *, limit: int = MAX_INPUT_CHARS) -> str | None:
    """Why `text` cannot be compared, or None when it can.

    >>> input_problem("") is not None, input_problem("hi")
    (True, None)
    """
    if text == "":
        return "The text is empty: paste some text, upload a file or load the built-in sample."
    if len(text) > limit:
        return (f"The text has {len(text):,} characters; the limit here is {limit:,}. Trim it, or count "
                "it without a limit with the CLI: tokenprism compare -f FILE")
    return None


def decode_upload(data: bytes, name: str, *, replace_invalid: bool = False,
                  max_bytes: int = MAX_UPLOAD_BYTES) -> tuple[str, int]:
    """The text of an uploaded file, or a ValueError that says what is wrong and what to do.

    Args:
        data: the file's bytes.
        name: its name, for messages.
        replace_invalid: replace invalid UTF-8 with U+FFFD instead of refusing the file.
        max_bytes: the size limit.

    Returns:
        (text, number of replaced invalid sequences).

    Raises:
        ValueError: empty, too large, binary (named when recognised) or not UTF-8.

    >>> decode_upload("héllo".encode(), "a.txt")
    ('héllo', 0)
    """
    if not data:
        raise ValueError(f"{name} is empty (0 bytes): upload a file with some text in it")
    if len(data) > max_bytes:
        raise ValueError(f"{name} is {len(data):,} bytes; the limit is {max_bytes:,}. Upload a smaller file, "
                         f"or use the CLI, which has no limit: tokenprism compare -f {name}")
    kind = next((k for magic, k in _MAGIC.items() if data.startswith(magic)), None)
    if kind or b"\x00" in data[:8192]:
        raise ValueError(f"{name} looks like {kind or 'a binary file (it contains NUL bytes)'}, not text: "
                         "upload a UTF-8 text file (.txt, .md, .py, .json, ...)")
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError as e:
        if not replace_invalid:
            raise ValueError(f"{name} is not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start:,} "
                             f"({e.reason}). Convert it to UTF-8, or tick 'replace invalid bytes'") from None
    text = data.decode("utf-8", errors="replace")
    return text, text.count("\ufffd") - data.count("\ufffd".encode("utf-8"))


def highlight_prefix(text: str, *, limit: int = HIGHLIGHT_CHARS) -> str:
    """The part of `text` whose tokens are drawn: all of it, or up to a line break near `limit`.

    Cutting at a line break keeps the drawn tokens equal to those of the full text, for
    pre-tokenizers that never join a line break with what follows a non-space character.

    >>> highlight_prefix("ab\\ncd", limit=4)
    'ab\\n'
    """
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", limit // 2, limit)
    return text[: cut + 1] if cut >= 0 else text[:limit]


# -- special-token strings ------------------------------------------------------------------------
def special_token_strings(tok: Tokenizer) -> frozenset[str]:
    """The special-token strings of a tokenizer (empty when it exposes none)."""
    return frozenset(getattr(tok, "special_tokens", None) or ())


@lru_cache(maxsize=32)
def _specials_regex(specials: frozenset[str]) -> re.Pattern | None:
    if not specials:
        return None
    return re.compile("|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True)))


def special_strings_in(text: str, tokenizers: Sequence[Tokenizer]) -> pd.DataFrame:
    """Special-token strings found in `text`, which every tokenizer here counts as plain text.

    Returns:
        One row per tokenizer and string found: tokenizer, special, occurrences, special_id
        (the id it would have as a special token, when known), plain_tokens (what one
        occurrence costs as text).

    >>> from analysis import load_tokenizer
    >>> special_strings_in("a<|endoftext|>", [load_tokenizer("cl100k_base")])[["special", "plain_tokens"]].values.tolist()
    [['<|endoftext|>', 7]]
    """
    rows = []
    for tok in tokenizers:
        pattern = _specials_regex(special_token_strings(tok))
        if pattern is None:
            continue
        found = Counter(m.group() for m in pattern.finditer(text))
        ids = getattr(tok, "special_tokens", {}) or {}
        for special, n in sorted(found.items()):
            rows.append({"tokenizer": tok.name, "special": special, "occurrences": n,
                         "special_id": ids.get(special), "plain_tokens": len(tok.encode(special))})
    return pd.DataFrame(rows, columns=["tokenizer", "special", "occurrences", "special_id", "plain_tokens"])


# -- cost of the compared text -----------------------------------------------------------------------
def input_cost(counts: pd.DataFrame, model: str) -> tuple[pd.DataFrame, str]:
    """What the compared text costs as the input of one request to `model`, under each row's count.

    Every row is priced with `model`'s input price (tiers by that row's token count), so the
    rows show what the same text would cost if `model` counted like each tokenizer; the row of
    the tokenizer `model` really uses is labelled in `for_model` ("exact" or "approximate").

    Args:
        counts: a `compare.compare` frame.
        model: a model reference `analysis.cost.genai.get_price` accepts ("gpt-4o", "openai:gpt-4o").

    Returns:
        (counts plus `usd_input` (Decimal, None when unpriced) and `for_model`, a one-line note).

    Raises:
        KeyError: an unknown model (the message names the closest ones).

    >>> from analysis import load_tokenizer
    >>> from analysis.compare import compare
    >>> df, note = input_cost(compare("hello world", [load_tokenizer("o200k_base")]), "openai:gpt-4o")
    >>> df[["usd_input", "for_model"]].values.tolist()
    [[Decimal('0.000005'), 'exact']]
    """
    from .cost import NoPriceError, format_usd, request_cost
    from .cost.models import tokenizer_for_model
    from .cost.genai import get_price

    price = get_price(model)
    choice = tokenizer_for_model(price.model, also=(model.split(":", 1)[-1],))
    usd = []
    for n in counts["n_tokens"]:
        try:
            usd.append(request_cost(price, input_tokens=int(n), output_tokens=0).usd_total)
        except NoPriceError:
            usd.append(None)
    mine = counts["tokenizer"] == choice.tokenizer
    out = counts.assign(usd_input=usd, for_model=[choice.exactness if m else "" for m in mine])
    rate = f"${price.input.base}/M input tokens" if price.input else "no input price"
    if choice.usable and mine.any():
        own = out.loc[mine, "usd_input"].iloc[0]
        note = (f"{price.key} ({rate}, {price.source}, {price.as_of}) counts with {choice.label} "
                f"({choice.exactness}): this text as one request's input costs {format_usd(own)}.")
    else:
        note = f"{price.key} ({rate}, {price.source}): {choice.note or choice.status}."
    return out, note


# -- two tokenizers side by side -------------------------------------------------------------------
@dataclass(frozen=True)
class BoundaryDiff:
    """Where two tokenizers cut one text (character offsets of token ends)."""

    cuts_a: frozenset[int]
    cuts_b: frozenset[int]

    @property
    def shared(self) -> int:
        return len(self.cuts_a & self.cuts_b)

    @property
    def agreement(self) -> float:
        """Shared cuts / all cuts (1.0 when both cut in exactly the same places)."""
        union = self.cuts_a | self.cuts_b
        return len(self.cuts_a & self.cuts_b) / len(union) if union else 1.0


def boundary_diff(pieces_a: Sequence[Piece], pieces_b: Sequence[Piece]) -> BoundaryDiff:
    """Compare the cut positions of two tokenizations of the same text.

    >>> a = [Piece(1, b"ab", 0, 2), Piece(2, b"c", 2, 3)]
    >>> b = [Piece(7, b"a", 0, 1), Piece(8, b"bc", 1, 3)]
    >>> round(boundary_diff(a, b).agreement, 2)
    0.33
    """
    return BoundaryDiff(frozenset(p.end for p in pieces_a), frozenset(p.end for p in pieces_b))


def marked_html(text: str, pieces: Sequence[Piece], other: Sequence[Piece], *, show_ids: bool = True) -> str:
    """Like `render.html_tokens`, plus class `tp-diff` on tokens with no identical token in `other`.

    Identical means the same character span (a partial piece also needs the same bytes), so a
    token the other side cuts in two is marked even though its own two ends are cuts there too.

    >>> a = [Piece(1, b"ab", 0, 2)]
    >>> marked_html("ab", a, [Piece(7, b"a", 0, 1), Piece(8, b"b", 1, 2)]).count("tp-diff")
    1
    """
    spans = {(p.start, p.end, p.bytes if p.partial else b"") for p in other}
    out = []
    for i, p in enumerate(pieces):
        cls = "tp-partial" if p.partial else f"tp-t{i % 2}"
        if (p.start, p.end, p.bytes if p.partial else b"") not in spans:
            cls += " tp-diff"
        title = f"id {p.id} · bytes {p.bytes!r}" if show_ids else ""
        label = html.escape(piece_label(text, p)).replace("\n", "<br>")
        out.append(f'<span class="tp-tok {cls}" title="{html.escape(title)}">{label}</span>')
    return '<div class="tp-text">' + "".join(out) + "</div>"


def diff_regions(text: str, pieces_a: Sequence[Piece], pieces_b: Sequence[Piece], *, limit: int = 200) -> pd.DataFrame:
    """The stretches of `text` that two tokenizers cut differently, with each one's split.

    A region runs from one shared cut to the next; it is listed when either side has a cut
    inside it (so their tokens there differ).

    Returns:
        Up to `limit` rows: start, end (character offsets), text, a, b ("|"-separated pieces,
        whitespace visible), n_a, n_b (tokens in the region).

    >>> a = [Piece(1, b"ab", 0, 2), Piece(2, b" c", 2, 4)]
    >>> b = [Piece(7, b"a", 0, 1), Piece(8, b"b", 1, 2), Piece(9, b" c", 2, 4)]
    >>> diff_regions("ab c", a, b)[["text", "a", "b"]].values.tolist()
    [['ab', 'ab', 'a|b']]
    """
    shared = sorted(set(p.end for p in pieces_a) & set(p.end for p in pieces_b) | {0})

    def groups(pieces: Sequence[Piece]) -> dict[int, list[Piece]]:
        out: dict[int, list[Piece]] = {}
        for p in pieces:
            # the region is the one ending at the first shared cut at or after the piece's end
            out.setdefault(shared[bisect_left(shared, p.end)], []).append(p)
        return out

    ga, gb = groups(pieces_a), groups(pieces_b)
    rows = []
    for start, end in zip(shared, shared[1:]):
        a, b = ga.get(end, []), gb.get(end, [])
        if len(a) == 1 and len(b) == 1:
            continue
        rows.append({"start": start, "end": end, "text": visible(text[start:end]),
                     "a": "|".join(piece_label(text, p) for p in a), "b": "|".join(piece_label(text, p) for p in b),
                     "n_a": len(a), "n_b": len(b)})
        if len(rows) >= limit:
            break
    return pd.DataFrame(rows, columns=["start", "end", "text", "a", "b", "n_a", "n_b"])


def splits(text: str, tokenizers: Sequence[Tokenizer], *, sep: str = "|") -> pd.DataFrame:
    """Each tokenizer's split of a short text, whitespace made visible.

    >>> from analysis import load_tokenizer
    >>> splits("1234567", [load_tokenizer("cl100k_base")]).loc[0, "split"]
    '123|456|7'
    """
    rows = []
    for tok in tokenizers:
        ps = tok.pieces(text)
        rows.append({"tokenizer": tok.name, "n_tokens": len(ps), "split": sep.join(piece_label(text, p) for p in ps)})
    return pd.DataFrame(rows, columns=["tokenizer", "n_tokens", "split"])


# -- Explore page: filters --------------------------------------------------------------------------
def filter_frame(frame: pd.DataFrame, *, tokenizers: Sequence[str] | None = None,
                 categories: Sequence[str] | None = None, languages: Sequence[str] | None = None) -> pd.DataFrame:
    """Rows of a measure/probe frame that match the filters (None: no filter on that field).

    The tokenizer filter applies to `tokenizer`, and to both `tokenizer_a` and `tokenizer_b`
    of pairwise tables; category and language apply where the frame has those columns.
    Categorical columns lose the categories no longer used, so charts draw only what is left.

    >>> f = pd.DataFrame({"tokenizer": ["a", "b"], "language": ["en", "fr"], "n": [1, 2]})
    >>> filter_frame(f, tokenizers=["a", "b"], languages=["fr"])["n"].tolist()
    [2]
    """
    keep = pd.Series(True, index=frame.index)
    for column, wanted in (("tokenizer", tokenizers), ("tokenizer_a", tokenizers), ("tokenizer_b", tokenizers),
                           ("category", categories), ("language", languages)):
        if wanted is not None and column in frame.columns:
            keep &= frame[column].astype(str).isin([str(w) for w in wanted])
    out = frame[keep]
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out = out.assign(**{column: out[column].cat.remove_unused_categories()})
    return out.reset_index(drop=True)


# -- Why page: merge traces and the years grid -----------------------------------------------------
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
    pieces, steps = [], []
    for p in explanations:
        label = visible(p.text)
        pieces.append({"piece": label, "start": p.start, "n_tokens": len(p.ids),
                       "tokens": " | ".join(visible(_show(t)) for t in p.tokens), "ids": " ".join(map(str, p.ids)),
                       "whole_piece_in_vocab": p.direct})
        for k, m in enumerate(p.steps, start=1):
            steps.append({"piece": label, "step": k, "rank": m.rank, "left": visible(_show(m.left)),
                          "right": visible(_show(m.right)), "result": visible(_show(m.result)), "result_id": m.result_id})
    return (pd.DataFrame(pieces, columns=["piece", "start", "n_tokens", "tokens", "ids", "whole_piece_in_vocab"]),
            pd.DataFrame(steps, columns=["piece", "step", "rank", "left", "right", "result", "result_id"]))


def _show(token: bytes) -> str:
    """A token as text; bytes that are not whole UTF-8 characters as <xx> (`bpe_lab` uses it too)."""
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"<{b:02x}>" for b in token)


def years_grid(years: pd.DataFrame, tokenizer: str) -> pd.DataFrame:
    """One tokenizer's rows of `probes_numbers.single_token_years` as a decade x last-digit grid.

    Returns:
        Index "1900s".."2100s", columns "0".."9", values True (one token), False, or None
        (outside the probed range), as Python objects.

    >>> from analysis.probes.numbers import single_token_numbers, single_token_years
    >>> grid = years_grid(single_token_years(single_token_numbers("gpt2", stop=2101, contexts=["bare"])), "gpt2")
    >>> grid.loc["2000s", "0"], grid.loc["2100s", "1"]
    (True, None)
    """
    rows = years[years["tokenizer"] == tokenizer]
    cells = {(f"{n // 10 * 10}s", str(n % 10)): bool(v) for n, v in zip(rows["number"], rows["single_token"])}
    decades = sorted({d for d, _ in cells})
    return pd.DataFrame([[cells.get((d, str(k))) for k in range(10)] for d in decades],
                        index=decades, columns=[str(k) for k in range(10)], dtype=object)
