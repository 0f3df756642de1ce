"""One sentence per probe table (`run.PROBE_TABLES`), computed from the table: what `tokenprism probe
NAME` prints first, before a compact table.

Unlike `questions` (which starts from a question and runs its own probe), this module reads a table
a probe has already made; each function takes that frame and returns its sentence. A table with
no rows gets "No rows." rather than an invented answer.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd


def _s(frame: pd.DataFrame, col: str) -> pd.Series:
    return frame[col].astype(str)


def _code_languages(t: pd.DataFrame) -> str:
    name = _s(t, "tokenizer").iloc[0]
    part = t[_s(t, "tokenizer") == name].set_index(_s(t[_s(t, "tokenizer") == name], "language"))
    code = part.drop(index="English prose", errors="ignore")["chars_per_token_of_sums"]
    prose = part["chars_per_token_of_sums"].get("English prose", float("nan"))
    return (f"Under {name}, English prose runs at {prose:.2f} characters per token, code at {code.min():.2f} "
            f"({code.idxmin()}) to {code.max():.2f} ({code.idxmax()}).")


def _code_variants(t: pd.DataFrame) -> str:
    top = t.sort_values("token_change_pct", ascending=False).iloc[0]
    return (f"The costliest variant is {top['group']} written as {top['variant']} under {top['tokenizer']}: "
            f"{top['token_change_pct']:+.0f}% tokens against {top['baseline']} ({top['property']}).")


def _whitespace_tokens(t: pd.DataFrame) -> str:
    top = t.sort_values("whitespace_token_share", ascending=False).iloc[0]
    return (f"Whitespace is {top['whitespace_token_share']:.0%} of the tokens of {top['kind']} ({top['category']}) "
            f"under {top['tokenizer']}, the most of any kind of text here.")


def _premium(t: pd.DataFrame) -> str:
    top = t.sort_values("premium", ascending=False).iloc[0]
    return (f"The same text costs {top['premium']:.2f}x the tokens of {top['pivot']} in {top['language']} under "
            f"{top['tokenizer']}, the largest premium here.")


def _bytes_per_char(t: pd.DataFrame) -> str:
    top = t.sort_values("bytes_per_char", ascending=False).iloc[0]
    return f"{top['script']} takes {top['bytes_per_char']:.2f} UTF-8 bytes per character ({top['languages']}), the most of any script here."


def _reduction(t: pd.DataFrame) -> str:
    top = t.sort_values("reduction_pct", ascending=False).iloc[0]
    return (f"{top['new']} needs {top['reduction_pct']:.0f}% fewer tokens than {top['old']} for {top['language']}, "
            f"the largest cut here (median {t['reduction_pct'].median():.0f}%).")


def _digit_lengths(t: pd.DataFrame) -> str:
    top = t.sort_values("n_digits").groupby(_s(t, "tokenizer"), sort=False).last()
    return "; ".join(f"{name}: {r['tokens_per_number']:.1f} tokens for a {int(r['n_digits'])}-digit number"
                     for name, r in top.iterrows()) + "."


def _digit_grouping(t: pd.DataFrame) -> str:
    first = t.drop_duplicates("tokenizer")
    return "; ".join(f"{r['tokenizer']} cuts {r['number']} as {r['pieces']} ({r['rule']})" for _, r in first.iterrows()) + "."


def _single_numbers(t: pd.DataFrame) -> str:
    bare = t[_s(t, "context") == "bare"] if "context" in t else t
    return "; ".join(f"{r['tokenizer']}: {int(r['all_single_below']):,} of 0-9999 are one token before the first that is not"
                     f", {int(r['single_years'])} years of 1900-2100" for _, r in bare.iterrows()) + "."


def _single_years(t: pd.DataFrame) -> str:
    bare = t[_s(t, "context") == "bare"] if "context" in t else t
    n = bare.groupby(_s(bare, "tokenizer"))["single_token"].sum()
    return "Years 1900-2100 that are one token (bare): " + ", ".join(f"{k} {int(v)}" for k, v in n.items()) + "."


def _separators(t: pd.DataFrame) -> str:
    comma = t[_s(t, "separator") == "comma"]
    none = t[_s(t, "separator") == "none"]
    if comma.empty or none.empty:
        return "No comma row to compare with."
    r, b = comma.iloc[0], none.iloc[0]
    return (f"Under {r['tokenizer']}, commas add {r['extra_tokens_pct']:.0f}% tokens and turn the grouping from "
            f"{b['rule']} to {r['rule']} ({r['example']}).")


def _trailing(t: pd.DataFrame) -> str:
    one = t[(_s(t, "suffix_kind") == "spaces") & (t["k"] == 1)]
    if one.empty:
        return "No one-space rows."
    by = one.groupby(_s(one, "tokenizer"))["extra_tokens"].mean()
    return "One trailing space adds " + ", ".join(f"{v:.1f} tokens under {k}" for k, v in by.items()) + " (mean over the texts)."


def _ws_summary(t: pd.DataFrame) -> str:
    top = t.sort_values("extra_tokens_per_text", ascending=False).iloc[0]
    return (f"The costliest suffix is {top['suffix']} under {top['tokenizer']}: {top['extra_tokens_per_text']:.1f} extra "
            f"tokens per text, changing the last tokens in {top['share_last_tokens_changed']:.0%} of texts.")


def _leading(t: pd.DataFrame) -> str:
    forms = t[_s(t, "form") != "bare"]
    diff = forms[~forms["same_ids_as_bare"].astype(bool)]
    return (f"In {len(diff)} of {len(forms)} cases a word with a leading space is a different token from the bare word "
            f"(\" the\" is not \"the\"): the space belongs to the word.")


def _agreement(t: pd.DataFrame) -> str:
    pairs = t[_s(t, "tokenizer_a") != _s(t, "tokenizer_b")]
    if pairs.empty:
        return "One tokenizer: nothing to compare."
    low = pairs.sort_values("jaccard").iloc[0]
    return (f"{low['tokenizer_a']} and {low['tokenizer_b']} agree least on where tokens meet: Jaccard "
            f"{low['jaccard']:.2f} (1 = identical cuts).")


HEADLINES: dict[str, Callable[[pd.DataFrame], str]] = {
    "code-languages": _code_languages, "code-variants": _code_variants, "whitespace-tokens": _whitespace_tokens,
    "language-premium": _premium, "bytes-per-char": _bytes_per_char, "tokenizer-reduction": _reduction,
    "digit-lengths": _digit_lengths, "digit-grouping": _digit_grouping, "single-token-numbers": _single_numbers,
    "single-token-years": _single_years, "thousands-separators": _separators, "trailing-whitespace": _trailing,
    "whitespace-summary": _ws_summary, "leading-space": _leading, "boundary-agreement": _agreement,
    "agreement-matrix": _agreement,
}


def headline(name: str, table: pd.DataFrame) -> str:
    """The sentence for probe table `name`, computed from `table`.

    >>> from analysis.probes import run_probe
    >>> headline("digit-grouping", run_probe("digit-grouping", tokenizers=["cl100k_base"]))
    'cl100k_base cuts 1234567 as 123|456|7 (threes from the left).'
    """
    if table.empty:
        return "No rows."
    return HEADLINES[name](table)
