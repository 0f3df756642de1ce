"""Probe 2, languages: why the same sentence costs four times more in Hindi under one tokenizer.

Unlike the `multilingual` rows of `pipeline.measure` (each language on its own), these probes need a
*parallel* corpus, where line N of every language says the same thing, so token counts can be
divided: premium = tokens(language) / tokens(pivot language), the "tokenization parity"
measure of published studies. Any parallel folder works (`corpus.load_parallel`): the built-in
one, or e.g. FLORES-200, whose dev and devtest lines are joined per language with single
spaces. Two causes separate cleanly here: bytes per character (a property of the script in
UTF-8: 1 for ASCII, 2 for Cyrillic, 3 for Devanagari and Han) and how many of those bytes
the vocabulary learned to merge (a property of the tokenizer's training data).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..corpora import load_parallel
from ..corpora.parallel import flores_language
from ..errors import BadInput, UnknownName
from ..tokenizers import TokenizersArg
from ..pipeline import as_tokenizers, measure

_FLORES = re.compile(r"^(?P<lang>[a-z]{2,3})_(?P<script>[A-Z][a-z]{3})$")


def _parallel_samples(parallel: str | Path | pd.DataFrame) -> pd.DataFrame:
    if isinstance(parallel, pd.DataFrame):
        if "language" not in parallel.columns or "text" not in parallel.columns:
            raise BadInput(f"a parallel frame needs language and text columns, got {list(parallel.columns)}")
        if parallel["language"].duplicated().any():
            raise BadInput("a parallel frame must hold one row per language (load_parallel(..., joined=True))")
        return parallel
    return load_parallel(parallel, joined=True, join=" ")


def resolve_pivot(pivot: str, languages) -> str:
    """The language tag for `pivot`: a tag present in `languages`, or a FLORES name (eng_Latn -> en).

    Raises:
        KeyError: the pivot is not among the languages (the message lists them).

    >>> resolve_pivot("eng_Latn", ["en", "fr"]), resolve_pivot("fr", ["en", "fr"])
    ('en', 'fr')
    """
    languages = [str(x) for x in languages]
    if pivot in languages:
        return pivot
    m = _FLORES.match(pivot)
    if m and flores_language(m["lang"], m["script"]) in languages:
        return flores_language(m["lang"], m["script"])
    raise UnknownName("pivot language", pivot, languages,
                      message=f"pivot language {pivot!r} is not in the parallel corpus; languages: {sorted(languages)}")


def language_premium(parallel: str | Path | pd.DataFrame = "builtin", tokenizers: TokenizersArg = None, *, pivot: str = "en",
                     measured: pd.DataFrame | None = None, progress: bool = False) -> pd.DataFrame:
    """Tokens per language relative to the pivot language, on a parallel corpus.

    Args:
        parallel: "builtin", a parallel folder (e.g. ../shared/corpora/flores200), or a frame
            from `corpus.load_parallel(..., joined=True)` (one row per language).
        tokenizers: names, adapters, a comma-separated string, or None (all available).
        pivot: the reference language: a tag of the corpus ("en") or a FLORES name ("eng_Latn").
        measured: a `pipeline.measure` frame of these samples, to skip measuring again.
        progress: progress bar on stderr.

    Returns:
        One row per language x tokenizer: language, script, tokenizer, n_chars, n_bytes,
        n_tokens, bytes_per_char, chars_per_token, premium (n_tokens / the pivot's n_tokens
        under the same tokenizer), pivot. Rows sorted by tokenizer, then premium.

    Raises:
        KeyError: the pivot is not a language of the corpus.

    >>> import pandas as pd
    >>> p = pd.DataFrame({"id": ["p/en", "p/ru"], "language": ["en", "ru"], "script": ["Latn", "Cyrl"],
    ...                   "text": ["The weather is nice today.", "Сегодня хорошая погода."]})
    >>> language_premium(p, "cl100k_base").set_index("language")["premium"].round(2).to_dict()
    {'en': 1.0, 'ru': 2.17}
    """
    samples = _parallel_samples(parallel)
    pivot_lang = resolve_pivot(pivot, samples["language"])
    toks = as_tokenizers(tokenizers)
    if measured is None:
        measured = measure(samples.assign(category=samples.get("category", "multilingual")), toks, progress=progress)
    per_lang = (measured.groupby(["language", "script", "tokenizer"], observed=True, sort=False)
                .agg(n_chars=("n_chars", "sum"), n_bytes=("n_bytes", "sum"), n_tokens=("n_tokens", "sum"))
                .reset_index()
                .astype({"language": "str", "script": "str"}))
    base = per_lang[per_lang["language"] == pivot_lang].set_index("tokenizer")["n_tokens"]
    return (per_lang
            .assign(bytes_per_char=lambda d: d["n_bytes"] / d["n_chars"],
                    chars_per_token=lambda d: d["n_chars"] / d["n_tokens"],
                    premium=lambda d: d["n_tokens"] / d["tokenizer"].map(base).astype(float),
                    pivot=pivot_lang)
            .sort_values(["tokenizer", "premium"], kind="stable")
            .reset_index(drop=True))


def bytes_per_char(premium: pd.DataFrame) -> pd.DataFrame:
    """UTF-8 bytes per character by script (ratio of sums over the script's languages).

    Tokenizer-independent: the floor under every byte-level tokenizer's cost for the script.

    Args:
        premium: a `language_premium` frame (or any frame with language, script, n_chars, n_bytes).

    Returns:
        One row per script: languages (comma-separated), n_chars, n_bytes, bytes_per_char;
        sorted by bytes_per_char.

    >>> import pandas as pd
    >>> f = pd.DataFrame({"language": ["en", "ru"], "script": ["Latn", "Cyrl"], "n_chars": [10, 10], "n_bytes": [10, 19]})
    >>> bytes_per_char(f)["bytes_per_char"].tolist()
    [1.0, 1.9]
    """
    one_per_language = premium.drop_duplicates("language") if "tokenizer" in premium.columns else premium
    return (one_per_language.groupby("script", sort=True)
            .agg(languages=("language", lambda s: ", ".join(sorted(map(str, s)))),
                 n_chars=("n_chars", "sum"), n_bytes=("n_bytes", "sum"))
            .reset_index()
            .assign(bytes_per_char=lambda d: d["n_bytes"] / d["n_chars"])
            .sort_values(["bytes_per_char", "script"], kind="stable")
            .reset_index(drop=True))


def tokenizer_reduction(premium: pd.DataFrame, new: str = "o200k_base", old: str = "cl100k_base") -> pd.DataFrame:
    """Per language, how many fewer tokens tokenizer `new` needs than `old` for the same text.

    Args:
        premium: a `language_premium` frame holding both tokenizers.
        new: the tokenizer compared (e.g. o200k_base).
        old: the reference (e.g. cl100k_base).

    Returns:
        One row per language: language, script, tokens_old, tokens_new, reduction_pct
        (100 * (1 - new / old); positive = fewer tokens), premium_old, premium_new, old, new;
        sorted by reduction_pct, largest first.

    Raises:
        KeyError: a tokenizer missing from the frame.
    """
    present = set(premium["tokenizer"].astype(str))
    missing = [t for t in (new, old) if t not in present]
    if missing:
        raise UnknownName("tokenizer", ", ".join(missing), present,
                          message=f"tokenizer(s) {missing} not in the premium frame; it has {sorted(present)}")
    wide = (premium.astype({"tokenizer": "str"})
            .loc[lambda d: d["tokenizer"].isin([new, old])]
            .pivot_table(index=["language", "script"], columns="tokenizer", values=["n_tokens", "premium"], observed=True))
    return (pd.DataFrame({"tokens_old": wide[("n_tokens", old)].astype("int64"),
                          "tokens_new": wide[("n_tokens", new)].astype("int64"),
                          "premium_old": wide[("premium", old)], "premium_new": wide[("premium", new)]})
            .reset_index()
            .assign(reduction_pct=lambda d: 100 * (1 - d["tokens_new"] / d["tokens_old"]), old=old, new=new)
            .sort_values(["reduction_pct", "language"], ascending=[False, True], kind="stable")
            .reset_index(drop=True)
            [["language", "script", "tokens_old", "tokens_new", "reduction_pct", "premium_old", "premium_new", "old", "new"]])


# Scripts written without spaces between words: their "words" are approximations (`corpora.words`).
NO_SPACE_SCRIPTS = frozenset({"Hans", "Hant", "Jpan", "Hani", "Thai", "Laoo", "Khmr", "Mymr", "Tibt"})


def language_fertility(parallel: str | Path | pd.DataFrame = "builtin", tokenizers: TokenizersArg = None) -> pd.DataFrame:
    """Fertility (Rust et al. 2021): tokens per word, and the share of words split into several tokens.

    Words are the text's whitespace-separated runs holding a letter or digit; each is encoded after
    a space, as it stands inside a sentence. For scripts written without spaces a "word" is a whole
    clause or sentence, so `no_spaces` flags them and their fertility is not comparable.

    Returns:
        One row per tokenizer x language: script, no_spaces, n_words, n_tokens (of the whole text),
        tokens_per_word, split_share.

    >>> f = language_fertility(tokenizers="cl100k_base").set_index("language")
    >>> bool(f.loc["en", "tokens_per_word"] < f.loc["hi", "tokens_per_word"])
    True
    """
    samples = _parallel_samples(parallel)
    rows = []
    for tok in as_tokenizers(tokenizers):
        texts = samples["text"].astype(str).tolist()
        totals = tok.count_batch(texts)
        for (_, s), total in zip(samples.iterrows(), totals):
            words = [w for w in str(s["text"]).split() if any(c.isalnum() for c in w)]
            counts = tok.count_batch([" " + w for w in words]) if words else []
            script = str(s.get("script", ""))
            rows.append({"tokenizer": tok.name, "language": s["language"], "script": script,
                         "no_spaces": script in NO_SPACE_SCRIPTS, "n_words": len(words), "n_tokens": int(total),
                         "tokens_per_word": total / len(words) if words else float("nan"),
                         "split_share": sum(1 for n in counts if n > 1) / len(words) if words else float("nan")})
    return pd.DataFrame(rows)


def fertility_headline(table: pd.DataFrame) -> str:
    """Under cl100k_base English takes 1.3 tokens per word and Hindi 5.0 ..."""
    if table.empty:
        return "No tokenizer was asked."
    name = table["tokenizer"].iloc[0]
    t = table[(table["tokenizer"] == name) & ~table["no_spaces"]].set_index("language")
    if t.empty:
        return f"Under {name} every language here is written without spaces: fertility is not comparable."
    worst = t["tokens_per_word"].idxmax()
    best = t["tokens_per_word"].idxmin()
    flagged = sorted(table.loc[table["no_spaces"], "language"].astype(str).unique())
    tail = f" ({', '.join(flagged)} are written without spaces and left out)" if flagged else ""
    return (f"Under {name}, {best} takes {t.loc[best, 'tokens_per_word']:.2f} tokens per word and splits "
            f"{t.loc[best, 'split_share']:.0%} of its words, {worst} {t.loc[worst, 'tokens_per_word']:.2f} tokens "
            f"per word with {t.loc[worst, 'split_share']:.0%} split{tail}.")
