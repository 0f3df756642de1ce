"""Probe 3, numbers: why "2023" is one token in one vocabulary and two in another.

Unlike the `numbers` corpus measured by `pipeline.measure` (numbers in context, for averages), these
probes use controlled inputs: integers of every length, every integer 0-9999, one number
written with different thousands separators. They show the two mechanisms at work: the
pre-tokenizer's digit rule (cl100k/o200k/DeepSeek/Llama 3 cut digit runs into groups of up to
three from the left, Qwen into single digits, GPT-2 not at all) and, inside what the rule
leaves, which digit strings the vocabulary happens to contain.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from ..errors import BadInput
from ..tokenizers import TokenizersArg
from ..pipeline import as_tokenizers, token_counts
from ..render import visible

DEFAULT_NUMBERS = ("1234567", "31415926535897932384")
SEPARATORS = {"none": "", "comma": ",", "dot": ".", "space": " ", "apostrophe": "'", "underscore": "_",
              "narrow-nbsp": "\u202f"}
CONTEXTS = {"bare": "", "leading space": " "}
YEARS = (1900, 2100)


def _random_integers(n_digits: int, count: int, rng: np.random.Generator) -> list[str]:
    digits = rng.integers(0, 10, size=(count, n_digits))
    digits[:, 0] = rng.integers(1, 10, size=count) if n_digits > 1 else digits[:, 0]  # no leading zero
    return ["".join(map(str, row)) for row in digits]


def _cat(values, names: Sequence[str]) -> pd.Categorical:
    return pd.Categorical(values, categories=list(names))


def digit_lengths(tokenizers: TokenizersArg = None, *, max_digits: int = 20, per_length: int = 100, seed: int = 0) -> pd.DataFrame:
    """Tokens per integer as a function of its digit count.

    Args:
        tokenizers: names, adapters, a comma-separated string, or None (all available).
        max_digits: longest integers tried (1..max_digits digits).
        per_length: random integers per length (seeded: the same numbers every run).
        seed: the random seed.

    Returns:
        One row per tokenizer x n_digits: n_numbers, n_tokens (total), tokens_per_number
        (n_tokens / n_numbers, a ratio of sums), min_tokens, max_tokens.

    >>> d = digit_lengths("cl100k_base", max_digits=7, per_length=5)
    >>> d.set_index("n_digits")["tokens_per_number"].tolist()
    [1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0]
    """
    if max_digits < 1 or per_length < 1:
        raise BadInput(f"max_digits and per_length must be >= 1, got {max_digits} and {per_length}")
    toks = as_tokenizers(tokenizers)
    rng = np.random.default_rng(seed)
    numbers = pd.DataFrame({"n_digits": np.repeat(np.arange(1, max_digits + 1), per_length),
                            "text": [s for d in range(1, max_digits + 1) for s in _random_integers(d, per_length, rng)]})
    texts = numbers["text"].tolist()
    counts = pd.concat([numbers.assign(tokenizer=t.name, n_tokens=token_counts(t, texts)) for t in toks],
                       ignore_index=True)
    return (counts.groupby(["tokenizer", "n_digits"], sort=False)
            .agg(n_numbers=("text", "size"), n_tokens=("n_tokens", "sum"),
                 min_tokens=("n_tokens", "min"), max_tokens=("n_tokens", "max"))
            .reset_index()
            .assign(tokens_per_number=lambda d: d["n_tokens"] / d["n_numbers"],
                    tokenizer=lambda d: _cat(d["tokenizer"], [t.name for t in toks]))
            [["tokenizer", "n_digits", "n_numbers", "n_tokens", "tokens_per_number", "min_tokens", "max_tokens"]])


def grouping_rule(groups: Sequence[int]) -> str:
    """Name the digit-grouping rule a list of digit-group sizes follows.

    >>> grouping_rule([3, 3, 1]), grouping_rule([1, 3, 3]), grouping_rule([1, 1, 1]), grouping_rule([3, 2, 2])
    ('threes from the left', 'threes from the right', 'single digits', 'vocabulary merges (irregular)')
    """
    g = list(groups)
    if not g:
        return "none"
    if all(x == 1 for x in g):
        return "single digits"
    left = all(x == 3 for x in g[:-1]) and 1 <= g[-1] <= 3
    right = all(x == 3 for x in g[1:]) and 1 <= g[0] <= 3
    if left and right:
        return "threes"
    if left:
        return "threes from the left"
    if right:
        return "threes from the right"
    return "vocabulary merges (irregular)"


def digit_grouping(tokenizers: TokenizersArg = None, numbers: Iterable[str] = DEFAULT_NUMBERS) -> pd.DataFrame:
    """How each tokenizer cuts a run of digits: the pieces, their sizes and the rule they follow.

    Args:
        tokenizers: as `digit_lengths`.
        numbers: digit strings (one row each).

    Returns:
        One row per tokenizer x number: n_digits, n_tokens, pieces ("123|456|7", one per token: a
        word-start marker token is "·"), pattern (the digit groups' sizes, "3-3-1"), rule (see
        `grouping_rule`).

    >>> digit_grouping("cl100k_base", ["1234567"])[["pieces", "pattern", "rule"]].iloc[0].tolist()
    ['123|456|7', '3-3-1', 'threes from the left']
    """
    toks = as_tokenizers(tokenizers)
    numbers = list(numbers)
    rows = []
    for tok in toks:
        for number, ids in zip(numbers, tok.encode_batch(numbers)):
            texts = [tok.token_bytes(i).decode("utf-8", "replace") for i in ids]
            # SentencePiece vocabularies prefix a word-start marker (a space): a token of its own, drawn
            # as · (as --show draws a space) so that every token is a piece, but no digit group
            pieces = [t.strip() or t.replace(" ", "·") or "·" for t in texts]
            # the digits of each token: a separator of the user's ("1,234,567") is no group of its own
            sizes = [n for n in (sum(c.isdigit() for c in t) for t in texts) if n] if not number.isdigit() else \
                [len(t.strip()) for t in texts if t.strip()]
            n_digits = sum(c.isdigit() for c in number)
            rows.append((tok.name, number, n_digits, len(ids), "|".join(pieces), "-".join(map(str, sizes)),
                         grouping_rule(sizes)))
    return pd.DataFrame(rows, columns=["tokenizer", "number", "n_digits", "n_tokens", "pieces", "pattern", "rule"]) \
        .assign(tokenizer=lambda d: _cat(d["tokenizer"], [t.name for t in toks]))


def single_token_numbers(tokenizers: TokenizersArg = None, *, stop: int = 10_000, contexts: Iterable[str] = tuple(CONTEXTS)) -> pd.DataFrame:
    """Which integers 0..stop-1 are one token, bare ("2024") and after a space (" 2024").

    Args:
        tokenizers: as `digit_lengths`.
        stop: integers 0..stop-1 are tried (default 0-9999).
        contexts: "bare" and/or "leading space".

    Returns:
        One row per tokenizer x context x number: number (int), n_tokens, single_token (bool).

    >>> s = single_token_numbers("cl100k_base", stop=1001, contexts=["bare"])
    >>> s.groupby("single_token").size().to_dict()  # 0-999 are single tokens, 1000 is "100" + "0"
    {False: 1, True: 1000}
    """
    toks = as_tokenizers(tokenizers)
    contexts = list(contexts)
    unknown = [c for c in contexts if c not in CONTEXTS]
    if unknown:
        raise BadInput(f"unknown context(s) {unknown}; valid: {list(CONTEXTS)}")
    numbers = np.arange(stop)
    frames = []
    for tok in toks:
        for context in contexts:
            texts = [CONTEXTS[context] + s for s in numbers.astype(str).tolist()]
            n_tokens = token_counts(tok, texts)
            frames.append(pd.DataFrame({"tokenizer": tok.name, "context": context, "number": numbers,
                                        "n_tokens": n_tokens}))
    return (pd.concat(frames, ignore_index=True)
            .assign(single_token=lambda d: d["n_tokens"] == 1,
                    tokenizer=lambda d: _cat(d["tokenizer"], [t.name for t in toks]),
                    context=lambda d: _cat(d["context"], contexts)))


def single_token_years(single: pd.DataFrame, *, years: tuple[int, int] = YEARS) -> pd.DataFrame:
    """The years slice (inclusive) of a `single_token_numbers` frame: the "2023 vs 2024" table.

    >>> s = single_token_numbers("gpt2", stop=2101, contexts=["bare"])
    >>> single_token_years(s).set_index("number").loc[[2000, 2024], "single_token"].tolist()
    [True, False]
    """
    return single[single["number"].between(*years)].reset_index(drop=True)


def single_token_summary(single: pd.DataFrame) -> pd.DataFrame:
    """Per tokenizer and context: how many integers of each length, and how many years, are one token.

    Returns:
        Columns tokenizer, context, single_1_digit ... single_4_digit (counts), single_years
        (1900-2100), all_single_below (the smallest integer that is not one token).
    """
    lengths = single["number"].astype(str).str.len()
    summary = (single.assign(n_digits=lengths)
               .pivot_table(index=["tokenizer", "context"], columns="n_digits", values="single_token",
                            aggfunc="sum", observed=True)
               .rename(columns=lambda d: f"single_{d}_digit"))
    years = (single_token_years(single).groupby(["tokenizer", "context"], observed=True)["single_token"].sum()
             .rename("single_years"))
    first_multi = (single[~single["single_token"]].groupby(["tokenizer", "context"], observed=True)["number"].min()
                   .rename("all_single_below"))
    return summary.join(years).join(first_multi).reset_index().astype({c: "int64" for c in summary.columns})


def thousands_separators(tokenizers: TokenizersArg = None, *, count: int = 200, seed: int = 0,
                         separators: dict[str, str] | None = None, numbers: Sequence[str] | None = None) -> pd.DataFrame:
    """The same integers written with different thousands separators ("1,234,567", "1 234 567", ...).

    Args:
        tokenizers: as `digit_lengths`.
        count: integers between 1,000 and 10^10 (seeded).
        seed: the random seed.
        separators: name -> separator (default `SEPARATORS`; "none" is the baseline).
        numbers: the integers to write instead of random ones (their digits are kept, any separator dropped).

    Returns:
        One row per tokenizer x separator: example, n_numbers, n_chars, n_tokens, rule (the digit
        grouping most of the numbers get: `grouping_rule` of the digits per token),
        tokens_per_number, extra_tokens_pct (vs "none").

    >>> t = thousands_separators("cl100k_base", count=20).set_index("separator")
    >>> bool(t.loc["comma", "n_tokens"] >= t.loc["none", "n_tokens"])
    True
    """
    toks = as_tokenizers(tokenizers)
    separators = dict(SEPARATORS if separators is None else separators)
    if "none" not in separators:
        separators = {"none": "", **separators}
    if numbers is not None:  # the user's numbers (`--text`), whatever separators they were written with
        digits = ["".join(c for c in n if c.isdigit()) for n in numbers]
        if not digits or not all(digits):
            raise BadInput(f"thousands-separators needs numbers, got {numbers[digits.index('')] if '' in digits else numbers!r}: "
                           "give integers such as 1234567 or 1,234,567")
        values = np.array([int(d) for d in digits], dtype=object)
        count = len(values)
    else:
        rng = np.random.default_rng(seed)
        values = np.floor(10 ** rng.uniform(3, 10, size=count)).astype(np.int64)
    plain = [f"{v:,}" for v in values.tolist()]  # comma-grouped; the comma is swapped below
    frames = []
    for tok in toks:
        for name, sep in separators.items():
            texts = [p.replace(",", sep) for p in plain]
            n_tokens = int(token_counts(tok, texts).sum())
            rules = Counter(grouping_rule(digit_groups(tok, t)) for t in texts[:50])
            frames.append((tok.name, name, visible(texts[0]), count, sum(map(len, texts)), n_tokens,
                           rules.most_common(1)[0][0]))
    out = pd.DataFrame(frames, columns=["tokenizer", "separator", "example", "n_numbers", "n_chars", "n_tokens", "rule"])
    base = out[out["separator"] == "none"].set_index("tokenizer")["n_tokens"]
    return out.assign(tokens_per_number=lambda d: d["n_tokens"] / d["n_numbers"],
                      extra_tokens_pct=lambda d: 100 * (d["n_tokens"] - d["tokenizer"].map(base)) / d["tokenizer"].map(base),
                      tokenizer=lambda d: _cat(d["tokenizer"], [t.name for t in toks]),
                      separator=lambda d: _cat(d["separator"], list(separators)))


def years_summary(years: pd.DataFrame, highlight: tuple[int, ...] = (2023, 2024, 2025)) -> pd.DataFrame:
    """Per tokenizer: how many years of a `single_token_years` frame are one token, and whether
    each year in `highlight` is.

    >>> y = single_token_years(single_token_numbers("gpt2", stop=2101, contexts=["bare"]))
    >>> years_summary(y, (2024,)).columns.tolist()
    ['tokenizer', 'single_token_years', '2024']
    """
    summary = (years.groupby("tokenizer", observed=True)["single_token"].sum().rename("single_token_years")
               .reset_index())
    for y in highlight:
        one = years[years["number"] == y].set_index("tokenizer")["single_token"]
        summary[str(y)] = summary["tokenizer"].map(one).astype(bool)
    return summary


def years_grid(years: pd.DataFrame, tokenizer: str) -> pd.DataFrame:
    """One tokenizer's rows of `single_token_years` as a decade x last-digit grid.

    Returns:
        Index "1900s".."2100s", columns "0".."9", values True (one token), False, or None
        (outside the probed range), as Python objects.

    >>> grid = years_grid(single_token_years(single_token_numbers("gpt2", stop=2101, contexts=["bare"])), "gpt2")
    >>> grid.loc["2000s", "0"], grid.loc["2100s", "1"]
    (True, None)
    """
    rows = years[years["tokenizer"] == tokenizer]
    cells = {(f"{n // 10 * 10}s", str(n % 10)): bool(v) for n, v in zip(rows["number"], rows["single_token"])}
    decades = sorted({d for d, _ in cells})
    return pd.DataFrame([[cells.get((d, str(k))) for k in range(10)] for d in decades],
                        index=decades, columns=[str(k) for k in range(10)], dtype=object)


def digit_groups(tok, text: str) -> list[int]:
    """The number of digits in each token of `text` that holds any ("1,234,567" under cl100k: [1, 3, 3]).

    >>> from analysis import load_tokenizer
    >>> digit_groups(load_tokenizer("cl100k_base", ), "1234567"), digit_groups(load_tokenizer("cl100k_base"), "1,234,567")
    ([3, 3, 1], [1, 3, 3])
    """
    sizes = [sum(c.isdigit() for c in text[p.start:p.end]) for p in tok.pieces(text)]
    return [n for n in sizes if n]


def aligned(groups: Sequence[int]) -> bool:
    """True when every cut between digit groups falls a multiple of three digits from the right
    (on a place-value boundary: thousands, millions).

    >>> aligned([1, 3, 3]), aligned([3, 3, 1]), aligned([2]), aligned([2, 2])
    (True, False, True, False)
    """
    right = 0
    for n in reversed(list(groups)[1:]):
        right += n
        if right % 3:
            return False
    return True


def place_value_alignment(tokenizers: TokenizersArg = None, *, digits: Sequence[int] = tuple(range(4, 13)),
                          per_length: int = 100, seed: int = 0, numbers: Sequence[str] | None = None) -> pd.DataFrame:
    """The share of numbers whose token cuts fall on place-value boundaries, bare and with commas.

    Singh & Strouse 2024 show that the direction of digit grouping matters for arithmetic: cl100k
    groups threes from the left ("123|456|7"), so its cuts rarely line up with thousands; commas
    force groups from the right.

    Args:
        tokenizers: adapters or names.
        digits: the lengths of the random integers (`per_length` of each, seeded).
        numbers: digit strings to use instead (`--text`): each is written bare and with commas.

    Returns:
        One row per tokenizer x form ("bare", "commas"): n_numbers, aligned_share, rule (the most
        common `grouping_rule`).

    >>> t = place_value_alignment("cl100k_base", digits=[7], per_length=20).set_index("form")
    >>> float(t.loc["commas", "aligned_share"]), float(t.loc["bare", "aligned_share"])
    (1.0, 0.0)
    """
    if numbers is None:
        rng = np.random.default_rng(seed)
        numbers = [s for n in digits for s in _random_integers(n, per_length, rng)]
    else:
        bad = [n for n in numbers if not n.isascii() or not n.isdigit()]
        if bad:
            raise BadInput(f"place-value alignment needs runs of digits, got {bad[0]!r}: give integers such as 1234567")
    forms = {"bare": list(numbers), "commas": [f"{int(n):,}" for n in numbers]}
    rows = []
    toks = as_tokenizers(tokenizers)
    for tok in toks:
        for form, texts in forms.items():
            groups = [digit_groups(tok, t) for t in texts]
            rules = Counter(grouping_rule(g) for g in groups)
            example = next((t for t in texts if sum(c.isdigit() for c in t) == 7), texts[0] if texts else "")
            rows.append({"tokenizer": tok.name, "form": form, "n_numbers": len(texts), "example": example,
                         "pieces": "|".join(example[p.start:p.end] for p in tok.pieces(example)),
                         "aligned_share": sum(map(aligned, groups)) / len(texts) if texts else float("nan"),
                         "rule": rules.most_common(1)[0][0] if rules else "none"})
    return pd.DataFrame(rows)


_RULE_WORDS = {"threes from the left": "in threes from the left", "threes from the right": "in threes from the right",
               "single digits": "into single digits", "vocabulary merges (irregular)": "wherever its merges fall"}


def digits_headline(table: pd.DataFrame) -> str:
    """cl100k_base cuts digits in threes from the left (123|456|7): 12% of numbers are cut on place-value boundaries, 100% with commas."""
    if table.empty:
        return "No tokenizer was asked."
    parts = []
    for name, g in table.groupby("tokenizer", sort=False, observed=True):
        g = g.set_index("form")
        bare, commas = g.loc["bare"], g.loc["commas"]
        how = _RULE_WORDS.get(bare["rule"], bare["rule"])
        parts.append(f"{name} cuts digits {how} ({bare['pieces']}): {bare['aligned_share']:.0%} of the "
                     f"numbers are cut on place-value boundaries, {commas['aligned_share']:.0%} with commas")
    return "; ".join(parts) + "."
