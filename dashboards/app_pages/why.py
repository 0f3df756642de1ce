"""Why: a tab per question (its headline, table and figure), digits and years, trailing spaces, and the
merge trace of a word under a real vocabulary."""

import pandas as pd
import streamlit as st

from analysis.plots.answers import answer_figure
from analysis.probes import questions

from analysis.probes.numbers import years_grid, years_summary
from analysis.probes.whitespace import SUFFIX_CHARS, before_after, suffix_label
from analysis.textio import WHY_LIMITS, short_input_problem
from analysis.render import html_tokens
from dashboards import corpus_views, links, look, shared

st.title("Why")
st.caption("Why a number, a trailing space or a long word costs what it costs: the pre-tokenizer's rules and "
           "the merges a vocabulary happens to contain.")

names = shared.tokenizer_names()
QUESTION_TABS = {q.tab: key for key, q in questions.QUESTIONS.items()}
TABS = ["Digits and years", "Trailing spaces", "Merge trace", *QUESTION_TABS]

# -- link: ?why_tab=…&why_number=…&trace_word=… and the other inputs (each widget's key is its parameter)
links.check("why", [
    links.Param("why_tab", "tabs", choices=lambda: TABS),
    links.Param("why_number", "a number"), links.Param("why_context", "contexts", choices=lambda: ["bare", "leading space"]),
    links.Param("why_years_tok", "tokenizer names", choices=lambda: names),
    links.Param("ws_text", "a short text"), links.Param("ws_kind", "suffixes", choices=lambda: ["spaces", "newline", "tab"]),
    links.Param("ws_k", "a whole number of spaces", number="int", low=1, high=8),
    links.Param("ws_tok", "tokenizer names", choices=lambda: names),
    links.Param("trace_word", "a word"),
    links.Param("trace_tok", "tiktoken-family vocabularies",
                choices=lambda: [n for n in names if corpus_views.family(n) == "tiktoken"]),
    *(links.Param(f"why_{key.replace('-', '_')}_toks", "tokenizer names", choices=lambda: names, multi=True)
      for key in questions.QUESTIONS),
])
links.copy_link("why")
digits_tab, spaces_tab, trace_tab, *question_tabs = st.tabs(TABS, key="why_tab", bind="query-params")


@st.cache_data(max_entries=64, show_spinner="Answering…")
def cached_answer(key: str, chosen: tuple[str, ...]) -> tuple[str, str, pd.DataFrame]:
    """(headline, note, table) of one question for the chosen tokenizers (kept in the data dir too)."""
    got = questions.answer(key, list(chosen))
    return got.headline, got.note, got.table


def question(key: str) -> None:
    q = questions.QUESTIONS[key]
    default = [n for n in questions.DEFAULT_TOKENIZERS.split(",") if n in names] or names[:2]
    if key == "magikarp":
        default = default[:1]
    chosen = st.multiselect("Tokenizers", names, default=default, key=f"why_{key.replace('-', '_')}_toks",
                            bind="query-params", help="SolidGoldMagikarp answers for the first one chosen."
                            if key == "magikarp" else None)
    if not chosen:
        st.warning("Choose at least one tokenizer.")
        return
    headline, note, table = cached_answer(key, tuple(chosen))
    st.subheader(q.ask)
    st.markdown(f"**{headline}**")
    left, right = st.columns([3, 2])
    left.dataframe(table.head(30), hide_index=True, width="stretch")
    if len(table) > 30:
        left.caption(f"The first 30 of {len(table):,} rows; `{q.command(','.join(chosen))} --all` prints every one.")
    right.pyplot(answer_figure(key, table))
    st.caption(f"{note}. The same answer on the command line: `{q.command(','.join(chosen))}`.")


