"""The dashboard's logic that is not drawing: input checks, boundary diffs, BPE stepping.

Unlike `render` (one text as HTML or terminal colours) and `compare` (counts), this module holds
what the Streamlit pages would otherwise compute inline: checking a paste or an upload against
the stated limits, finding special-token strings that are counted as plain text, marking where
two tokenizers cut a text differently, replaying `ownbpe` training one merge at a time, and
training `ownbpe` and Hugging Face's `BpeTrainer` side by side. It never imports streamlit, so
all of it is tested without a browser.
"""

from __future__ import annotations

import html
import json
import re
import time
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import pandas as pd

from .render import piece_label, visible
from .tokenizers import Piece, Tokenizer
from .tokenizers.base import byte_pieces

# Stated limits. Compare counts up to a megabyte of text (its speed target); drawing every
# token of that much text would freeze the browser, so boundaries are drawn for a prefix.
MAX_INPUT_CHARS = 1_000_000
MAX_UPLOAD_BYTES = 4_000_000  # a million characters of UTF-8 is at most 4 MB
HIGHLIGHT_CHARS = 20_000
# BPE lab: stepping re-encodes the corpus after every merge (a few ms each at this size).
LAB_MAX_CHARS = 5_000
LAB_MAX_MERGES = 300
# BPE lab, training comparison: both trainers on an uploaded corpus.
TRAIN_MAX_BYTES = 2_000_000
TRAIN_MAX_VOCAB = 8_192

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
        model: a model reference `analysis.pricing.get_price` accepts ("gpt-4o", "openai:gpt-4o").

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
    from .models import tokenizer_for_model
    from .pricing import get_price

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


def years_grid(years: pd.DataFrame, tokenizer: str) -> pd.DataFrame:
    """One tokenizer's rows of `probes_numbers.single_token_years` as a decade x last-digit grid.

    Returns:
        Index "1900s".."2100s", columns "0".."9", values True (one token), False, or None
        (outside the probed range), as Python objects.

    >>> from analysis.probes_numbers import single_token_numbers, single_token_years
    >>> grid = years_grid(single_token_years(single_token_numbers("gpt2", stop=2101, contexts=["bare"])), "gpt2")
    >>> grid.loc["2000s", "0"], grid.loc["2100s", "1"]
    (True, None)
    """
    rows = years[years["tokenizer"] == tokenizer]
    cells = {(f"{n // 10 * 10}s", str(n % 10)): bool(v) for n, v in zip(rows["number"], rows["single_token"])}
    decades = sorted({d for d, _ in cells})
    return pd.DataFrame([[cells.get((d, str(k))) for k in range(10)] for d in decades],
                        index=decades, columns=[str(k) for k in range(10)], dtype=object)


# -- BPE lab: training one merge at a time ----------------------------------------------------------
@dataclass(frozen=True)
class BpeSteps:
    """An `ownbpe` training run replayed: the rule table and the corpus after every step.

    Attributes:
        corpus: the training text.
        rules: one row per merge, in the order learned: step, left, right, merged (whitespace
            made visible), count (the winning pair's frequency when it won), n_tokens (corpus
            tokens after the step), bytes_per_token, round_trip (decode(encode(corpus)) ==
            corpus with the merges so far).
        vocab: the trained ids -> bytes (256 bytes, then one token per merge).
        merges: the merges as pairs of bytes.
    """

    corpus: str
    rules: pd.DataFrame
    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]

    def tokenizer_at(self, step: int):
        """The `ownbpe.Tokenizer` that knows only the first `step` merges."""
        import ownbpe

        if not 0 <= step <= len(self.merges):
            raise ValueError(f"step must be 0..{len(self.merges)}, got {step}")
        return ownbpe.Tokenizer({i: self.vocab[i] for i in range(256 + step)}, self.merges[:step])

    def pieces_at(self, step: int) -> list[Piece]:
        """The corpus as tokens after `step` merges, placed on the text for drawing."""
        tok = self.tokenizer_at(step)
        ids = tok.encode_ordinary(self.corpus)
        return byte_pieces(self.corpus, ids, [tok.vocab[i] for i in ids])


