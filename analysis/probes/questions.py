"""The questions people ask about tokenizers, each answered by one probe as a sentence and a table.

Unlike `run.PROBE_TABLES` (every probe table by name, for reports), this module starts from the
question: "why can't it spell?" maps to the spelling probe, its headline computed from its table.
Every face shows the same `Answer`: `tokenprism why`, the dashboard's Why page, the report bundle.
An answer is kept in the data dir (`kept`), keyed by the question, the tokenizers' names, sources
and sizes and `ANSWER_VERSION`, so a second ask is instant.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..errors import UnknownName
from ..pipeline import as_tokenizers
from ..tokenizers.base import Tokenizer
from . import kept

ANSWER_VERSION = 4  # bump when a probe's table or headline changes: kept answers are then recomputed
DEFAULT_TOKENIZERS = "gpt2,cl100k_base,o200k_base"


@dataclass(frozen=True)
class Answer:
    """One question's answer: the sentence first, the table behind it, and a note on the inputs."""

    question: str
    headline: str
    table: pd.DataFrame
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"question": self.question, "headline": self.headline, "note": self.note,
                "table": self.table.to_json(orient="split", index=False, force_ascii=False, double_precision=15)}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Answer":
        return cls(doc["question"], doc["headline"], pd.read_json(io.StringIO(doc["table"]), orient="split", dtype=False),
                   doc.get("note", ""))


@dataclass(frozen=True)
class Question:
    key: str
    ask: str
    answer: Callable[[list[Tokenizer]], Answer]
    tab: str = ""  # the short name a dashboard tab shows

    def command(self, tokenizers: str = DEFAULT_TOKENIZERS) -> str:
        return f"tokenprism why {self.key} -t {tokenizers}"


# -- the answers -----------------------------------------------------------------------------------
def _spell(toks: list[Tokenizer]) -> Answer:
    from .spelling import spell_word, spell_word_headline, spelling, spelling_headline

    table = spelling(toks)
    word = spell_word(toks[:1], "strawberry", "r")
    head = spelling_headline(table.drop(columns=["reversed_tokens_per_word", "reverse_ratio"]).assign(
        reverse_ratio=float("nan"))).split("; reversed")[0]
    return Answer("spell", f"{head}. {spell_word_headline(word, 'strawberry', 'r')}",
                  table.drop(columns=["reversed_tokens_per_word", "reverse_ratio"]), table.attrs.get("note", ""))


def _reverse(toks: list[Tokenizer]) -> Answer:
    from .spelling import spelling

    table = spelling(toks)[["tokenizer", "n_words", "tokens_per_word", "reversed_tokens_per_word", "reverse_ratio"]]
    worst = table.sort_values("reverse_ratio", ascending=False).iloc[0]
    best = table.sort_values("reverse_ratio").iloc[0]
    other = f"; {best['reverse_ratio']:.1f}x under {best['tokenizer']}" if len(table) > 1 else ""
    head = (f"Reversed, the {int(worst['n_words']):,} most common words cost {worst['reverse_ratio']:.1f}x the tokens "
            f"under {worst['tokenizer']} ({worst['tokens_per_word']:.2f} -> {worst['reversed_tokens_per_word']:.2f} "
            f"per word{other}): a reversed word is rarely in the "
            f"vocabulary, so the model must rebuild it from short pieces it never saw in that order.")
    return Answer("reverse", head, table, "words after a space, forward and reversed")


def _digits(toks: list[Tokenizer]) -> Answer:
    from .numbers import digits_headline, place_value_alignment

    table = place_value_alignment(toks)
    return Answer("digits", digits_headline(table), table,
                  "100 random integers of each length 4-12; aligned: every cut a multiple of 3 digits from the right")


def _languages(toks: list[Tokenizer]) -> Answer:
    from .languages import fertility_headline, language_fertility

    table = language_fertility("builtin", toks)
    return Answer("languages", fertility_headline(table), table,
                  "the built-in parallel text; `tokenprism probe language-premium --parallel DIR` for FLORES")


def _code(toks: list[Tokenizer]) -> Answer:
    from .code import code_languages

    table = code_languages(toks)
    name = table["tokenizer"].astype(str).iloc[0]
    t = table[table["tokenizer"].astype(str) == name].set_index("language")
    code = t.drop(index="English prose", errors="ignore")
    worst = code["chars_per_token_of_sums"].idxmin()
    best = code["chars_per_token_of_sums"].idxmax()
    prose = t.loc["English prose", "chars_per_token_of_sums"] if "English prose" in t.index else float("nan")
    head = (f"Under {name}, English prose runs at {prose:.2f} characters per token and code at "
            f"{code.loc[worst, 'chars_per_token_of_sums']:.2f} ({worst}) to {code.loc[best, 'chars_per_token_of_sums']:.2f} "
            f"({best}): symbols, indentation and identifiers merge less than words, so the same length costs up to "
            f"{code.loc[worst, 'token_premium_vs_prose']:.2f}x the tokens.")
    return Answer("code", head, table, "the built-in code corpus, per language")