def digits() -> None:
    number = st.text_input("Type a number", "1234567", key="why_number", bind="query-params", max_chars=WHY_LIMITS["number"],
                           help="Try 2023 and 2024, 31415926535, or 1,234,567 with separators.")
    if short_input_problem(number, "number"):
        st.warning(short_input_problem(number, "number"))
        return
    if not any(c.isdigit() for c in number):
        st.warning("Type a number: some digits, e.g. 1234567.")
        return
    grouping = corpus_views.digit_grouping(tuple(names), number)
    st.markdown("**How each tokenizer groups the digits** (`|` marks token boundaries)")
    left, right = st.columns([3, 2])
    left.table(shared.styled(grouping[["tokenizer", "n_tokens", "pieces", "pattern", "rule"]]), hide_index=True)
    with right:
        corpus_views.show_chart("digit_grouping", grouping)

    st.markdown("**Which years are a single token?** (from the numbers probe: 1900–2100)")
    c1, c2 = st.columns([1, 1])
    context = c1.segmented_control("Written", ["bare", "leading space"], default="bare", key="why_context",
                                   bind="query-params", help="'leading space' is the year inside a sentence: ' 2024'.")
    years = corpus_views.single_token_years(tuple(names), context or "bare")
    left, right = st.columns([2, 3])
    left.table(shared.styled(years_summary(years)), hide_index=True)
    pick = c2.selectbox("Grid for", names, index=names.index(shared.default_names(names, ("gpt2",))[0]), key="why_years_tok",
                        bind="query-params")
    left.caption("A year can only be one token if the pre-tokenizer lets four digits stay together: cl100k, o200k "
                 "and DeepSeek cut digit runs into groups of at most three, Qwen into single digits.")
    grid = years_grid(years, pick)
    right.table(grid.style.format(lambda v: "✓" if v is True else "", na_rep="").map(
        lambda v: "background-color: #9fd8b0" if v is True else "background-color: #eceef2" if v is False else ""))
    corpus_views.show_chart("single_token_years", years)


def trailing_spaces() -> None:
    text = st.text_input("Text", "Hello world", key="ws_text", bind="query-params", max_chars=WHY_LIMITS["text"])
    if short_input_problem(text, "text"):
        st.warning(short_input_problem(text, "text"))
        return
    c1, c2 = st.columns(2)
    kind = c1.segmented_control("Append", ["spaces", "newline", "tab"], default="spaces", key="ws_kind",
                                bind="query-params") or "spaces"
    k = c2.slider("How many", 1, 8, 1, key="ws_k", bind="query-params") if kind == "spaces" else 1
    if not text:
        st.warning("Type a short text, e.g. Hello world.")
        return
    label = suffix_label(kind, k)
    table = before_after(corpus_views.trailing_whitespace(tuple(names), text, k), kind, k)
    left, right = st.columns([3, 2])
    left.table(shared.styled(table), hide_index=True)
    with right:
        corpus_views.show_chart("trailing_suffix", table)
    st.caption("*last_tokens_changed*: the suffix did not just add tokens, it changed how the end of the text is "
               "cut. *new tokens*: from the first token that differs.")
    pick = st.selectbox("Draw before and after for", names, index=names.index(shared.default_names(names)[0]), key="ws_tok",
                        bind="query-params")
    suffix = SUFFIX_CHARS[kind] * k
    st.html(look.LEGEND)
    c1, c2 = st.columns(2)
    c1.markdown(f"**Before** · {int(table.set_index('tokenizer').loc[pick, 'before'])} tokens")
    c1.html(look.Html(html_tokens(text, shared.pieces(text, pick))))
    c2.markdown(f"**After** appending {label} · {int(table.set_index('tokenizer').loc[pick, 'after'])} tokens")
    c2.html(look.Html(html_tokens(text + suffix, shared.pieces(text + suffix, pick))))


def merge_trace() -> None:
    tiktoken_names = [n for n in names if corpus_views.family(n) == "tiktoken"]
    c1, c2 = st.columns([2, 1])
    word = c1.text_input("Word or short text", "tokenization", key="trace_word", bind="query-params")
    name = c2.selectbox("Vocabulary", tiktoken_names, index=tiktoken_names.index(shared.default_names(tiktoken_names)[0]),
                        key="trace_tok", bind="query-params")
    if not word:
        st.warning("Type a word, e.g. tokenization.")
        return
    if len(word) > 200:
        st.warning(f"Merge traces are for short texts: {len(word)} characters given, up to 200 accepted.")
        return
    pieces, steps, ids = corpus_views.merge_trace(name, word)
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
for tab, key in zip(question_tabs, QUESTION_TABS.values()):
    if tab.open:  # a question runs its probe only when its tab is the one shown (the tabs are bound to the URL)
        with tab:
            question(key)
