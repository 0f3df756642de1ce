"""Cost: a workload form -> cost per model (table, charts) and a downloadable report."""

import streamlit as st

from analysis.textio import decode_upload, input_problem
from analysis.report.cost import render_markdown, safe_table
from analysis.cost import DEFAULT_MODELS, display_models, format_usd
from analysis.corpora import sample_text
from dashboards import shared

st.title("Cost")
st.caption("What a workload costs under each model: your requests counted with each model's own tokenizer "
           "(or a named proxy, marked ~ as an estimate), priced from the maintained genai-prices data.")

source = st.segmented_control("Requests", ["Paste a prompt", "Upload a file", "Built-in corpus"],
                              default="Paste a prompt", key="cost_source")
if source == "Upload a file":
    upload = st.file_uploader("One request's text (UTF-8)", key="cost_upload")
    if upload is None:
        st.info("Upload the text of a typical request, or paste one.")
        st.stop()
    try:
        inputs, _ = decode_upload(upload.getvalue(), upload.name)
    except ValueError as e:
        st.error(str(e))
        st.stop()
    if input_problem(inputs):  # the same character limit as a pasted prompt
        st.warning(input_problem(inputs))
        st.stop()
elif source == "Built-in corpus":
    categories = st.multiselect("Categories (each sample is one request)", ["prose", "code", "multilingual"],
                                default=["prose", "code"], key="cost_categories")
    if not categories:
        st.warning("Pick at least one category.")
        st.stop()
    inputs = shared.builtin_samples().pipe(lambda d: d[d["category"].isin(categories)])
else:
    inputs = st.text_area("One request's text (the prompt)", sample_text(), height=140, key="cost_text")
    problem = input_problem(inputs)
    if problem:
        st.warning(problem)
        st.stop()

models = st.multiselect("Models", shared.model_choices(), default=list(DEFAULT_MODELS), key="cost_models",
                        help="Type to search every model with a price (provider:model).")
with st.form("workload"):
    st.markdown("**Workload**")
    c1, c2, c3 = st.columns(3)
    requests = c1.number_input("Requests per month", value=100_000, step=10_000, key="cost_rpm")
    messages = c2.number_input("Chat messages per request", value=2, step=1, key="cost_messages",
                               help="For the chat format's overhead tokens, where the provider documents it.")
    chars = c3.number_input("Characters per request (0: each text as it is)", value=0, step=500,
                            key="cost_chars", help="Scale each text to this length, keeping its tokens per character.")
    c1, c2, c3 = st.columns(3)
    out_mode = c1.radio("Output", ["tokens per request", "ratio of input tokens"], key="cost_out_mode")
    out_tokens = c2.number_input("Output tokens per request", value=300, step=50, key="cost_out_tokens")
    out_ratio = c2.number_input("Output / input tokens", value=0.5, step=0.1, key="cost_out_ratio")
    cached = c3.slider("Share of input served from the prompt cache", 0.0, 1.0, 0.0, step=0.05, key="cost_cached")
    st.form_submit_button("Estimate", type="primary", key="cost_go")

if not models:
    st.warning("Pick at least one model.")
    st.stop()
try:
    report = shared.cost_report(inputs, tuple(models), requests=int(requests), messages=int(messages),
                                chars=int(chars) or None, output_tokens=int(out_tokens) if out_mode.startswith("tokens") else None,
                                output_ratio=str(out_ratio) if out_mode.startswith("ratio") else None, cached=str(cached))
except (ValueError, KeyError) as e:
    st.error(e.args[0] if e.args else str(e))
    st.stop()

priced = report.models[report.models["usd_per_month"].notna()]
c1, c2, c3, c4 = st.columns(4)
c1.metric("Requests per month", f"{int(report.workload.requests_per_month):,}")
if len(priced):
    cheap = priced.loc[priced["usd_per_month"].idxmin()]
    dear = priced.loc[priced["usd_per_month"].idxmax()]
    c2.metric("Cheapest per month", format_usd(cheap["usd_per_month"]), cheap["model"], delta_color="off", delta_arrow="off")
    c3.metric("Dearest per month", format_usd(dear["usd_per_month"]), dear["model"], delta_color="off", delta_arrow="off")
c4.metric("Estimates (proxy tokenizer)", int((report.models["exactness"] == "approximate").sum()))
st.caption(f"Prices: {report.price_source}, in force on {report.on} (UTC). Workload: {report.workload.describe()}. "
           f"Input: {report.n_samples:,} request text(s), {report.n_chars:,} characters.")

st.dataframe(display_models(report), hide_index=True, width="stretch")
for tab, plot in zip(st.tabs(["Monthly cost by model", "Input cost vs characters per token"]),
                     ("plots_cost.monthly_cost_bar", "plots_cost.cost_vs_chars_per_token")):
    png = shared.figure_png(plot, report.models)
    if png:
        tab.image(png)
if len(report.categories):
    st.markdown("**By category** — the cost if every request were like this category")
    st.dataframe(report.categories.assign(**{c: report.categories[c].map(format_usd) for c in
                                             ("usd_per_request", "usd_per_month", "usd_per_mchar_input")}),
                 hide_index=True, width="stretch")
with st.expander("Notes: estimates, overheads, tiers", expanded=True):
    st.markdown("\n".join(f"- {n}" for n in report.notes))
    per_model = [f"- **{m}**: {n}" for m, n in zip(report.models["model"], report.models["note"]) if isinstance(n, str) and n]
    if per_model:
        st.markdown("\n".join(per_model))

c1, c2, c3 = st.columns(3)
c1.download_button("Report (HTML, with charts)", shared.cost_html(report), "tokenprism-cost-report.html", "text/html",
                   key="dl_cost_html", icon=":material/download:")
c2.download_button("Report (Markdown)", render_markdown(report).encode("utf-8"), "tokenprism-cost-report.md",
                   "text/markdown", key="dl_cost_md", icon=":material/download:")
c3.download_button("Cost by model (CSV)", safe_table(report.models).to_csv(index=False).encode("utf-8"), "cost_by_model.csv",
                   "text/csv", key="dl_cost_csv", icon=":material/download:")
