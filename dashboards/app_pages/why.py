"""Why: digits and years, trailing spaces, and the merge trace of a word under a real vocabulary."""

import streamlit as st

from analysis.textio import WHY_LIMITS, short_input_problem

from analysis.probes.numbers import years_grid
from analysis.render import html_tokens
from dashboards import shared

st.title("Why")
st.caption("Why a number, a trailing space or a long word costs what it costs: the pre-tokenizer's rules and "
           "the merges a vocabulary happens to contain.")

names = shared.tokenizer_names()
digits_tab, spaces_tab, trace_tab = st.tabs(["Digits and years", "Trailing spaces", "Merge trace"])


def digits() -> None:
    number = st.text_input("Type a number", "1234567", key="why_number", max_chars=WHY_LIMITS["number"],
                           help="Try 2023 and 2024, 31415926535, or 1,234,567 with separators.")
    if short_input_problem(number, "number"):
        st.warning(short_input_problem(number, "number"))
        return
    if not any(c.isdigit() for c in number):
        st.warning("Type a number: some digits, e.g. 1234567.")
        return
    grouping = shared.digit_grouping(tuple(names), number)
    st.markdown("**How each tokenizer groups the digits** (`|` marks token boundaries)")
    st.table(shared.styled(grouping[["tokenizer", "n_tokens", "pieces", "pattern", "rule"]]), hide_index=True)

    st.markdown("**Which years are a single token?** (from the numbers probe: 1900–2100)")
    c1, c2 = st.columns([1, 1])
    context = c1.segmented_control("Written", ["bare", "leading space"], default="bare", key="why_context",
                                   help="'leading space' is the year inside a sentence: ' 2024'.")
    years = shared.single_token_years(tuple(names), context or "bare")
    summary = (years.groupby("tokenizer", observed=True)["single_token"].sum().rename("single_token_years")
               .reset_index())
    for y in (2023, 2024, 2025):
        summary[str(y)] = summary["tokenizer"].map(years[years["number"] == y].set_index("tokenizer")["single_token"])
    left, right = st.columns([2, 3])
    left.table(shared.styled(summary.astype({str(y): bool for y in (2023, 2024, 2025)})), hide_index=True)
    pick = c2.selectbox("Grid for", names, index=names.index(shared.default_names(names, ("gpt2",))[0]), key="why_years_tok")
    left.caption("A year can only be one token if the pre-tokenizer lets four digits stay together: cl100k, o200k "
                 "and DeepSeek cut digit runs into groups of at most three, Qwen into single digits.")
    grid = years_grid(years, pick)
    right.table(grid.style.format(lambda v: "✓" if v is True else "", na_rep="").map(
        lambda v: "background-color: #9fd8b0" if v is True else "background-color: #eceef2" if v is False else ""))


def trailing_spaces() -> None:
    text = st.text_input("Text", "Hello world", key="ws_text", max_chars=WHY_LIMITS["text"])
    if short_input_problem(text, "text"):
        st.warning(short_input_problem(text, "text"))
        return
    c1, c2 = st.columns(2)
    kind = c1.segmented_control("Append", ["spaces", "newline", "tab"], default="spaces", key="ws_kind") or "spaces"
    k = c2.slider("How many", 1, 8, 1, key="ws_k") if kind == "spaces" else 1
    if not text:
        st.warning("Type a short text, e.g. Hello world.")
        return
    label = {"spaces": f"{k} space{'s' if k != 1 else ''}", "newline": "newline", "tab": "tab"}[kind]
    rows = shared.trailing_whitespace(tuple(names), text, k)
    before = rows[rows["suffix"] == "0 spaces"].set_index("tokenizer")["n_tokens"]
    after = rows[rows["suffix"] == label].assign(before=lambda d: d["tokenizer"].map(before).astype(int))
    table = after.assign(last_tokens_changed=~after["prefix_kept"].astype(bool))[
        ["tokenizer", "before", "n_tokens", "extra_tokens", "last_tokens_changed", "tail"]].rename(
        columns={"n_tokens": "after", "tail": "new tokens"})
    st.table(shared.styled(table), hide_index=True)
    st.caption("*last_tokens_changed*: the suffix did not just add tokens, it changed how the end of the text is "
               "cut. *new tokens*: from the first token that differs.")
    pick = st.selectbox("Draw before and after for", names, index=names.index(shared.default_names(names)[0]), key="ws_tok")
    suffix = " " * k if kind == "spaces" else "\n" if kind == "newline" else "\t"
    st.html(shared.LEGEND)
    c1, c2 = st.columns(2)
    c1.markdown(f"**Before** · {int(before[pick])} tokens")
    c1.html(html_tokens(text, shared.pieces(text, pick)))
    c2.markdown(f"**After** appending {label} · {int(table.set_index('tokenizer').loc[pick, 'after'])} tokens")
    c2.html(html_tokens(text + suffix, shared.pieces(text + suffix, pick)))


def merge_trace() -> None:
    tiktoken_names = [n for n in names if shared.family(n) == "tiktoken"]
    c1, c2 = st.columns([2, 1])
    word = c1.text_input("Word or short text", "tokenization", key="trace_word")
    name = c2.selectbox("Vocabulary", tiktoken_names, index=tiktoken_names.index(shared.default_names(tiktoken_names)[0]),
                        key="trace_tok")
    if not word:
        st.warning("Type a word, e.g. tokenization.")
        return
    if len(word) > 200:
        st.warning(f"Merge traces are for short texts: {len(word)} characters given, up to 200 accepted.")
        return
    pieces, steps, ids = shared.merge_trace(name, word)
    expected = shared.tokenizer(name).encode(word)
    if ids == expected:
        st.success(f"ownbpe, replaying {name}'s ranks, gives exactly tiktoken's ids: {ids}", icon=":material/check_circle:")
    else:
        st.error(f"ownbpe gives {ids} but {name} gives {expected}.")
    st.markdown("**Pre-tokens** — the split pattern cuts the text first; merges never cross these pieces")
    st.table(shared.styled(pieces), hide_index=True)
    st.markdown("**Merges in the order they fired** — always the pair with the lowest rank (the earliest learned) next")
    st.dataframe(steps, hide_index=True, width="stretch", height=min(38 + 35 * len(steps), 420))
    if pieces["whole_piece_in_vocab"].any():
        st.caption("*whole_piece_in_vocab*: the whole pre-token is a token, so tiktoken takes it at once; the merges "
                   "shown are those that build it.")


with digits_tab:
    digits()
with spaces_tab:
    trailing_spaces()
with trace_tab:
    merge_trace()