def bpe_steps(corpus: str, n_merges: int, *, pattern: str | None = None) -> BpeSteps:
    """Train `ownbpe` on `corpus` and replay it merge by merge.

    The winning pair's count is recounted at each step on the corpus as tokenized so far
    (pairs inside pre-tokens, weighted by how often the pre-token occurs), exactly what the
    trainer maximises; each step's tokenizer is rebuilt from the merges so far and must give
    back the corpus.

    Args:
        corpus: at most LAB_MAX_CHARS characters.
        n_merges: 1..LAB_MAX_MERGES; fewer are learned when the corpus runs out of pairs.
        pattern: the pre-tokenization regex (default GPT-2's).

    Raises:
        ValueError: empty or too long corpus, n_merges out of range.

    >>> steps = bpe_steps("low lower lowest", 2)
    >>> steps.rules[["merged", "count"]].values.tolist()
    [['ow', 3], ['low', 3]]
    """
    import ownbpe
    import regex

    if not corpus:
        raise ValueError("the corpus is empty: type a few sentences or pick a built-in sample")
    if len(corpus) > LAB_MAX_CHARS:
        raise ValueError(f"the corpus has {len(corpus):,} characters; stepping is limited to {LAB_MAX_CHARS:,}. "
                         "Shorten it (or use 'train and compare' below, which takes larger corpora)")
    if not 1 <= n_merges <= LAB_MAX_MERGES:
        raise ValueError(f"number of merges must be 1..{LAB_MAX_MERGES}, got {n_merges}")
    pattern = pattern or ownbpe.GPT2_PATTERN
    tok = ownbpe.Tokenizer.train_from_iterator([corpus], 256 + n_merges, pattern=pattern)
    vocab, merges = tok.vocab, tok.merges
    # Replay on distinct pre-tokens: each a list of token bytes, with its frequency.
    counts = Counter(regex.findall(pattern, corpus))
    words = [[bytes([b]) for b in w.encode("utf-8")] for w in counts]
    freqs = list(counts.values())
    data = corpus.encode("utf-8")
    rows = []
    for k, (left, right) in enumerate(merges, start=1):
        count = 0
        for w, f in zip(words, freqs):
            count += f * sum(1 for a, b in zip(w, w[1:]) if a == left and b == right)
        for w in words:
            i = 0
            while i < len(w) - 1:
                if w[i] == left and w[i + 1] == right:
                    w[i : i + 2] = [left + right]
                i += 1
        n_tokens = sum(f * len(w) for w, f in zip(words, freqs))
        step_tok = ownbpe.Tokenizer({i: vocab[i] for i in range(256 + k)}, merges[:k], pattern=pattern)
        ids = step_tok.encode_ordinary(corpus)
        rows.append({"step": k, "left": visible(_show(left)), "right": visible(_show(right)),
                     "merged": visible(_show(left + right)), "count": count, "n_tokens": n_tokens,
                     "bytes_per_token": len(data) / n_tokens,
                     "round_trip": step_tok.decode(ids) == corpus and len(ids) == n_tokens})
    rules = pd.DataFrame(rows, columns=["step", "left", "right", "merged", "count", "n_tokens", "bytes_per_token", "round_trip"])
    return BpeSteps(corpus, rules, dict(vocab), list(merges))


def _show(token: bytes) -> str:
    """A token as text; bytes that are not whole UTF-8 characters as <xx>."""
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"<{b:02x}>" for b in token)


# -- BPE lab: ownbpe and Hugging Face trained side by side ---------------------------------------------
@dataclass(frozen=True)
class TrainComparison:
    """Two trainers, same corpus, same vocabulary size.

    Attributes:
        summary: one row per trainer: trainer, seconds, n_merges, vocab_size.
        merges: step, ownbpe, hf, same (merged token at each step, whitespace visible).
        vocab: token, ownbpe_id, hf_id, in_both (every learned token, longest first).
        first_difference: the first step whose merges differ (None if none do).
        ownbpe, hf: the trained tokenizers (`ownbpe.Tokenizer`, `tokenizers.Tokenizer`).
    """

    summary: pd.DataFrame
    merges: pd.DataFrame
    vocab: pd.DataFrame
    first_difference: int | None
    ownbpe: object
    hf: object

    def split(self, text: str) -> pd.DataFrame:
        """How each trained tokenizer splits `text`."""
        own = [self.ownbpe.vocab[i] for i in self.ownbpe.encode_ordinary(text)]
        hf = [_hf_bytes(t) for t in self.hf.encode(text).tokens]
        return pd.DataFrame([{"trainer": "ownbpe", "n_tokens": len(own), "split": "|".join(visible(_show(t)) for t in own)},
                             {"trainer": "hf", "n_tokens": len(hf), "split": "|".join(visible(_show(t)) for t in hf)}])


