"""One figure per why-question, drawn from its answer's table (`probes.questions.Answer`).

Unlike `figures` (one function per probe table, for the report's sections), this module draws every
question the same way, a grouped horizontal bar chart, from a row of `SPECS`: which column is a
bar, which groups them, and a title with units. The CLI's report, the dashboard's Why page and the
tests draw the same `Figure`.
"""

from __future__ import annotations

from typing import NamedTuple

import pandas as pd
from matplotlib.figure import Figure

from .figures import _PALETTE


class Spec(NamedTuple):
    y: str  # the rows (categories on the vertical axis)
    x: str  # the bar length
    hue: str | None  # one bar colour per value of this column (None: one colour)
    title: str
    xlabel: str
    top: int = 30  # rows drawn at most (the largest x first)


SPECS: dict[str, Spec] = {
    "spell": Spec("tokenizer", "one_token_share", None, "Common words that are one token (their letters unseen)",
                  "share of the most common words that are a single token after a space"),
    "reverse": Spec("tokenizer", "reverse_ratio", None, "Reversed words cost more tokens",
                    "tokens of the reversed words / tokens of the same words forward"),
    "digits": Spec("tokenizer", "aligned_share", "form", "Numbers cut on place-value boundaries",
                   "share of numbers whose every cut is a multiple of 3 digits from the right"),
    "languages": Spec("language", "tokens_per_word", "tokenizer", "Fertility: tokens per word by language",
                      "tokens per whitespace-separated word (languages without spaces left out)"),
    "code": Spec("language", "chars_per_token_of_sums", "tokenizer", "Characters per token: code vs English prose",
                 "characters per token (higher = fewer tokens)"),
    "trailing-space": Spec("tokenizer", "space_initial_share", None, "Vocabulary tokens that begin with a space",
                           "share of the vocabulary's tokens whose first byte is a space"),
    "endoftext": Spec("tokenizer", "tokens_as_text", None, "'<|endoftext|>' counted as text",
                      "tokens of the string when it is read as text (one special id when read as special)"),
    "yaml": Spec("format", "n_tokens", "tokenizer", "The same records in six formats", "tokens for all the records"),
    "magikarp": Spec("token", "score", None, "Glitch-token candidates (confirming needs the model)",
                     "score: the weighted signals (unreachable, inside a longer token, identifier, unseen)", 20),
    "vocabulary": Spec("tokenizer", "utf8_fragments", None, "UTF-8 fragments per vocabulary",
                       "tokens of several bytes that are not valid UTF-8 on their own"),
}


def answer_figure(key: str, table: pd.DataFrame) -> Figure:
    """The figure of question `key` (a key of `SPECS`) from its answer's table."""
    spec = SPECS[key]
    data = table.copy()
    if key == "languages" and "no_spaces" in data:
        data = data[~data["no_spaces"].astype(bool)]
    data[spec.y] = data[spec.y].astype(str)
    if spec.hue:
        data[spec.hue] = data[spec.hue].astype(str)
        wide = data.pivot_table(index=spec.y, columns=spec.hue, values=spec.x, aggfunc="first", sort=False)
    else:
        wide = data.drop_duplicates(spec.y).set_index(spec.y)[[spec.x]]
    wide = wide.loc[wide.max(axis=1).sort_values(ascending=False).index[: spec.top]].iloc[::-1]
    n_rows, n_hue = len(wide), max(len(wide.columns), 1)
    fig = Figure(figsize=(8.5, 0.28 * n_rows * max(1, n_hue ** 0.5) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    height = 0.8 / n_hue
    for k, col in enumerate(wide.columns):
        ax.barh([i + (k - (n_hue - 1) / 2) * height for i in range(n_rows)], wide[col].fillna(0).to_numpy(),
                height=height, color=_PALETTE[k % len(_PALETTE)], label=str(col) if spec.hue else None)
    ax.set_yticks(range(n_rows), [str(v) for v in wide.index])
    ax.set_xlabel(spec.xlabel)
    ax.set_title(spec.title)
    ax.grid(axis="x", alpha=0.3)
    ax.spines[["top", "right"]].set_visible(False)
    if spec.hue and n_hue > 1:
        ax.legend(fontsize=7, title=spec.hue, title_fontsize=7, loc="lower right")
    return fig