def _trailing(toks: list[Tokenizer]) -> Answer:
    from .prompt_boundary import boundary_headline, prompt_boundary

    table = prompt_boundary(toks)
    return Answer("trailing-space", boundary_headline(table), table, "token healing's view of the prompt's last token")


def _endoftext(toks: list[Tokenizer]) -> Answer:
    from .special_strings import special_headline, special_strings

    table = special_strings(toks)
    return Answer("endoftext", special_headline(table), table,
                  "`compare`, `count` and `encode` warn on stderr when a text holds a special string")


def _yaml(toks: list[Tokenizer]) -> Answer:
    from .formats import format_density, format_headline

    table = format_density(toks)
    return Answer("yaml", format_headline(table), table, "50 built-in records; every rendering parses back to them")


def _magikarp(toks: list[Tokenizer]) -> Answer:
    from ..corpora import load_builtin
    from .glitch import LABEL, glitch_candidates, glitch_headline
    from .vocabulary import audit_vocabulary

    tok = toks[0]
    table = glitch_candidates(tok, audit_vocabulary(tok), corpus=list(load_builtin()["text"]), top=200)
    head = glitch_headline(tok.name, table)
    if tok.name in ("gpt2", "r50k_base", "p50k_base"):
        row = table[table["id"] == 43453]
        where = f"ranked {int(row['rank'].iloc[0])}" if len(row) else "outside the top 200"
        head += f" ' SolidGoldMagikarp' is one token there (43453), {where}: a Reddit user name the model never learned."
    return Answer("magikarp", head, table.assign(tokenizer=tok.name), LABEL)


def _vocabulary(toks: list[Tokenizer]) -> Answer:
    from .vocabulary import audit_headline, audit_table, audit_vocabulary

    table = audit_table([audit_vocabulary(t) for t in toks])
    return Answer("vocabulary", audit_headline(table), table,
                  "categories of Land & Bartolo 2024 (Fishing for Magikarp); `tokenprism vocab audit --tokens ...` lists them")


QUESTIONS: dict[str, Question] = {q.key: q for q in (
    Question("spell", "Why can't it spell (how many r's in strawberry)?", _spell, "Spelling"),
    Question("reverse", "Why can't it reverse a string?", _reverse, "Reversal"),
    Question("digits", "Why do digits and arithmetic go wrong?", _digits, "Digit direction"),
    Question("languages", "Why does a non-English text cost more?", _languages, "Fertility"),
    Question("code", "Why does code cost more than prose?", _code, "Code"),
    Question("trailing-space", "Why does a trailing space change the answer?", _trailing, "Prompt boundary"),
    Question("endoftext", "Why does <|endoftext|> break things?", _endoftext, "<|endoftext|>"),
    Question("yaml", "Is YAML cheaper than JSON?", _yaml, "YAML vs JSON"),
    Question("magikarp", "What is SolidGoldMagikarp?", _magikarp, "SolidGoldMagikarp"),
    Question("vocabulary", "What does my vocabulary hold?", _vocabulary, "Vocabulary"),
)}


def question(key: str) -> Question:
    if key not in QUESTIONS:
        raise UnknownName("question", key, QUESTIONS,
                          message=f"unknown question {key!r}; ask one of: {', '.join(QUESTIONS)}")
    return QUESTIONS[key]


def _digest(key: str, toks: Sequence[Tokenizer]) -> str:
    h = hashlib.sha256(f"tokenprism why v{ANSWER_VERSION}\n{key}\n".encode())
    for t in toks:
        h.update(f"{t.name}\t{t.source}\t{t.n_vocab}\t{t.normalize}\n".encode())
    return h.hexdigest()


def answer(key: str, tokenizers: Sequence[Tokenizer | str] | str | None = None) -> Answer:
    """The answer to question `key` for `tokenizers` (default `DEFAULT_TOKENIZERS`), kept after the first ask.

    >>> answer("digits", "cl100k_base").headline.startswith("cl100k_base cuts digits in threes from the left")
    True
    """
    q = question(key)
    toks = as_tokenizers(tokenizers or DEFAULT_TOKENIZERS)
    digest = _digest(key, toks)
    if not kept.enabled():
        return q.answer(toks)
    path = kept.kept_path("why", f"{key}-{'-'.join(t.name for t in toks)}", digest)
    doc = kept.read_kept(path, digest)
    if doc is not None:
        try:
            return Answer.from_json(doc)
        except (KeyError, TypeError, ValueError):
            pass
    got = q.answer(toks)
    kept.keep(path, digest, got.to_json())
    return got