def _hf_bytes(token: str) -> bytes:
    from ownbpe.io import gpt2_decode_token

    return gpt2_decode_token(token)


def train_both(corpus: str, vocab_size: int) -> TrainComparison:
    """Train `ownbpe` and HF `tokenizers`' BpeTrainer (ByteLevel, GPT-2 pattern) on `corpus`.

    Both start from the 256 byte tokens and learn `vocab_size - 256` merges (no special
    tokens), so their merges differ only where pair counts tie: ownbpe takes the
    lexicographically greatest pair, Hugging Face the smallest.

    Raises:
        ValueError: empty or oversized corpus, vocab_size out of range.

    >>> cmp = train_both("low lower lowest " * 5, 260)
    >>> cmp.summary["n_merges"].tolist()
    [4, 4]
    """
    import ownbpe
    from tokenizers import Tokenizer as HFTokenizer, decoders, models, pre_tokenizers, trainers

    if not corpus:
        raise ValueError("the corpus is empty: upload a text file or pick a built-in corpus")
    n_bytes = len(corpus.encode("utf-8"))
    if n_bytes > TRAIN_MAX_BYTES:
        raise ValueError(f"the corpus is {n_bytes:,} bytes; training here is limited to {TRAIN_MAX_BYTES:,}. "
                         "Train larger corpora with the CLI: tokenprism train")
    if not 257 <= vocab_size <= TRAIN_MAX_VOCAB:
        raise ValueError(f"vocabulary size must be 257..{TRAIN_MAX_VOCAB} (256 bytes + merges), got {vocab_size}")
    t0 = time.perf_counter()
    own = ownbpe.Tokenizer.train_from_iterator([corpus], vocab_size)
    t_own = time.perf_counter() - t0
    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=0, show_progress=False, special_tokens=[],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    t0 = time.perf_counter()
    hf.train_from_iterator([corpus], trainer)
    t_hf = time.perf_counter() - t0
    hf_merges = [tuple(_hf_bytes(s) for s in (m if isinstance(m, list) else m.split(" ")))
                 for m in json.loads(hf.to_str())["model"]["merges"]]
    own_tokens = [a + b for a, b in own.merges]
    hf_tokens = [a + b for a, b in hf_merges]
    n = max(len(own_tokens), len(hf_tokens))
    merges = pd.DataFrame({
        "step": range(1, n + 1),
        "ownbpe": [visible(_show(t)) for t in own_tokens] + [""] * (n - len(own_tokens)),
        "hf": [visible(_show(t)) for t in hf_tokens] + [""] * (n - len(hf_tokens)),
    }).assign(same=lambda d: d["ownbpe"] == d["hf"])
    diff = merges.loc[~merges["same"], "step"]
    hf_ids = {_hf_bytes(t): i for t, i in hf.get_vocab().items()}
    own_ids = {t: i for i, t in own.vocab.items()}
    own_set, hf_set = set(own_tokens), set(hf_tokens)
    learned = sorted(own_set | hf_set, key=lambda t: (-len(t), t))
    vocab = pd.DataFrame({
        "token": [visible(_show(t)) for t in learned],
        "ownbpe_id": pd.array([own_ids[t] if t in own_set else None for t in learned], dtype="Int64"),
        "hf_id": pd.array([hf_ids[t] if t in hf_set else None for t in learned], dtype="Int64"),
    }).assign(in_both=lambda d: d["ownbpe_id"].notna() & d["hf_id"].notna())
    summary = pd.DataFrame([
        {"trainer": "ownbpe", "seconds": t_own, "n_merges": len(own.merges), "vocab_size": own.n_vocab},
        {"trainer": "hf", "seconds": t_hf, "n_merges": len(hf_merges), "vocab_size": hf.get_vocab_size()},
    ])
    return TrainComparison(summary, merges, vocab, int(diff.iloc[0]) if len(diff) else None, own, hf)
