"""The five probes that explain *why* token counts differ, and one door to all their tables.

Unlike `pipeline.measure` (corpora x tokenizers, for totals), each probe feeds tokenizers controlled
inputs and returns a tidy DataFrame that isolates one cause:

1. code vs prose (`code`): chars/token per programming language; indentation, JSON
   layout and identifier style from controlled variants; share of pure-whitespace tokens.
2. languages (`languages`): premium vs a pivot language on parallel text; bytes per
   character by script; token reduction from one tokenizer to another.
3. numbers (`numbers`): tokens vs digit count; digit grouping; which of 0-9999 and
   which years are one token; thousands separators.
4. whitespace (`whitespace`): appending k spaces, a newline or a tab; " the" vs "the".
5. boundaries (`boundaries`): where tokenizers cut, compared pairwise (Jaccard).

`run_probe(name, ...)` computes one table by its name (the `tokenprism probe` names) and
`run_probes(...)` computes them all, sharing intermediate results (one measurement, one
0-9999 sweep) between tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable

import pandas as pd

from ..corpora import load_builtin
from ..errors import UnknownName
from ..pipeline import as_tokenizers, measure
from .boundaries import agreement_matrix, boundary_agreement
from .code import (
    code_languages,
    code_variants,
    whitespace_share_by_kind,
    whitespace_tokens,
)
from .languages import (
    bytes_per_char,
    language_premium,
    tokenizer_reduction,
)
from .numbers import (
    digit_grouping,
    digit_lengths,
    single_token_numbers,
    single_token_summary,
    single_token_years,
    thousands_separators,
)
from .whitespace import (
    leading_space,
    trailing_whitespace,
    whitespace_summary,
)


@dataclass
class ProbeRun:
    """Inputs shared by the probes of one run, and their intermediate results (computed once).

    Attributes:
        tokenizers: adapters (see `measure.as_tokenizers`).
        measured: a `pipeline.measure` frame of the built-in corpora (measured on first use if None).
        parallel: the parallel corpus for the language probe ("builtin" or a folder).
        pivot: its pivot language ("en", or a FLORES name such as "eng_Latn").
        texts: texts for the whitespace/boundary probes ({id: text}); None for their defaults.
        numbers: numbers for digit-grouping and thousands-separators (as written); None for their defaults.
        reduction: (new, old) tokenizers for `tokenizer_reduction`.
        progress: progress bars on stderr.
    """

    tokenizers: list = field(default_factory=list)
    measured: pd.DataFrame | None = None
    parallel: str | Path | pd.DataFrame = "builtin"
    pivot: str = "en"
    texts: dict[str, str] | None = None
    numbers: list[str] | None = None
    reduction: tuple[str, str] = ("o200k_base", "cl100k_base")
    progress: bool = False

    def __post_init__(self) -> None:
        self.tokenizers = as_tokenizers(self.tokenizers or None)

    @cached_property
    def corpus(self) -> pd.DataFrame:
        if self.measured is None:
            self.measured = measure(load_builtin(), self.tokenizers, progress=self.progress)
        return self.measured

    @cached_property
    def premium(self) -> pd.DataFrame:
        # measured again rather than reused from `corpus`: the parallel convention joins a
        # language's lines with single spaces, the built-in corpus keeps its newlines
        return language_premium(self.parallel, self.tokenizers, pivot=self.pivot, progress=self.progress)

    @cached_property
    def single(self) -> pd.DataFrame:
        return single_token_numbers(self.tokenizers)

    @cached_property
    def trailing(self) -> pd.DataFrame:
        texts = list(self.texts.values()) if self.texts else None
        return trailing_whitespace(self.tokenizers, *([texts] if texts else []))

    @cached_property
    def whitespace(self) -> pd.DataFrame:
        return whitespace_tokens(self.tokenizers)

    @cached_property
    def agreement(self) -> pd.DataFrame:
        return boundary_agreement(self.tokenizers, self.texts)

    def reduction_table(self) -> pd.DataFrame:
        """`tokenizer_reduction` of the `reduction` pair; when that pair is not among the
        tokenizers, of the last one given against the first, and the frame says so in
        `attrs["note"]` (the CLI prints it, the report states it): never a silent swap."""
        new, old = self.reduction
        names = [t.name for t in self.tokenizers]
        note = ""
        if new not in names or old not in names:
            note = (f"tokenizer-reduction compares {names[-1]} with {names[0]} (the last tokenizer given with "
                    f"the first): the default pair {new} vs {old} is not among the tokenizers")
            new, old = names[-1], names[0]
        frame = tokenizer_reduction(self.premium, new=new, old=old)
        if note:
            frame.attrs["note"] = note
        return frame


# name -> (probe number, description, how to compute it from a ProbeRun)
PROBE_TABLES: dict[str, tuple[int, str, Callable[[ProbeRun], pd.DataFrame]]] = {
    "code-languages": (1, "chars/token per programming language vs English prose",
                       lambda r: code_languages(r.tokenizers, measured=r.corpus)),
    "code-variants": (1, "token cost of indentation, JSON layout and identifier style",
                      lambda r: code_variants(r.tokenizers, measured=r.corpus)),
    "whitespace-tokens": (1, "share of tokens that are pure whitespace, per kind of text",
                          lambda r: whitespace_share_by_kind(r.whitespace)),
    "language-premium": (2, "tokens per language / tokens of the pivot language, parallel text",
                         lambda r: r.premium),
    "bytes-per-char": (2, "UTF-8 bytes per character by script", lambda r: bytes_per_char(r.premium)),
    "tokenizer-reduction": (2, "fewer tokens per language from one tokenizer to another",
                            lambda r: r.reduction_table()),
    "digit-lengths": (3, "tokens per integer by digit count", lambda r: digit_lengths(r.tokenizers)),
    "digit-grouping": (3, "how a run of digits is cut (123|456|7)",
                       lambda r: digit_grouping(r.tokenizers, *([r.numbers] if r.numbers else []))),
    "single-token-numbers": (3, "how many of 0-9999 and of the years 1900-2100 are one token",
                             lambda r: single_token_summary(r.single)),
    "single-token-years": (3, "each year 1900-2100: one token or not", lambda r: single_token_years(r.single)),
    "thousands-separators": (3, "the same integers with , . space ' _ separators",
                             lambda r: thousands_separators(r.tokenizers, numbers=r.numbers or None)),
    "trailing-whitespace": (4, "token change when appending k spaces, a newline or a tab", lambda r: r.trailing),
    "whitespace-summary": (4, "trailing whitespace pooled over texts", lambda r: whitespace_summary(r.trailing)),
    "leading-space": (4, '" the" vs "the": ids with and without a leading space',
                      lambda r: leading_space(r.tokenizers)),
    "boundary-agreement": (5, "pairwise Jaccard of token boundaries, per text", lambda r: r.agreement),
    "agreement-matrix": (5, "pairwise Jaccard of token boundaries, pooled over texts",
                         lambda r: agreement_matrix(r.agreement)),
}


# the tables that take the user's text (`tokenprism probe NAME --text TEXT`, which refuses it for any
# other table): the number tables through `ProbeRun.numbers`, the others through `ProbeRun.texts`
TEXT_TABLES = ("digit-grouping", "thousands-separators", "trailing-whitespace", "whitespace-summary",
               "boundary-agreement", "agreement-matrix")


def run_probe(name: str, run: ProbeRun | None = None, **options) -> pd.DataFrame:
    """One probe table by name (see `PROBE_TABLES`).

    Args:
        name: a key of `PROBE_TABLES`, e.g. "digit-grouping".
        run: a `ProbeRun` to share intermediate results between calls; or give its fields as
            keyword options (tokenizers=..., parallel=..., pivot=...).

    Raises:
        KeyError: an unknown name (the message lists the valid ones).

    >>> run_probe("digit-grouping", tokenizers=["cl100k_base"])["pieces"].tolist()
    ['123|456|7', '314|159|265|358|979|323|84']
    """
    if name not in PROBE_TABLES:
        raise UnknownName("probe table", name, PROBE_TABLES,
                          message=f"unknown probe table {name!r}; valid: {', '.join(PROBE_TABLES)}")
    run = run or ProbeRun(**options)
    return PROBE_TABLES[name][2](run)


def run_probes(run: ProbeRun | None = None, names=None, **options) -> dict[str, pd.DataFrame]:
    """Every probe table (or those in `names`), in `PROBE_TABLES` order, sharing one `ProbeRun`."""
    run = run or ProbeRun(**options)
    names = list(PROBE_TABLES) if names is None else list(names)
    return {name: run_probe(name, run) for name in names}
