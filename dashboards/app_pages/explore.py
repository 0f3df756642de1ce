"""Explore: the analysis figures and tables on the built-in corpora, filtered, with CSV downloads."""

import streamlit as st

from analysis.pipeline import filter_frame
from dashboards import corpus_views, links, shared

SECTIONS = ["Categories", "1 · Code", "2 · Languages", "3 · Numbers", "4 · Whitespace", "5 · Boundaries"]

st.title("Explore")
st.caption("Every tokenizer on tokenprism's built-in corpora (prose, code, a parallel multilingual text, numbers, "
           "whitespace variants) and the five probes that explain the differences. Ratios are ratios of sums. "
           "Hover a chart for exact values; click a tokenizer in its legend to show only it.")

names = shared.tokenizer_names()
measured = corpus_views.explore_measured(tuple(names))
category_names = list(measured["category"].cat.categories)
language_names = sorted(measured["language"].astype(str).unique())

# -- link: ?ex_section=…&ex_tokenizers=…&ex_categories=…&ex_languages=… (each widget's key is its parameter)
links.check("explore", [
    links.Param("ex_section", "sections", choices=lambda: SECTIONS),
    links.Param("ex_tokenizers", "tokenizer names", choices=lambda: names, multi=True),
    links.Param("ex_categories", "categories", choices=lambda: category_names, multi=True),
    links.Param("ex_languages", "languages", choices=lambda: language_names, multi=True),
])

chosen = st.multiselect("Tokenizers", names, default=names, key="ex_tokenizers", bind="query-params")
c2, c3 = st.columns(2)
categories = c2.multiselect("Categories", category_names, key="ex_categories", placeholder="All categories",
                            bind="query-params")
languages = c3.multiselect("Languages", language_names, key="ex_languages", placeholder="All languages",
                           bind="query-params")
if not chosen:
    st.warning("Pick at least one tokenizer.")
    st.stop()
filters = {"tokenizers": chosen, "categories": categories or None, "languages": languages or None}


def show(name: str, table, *, plot: str | None = None, caption: str = "") -> None:
    """An interactive chart (if any), the table, and its CSV download."""
    if table.empty:
        st.info(f"No rows of {name} match the filters.")
        return
    if plot:
        corpus_views.show_chart(plot, table)
    if caption:
        st.caption(caption)
    st.dataframe(table, hide_index=True, width="stretch", height=min(38 + 35 * len(table), 320))
    # the CSV is written when the button is clicked, not on every run (the full table has ~10,000 rows)
    st.download_button(f"Download {name}.csv", lambda: table.to_csv(index=False).encode("utf-8"), f"{name}.csv",
                       "text/csv", key=f"dl_{name}", icon=":material/download:")


def probe(name: str):
    # computed for every tokenizer once (cached), then filtered: changing a filter is instant
    return filter_frame(corpus_views.probe_table(tuple(names), name), **filters)


# One section at a time (not tabs, which would compute every probe on the first visit).
c1, c2 = st.columns([6, 1], vertical_alignment="bottom")
section = c1.segmented_control("Section", SECTIONS, default="Categories", key="ex_section",
                               bind="query-params") or "Categories"
with c2:
    links.copy_link("explore")

if section == "Categories":
    rows = filter_frame(measured, **filters)
    if rows.empty:
        st.info("No sample matches the filters.")
    else:
        summary = corpus_views.summarize(rows, ("category", "tokenizer"))
        show("summary-by-category", summary, plot="chars_per_token_by_category",
             caption="Characters per token = total characters / total tokens of the category's samples "
                     "(a ratio of sums: long samples weigh as much as they cost).")
        with st.expander(f"Every sample × tokenizer ({len(rows):,} rows)"):
            show("measured", rows)

elif section == "1 · Code":
    st.markdown("Code spends tokens on indentation, punctuation runs and identifiers. Controlled variants of one "
                "file isolate one property each.")
    show("code-languages", probe("code-languages"), plot="code_languages")
    show("code-variants", probe("code-variants"), plot="code_variants")
    show("whitespace-tokens", probe("whitespace-tokens"))

elif section == "2 · Languages":
    st.markdown("Premium = tokens for a language ÷ tokens for English on the same parallel text.")
    show("language-premium", probe("language-premium"), plot="language_premium")
    show("tokenizer-reduction", probe("tokenizer-reduction"), plot="tokenizer_reduction")
    show("bytes-per-char", corpus_views.probe_table(tuple(names), "bytes-per-char"))

elif section == "3 · Numbers":
    show("digit-lengths", probe("digit-lengths"), plot="tokens_vs_digits")
    show("single-token-years", probe("single-token-years"), plot="single_token_years")
    show("single-token-numbers", probe("single-token-numbers"))
    show("digit-grouping", probe("digit-grouping"))
    show("thousands-separators", probe("thousands-separators"))

elif section == "4 · Whitespace":
    show("trailing-whitespace", probe("trailing-whitespace"), plot="whitespace_deltas")
    show("whitespace-summary", probe("whitespace-summary"))
    show("leading-space", probe("leading-space"))

else:
    if len(chosen) < 2:
        st.info("Pick two tokenizers or more to compare their boundaries.")
    else:
        show("agreement-matrix", probe("agreement-matrix"), plot="boundary_agreement",
             caption="Jaccard index of the sets of character offsets where tokens meet (1 = identical cuts).")
        show("boundary-agreement", probe("boundary-agreement"))
